"""The `autograph` command itself: help on every subcommand, usage errors, entry points."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.runner import assert_user_error, run_cli


def test_help_lists_the_commands():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("convert", "show", "graph"):
        assert command in result.stdout


@pytest.mark.parametrize("command, words", [
    ("convert", ["never imported or run", "-o", "atomically", "directory"]),
    ("show", ["never imported or run", "SRC.py::NAME", "Class.method"]),
    ("graph", ["RUNS", "--arg", "float32[None,3]", "--format", "svg", "dot"]),
])
def test_every_command_has_help(command, words):
    result = run_cli(command, "--help")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith(f"usage: autograph {command}")
    text = " ".join(result.stdout.split())
    for word in words:
        assert word in text, word


def test_no_command_prints_help_and_is_a_usage_error():
    result = run_cli()
    assert result.returncode == 2 and "convert" in result.stderr


@pytest.mark.parametrize("args", [
    ["frobnicate"], ["convert"], ["convert", "a.py", "--bogus"], ["graph", "a.py::f",
                                                                  "--format", "png"],
])
def test_bad_usage_is_a_one_line_error_with_exit_code_2(args):
    err = assert_user_error(run_cli(*args), code=2, one_line=True)
    assert err.startswith("autograph") and "error:" in err and "--help" in err


def test_version():
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("autograph ")


def test_the_console_script(tmp_path):
    script = os.path.join(os.path.dirname(sys.executable), "autograph")
    if not os.path.exists(script):
        pytest.skip("the `autograph` console script is not installed (pip install -e .)")
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    if x:\n        return 1\n    return 2\n")
    result = subprocess.run([script, "show", f"{src}::f"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ag__.if_stmt(x, if_true, if_false)" in result.stdout


def test_the_output_can_be_piped_into_a_closed_pipe(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("".join(f"def f{i}(x):\n    if x:\n        return {i}\n    return -1\n\n"
                           for i in range(2000)))
    cmd = f"{sys.executable} -m autograph convert {src} | head -1"
    result = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=120)
    assert result.stdout.startswith("# Converted by")
    assert "Traceback" not in result.stderr
