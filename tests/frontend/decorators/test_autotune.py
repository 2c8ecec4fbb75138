"""@triton.autotune and @triton.heuristics over @triton.jit, read from the source (never run): which
config is compiled, what its kwargs and the heuristics give the parameters, and the errors."""
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.frontend import compile_file
from mtiacc.frontend.entry import read_kernel_tuning
from tests.frontend.conftest import line_of

BODY = """
def k(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)
"""


def blocks(path, count):
    return [compile_file(path, config=i).constexprs["BLOCK"] for i in range(count)]


@pytest.mark.parametrize("configs, want", [
    ('[triton.Config({"BLOCK": 32}, num_warps=2), triton.Config(kwargs={"BLOCK": 64})]', [32, 64]),
    ('[triton.Config({"BLOCK": 2 ** i}, num_stages=s) for i in range(4, 7) for s in (2, 3) if i != 5]',
     [16, 16, 64, 64]),
    ("CONFIGS", [128, 256]),
    ("make_configs(3)", [8, 16, 32]),
    ('[triton.Config({"BLOCK": b * w}) for b, w in itertools.product([16, 32], [1, 2])]', [16, 32, 32, 64]),
])
def test_configs_are_evaluated_statically(kernels, configs, want):
    header = ("import itertools\nimport triton\nimport triton.language as tl\n\n"
              "CONFIGS = []\nfor b in (128, 256):\n    CONFIGS.append(triton.Config({'BLOCK': b}))\n\n"
              "def make_configs(count, base=8):\n    out = []\n    for i in range(count):\n"
              "        out += [triton.Config({'BLOCK': base << i}, num_warps=4)]\n    return out\n\n\n")
    path = kernels.write(f"@triton.autotune(configs={configs}, key=['n'])\n@triton.jit" + BODY, header=header)
    assert blocks(path, len(want)) == want


def test_default_is_the_first_config_and_define_overrides_it(kernels):
    path = kernels.write('@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})],'
                         ' key=[])\n@triton.jit' + BODY)
    r = compile_file(path)
    assert r.constexprs == {"BLOCK": 32}
    assert r.tuning["config"] == {"index": 0, "count": 2, "kwargs": {"BLOCK": 32}, "num_warps": 4,
                                  "num_stages": 3, "num_ctas": 1, "maxnreg": None}
    assert compile_file(path, config=1, defines={"BLOCK": "128"}).constexprs == {"BLOCK": 128}


def test_heuristics_run_outermost_first_and_see_the_config_below_autotune(kernels):
    path = kernels.write("""
        @triton.heuristics(values={"A": lambda args: args["n"] + 1})
        @triton.autotune(configs=[triton.Config({"B": 4}, num_warps=8)], key=["n"])
        @triton.heuristics({"C": lambda args: args["A"] * args["B"] + args["num_warps"],
                            "D": lambda args: triton.cdiv(args["C"], 4) if args["S"] is None else -1})
        @triton.heuristics({"E": lambda args: max(args["D"] % 3, args["D"] // 3) > 2 and not args["C"] < 0})
        @triton.jit
        def k(X, n, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, D: tl.constexpr, E: tl.constexpr,
              S: tl.constexpr = None):
            tl.store(X + tl.arange(0, 4), A + B + C + D + E)
        """)
    r = compile_file(path, signature="*fp32,9")   # a number in the signature: the argument's value
    assert r.constexprs == {"n": 9, "A": 10, "B": 4, "C": 48, "D": 12, "E": True, "S": None}
    assert r.tuning["heuristics"] == {"A": 10, "C": 48, "D": 12, "E": True}
    r = compile_file(path, defines={"n": "1", "D": "9"})   # -D replaces a heuristic
    assert r.constexprs["D"] == 9 and r.constexprs["E"] is True and r.tuning["heuristics"]["C"] == 16


def test_list_of_configs_and_heuristics(kernels):
    path = kernels.write("""
        @triton.autotune(configs=[triton.Config({"BLOCK": 32}, num_warps=2, pre_hook=lambda a: None),
                                  triton.Config({"BLOCK": 64}, num_stages=1, maxnreg=128)],
                         key=["n"], reset_to_zero=["Y"], warmup=5, rep=20)
        @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
        @triton.jit
        def k(X, Y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
            pass
        """)
    text = read_kernel_tuning(path).describe()
    assert "  [0] BLOCK=32, num_warps=2, num_stages=3, num_ctas=1, pre_hook=lambda a: None (ignored)\n" in text
    assert "  [1] BLOCK=64, num_warps=4, num_stages=1, num_ctas=1, maxnreg=128\n" in text
    assert "ignored: reset_to_zero, warmup, rep" in text
    assert "EVEN = args['n'] % args['BLOCK'] == 0" in text


DOT = """
@triton.autotune(configs=[triton.Config({"BK": 16}, num_stages=1), triton.Config({"BK": 16}, num_stages=3)],
                 key=["K"])
@triton.jit
def mm(A, B, C, K, BK: tl.constexpr):
    r = tl.arange(0, 16)
    k = tl.arange(0, BK)
    acc = tl.zeros((16, 16), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + r[:, None] * K + k0 + k[None, :])
        b = tl.load(B + (k0 + k[:, None]) * 16 + r[None, :])
        acc += tl.dot(a, b)
    tl.store(C + r[:, None] * 16 + r[None, :], acc)
"""


def test_num_stages_is_the_default_pipelining_depth(kernels):
    path = kernels.write(DOT)
    sig = "*fp16,*fp16,*fp32,i32"
    ir = [compile_kernel(path, Options(signature=sig, config=i), stop_after="ir").ir_text for i in (0, 1)]
    assert "pipeline_stages = 1" in ir[0] and "pipeline_stages = 3" not in ir[0]
    assert "pipeline_stages = 3" in ir[1]
    explicit = compile_kernel(path, Options(signature=sig, config=1, passes="pipeline-dots{stages=2}"),
                              stop_after="ir").ir_text
    assert "pipeline_stages = 2" in explicit


# --- errors ---------------------------------------------------------------------------------------

def where(err, path, needle, col_text=None):
    assert err.loc is not None, err.message
    assert err.loc.line == line_of(path, needle), (err.loc, err.message)
    if col_text is not None:
        with open(path, encoding="utf-8") as f:
            line = f.read().splitlines()[err.loc.line - 1]
        assert line[err.loc.col - 1:].startswith(col_text), (line, err.loc)


def test_config_index_out_of_range(kernels):
    path = kernels.write('@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (8, 16, 32)], key=[])\n'
                         '@triton.jit' + BODY)
    with pytest.raises(Exception) as info:
        compile_file(path, config=7)
    err = info.value
    assert "--config 7: kernel 'k' has 3 autotune configs (0 to 2" in err.message
    where(err, path, "@triton.autotune", "triton.autotune")


def test_config_without_autotune(kernels):
    err = kernels.error("@triton.jit" + BODY, config=1, defines={"BLOCK": "8"})
    assert "--config 1: kernel 'k' has no @triton.autotune configs" in err.message


def test_config_kwarg_that_is_not_a_parameter(kernels):
    err = kernels.error("""
        @triton.autotune(configs=[triton.Config({"BLOCK": 8}),
                                  triton.Config({"BLOCK": 8, "BLOCK_N": 4})], key=[])
        @triton.jit
        def k(X, BLOCK: tl.constexpr):
            pass
        """)
    assert "triton.Config sets 'BLOCK_N', which is not a parameter of kernel 'k' (its parameters: X, BLOCK)" \
        in err.message
    where(err, err.path, '"BLOCK_N": 4', 'triton.Config({"BLOCK": 8, "BLOCK_N"')


def test_autotune_over_a_function_that_is_not_jit(kernels):
    err = kernels.error("""
        @triton.autotune(configs=[], key=[])
        def k(X, BLOCK: tl.constexpr):
            pass

        @triton.jit
        def other(X):
            pass
        """)
    assert "@triton.autotune decorates 'k', which is not a @triton.jit function" in err.message
    where(err, err.path, "@triton.autotune", "triton.autotune")


def test_jit_must_be_innermost(kernels):
    err = kernels.error("""
        @triton.jit
        @triton.heuristics({"B": lambda args: 4})
        def k(X, B: tl.constexpr):
            pass
        """)
    assert "@triton.heuristics must be above @triton.jit" in err.message
    where(err, err.path, "@triton.heuristics", "triton.heuristics")


def test_configs_that_cannot_be_computed(kernels):
    header = "import random\nimport triton\nimport triton.language as tl\n\n\n"
    err = kernels.error("""
        @triton.autotune(configs=[triton.Config({"BLOCK": random.choice([8, 16])})], key=[])
        @triton.jit
        def k(X, BLOCK: tl.constexpr):
            pass
        """, header=header)
    assert "cannot compute the autotune configs at compile time" in err.message
    assert "random.choice" in err.message
    where(err, err.path, "random.choice", "random.choice")


def test_unknown_autotune_argument(kernels):
    err = kernels.error("""
        @triton.autotune(configs=[], key=[], tune_harder=True)
        @triton.jit
        def k(X):
            pass
        """)
    assert "triton.autotune() got an unexpected keyword argument 'tune_harder'" in err.message
    where(err, err.path, "tune_harder", "tune_harder")


def test_heuristic_needing_a_runtime_argument(kernels):
    err = kernels.error("""
        @triton.autotune(configs=[triton.Config({"BLOCK": 32})], key=["n"])
        @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
        @triton.jit
        def k(X, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
            pass
        """)
    assert ("cannot compute heuristic 'EVEN' at compile time: it needs the value of 'n', a run-time argument "
            "of kernel 'k'; give it with -D n=VALUE") in err.message
    assert "-D EVEN=VALUE" in err.message
    where(err, err.path, "EVEN", 'args["n"]')


def test_heuristic_above_autotune_cannot_see_the_config(kernels):
    err = kernels.error("""
        @triton.heuristics({"EVEN": lambda args: args["BLOCK"] > 16})
        @triton.autotune(configs=[triton.Config({"BLOCK": 32})], key=[])
        @triton.jit
        def k(X, BLOCK: tl.constexpr, EVEN: tl.constexpr):
            pass
        """)
    assert "'BLOCK' is set by the @triton.autotune config, which runs after this heuristic" in err.message
    where(err, err.path, "EVEN", 'args["BLOCK"]')


def test_heuristic_using_what_is_not_evaluated(kernels):
    err = kernels.error("""
        @triton.heuristics({"BIG": lambda args: args["X"].numel() > 1024})
        @triton.jit
        def k(X, BIG: tl.constexpr):
            pass
        """, signature="*fp32")
    assert "cannot compute heuristic 'BIG' at compile time" in err.message
    assert "-D BIG=VALUE" in err.message
    where(err, err.path, "BIG", 'args["X"]')


@pytest.mark.parametrize("helper, message", [
    ("    i = 0\n    while True:\n        i += 1", "the computation takes too many steps"),
    ("    x = 3\n    while True:\n        x = x * x", "a value too large to compute"),
    ("    s = 'ab'\n    for _ in range(100):\n        s = s + s", "a value too large to compute"),
    ("    return [triton.Config({}, pre_hook=None)] * 10 ** 9", "a value too large to compute"),
    ("    return open('/etc/passwd').read()", "undefined name 'open'"),
    ("    return 'x'.__class__", "`'x'.__class__` is not evaluated at compile time"),
])
def test_the_interpreter_stays_bounded_and_safe(kernels, helper, message):
    err = kernels.error(f"def helper():\n{helper}\n\n\n@triton.autotune(configs=helper(), key=[])\n@triton.jit" + BODY)
    assert "cannot compute the autotune configs at compile time" in err.message
    assert message in err.message
