"""Whether the GNU binutils tests can run: they skip where binutils is missing, except in CI (``CI`` set in the
environment), where they fail; CI installs binutils (``.ci/run``) and must run them."""
import os
import shutil

import pytest

AS, OBJCOPY, OBJDUMP = "riscv64-linux-gnu-as", "riscv64-linux-gnu-objcopy", "riscv64-linux-gnu-objdump"


def need(*tools):
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        why = f"{', '.join(missing)} not installed: apt-get install -y binutils-riscv64-linux-gnu"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the binutils tests: {why}")
        pytest.skip(why)
