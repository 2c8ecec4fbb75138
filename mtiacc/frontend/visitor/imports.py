"""The user's own modules: ``from mylib import helper``, ``import mylib`` then ``mylib.helper``.

A module name is looked up on the file system, relative to the kernel file's folder (the
project root, as ``python kernel.py`` would put it first on ``sys.path``), then relative to the
importing file's folder: ``a.b`` is ``a/b.py`` or ``a/b/__init__.py``.  A relative import
(``from .mylib import f``) starts at the importing file's folder.  A module found there is read
and parsed with ``ast`` and scanned like the kernel's file, never imported or executed.  A name
that is not found is left to the usual rules (``numpy`` stays a foreign module).
"""
from __future__ import annotations

import dataclasses
import os
from typing import Callable, Dict, List, Optional, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.inductor.runtime import PACKAGE, bundled_path
from mtiacc.frontend.source import SourceFile
from mtiacc.frontend.values import FunctionRef, HelperRef, NonConstantGlobal
from mtiacc.frontend.visitor.module_scan import ModuleInfo, scan_module


@dataclasses.dataclass(eq=False)
class LoadedModule:
    """A module of the user's project, scanned statically."""

    name: str
    path: str                 # the .py file ("" for a folder without __init__.py)
    src: Optional[SourceFile]
    info: ModuleInfo
    importer: "Importer"

    @property
    def description(self) -> str:
        return f"the module `{self.name}`"

    def member(self, attr: str):
        """What ``from <module> import attr`` binds, or None when the module has no such name."""
        scope = self.info.scope
        if attr in scope:
            v = scope[attr]
            if isinstance(v, FunctionRef) and v.jit:
                return HelperRef(self, attr)
            return v
        return self.importer.find(f"{self.name}.{attr}", os.path.dirname(self.path or ""))

    def frontend_attr(self, attr: str):
        """``module.attr`` inside a kernel."""
        v = self.member(attr)
        if v is None:
            raise CompileError(f"module '{self.name}' has no attribute '{attr}'")
        if isinstance(v, NonConstantGlobal):
            raise CompileError(f"global '{self.name}.{attr}' is not a compile-time constant; a kernel "
                               "may only use constant globals")
        return v


class Importer:
    """Finds and scans the user's modules (each file once)."""

    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        self.cache: Dict[str, LoadedModule] = {}

    def _locate(self, name: str, base: str) -> Optional[str]:
        rel = os.path.join(*name.split("."))
        for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
            if os.path.isfile(cand):
                return cand
        if os.path.isdir(os.path.join(base, rel)):
            return os.path.join(base, rel)  # a namespace package
        return None

    def find(self, name: str, from_dir: str = "", level: int = 0) -> Optional[LoadedModule]:
        if not name and not level:
            return None
        if level:
            base = os.path.abspath(from_dir or self.root)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            path = self._locate(name, base) if name else os.path.join(base, "__init__.py")
            if path is not None and not os.path.exists(path):
                path = None
        else:
            path = self._locate(name, self.root)
            if path is None and from_dir and os.path.abspath(from_dir) != self.root:
                path = self._locate(name, os.path.abspath(from_dir))
            if path is None:  # torch._inductor.runtime.triton_helpers: our own copy (inductor/runtime.py)
                path = bundled_path(name)
                if path is not None:
                    return _bundled(name, path)
        if path is None:
            return None
        key = os.path.abspath(path)
        if key not in self.cache:
            self.cache[key] = self._load(name or os.path.basename(os.path.dirname(key)), key)
        return self.cache[key]

    def _load(self, name: str, path: str) -> LoadedModule:
        if os.path.isdir(path):
            return LoadedModule(name, "", None, ModuleInfo({}, {}), self)
        mod = LoadedModule(name, path, None, ModuleInfo({}, {}), self)
        self.cache[path] = mod  # before scanning: a module importing itself back finds this one
        mod.src = SourceFile.read(path)
        mod.info = scan_module(mod.src.parse(), resolver=self.resolver(os.path.dirname(path)))
        return mod

    def resolver(self, from_dir: str) -> Callable[[str, int], Optional[LoadedModule]]:
        """``resolve(module name, import level)`` for the imports of a file in ``from_dir``."""
        return lambda name, level: self.find(name, from_dir, level)


_BUNDLED: Dict[str, Tuple[Tuple[int, int], LoadedModule]] = {}
_BUNDLED_IMPORTER: List[Importer] = []


def _bundled(name: str, path: str) -> LoadedModule:
    """The module of our own copy of Inductor's runtime helpers at ``path``, scanned once a process (every kernel
    Inductor wrote imports it, and scanning it again was a sixth of compiling one): its imports resolve among the
    bundled files and the foreign modules, never among the user's files, so one scan serves every kernel.  A file
    changed on disk since is scanned again."""
    stat = os.stat(path)
    stamp = (stat.st_mtime_ns, stat.st_size)
    hit = _BUNDLED.get(path)
    if hit is None or hit[0] != stamp:
        if not _BUNDLED_IMPORTER:
            _BUNDLED_IMPORTER.append(Importer(bundled_path(PACKAGE) or os.path.dirname(path)))
        importer = _BUNDLED_IMPORTER[0]
        if hit is not None:       # changed on disk: its imports may have changed too
            importer.cache.clear()
        importer.cache[path] = importer._load(name, path)
        hit = _BUNDLED[path] = (stamp, importer.cache[path])
    return hit[1]


def resolver_for(kernel_path: str):
    """The resolver for a kernel file: its folder is the project root."""
    root = os.path.dirname(os.path.abspath(kernel_path))
    return Importer(root).resolver(root)
