"""What a compile loads: the command line compiling a kernel imports neither numpy nor the metadata of the installed
packages (each costs every compile tens of milliseconds), and the assembler needs no parser generator."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import sys
from mtiacc.cli import main
try:
    main(sys.argv[1:])
except SystemExit as e:
    assert not e.code, e.code
print(" ".join(m for m in ("numpy", "lark", "importlib.metadata") if m in sys.modules))
"""


def test_compiling_softmax_imports_no_numpy(tmp_path):
    out = tmp_path / "softmax.bin"
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(ROOT / "examples" / "softmax.py"), "-D", "BLOCK_SIZE=1024",
                           "-s", "*fp32,*fp32,i32,i32,i32", "-o", str(out)],
                          capture_output=True, text=True, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
    assert proc.stdout.splitlines()[-1] == "", f"imported: {proc.stdout.splitlines()[-1]}"
