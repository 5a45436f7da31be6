"""A fuzzer for `ag.load`: random corruptions of real saved files must raise LoadError (or
load a still-valid graph) — no other exception, nothing executed, bounded memory.

Corruptions: byte flips and truncation of the `.agz`; JSON edits (a key dropped, a value
of the wrong type, huge sizes, references to later values (cycles), unknown ops, bad
dtypes, shape and dtype lies, code-like strings, newer versions); `.npy` header lies.
A loaded graph's generated executor must be one function definition and nothing else.

Run outside the suite: `python -m tests.saved.fuzz_loader 10000`.
"""
from __future__ import annotations

import ast
import copy
import io
import json
import os
import random
import sys
import tempfile
import tracemalloc
import zipfile

import numpy as np

import autograph as ag
from runtime.saved.format import LoadError

SENTINEL = "autograph_fuzz_pwned"
_CODE = [f"__import__('os').system('touch {SENTINEL}')",
         f"x\nimport os; os.system('touch {SENTINEL}')\n",
         f"a=1)\nopen('{SENTINEL}', 'w')\n#", "exit", "__import__", "eval", "os.system"]
_WRONG = [None, True, False, -1, 0, 1, 2**40, 2**70, 1.5, float("-0.0"), "", "x", [], {},
          [None], {"ref": "nope"}, {"tuple": [1, {"ndarray": "a99999"}]}, {"float": "2"},
          {"scalar": ["<f8", "00"]}, {"slot": 10**6}, {"variable": 7}, {"python_type": "os"}]
_DTYPES = ["|O", "<V8", "object", "<f3", "float32", "<M8[ns]", "|b1", "<i8", "<c16", "<U3"]


def _sample_functions():
    w = ag.Variable(np.array([1.0, -2.0, 0.5]), name="w")

    @ag.function
    def loop(x, n):
        acc = np.zeros_like(x)
        i = 0
        while i < n:
            if np.sum(acc) > 5:
                acc = acc - x[::-1]
            else:
                acc = acc + x * w
            i += 1
        return acc, {"last": acc[-1:], "n": n}

    @ag.function
    def lists(x):
        out = []
        for v in x:
            if v > 0:
                out.append(v * 2)
        w.assign_add(np.ones(3))
        return np.stack(out), np.einsum("i,i->", x, x)

    loop(np.arange(3.0), np.int64(4))
    lists(np.array([1.0, -1.0, 2.0]))
    return [loop, lists]


def make_originals(directory: str) -> list[str]:
    paths = []
    for k, fn in enumerate(_sample_functions()):
        path = os.path.join(directory, f"orig{k}.agz")
        ag.save(fn, path)
        paths.append(path)
    return paths


def _read(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("graph.json")), zf.read("arrays.npz")


def _write(path, description, npz: bytes, raw_json: bytes | None = None):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("graph.json", raw_json if raw_json is not None else
                    json.dumps(description).encode())
        zf.writestr("arrays.npz", npz)


def _slots(tree, path=()):
    """Every (container, key) in a JSON tree."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield tree, k
            yield from _slots(v, path + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield tree, i
            yield from _slots(v, path + (i,))


def _edit_json(rng: random.Random, d: dict) -> dict:
    d = copy.deepcopy(d)
    slots = list(_slots(d))
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        container, key = rng.choice(slots)
        value = container[key]
        kind = rng.randrange(9)
        if kind == 0 and isinstance(container, dict):
            del container[key]
            slots = list(_slots(d))
        elif kind == 1:
            container[key] = copy.deepcopy(rng.choice(_WRONG))
        elif kind == 2:  # huge sizes
            container[key] = rng.choice([10**12, 2**63, [10**9] * 8, [2**31] * 40, -(2**62)])
        elif kind == 3 and isinstance(value, dict) and "ref" in value:  # cycles, forward refs
            names = [v["name"] for c, k in _slots(d) if isinstance(v := c[k], dict)
                     and "name" in v and "dtype" in v]
            value["ref"] = rng.choice(names) if names else "v1"
        elif kind == 4 and isinstance(value, str):
            container[key] = rng.choice(["no_such_op", "system", "eval", "__import__", "exec",
                                         "open", "getattr"] + _CODE)
        elif kind == 5 and isinstance(value, str):
            container[key] = rng.choice(_DTYPES)
        elif kind == 6 and isinstance(value, list) and value and all(
                isinstance(x, int) or x is None for x in value):  # shape lies
            value[rng.randrange(len(value))] = rng.choice([0, 1, 2, 7, None, 10**15])
        elif kind == 7:
            container[key] = rng.choice(_CODE)
        elif kind == 8 and isinstance(value, int) and not isinstance(value, bool):
            container[key] = value + rng.choice([-1, 1, 2, 1000])
    if rng.random() < 0.05:
        d["version"] = rng.choice([2, 99, "1", 0])
    return d


def _edit_npz(rng: random.Random, npz: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(npz))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        names = src.namelist()
        victim = rng.choice(names) if names else None
        for name in names:
            data = src.read(name)
            if name == victim:
                kind = rng.randrange(4)
                if kind == 0:  # shape lie in the header
                    data = data.replace(b"'shape': (", b"'shape': (1000000000, ", 1)
                elif kind == 1:
                    data = data.replace(b"'descr': '", b"'descr': '|O", 1)
                elif kind == 2:
                    data = data[:rng.randrange(len(data))]
                else:
                    name = rng.choice(["../evil.npy", "a1.pkl", "x" * 300])
            dst.writestr(name, data)
    return out.getvalue()


def one_case(rng: random.Random, original: str, path: str) -> str:
    """Write one corrupted file at `path`; returns the kind of corruption."""
    raw = open(original, "rb").read()
    kind = rng.randrange(5)
    if kind == 0:
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        open(path, "wb").write(bytes(data))
        return "byte flips"
    if kind == 1:
        open(path, "wb").write(raw[:rng.randrange(len(raw))])
        return "truncation"
    description, npz = _read(original)
    if kind == 2:
        text = json.dumps(description).encode()
        cut = rng.randrange(len(text))
        _write(path, None, npz, text[:cut] + bytes([rng.randrange(256)]) + text[cut + 1:])
        return "json bytes"
    if kind == 3:
        _write(path, None, _edit_npz(rng, npz), json.dumps(description).encode())
        return "npz edit"
    _write(path, _edit_json(rng, description), npz)
    return "json edit"


def check_loaded(fn) -> None:
    """A loaded function's executors are single function definitions (no module-level code)."""
    for cf in fn.concrete_functions:
        tree = ast.parse(cf.python_code)
        assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef), cf.python_code


def run(n: int, seed: int = 0, directory: str | None = None, memory_limit: int = 64 << 20):
    """Run `n` cases; returns {outcome: count}. Raises on any other exception."""
    rng = random.Random(seed)
    directory = directory or tempfile.mkdtemp(prefix="agfuzz")
    cwd = os.getcwd()
    os.chdir(directory)  # injected code would write the sentinel here
    try:
        originals = make_originals(directory)
        counts: dict = {}
        path = os.path.join(directory, "case.agz")
        tracemalloc.start()
        for i in range(n):
            kind = one_case(rng, rng.choice(originals), path)
            tracemalloc.reset_peak()
            try:
                fn = ag.load(path)
                outcome = "loaded"
            except LoadError:
                outcome = "LoadError"
                fn = None
            except Exception as e:
                raise AssertionError(f"case {i} ({kind}): {type(e).__name__}: {e}") from e
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < memory_limit, f"case {i} ({kind}) used {peak} bytes"
            if fn is not None:
                check_loaded(fn)
            counts[(kind, outcome)] = counts.get((kind, outcome), 0) + 1
            assert not os.path.exists(SENTINEL), f"case {i} ({kind}) executed file content"
        tracemalloc.stop()
        return counts
    finally:
        os.chdir(cwd)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    counts = run(n, seed=int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    for (kind, outcome), k in sorted(counts.items()):
        print(f"{kind:12} {outcome:10} {k}")
    print(f"{n} cases: no exception other than LoadError, nothing executed")
