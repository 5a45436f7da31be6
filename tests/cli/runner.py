"""Run the `autograph` command line as a subprocess (`python -m autograph ...`) and import
the files it writes."""
from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_COUNTER = itertools.count()


def run_cli(*args, cwd=None, env=None, timeout=120, text=True) -> subprocess.CompletedProcess:
    """`python -m autograph *args`, with its exit code, stdout and stderr (bytes when
    `text` is false)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.pop("AUTOGRAPH_TRACEBACK", None)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "autograph", *map(str, args)], cwd=cwd,
                          env=full_env, capture_output=True, text=text, timeout=timeout)


def import_path(path, name: str | None = None):
    """Import the file at `path` as a fresh module."""
    name = name or f"_cli_test_module_{next(_COUNTER)}"
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def assert_user_error(result, code: int = 1, one_line: bool = False) -> str:
    """The command failed with `code`, printed no traceback and nothing on stdout."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stdout == ""
    if one_line:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr
