"""`make inductor-tests` (benchmarks/inductor_tests.py): PyTorch's test_torchinductor.py CPU tests on the mtia
backend.  PyTorch's file is not in the project, so the harness runs here on a stand-in of the same shape (a
``CommonTemplate`` of tests, a ``check_model`` that compiles through the file's ``compile_fx`` and a
``copy_tests``, written below), whose tests check that each compile reached the mtia backend and ran its kernels
on the simulator, plus a failing, a skipped, an expected-failure test and one using a name torch lacks.  With
PyTorch's file at INDUCTOR_TESTS (or ../inductor-tests beside the project), a few of its tests run too (slow)."""
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import inductor_tests  # noqa: E402

STAND_IN = '''\
import copy
import functools
import unittest

import torch
from torch._inductor.compile_fx import compile_fx
from torch._inductor.test_case import TestCase as InductorTestCase
from torch._inductor.utils import no_such_helper_in_any_torch


class TestCase(InductorTestCase):
    def setUp(self):
        torch._dynamo.reset()
        super().setUp()


def check_model(self, model, example_inputs):
    from mtiacc.torch_backend import coverage
    from mtiacc.triton_backend import clock
    torch._dynamo.reset()
    expected = model(*example_inputs)
    called = []

    def wrapper(gm, inputs):
        called.append(gm)
        return compile_fx(gm, inputs)

    graphs = len(coverage._graphs)
    run = torch._dynamo.optimize(wrapper, nopython=True)(model)
    out = []
    _, launches = clock.measure(lambda: out.append(run(*example_inputs)))
    assert called, "compile_fx was not called"
    assert len(coverage._graphs) > graphs, "the graph did not reach the mtia backend"
    assert launches > 0, "no kernel ran on the simulator"
    self.assertEqual(out[0], expected)


class CommonTemplate:
    def test_add(self):
        self.common(lambda a, b: a + 2 * b, (torch.randn(8, 16), torch.randn(8, 16)))

    def test_sum(self):
        self.common(lambda a: a.sum(dim=1), (torch.randn(6, 33),))

    def test_torch_compile_inductor(self):
        from mtiacc.torch_backend import coverage
        from mtiacc.triton_backend import clock
        x = torch.randn(40)
        fn = torch.compile(lambda t: torch.relu(t) * 3, backend="inductor")
        graphs = len(coverage._graphs)
        out = []
        _, launches = clock.measure(lambda: out.append(fn(x)))
        self.assertGreater(len(coverage._graphs), graphs)
        self.assertGreater(launches, 0)
        self.assertEqual(out[0], torch.relu(x) * 3)

    def test_wrong_reference(self):
        # a graph of views only: stock Inductor (the --reference rerun) writes no C++ kernel for it
        fn = torch.compile(lambda a: a.view(2, 2))
        self.assertEqual(fn(torch.zeros(4)), torch.ones(2, 2))

    def test_fails_only_on_triton(self):
        from torch._inductor import config
        self.assertEqual(config.cpu_backend, "cpp")

    def test_uses_missing_name(self):
        no_such_helper_in_any_torch(torch.zeros(2))

    @unittest.skip("the stand-in's own skip")
    def test_skipped(self):
        pass

    def test_known_failure(self):
        raise AssertionError("known to fail")

    test_known_failure._expected_failure_triton_cpu = True

    def test_known_failure_that_passes(self):
        pass

    test_known_failure_that_passes._expected_failure_triton_cpu = True


def copy_tests(my_cls, other_cls, suffix, test_failures=None, xfail_prop=None):
    for name, value in my_cls.__dict__.items():
        if not name.startswith("test_"):
            continue

        def make(value):
            @functools.wraps(value)
            def test(self):
                return value(self)
            test.__dict__ = copy.deepcopy(value.__dict__)
            return test
        test = make(value)
        if xfail_prop is not None and hasattr(value, xfail_prop):
            test = unittest.expectedFailure(test)
        setattr(other_cls, f"{name}_{suffix}", test)
'''


def test_stand_in_through_the_harness(tmp_path):
    tests = tmp_path / "inductor"
    tests.mkdir()
    (tests / "test_torchinductor.py").write_text(STAND_IN)
    res, md = tmp_path / "results", tmp_path / "inductor-tests.md"
    inductor_tests.main(["--tests", str(tests), "--jobs", "1", "--case-timeout", "300", "--budget", "900",
                         "--results", str(res), "--md", str(md), "--provenance", "the suite's stand-in"])
    data = json.loads((res / "results.json").read_text())
    results = {name: tuple(v) for name, v in data["results"].items()}
    assert {n: o for n, (o, _) in results.items()} == {
        "test_add_cpu": "passed", "test_sum_cpu": "passed", "test_torch_compile_inductor_cpu": "passed",
        "test_wrong_reference_cpu": "failed", "test_uses_missing_name_cpu": "skipped",
        "test_fails_only_on_triton_cpu": "failed",
        "test_skipped_cpu": "skipped", "test_known_failure_cpu": "xfailed",
        "test_known_failure_that_passes_cpu": "xpassed"}, results
    assert "not close" in results["test_wrong_reference_cpu"][1]
    assert "torch._inductor.utils.no_such_helper_in_any_torch is not in torch" in \
        results["test_uses_missing_name_cpu"][1]
    summary = data["summary"]
    assert summary["counts"] == {"passed": 3, "failed": 2, "skipped": 2, "xfailed": 1, "xpassed": 1}
    assert summary["pass_rate"] == 4 / 7
    causes = dict(summary["failed"])
    assert causes["AssertionError: String comparison failed: 'triton' != 'cpp'"] == ["test_fails_only_on_triton_cpu"]
    [close] = [c for c in causes if "Tensor-likes are not close" in c]
    assert causes[close] == ["test_wrong_reference_cpu"]
    text = md.read_text()
    assert "| 9 | 3 | 2 | 2 | 1 | 1 | 57.1% |" in text
    assert "Tensor-likes are not close" in text and "the suite's stand-in" in text
    assert (res / "junit.xml").is_file()

    # the failures again as PyTorch's own CPU tests run them: the stand-in's wrong reference and its known
    # failure fail there too, the test that needs Inductor's C++ backend passes
    inductor_tests.main(["--tests", str(tests), "--jobs", "1", "--case-timeout", "300", "--budget", "900",
                         "--results", str(res), "--md", str(md), "--report-only", "--reference"])
    summary = json.loads((res / "results.json").read_text())["summary"]
    assert {n: o for n, (o, _) in summary["reference"].items()} == {
        "test_wrong_reference_cpu": "failed", "test_known_failure_cpu": "failed",
        "test_fails_only_on_triton_cpu": "passed"}
    assert summary["shared"] == ["test_known_failure_cpu", "test_wrong_reference_cpu"]
    assert summary["pass_rate_own"] == 4 / 5
    assert "2 of the 3 fail there too" in md.read_text()


def test_locate_says_how_to_get_the_file(tmp_path):
    with pytest.raises(SystemExit, match="git --git-dir=PYTORCH_GIT show REV:test/inductor/test_torchinductor.py"):
        inductor_tests.locate(tmp_path)
    (tmp_path / "test" / "inductor").mkdir(parents=True)
    (tmp_path / "test" / "inductor" / "test_torchinductor.py").write_text("")
    assert inductor_tests.locate(tmp_path) == (tmp_path / "test" / "inductor" / "test_torchinductor.py").resolve()


def test_failures_grouped_by_first_line():
    results = {"test_a_cpu": ("failed", "RuntimeError: shape [3, 4] at 0x7f00\nmore"),
               "test_f_cpu": ("failed", "OSError: /tmp/x/y.py: cannot open"),
               "test_b_cpu": ("failed", "RuntimeError: shape [5, 6] at 0x7e11"),
               "test_c_cpu": ("failed", "AssertionError: other"),
               "test_d_cpu": ("passed", ""), "test_e_cpu": ("skipped", "needs a GPU")}
    s = inductor_tests.summarize(results)
    assert s["failed"] == [("RuntimeError: shape [N, N] at <hex>", ["test_a_cpu", "test_b_cpu"]),
                           ("AssertionError: other", ["test_c_cpu"]),
                           ("OSError: <path>: cannot open", ["test_f_cpu"])]
    assert s["skipped"] == [("needs a GPU", ["test_e_cpu"])]
    assert s["pass_rate"] == 0.2


def _pytorch_file():
    where = Path(os.environ.get("INDUCTOR_TESTS", ROOT.parent / "inductor-tests"))
    try:
        return inductor_tests.locate(where)
    except SystemExit:
        return None


@pytest.mark.slow
@pytest.mark.skipif(_pytorch_file() is None, reason="PyTorch's test/inductor/test_torchinductor.py is not at "
                    "INDUCTOR_TESTS or ../inductor-tests (make inductor-tests says how to get it)")
def test_pytorch_file_slice(tmp_path):
    res = tmp_path / "results"
    inductor_tests.main(["--tests", str(_pytorch_file()), "--jobs", "1", "--case-timeout", "300",
                         "--budget", "900", "--results", str(res), "-k", "test_abs_cpu or test_sum1_cpu"])
    data = json.loads((res / "results.json").read_text())
    assert {n: o for n, (o, _) in data["results"].items()} == {"test_abs_cpu": "passed",
                                                                "test_sum1_cpu": "passed"}
