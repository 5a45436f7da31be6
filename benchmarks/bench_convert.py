"""Conversion benchmark: converting a large source file against CPython compiling it.

For each size (default 1 MB and 10 MB, side by side in one run) two generated modules:
one of many small functions (loops, branches, a docstring each, like a real module) and
one of a few big functions (2,000 statements each). Each is
- compiled by CPython (`compile(text, path, "exec")`) and converted in this process
  (`autograph.impl.static.convert_module_source`, what the CLI runs): median CPU time;
- compiled and converted by a fresh interpreter (`python -c compile(...)` and
  `python -m autograph convert SRC -o OUT`): wall time and peak RSS (VmHWM);
- the floor: `ast.parse` of the input, and writing the converted output's tree as text
  (`autograph.pyct.gast_unparse`, the writer the converter uses), each against `compile`
  of the input; `compile` of the output for reference (the converter does not compile
  it). The converted code is several times the input (a Python path and a graph path
  for each `if` / loop), so writing it alone costs more than 3x the input's compile,
  whatever the converter's passes do.
The table prints each figure and the ratio convert / compile. The goal (issue 24): both
ratios at most 3.

    python benchmarks/bench_convert.py [MEGABYTES[,MEGABYTES...]] [REPEATS]
"""
from __future__ import annotations

import ast
import os
import statistics
import subprocess
import sys
import tempfile
import time

from autograph.impl.static import convert_module_source
from autograph.pyct.ast_to_gast import ast_to_gast
from autograph.pyct.gast_unparse import unparse_gast

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


def cpu(work, repeats: int) -> tuple[float, object]:
    """(median CPU seconds, last result) of `work()`."""
    times, result = [], None
    for _ in range(repeats):
        start = time.process_time()
        result = work()
        times.append(time.process_time() - start)
    return statistics.median(times), result


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


def measure(megabytes: float, kind: str, repeats: int, directory: str) -> list:
    text = source(int(megabytes * 1e6), kind)
    path = os.path.join(directory, f"{kind}{megabytes:g}.py")
    with open(path, "w") as f:
        f.write(text)
    case = f"{megabytes:g} MB, {kind} functions"
    c_time, _ = cpu(lambda: compile(text, path, "exec"), repeats)
    v_time, out = cpu(lambda: convert_module_source(text, path, [], False), repeats)
    rows = [(case, "CPU s, in process", c_time, v_time)]
    c_wall, c_mem = child(["compile", path], 1)
    v_wall, v_mem = child(["convert", path, "-o", path + ".out"], 1)
    rows.append((case, "wall s, fresh process", c_wall, v_wall))
    rows.append((case, "peak RSS MB, fresh process", c_mem / 1e6, v_mem / 1e6))
    # the floor: what any converter producing this output pays, whatever its passes
    parse_time, _ = cpu(lambda: ast.parse(text), repeats)
    rows.append((case, "floor: ast.parse(input)", c_time, parse_time))
    tree = ast_to_gast(ast.parse(out))
    rows.append((case, "floor: write output text", c_time,
                 cpu(lambda: unparse_gast(tree), 1)[0]))
    rows.append((case, "(compile(output), reference)", c_time,
                 cpu(lambda: compile(out, path, "exec"), 1)[0]))
    rows.append((case, "output size MB", len(text) / 1e6, len(out) / 1e6))
    return rows


def main(sizes: list[float], repeats: int = 1) -> None:
    directory = tempfile.mkdtemp(prefix="bench_convert")
    rows = [row for megabytes in sizes for kind in ("small", "big")
            for row in measure(megabytes, kind, repeats, directory)]
    print(f"median of {repeats} (CPU times); one fresh process each (wall, peak RSS)")
    print(f"{'case':26} {'measure':28} {'compile':>9} {'convert':>9} {'ratio':>7}")
    for case, what, c, v in rows:
        print(f"{case:26} {what:28} {c:9.2f} {v:9.2f} {v / c:7.1f}")
    print("goal (issue 24): convert/compile <= 3 in time and memory; the floor rows are "
          "the ratios of steps any converter of this output pays")


if __name__ == "__main__":
    main([float(a) for a in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1.0, 10.0],
         int(sys.argv[2]) if len(sys.argv) > 2 else 1)
