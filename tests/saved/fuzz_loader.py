"""A fuzzer for `ag.load`: damaged saved files must raise LoadError (or load exactly the
original) — no other exception, nothing executed, bounded time and memory.

Structure-aware cases: byte flips and truncations of the `.agz`; JSON edits (a key
dropped, a value of the wrong type, huge sizes, references to later values (cycles),
unknown ops, bad dtypes, shape and dtype lies, code-like strings, newer versions) both
with a recomputed manifest and with the original one; edits of every manifest entry
(sizes, digests, member names, format, version, duplicate keys); members swapped across
two saves; extra members (`../../evil.txt`); duplicate JSON keys; `.npy` header lies;
the directory form with swapped, extra, missing, symlinked and FIFO members; and special
files (a FIFO, symlinks to `/dev/zero`, `/dev/null` and a FIFO).

A file whose manifest was not recomputed to match the damage must be refused, or load
and give the original's answers (only zip metadata changed). A loaded graph's generated
executor must be one function definition and nothing else.

Run outside the suite: `python -m tests.saved.fuzz_loader 100000 [seed]`.
"""
from __future__ import annotations

import ast
import copy
import io
import json
import os
import random
import stat
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile

import numpy as np

import autograph as ag
from runtime.saved.format import LoadError
from tests.saved.tamper import members_of, read_agz, write_agz

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


_SAMPLE_ARGS = {"loop": (np.arange(3.0), np.int64(4)), "lists": (np.array([1.0, -1.0, 2.0]),)}


def make_originals(directory: str) -> list[dict]:
    """Each sample function saved as `.agz` and as a directory, with the answers the
    pristine file gives on its sample arguments."""
    originals = []
    for k, fn in enumerate(_sample_functions()):
        agz, folder = (os.path.join(directory, f"orig{k}{ext}") for ext in (".agz", "_dir"))
        ag.save(fn, agz)
        ag.save(fn, folder)
        args = _SAMPLE_ARGS[fn.__name__]
        originals.append({"name": fn.__name__, "agz": agz, "dir": folder, "args": args,
                          "answers": _answers(ag.load(agz), args)})
    return originals


def _read(path):
    return read_agz(path)


def _write(path, description, npz: bytes, raw_json: bytes | None = None):
    write_agz(path, description, npz, raw_json)  # with a matching manifest


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
        elif kind == 3 and type(value) is int and isinstance(container, list):
            # a reference (a value's number) to another value, often a later one: cycles,
            # forward references, a node's own output
            declared = sum(1 for c, k in _slots(d) if isinstance(v := c[k], list)
                           and len(v) >= 3 and type(v[0]) is str and type(v[1]) is str)
            container[key] = rng.randrange(declared + 2)
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


_SWAP = "swapped members"


def one_case(rng: random.Random, originals: list, directory: str):
    """Write one damaged saved function under `directory`; returns (kind, path, rehashed).

    `rehashed`: the damage came with a manifest recomputed to match it (an edit by someone
    who knows the format): it may load if the result is a consistent graph. Otherwise the
    case must raise LoadError, or (a byte of zip metadata changed) load the original."""
    original = rng.choice(originals)
    other = rng.choice([o for o in originals if o is not original])
    path = os.path.join(directory, "case.agz")
    _clear(directory)
    raw = open(original["agz"], "rb").read()
    members = members_of(original["agz"])
    kind = rng.randrange(12)
    if kind == 0:
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        open(path, "wb").write(bytes(data))
        return "byte flips", path, False
    if kind == 1:
        open(path, "wb").write(raw[:rng.randrange(len(raw))])
        return "truncation", path, False
    description = json.loads(members["graph.json"])
    npz = members["arrays.npz"]
    if kind == 2:
        text = json.dumps(description).encode()
        cut = rng.randrange(len(text))
        _write(path, None, npz, text[:cut] + bytes([rng.randrange(256)]) + text[cut + 1:])
        return "json bytes", path, True
    if kind == 3:
        _write(path, None, _edit_npz(rng, npz), json.dumps(description).encode())
        return "npz edit", path, True
    if kind == 4:
        _write(path, _edit_json(rng, description), npz)
        return "json edit", path, True
    if kind == 5:  # the same edit, the original manifest kept
        write_agz(path, _edit_json(rng, description), npz, manifest=members["manifest.json"])
        return "json edit, stale manifest", path, False
    if kind == 6:
        write_agz(path, raw=members["graph.json"], npz=npz,
                  manifest=_edit_manifest(rng, members))
        return "manifest edit", path, False
    if kind == 7:
        return _swap(rng, original, other, path), path, False
    if kind == 8:
        write_agz(path, raw=members["graph.json"], npz=npz, manifest=members["manifest.json"],
                  extra={rng.choice(["../../evil.txt", "graph.json.bak", "a0.npy", "/abs",
                                     "manifest.json"]): b"x"})
        return "extra member", path, False
    if kind == 9:
        write_agz(path, raw=_duplicate_key(rng, members["graph.json"]), npz=npz)
        return "duplicate key", path, True
    if kind == 10:
        return _directory_case(rng, original, other, directory)
    return _special_file(rng, original, directory)


def _clear(directory: str) -> None:
    for name in ("case.agz", "case_dir"):
        p = os.path.join(directory, name)
        if os.path.islink(p) or os.path.isfile(p) or _is_special(p):
            os.unlink(p)
        elif os.path.isdir(p):
            for entry in os.listdir(p):
                os.unlink(os.path.join(p, entry))
            os.rmdir(p)


def _is_special(p: str) -> bool:
    try:
        return not stat.S_ISDIR(os.lstat(p).st_mode)
    except FileNotFoundError:
        return False


def _edit_manifest(rng: random.Random, members: dict) -> bytes:
    m = json.loads(members["manifest.json"])
    entry = m["members"][rng.choice(["graph.json", "arrays.npz"])]
    kind = rng.randrange(8)
    if kind == 0:
        entry["size"] += rng.choice([-1, 1, 10**9, -(10**6)])
    elif kind == 1:
        digest = entry["sha256"]
        i = rng.randrange(64)
        entry["sha256"] = digest[:i] + rng.choice("0123456789abcdefG") + digest[i + 1:]
    elif kind == 2:
        del m["members"][rng.choice(list(m["members"]))]
    elif kind == 3:
        m["members"]["../evil.txt"] = dict(entry)
    elif kind == 4:
        m[rng.choice(["version", "format"])] = rng.choice([1, 3, "x", None, 2**70])
    elif kind == 5:
        key = rng.choice(["size", "sha256"])
        entry[key] = copy.deepcopy(rng.choice(_WRONG))
    elif kind == 6:  # each member described by the other's entry
        a, b = m["members"]["graph.json"], m["members"]["arrays.npz"]
        m["members"]["graph.json"], m["members"]["arrays.npz"] = b, a
    else:
        return _duplicate_key(rng, json.dumps(m).encode())
    return json.dumps(m).encode()


def _duplicate_key(rng: random.Random, text: bytes) -> bytes:
    """The JSON with one object's first key repeated with another value (last would win)."""
    starts = [i for i, c in enumerate(text) if c == ord("{") and text[i + 1:i + 2] == b'"']
    i = rng.choice(starts)
    end = text.index(b'"', i + 2)
    key = text[i + 1:end + 1]
    return text[:i + 1] + key + b': {"tuple": []}, ' + text[i + 1:]


def _swap(rng: random.Random, original: dict, other: dict, path: str) -> str:
    mine, theirs = members_of(original["agz"]), members_of(other["agz"])
    graph_from, arrays_from, manifest_from = rng.choice(
        [(mine, theirs, mine), (mine, theirs, theirs), (theirs, mine, mine),
         (mine, theirs, None)])
    write_agz(path, raw=graph_from["graph.json"], npz=arrays_from["arrays.npz"],
              manifest=manifest_from["manifest.json"] if manifest_from else False)
    return _SWAP


def _directory_case(rng: random.Random, original: dict, other: dict, directory: str):
    path = os.path.join(directory, "case_dir")
    os.mkdir(path)
    for name in ("graph.json", "arrays.npz", "manifest.json"):
        with open(os.path.join(original["dir"], name), "rb") as f:
            data = f.read()
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    kind = rng.randrange(6)
    victim = os.path.join(path, rng.choice(["graph.json", "arrays.npz", "manifest.json"]))
    if kind == 0:  # one save's member beside another's
        name = rng.choice(["graph.json", "arrays.npz", "manifest.json"])
        os.unlink(os.path.join(path, name))
        with open(os.path.join(other["dir"], name), "rb") as f:
            data = f.read()
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
        return "directory: " + _SWAP, path, False
    if kind == 1:
        open(os.path.join(path, rng.choice(["evil.txt", ".graph.json.x.tmp"])), "wb").close()
        return "directory: extra file", path, False
    os.unlink(victim)
    if kind == 2:
        os.symlink("/dev/zero", victim)
        return "directory: member -> /dev/zero", path, False
    if kind == 3:
        os.mkfifo(victim)
        return "directory: member is a FIFO", path, False
    if kind == 4:  # a symlink to the genuine member of the other save
        os.symlink(os.path.join(other["dir"], os.path.basename(victim)), victim)
        return "directory: member is a symlink", path, False
    return "directory: member missing", path, False


def _special_file(rng: random.Random, original: dict, directory: str):
    path = os.path.join(directory, "case.agz")
    kind = rng.randrange(4)
    if kind == 0:
        os.mkfifo(path)
        return "special: FIFO", path, False
    if kind == 1:
        os.symlink("/dev/zero", path)
        return "special: -> /dev/zero", path, False
    if kind == 2:
        os.symlink("/dev/null", path)
        return "special: -> /dev/null", path, False
    fifo = os.path.join(directory, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    os.symlink(fifo, path)
    return "special: -> FIFO", path, False


def check_loaded(fn) -> None:
    """A loaded function's graphs pass the verifier (the loader checks the same invariants
    while decoding, instead of verifying afterwards), and its executors are single function
    definitions (no module-level code)."""
    for cf in fn.concrete_functions:
        cf.graph.verify()
        cf.optimized_graph.verify()
        tree = ast.parse(cf.python_code)
        assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef), cf.python_code


def _answers(fn, args) -> list:
    out = fn(*args)
    return [np.asarray(x) for x in _flat(out)]


def _flat(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flat(v)
    elif isinstance(value, dict):
        for k in sorted(value):
            yield from _flat(value[k])
    else:
        yield value


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
        for x, y in zip(a, b))


def run(n: int, seed: int = 0, directory: str | None = None, memory_limit: int = 64 << 20,
        time_limit: float = 5.0):
    """Run `n` cases; returns {(kind, outcome): count}. Raises AssertionError on any other
    exception, a load over the time or memory bound, executed file content, or a file
    with a stale manifest that loads and answers differently from the original."""
    rng = random.Random(seed)
    directory = directory or tempfile.mkdtemp(prefix="agfuzz")
    cwd = os.getcwd()
    os.chdir(directory)  # injected code would write the sentinel here
    try:
        warnings.filterwarnings("ignore", "Duplicate name", UserWarning)  # our own zips
        originals = make_originals(directory)
        counts: dict = {}
        tracemalloc.start()
        for i in range(n):
            kind, path, rehashed = one_case(rng, originals, directory)
            tracemalloc.reset_peak()
            start = time.perf_counter()
            try:
                fn = ag.load(path)
                outcome = "loaded"
            except LoadError:
                outcome = "LoadError"
                fn = None
            except Exception as e:
                raise AssertionError(f"case {i} ({kind}): {type(e).__name__}: {e}") from e
            elapsed = time.perf_counter() - start
            peak = tracemalloc.get_traced_memory()[1]
            assert elapsed < time_limit, f"case {i} ({kind}) took {elapsed:.1f} s"
            assert peak < memory_limit, f"case {i} ({kind}) used {peak} bytes"
            if fn is not None:
                check_loaded(fn)
                if not rehashed:  # what loads past the manifest is the original
                    matches = [o for o in originals if o["name"] == fn.__name__]
                    assert matches and _same(_answers(fn, matches[0]["args"]),
                                             matches[0]["answers"]), \
                        f"case {i} ({kind}) loaded and answers differently"
                    outcome = "loaded, same answers"
                else:
                    outcome = "loaded (consistent edit, manifest recomputed)"
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
        print(f"{kind:34} {outcome:48} {k:7}")
    print(f"{n} cases: no exception other than LoadError, nothing executed, every stale-"
          "manifest load gave the original's answers")
