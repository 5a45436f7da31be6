"""A fresh process that imports a module written by `autograph convert` and runs it on
Python values, against the same process with the original module: medians of paired
CPU-time ratios (issue 21: whole process, at most 1.3).

Times are the whole child process's CPU time, interpreter start included (what running
a program costs). Rows: the import alone, and the import plus one call of the module's `main` (small
functions, branches, loops, a class, a try and a with - the kind of code CPython's own
test modules are made of). Each pair runs the two processes back to back, in alternating
order, `--repeats` times; the bytecode is compiled once first for both files, as a second
run of a program finds it. It also prints how many modules each process loads and whether
NumPy is among them.

    python benchmarks/bench_convert_import.py [--repeats N]
"""
from __future__ import annotations

import argparse
import json
import os
import py_compile
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCE = textwrap.dedent('''\
    import functools


    def collatz_steps(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps


    class Account:
        def __init__(self, balance=0):
            self.balance = balance
            self.log = []

        def deposit(self, amount):
            if amount <= 0:
                raise ValueError("positive amounts only")
            self.balance += amount
            self.log.append(("deposit", amount))
            return self.balance


    def checked(values):
        out = []
        for v in values:
            try:
                assert 0 <= v < 100, v
                out.append(v)
            except AssertionError:
                if out:
                    out.pop()
        return out


    @functools.lru_cache(maxsize=None)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)


    def main():
        acc = Account()
        for k in range(1, 50):
            acc.deposit(k)
        return [collatz_steps(k) for k in range(1, 200)], acc.balance, \\
            checked(list(range(-5, 120, 7))), fib(60)
''')

PROBE = textwrap.dedent('''\
    import json, sys
    import {module} as m
    {call}
    print(json.dumps({{"modules": len(sys.modules), "numpy": "numpy" in sys.modules}}))
''')


def _run(directory: str, module: str, call: bool) -> dict:
    """The whole child process's CPU time (interpreter start included), and what it loaded."""
    code = PROBE.format(module=module, call="m.main()" if call else "")
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{directory}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", code], cwd=directory, env=env,
                         capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = json.loads(out.stdout)
    got["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "original.py"), "w") as f:
            f.write(SOURCE)
        subprocess.run([sys.executable, "-m", "autograph", "convert",
                        os.path.join(directory, "original.py"), "-o",
                        os.path.join(directory, "converted.py")], check=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
        for name in ("original", "converted"):
            py_compile.compile(os.path.join(directory, f"{name}.py"))
        for label, call in (("import", False), ("import + main()", True)):
            ratios, last = [], {}
            for k in range(args.repeats):
                order = ("original", "converted") if k % 2 == 0 else ("converted", "original")
                got = {name: _run(directory, name, call) for name in order}
                ratios.append(got["converted"]["cpu"] / got["original"]["cpu"])
                last = got
            print(f"{label:16s} converted/original CPU, median of {args.repeats} pairs: "
                  f"{statistics.median(ratios):.2f}  (modules loaded: original "
                  f"{last['original']['modules']}, converted {last['converted']['modules']}; "
                  f"NumPy loaded by the converted one: {last['converted']['numpy']})")


if __name__ == "__main__":
    main()
