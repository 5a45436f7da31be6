"""CI step (.ci/run): the wheel a user would install works outside the repository.

Builds the wheel (`pip wheel . --no-deps`), installs it into a fresh venv of its own with
only the core dependencies, and from a directory outside the repository:
- runs examples/quickstart.py (its output matches the repository's run of it),
- runs the `autograph` console script on a user file,
- beside a user file named runtime.py: `import autograph` fails with the ImportError that
  names that file, and the file is not executed;
- with runtime.py in the working directory but the script elsewhere, the quickstart runs;
- the examples of README.md and docs/ that need no extra run and show what they print.
Takes about 30 s on an idle 2-core machine. Exits non-zero with the reason on failure.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUICKSTART = os.path.join(ROOT, "examples", "quickstart.py")
USER_FILE = '''import numpy as np


def clip_negative(x):
    if x < 0:
        x = np.zeros_like(x)
    return x
'''


# Runs the python blocks of README.md and docs/ with the installed core (no extras): the
# pages whose code needs an extra (onnx, dask, numba) are left to the test suite.
DOCS_DRIVER = r'''
import glob, os, sys
sys.path.insert(0, sys.argv[1])
from snippets import blocks_of, run_page
root, work = sys.argv[2], sys.argv[3]
pages = [os.path.join(root, "README.md")] + sorted(
    glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
ran = []
for page in pages:
    code = "".join(b.code for b in blocks_of(open(page, encoding="utf-8").read())
                   if b.lang == "python")
    if not code or any(w in code for w in ("onnx", "dask", "jit_compile=True")):
        continue
    where = os.path.join(work, str(len(ran)))
    os.makedirs(where)
    run_page(page, where)
    ran.append(os.path.relpath(page, root))
print("wheel smoke test: the examples of", len(ran), "pages ran:", ", ".join(ran))
'''


def run(cmd: list[str], cwd: str, ok: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if ok and result.returncode != 0:
        sys.exit(f"wheel smoke test: {' '.join(cmd)} failed in {cwd}:\n"
                 f"{result.stdout[-2000:]}\n{result.stderr[-3000:]}")
    return result


def main() -> None:
    work = tempfile.mkdtemp(prefix="autograph-wheel-")
    try:
        wheels, venv = os.path.join(work, "wheels"), os.path.join(work, "venv")
        run([sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "-q", "-w", wheels], work)
        (wheel,) = glob.glob(os.path.join(wheels, "autograph_numpy-*.whl"))
        run([sys.executable, "-m", "venv", venv], work)
        py = os.path.join(venv, "bin", "python")
        run([py, "-m", "pip", "install", "-q", wheel], work)

        user = os.path.join(work, "user")
        os.makedirs(user)
        shutil.copy(QUICKSTART, os.path.join(user, "quickstart.py"))
        expected = run([sys.executable, QUICKSTART], work).stdout
        got = run([py, "quickstart.py"], user)
        if got.stdout != expected:
            sys.exit("wheel smoke test: the installed quickstart printed something else:\n"
                     + got.stdout)
        location = run([py, "-c", "import runtime; print(runtime.__file__)"], user).stdout
        if not location.startswith(venv):
            sys.exit(f"wheel smoke test: runtime came from {location}, not the venv")

        with open(os.path.join(user, "model.py"), "w") as f:
            f.write(USER_FILE)
        shown = run([os.path.join(venv, "bin", "autograph"), "show", "model.py::clip_negative"],
                    user)
        if "ag__.if_stmt" not in shown.stdout:
            sys.exit("wheel smoke test: `autograph show` printed:\n" + shown.stdout)

        with open(os.path.join(user, "runtime.py"), "w") as f:
            f.write('open("USER_RUNTIME_RAN", "w").close()\n')
        shadowed = run([py, "quickstart.py"], user, ok=False)
        last = (shadowed.stderr.strip().splitlines() or [""])[-1]
        if (shadowed.returncode == 0 or os.path.join(user, "runtime.py") not in last
                or not last.startswith("ImportError: autograph cannot use its graph library")
                or os.path.exists(os.path.join(user, "USER_RUNTIME_RAN"))):
            sys.exit("wheel smoke test: beside a user runtime.py, expected the ImportError "
                     "naming it, got:\n" + shadowed.stderr[-3000:])
        elsewhere = os.path.join(work, "scripts")
        os.makedirs(elsewhere)
        shutil.copy(QUICKSTART, os.path.join(elsewhere, "quickstart.py"))
        got = run([py, os.path.join(elsewhere, "quickstart.py")], user)
        if got.stdout != expected:
            sys.exit("wheel smoke test: run from a directory holding runtime.py, the "
                     "quickstart printed something else:\n" + got.stdout)
        pages = run([py, "-c", DOCS_DRIVER, os.path.join(ROOT, "tests", "docs"), ROOT,
                     os.path.join(work, "docs")], work)
        print(pages.stdout.strip())
        print("wheel smoke test: installed wheel works outside the repository; a user "
              "runtime.py beside the script is reported, not run")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
