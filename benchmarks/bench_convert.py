"""Conversion benchmark: converting a large source file against CPython compiling it.

Writes two generated modules of the given size (default 10 MB): one of many small
functions (loops, branches, a docstring each, like a generated module) and one of a few
big functions (2,000 statements each). Each is then, side by side in one run:
- compiled by CPython (`compile(text, path, "exec")`) and converted in this process
  (`autograph.impl.static.convert_module_source`, what `ag.to_code` and the CLI share):
  the median CPU time and the tracemalloc peak of each;
- compiled and converted by a fresh interpreter (`python -c compile(...)` and
  `python -m autograph convert SRC -o OUT`): wall time and peak RSS of the child (VmHWM).
The table prints each figure and the ratio convert / compile. The goal (issue 24): both
ratios at most 3.

    python benchmarks/bench_convert.py [MEGABYTES] [REPEATS]
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

from autograph.impl.static import convert_module_source

SMALL = '''
def f_{k}(x, n):
    """Function {k}."""
    total = 0
    for i in range(n):
        if x[i] > {k} % 7:
            total += x[i] * 2
        else:
            total -= 1
    while total > 100:
        total = total // 2
    return total + {k}
'''


def big_function(k: int, statements: int = 2000) -> str:
    body = [f"\ndef big_{k}(x, n):", "    y = x"]
    for i in range(statements):
        if i % 10 == 0:
            body.append(f"    if n > {i}:\n        y = y + {i}\n    else:\n        y = y - 1")
        else:
            body.append(f"    y = y * 1.0001 + {i % 13}")
    body.append("    return y\n")
    return "\n".join(body)


def source(size: int, kind: str) -> str:
    parts, total, k = ["import numpy as np\n"], 0, 0
    while total < size:
        part = SMALL.format(k=k) if kind == "small" else big_function(k)
        parts.append(part)
        total += len(part)
        k += 1
    return "".join(parts)


def in_process(work, repeats: int) -> tuple[float, int]:
    """(median CPU seconds, tracemalloc peak in bytes) of `work()`; the time is measured
    without tracemalloc, which slows Python code several times."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak


# run in the child: the peak RSS of this very program (VmHWM starts afresh at exec, while
# the child's ru_maxrss would count the forked parent's pages), written to a pipe
_PEAK = """
import os, runpy, sys
fd, argv = int(sys.argv[1]), sys.argv[2:]
try:
    if argv[0] == "compile":
        compile(open(argv[1]).read(), argv[1], "exec")
    else:
        sys.argv = ["autograph"] + argv
        runpy.run_module("autograph", run_name="__main__")
finally:
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")]
    os.write(fd, hwm[0].split()[1].encode())
"""


def child(args: list[str], repeats: int) -> tuple[float, int]:
    """(median wall seconds, peak RSS in bytes) of a fresh interpreter running
    `compile` of a file or `autograph ARGS...`."""
    times, peak = [], 0
    for _ in range(repeats):
        read, write = os.pipe()
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _PEAK, str(write)] + args,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              pass_fds=(write,))
        times.append(time.perf_counter() - start)
        os.close(write)
        with os.fdopen(read, "rb") as f:
            kib = f.read()
        if proc.returncode not in (0, 3) or not kib:
            raise SystemExit(f"{args} failed ({proc.returncode}): {proc.stderr[-500:]!r}")
        peak = max(peak, int(kib) * 1024)
    return statistics.median(times), peak


def main(megabytes: float = 10.0, repeats: int = 1) -> None:
    directory = tempfile.mkdtemp(prefix="bench_convert")
    rows = []
    for kind in ("small", "big"):
        text = source(int(megabytes * 1e6), kind)
        path = os.path.join(directory, f"{kind}.py")
        with open(path, "w") as f:
            f.write(text)
        c_time, c_mem = in_process(lambda: compile(text, path, "exec"), repeats)
        v_time, v_mem = in_process(lambda: convert_module_source(text, path, [], False),
                                   repeats)
        rows.append((f"{kind} functions, in process", "CPU s", c_time, v_time))
        rows.append((f"{kind} functions, in process", "peak MB (tracemalloc)",
                     c_mem / 1e6, v_mem / 1e6))
        c_time, c_mem = child(["compile", path], repeats)
        out = os.path.join(directory, f"{kind}_out.py")
        v_time, v_mem = child(["convert", path, "-o", out], repeats)
        rows.append((f"{kind} functions, `autograph convert`", "wall s", c_time, v_time))
        rows.append((f"{kind} functions, `autograph convert`", "peak RSS MB",
                     c_mem / 1e6, v_mem / 1e6))
    print(f"{megabytes:g} MB sources, median of {repeats}")
    print(f"{'case':40} {'measure':22} {'compile':>9} {'convert':>9} {'ratio':>7}")
    for case, measure, c, v in rows:
        print(f"{case:40} {measure:22} {c:9.2f} {v:9.2f} {v / c:7.1f}")
    print("goal: every ratio <= 3")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0,
         int(sys.argv[2]) if len(sys.argv) > 2 else 1)
