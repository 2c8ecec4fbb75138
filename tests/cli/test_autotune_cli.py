"""`mtiacc --config N` and `--list-configs` on an autotuned kernel, as a user runs them."""
import textwrap

from tests.cli.test_compile_cli import assert_clean_error

KERNEL = """\
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w, num_stages=s)
                          for b, w, s in ((64, 4, 2), (128, 8, 3), (256, 8, 4))], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def copy(X, Y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(Y + offs, tl.load(X + offs))
    else:
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)
"""


def kernel_file(tmp_path):
    p = tmp_path / "copy.py"
    p.write_text(KERNEL)
    return p


def test_list_configs(tool, tmp_path):
    proc = tool("mtiacc", kernel_file(tmp_path), "--list-configs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == textwrap.dedent("""\
        kernel copy
          3 autotune configs (key ['n'])
          [0] BLOCK=64, num_warps=4, num_stages=2, num_ctas=1
          [1] BLOCK=128, num_warps=8, num_stages=3, num_ctas=1
          [2] BLOCK=256, num_warps=8, num_stages=4, num_ctas=1
          heuristics (in the order they run): EVEN
            EVEN = args['n'] % args['BLOCK'] == 0
        """)


def test_config_is_compiled_and_recorded(tool, tmp_path):
    out = tmp_path / "copy.bin"
    proc = tool("mtiacc", kernel_file(tmp_path), "--config", "1", "-D", "EVEN=0", "-o", out)
    assert proc.returncode == 0, proc.stderr
    dis = tool("mtiacc", "disasm", out)
    assert dis.returncode == 0, dis.stderr
    assert "# constexprs: {'BLOCK': 128, 'EVEN': 0}" in dis.stdout
    assert "'index': 1, 'count': 3, 'kwargs': {'BLOCK': 128}, 'num_warps': 8, 'num_stages': 3" in dis.stdout


def test_define_overrides_the_config_and_signature_constant_feeds_the_heuristic(tool, tmp_path):
    proc = tool("mtiacc", kernel_file(tmp_path), "--emit=ir", "--config", "2", "-D", "BLOCK=16",
                "--signature", "*fp32,*fp32,48")
    assert proc.returncode == 0, proc.stderr
    assert "tensor<16x" in proc.stdout and "tensor<256x" not in proc.stdout
    assert "xi1>" not in proc.stdout   # EVEN (48 % 16 == 0): no mask


def test_config_out_of_range(tool, tmp_path):
    path = kernel_file(tmp_path)
    proc = tool("mtiacc", path, "--config", "7", "-D", "EVEN=1")
    assert_clean_error(proc, f"{path}:5:2: error: --config 7: kernel 'copy' has 3 autotune configs (0 to 2",
                       "@triton.autotune(", " ^")


def test_heuristic_needs_a_runtime_value(tool, tmp_path):
    path = kernel_file(tmp_path)
    proc = tool("mtiacc", path)
    assert_clean_error(proc, f"{path}:7:", "cannot compute heuristic 'EVEN'", "-D n=VALUE", "-D EVEN=VALUE")
