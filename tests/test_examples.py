"""Every script in examples/ runs to completion (exit code 0) in a fresh process."""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))


def test_there_are_examples():
    names = {os.path.basename(p) for p in EXAMPLES}
    assert {"quickstart.py", "tracing.py", "side_effects.py", "control_flow.py",
            "speedup.py", "train_mlp.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path, tmp_path):
    with open(path) as f:
        assert f.read().startswith('"""'), "an example opens with a docstring saying what it shows"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MPLBACKEND="Agg")
    start = time.perf_counter()
    result = subprocess.run([sys.executable, path], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, f"{path} failed:\n{result.stdout[-2000:]}\n{result.stderr}"
    assert "Traceback" not in result.stderr
    assert result.stdout.strip(), "an example prints what it shows"
    assert elapsed < 60, f"{os.path.basename(path)} took {elapsed:.1f} s"
