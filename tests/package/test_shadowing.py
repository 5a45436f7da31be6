"""A user's own `runtime.py` (or `runtime/` package) beside their script cannot break
`import autograph` silently or get executed by it: the import fails with an ImportError that
names the shadowing file. Each case runs in a fresh interpreter whose working directory
holds the user's files, as a newcomer's project would."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

# The user's module records that it ran: autograph must never execute it.
USER_RUNTIME = 'open("USER_RUNTIME_RAN", "w").close()\nGraphModeError = None\n'

QUICKSTART = '''
import numpy as np
import autograph as ag

@ag.function
def simple_relu(x):
    if np.greater(x, 0):
        return x
    else:
        return np.zeros_like(x)

for v in (3.0, -2.0):
    print(repr(simple_relu(np.float32(v))))
'''


def _run(cwd, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _eager_quickstart_output() -> str:
    out = []
    for v in (3.0, -2.0):
        x = np.float32(v)
        out.append(repr(x if np.greater(x, 0) else np.zeros_like(x)))
    return "\n".join(out)


def _assert_named_not_run(result, cwd, shadow: str, how: str) -> None:
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: autograph cannot use its graph library"), last
    assert os.path.join(str(cwd), shadow) in last
    assert how in last and "rename it" in last
    assert not (cwd / "USER_RUNTIME_RAN").exists(), "autograph executed the user's runtime.py"


@pytest.mark.parametrize("how_run", ["script", "dash_c"])
def test_user_runtime_py_is_named_and_not_run(tmp_path, how_run):
    (tmp_path / "runtime.py").write_text(USER_RUNTIME)
    (tmp_path / "main.py").write_text(QUICKSTART)
    args = ["main.py"] if how_run == "script" else ["-c", QUICKSTART]
    _assert_named_not_run(_run(tmp_path, *args), tmp_path, "runtime.py", "resolves to")


def test_user_runtime_package_is_named_and_not_run(tmp_path):
    (tmp_path / "runtime").mkdir()
    (tmp_path / "runtime" / "__init__.py").write_text(USER_RUNTIME)
    result = _run(tmp_path, "-c", QUICKSTART)
    _assert_named_not_run(result, tmp_path, os.path.join("runtime", "__init__.py"),
                          "resolves to")


def test_user_runtime_imported_first_is_named(tmp_path):
    (tmp_path / "runtime.py").write_text(USER_RUNTIME)
    result = _run(tmp_path, "-c", "import runtime\n" + QUICKSTART)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert "was already imported from " + str(tmp_path / "runtime.py") in last, last


@pytest.mark.parametrize("neighbour", ["none", "runtime_utils.py"])
def test_quickstart_runs_beside_harmless_files(tmp_path, neighbour):
    if neighbour == "runtime_utils.py":
        (tmp_path / "runtime_utils.py").write_text(USER_RUNTIME)
    (tmp_path / "main.py").write_text(QUICKSTART)
    result = _run(tmp_path, "main.py")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == _eager_quickstart_output()
    assert not (tmp_path / "USER_RUNTIME_RAN").exists()


def test_data_folder_named_runtime(tmp_path):
    """A folder `runtime/` without `__init__.py` is a namespace package. An installed
    wheel's regular package wins over it; an editable install's finder runs after the
    working directory, so there the folder does shadow, and the error says so."""
    (tmp_path / "runtime").mkdir()
    (tmp_path / "runtime" / "notes.txt").write_text("data")
    (tmp_path / "main.py").write_text(QUICKSTART)
    result = _run(tmp_path, "main.py")
    if result.returncode == 0:
        assert result.stdout.strip() == _eager_quickstart_output()
    else:
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError: autograph cannot use its graph library"), last
        assert f"resolves to {tmp_path / 'runtime'} " in last


def test_own_runtime_is_the_one_imported():
    import autograph
    import runtime

    root = os.path.dirname(os.path.dirname(os.path.abspath(autograph.__file__)))
    assert os.path.samefile(runtime.__file__, os.path.join(root, "runtime", "__init__.py"))
