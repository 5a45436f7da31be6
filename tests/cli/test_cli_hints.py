"""The command line's messages and files: the location once, a hint for a missing or
extra --arg, exit codes in --help, and every written file with the mode a new file gets
from the user's umask (as `open()` gives it; an existing file keeps its mode)."""
from __future__ import annotations

import importlib.util
import os
import stat

import numpy as np
import pytest

import autograph as ag
from tests.cli.runner import assert_user_error, run_cli

pytestmark = pytest.mark.slow  # subprocesses

SOURCE = """\
import numpy as np

def bad(x):
    return x.reshape(7)

def step(x, k=2):
    return x * k

def gen(n):
    yield n
"""


def test_a_tracing_error_names_its_location_once(write):
    src = write("model.py", SOURCE)
    err = assert_user_error(run_cli("graph", f"{src}::bad", "--arg", "float64[3]"))
    first = err.splitlines()[0]
    assert first.startswith(f"{src.name}:4:") or ":4:" in first.split(" ")[0]
    assert "(at " not in first and first.count("model.py") == 1
    assert "cannot reshape array of size 3 into shape (7,)" in first


@pytest.mark.parametrize("command", ["graph", "export"])
def test_a_missing_arg_is_bad_usage_with_a_hint(write, tmp_path, command):
    src = write("model.py", SOURCE)
    extra = ["-o", str(tmp_path / "out.agz")] if command == "export" else []
    result = run_cli(command, f"{src}::step", *extra)
    err = assert_user_error(result, code=2, one_line=True)
    assert "missing: x" in err and "--arg SPEC" in err and f"autograph {command} --help" in err
    result = run_cli(command, f"{src}::step", "--arg", "float64[2]", "--arg", "3",
                     "--arg", "4", *extra)
    err = assert_user_error(result, code=2, one_line=True)
    assert "takes 2 positional parameter(s) (x, k) but 3 --arg were given" in err
    assert not (tmp_path / "out.agz").exists()


def test_show_and_convert_agree_on_a_generator(write):
    src = write("model.py", SOURCE)
    shown = run_cli("show", f"{src}::gen")
    converted = run_cli("convert", str(src))
    assert shown.returncode == converted.returncode == 3
    assert "generator" in shown.stderr and "generator" in converted.stderr


@pytest.mark.parametrize("command", ["convert", "show", "graph", "export"])
def test_help_describes_exit_codes_and_options(command):
    text = run_cli(command, "--help").stdout
    assert "exit status:" in text
    for code in ("0", "1", "2"):
        assert f"\n  {code}  " in text
    if command == "export":
        assert ".onnx" in text and "umask" in text


@pytest.fixture(params=[0o022, 0o027, 0o002])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def step(x):
    return x * 2.0


def test_every_output_gets_the_mode_of_a_new_file(write, tmp_path, umask):
    expected = 0o666 & ~umask
    src = write("model.py", SOURCE)
    with open(tmp_path / "opened.txt", "w"):  # what open() gives, the reference
        pass
    assert mode(tmp_path / "opened.txt") == expected
    outputs = {"convert": tmp_path / "conv.py", "graph": tmp_path / "g.txt",
               "export": tmp_path / "e.agz", "export_dir": tmp_path / "e_dir"}
    assert run_cli("convert", src, "-o", outputs["convert"]).returncode == 3
    assert run_cli("graph", f"{src}::step", "--arg", "float64[2]", "-o",
                   outputs["graph"]).returncode == 0
    for key in ("export", "export_dir"):
        result = run_cli("export", f"{src}::step", "--arg", "float64[2]", "-o", outputs[key])
        assert result.returncode == 0, result.stderr
    f = ag.function(step)
    f(np.ones(2))
    ag.save(f, tmp_path / "saved.agz")
    ag.save(f, tmp_path / "saved_dir")
    files = [outputs["convert"], outputs["graph"], outputs["export"], tmp_path / "saved.agz"]
    files += sorted((outputs["export_dir"]).iterdir()) + sorted((tmp_path / "saved_dir").iterdir())
    if importlib.util.find_spec("onnx") is not None:
        result = run_cli("export", f"{src}::step", "--arg", "float64[2]", "-o",
                         tmp_path / "e.onnx")
        assert result.returncode == 0, result.stderr
        ag.export_onnx(f.get_concrete_function(np.ones(2)), tmp_path / "api.onnx")
        files += [tmp_path / "e.onnx", tmp_path / "api.onnx"]
    assert {p.name: oct(mode(p)) for p in files} == {p.name: oct(expected) for p in files}
    assert not [p for p in tmp_path.rglob("*.tmp")]  # no temporary file left


def test_an_existing_output_keeps_its_mode(write, tmp_path):
    src = write("model.py", SOURCE)
    target = tmp_path / "e.agz"
    target.write_bytes(b"")
    os.chmod(target, 0o640)
    result = run_cli("export", f"{src}::step", "--arg", "float64[2]", "-o", target)
    assert result.returncode == 0, result.stderr
    assert mode(target) == 0o640
    f = ag.function(step)
    f(np.ones(2))
    ag.save(f, target)
    assert mode(target) == 0o640
