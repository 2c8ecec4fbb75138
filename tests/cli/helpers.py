"""Running the two command lines in-process for the CLI tests: exit code, stdout, stderr, and the check that an
error is clean (no traceback, no internal error)."""
from mtiacc.cli import main as mtiacc_main
from mtiasim.cli import main as mtiasim_main


def mtiacc(capsys, *args):
    try:
        mtiacc_main([str(a) for a in args])
        code = 0
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def mtiasim(capsys, *args):
    code = mtiasim_main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def clean(result, *fragments, code=None):
    rc, _out, err = result
    assert rc != 0 if code is None else rc == code, (rc, err)
    assert "Traceback" not in err and "internal" not in err, err
    for f in fragments:
        assert f in err, f"{f!r} not in:\n{err}"
    return err
