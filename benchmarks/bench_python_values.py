"""Converted code on plain Python values against the original: medians of paired ratios.

Each row is a small Python program (no NumPy) run as written, as `ag.to_graph`
converted it, and as `autograph convert` writes it (this file converted and imported as
a module: every function and method of the program converted, so every call runs
converted code), in turn, `--repeats` times; a row's figures are the medians of the per-repeat ratios
converted/original (issue 21's target: at most 1.2 each). The recursive row also pays
for `converted_call` on every call.

It also prints how long tracing takes for a function whose Python parts are these
programs (the first call of a new `ag.function`), since every trace runs converted code
on Python values.

Times are CPU time of this process (`--wall`: the wall clock).

    python benchmarks/bench_python_values.py [--repeats N] [--wall]
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import autograph as ag


def collatz(limit):
    total = 0
    for start in range(1, limit):
        n = start
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            total += 1
    return total


def bubble_sort(items):
    xs = list(items)
    n = len(xs)
    for i in range(n):
        for j in range(n - i - 1):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
    return xs


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def word_stats(text):
    counts = {}
    longest = ""
    for word in text.split():
        word = word.strip(".,;:!?").lower()
        if not word:
            continue
        counts[word] = counts.get(word, 0) + 1
        if len(word) > len(longest):
            longest = word
    vowels = 0
    for ch in text:
        if ch in "aeiou":
            vowels += 1
    return len(counts), longest, vowels


class Account:
    def __init__(self, owner, balance):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            return False
        self.balance += amount
        self.history.append(amount)
        return True

    def withdraw(self, amount):
        if amount > self.balance:
            return False
        self.balance -= amount
        self.history.append(-amount)
        return True


def bank(rounds):
    accounts = [Account(f"owner{k}", 100) for k in range(8)]
    ok = 0
    for r in range(rounds):
        acct = accounts[r % len(accounts)]
        if r % 3 == 0:
            ok += acct.withdraw(r % 50)
        else:
            ok += acct.deposit(r % 7)
    return ok, sum(a.balance for a in accounts)


TEXT = ("It was the best of times, it was the worst of times, it was the age of wisdom, "
        "it was the age of foolishness; it was the epoch of belief. ") * 8
ROWS = [
    ("Collatz (starts 1..300)", collatz, (300,)),
    ("bubble sort of 60 ints", bubble_sort, (list(range(60, 0, -1)),)),
    ("recursive Fibonacci (18)", fib, (18,)),
    ("string processing loop", word_stats, (TEXT,)),
    ("class-heavy program", bank, (600,)),
]


def python_heavy(x):
    """Traced: its Python parts (the programs above) run while tracing, then one op."""
    coeffs = [fib(k) for k in range(12)]
    kinds, longest, vowels = word_stats(TEXT)
    ok, total = bank(200)
    return x * (sum(coeffs) + kinds + len(longest) + vowels + ok + total + collatz(40))


def trace_time(repeats: int) -> float:
    """Median seconds of the first call of a new `ag.function(python_heavy)` (a trace;
    the conversions are cached after the first repeat)."""
    x = np.float64(1.5)
    times = []
    for _ in range(repeats):
        f = ag.function(python_heavy)
        start = CLOCK[0]()
        f(x)
        times.append(CLOCK[0]() - start)
    return statistics.median(times[1:] or times)


CLOCK = [time.process_time]  # CPU time (other processes' load only adds wall time)


def _time(fn, args, runs: int = 3) -> float:
    """The fastest of `runs` back-to-back runs (the machine's noise only adds time)."""
    best = float("inf")
    for _ in range(runs):
        start = CLOCK[0]()
        fn(*args)
        best = min(best, CLOCK[0]() - start)
    return best


def written_module():
    """This file as `autograph convert` writes it, imported (under another name: its
    `main` does not run)."""
    from autograph.impl.static import convert_module_source

    text = convert_module_source(Path(__file__).read_text(), __file__)
    path = Path(tempfile.mkdtemp()) / "bench_python_values_converted.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def measure(repeats: int) -> list:
    """Per row: (label, original seconds, to_graph seconds, CLI seconds, to_graph /
    original, CLI / original), each the median over the repeats."""
    module = written_module()
    rows = []
    for label, fn, args in ROWS:
        converted, written = ag.to_graph(fn), getattr(module, fn.__name__)
        assert converted(*args) == fn(*args) == written(*args), label
        times: list = [[], [], []]
        ratios: list = [[], []]
        for _ in range(repeats):
            t0, t1, t2 = (_time(f, args) for f in (fn, converted, written))
            for k, t in enumerate((t0, t1, t2)):
                times[k].append(t)
            ratios[0].append(t1 / t0)
            ratios[1].append(t2 / t0)
        rows.append((label, *map(statistics.median, times), *map(statistics.median, ratios)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41)
    parser.add_argument("--wall", action="store_true", help="time with the wall clock")
    args = parser.parse_args()
    if args.wall:
        CLOCK[0] = time.perf_counter
    rows = measure(args.repeats)
    print("| program | original (ms) | `ag.to_graph` (ms) | `autograph convert` (ms) | "
          "to_graph/original | convert/original |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, t0, t1, t2, r1, r2 in rows:
        print(f"| {label} | {t0 * 1e3:.2f} | {t1 * 1e3:.2f} | {t2 * 1e3:.2f} | {r1:.2f} | "
              f"{r2:.2f} |")
    print(f"\ntrace of a Python-heavy function (median of {args.repeats}): "
          f"{trace_time(args.repeats) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
