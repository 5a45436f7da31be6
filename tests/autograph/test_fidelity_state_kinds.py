"""State held where the walk once saw only a type: a function's attributes, a module of
the program, the standard library's containers (deque, set, frozenset, defaultdict,
OrderedDict, Counter, bytearray). Differential: eager against ag.function,
jit_compile=True and ag.to_graph, over repeated calls, with the state changed by the
function itself and by the caller between calls; results and state compared after
every call.

Before, such state was guarded by its type alone: a counter the function kept in
`f.calls`, `config.steps`, a `deque` or a `Counter` counted the first call only, a value
appended to a deque stayed a dead symbolic Tensor, and a set or frozenset the caller
changed between calls (`2 in S`) kept the first trace's answer."""
from __future__ import annotations

import collections
import importlib
import sys

import numpy as np
import pytest

import autograph as ag

MODES = {
    "function": ag.function,
    "jit": lambda f: ag.function(f, jit_compile=True),
    "to_graph": lambda f: ag.function(ag.to_graph(f)),
}
X = np.array([1.0, -2.0, 3.0, 0.5])


def program_module(tmp_path, name: str):
    """A module of the program (a file outside the installed packages), fresh."""
    (tmp_path / f"{name}.py").write_text("steps = 0\nscale = 1.0\nlog = []\n")
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop(name, None)
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def cases(tmp_path):
    """name -> (function, what to compare after each call, a change between calls)."""
    out = {}

    def counted(x):
        counted.calls = getattr(counted, "calls", 0) + 1
        return x * counted.calls
    out["function attribute counter"] = (counted, lambda: counted.calls, None)

    def remembers(x):
        remembers.last = np.sum(x) * 2.0
        return x + remembers.last
    out["function attribute array"] = (remembers, lambda: remembers.last, None)

    def scaled(x):
        return x * scaled.factor
    scaled.factor = 2.0

    def rescale():
        scaled.factor = scaled.factor + 1.0
    out["function attribute changed by the caller"] = (scaled, lambda: scaled.factor, rescale)

    config = program_module(tmp_path, f"state_kinds_config_{len(sys.modules)}")

    def steps(x):
        config.steps += 1
        config.log.append(float(np.max(x)))
        return x * config.steps * config.scale

    def bump():
        config.scale = config.scale * 3.0
    out["program module globals"] = (steps, lambda: (config.steps, list(config.log)), bump)

    recent = collections.deque(maxlen=3)

    def window(x):
        recent.append(np.sum(x))
        return x * len(recent), sum(recent)
    out["deque"] = (window, lambda: list(recent), None)

    seen = {1}

    def membership(x):
        seen.add(len(seen) + 1)
        return x * (3.0 if 3 in seen else 1.0)

    def drop():
        seen.discard(3)
    out["set"] = (membership, lambda: set(seen), drop)

    holder = {"allowed": frozenset({"a"})}

    def allowed(x):
        return x * (2.0 if "b" in holder["allowed"] else 1.0)

    def allow():
        holder["allowed"] = frozenset({"a", "b"})
    out["frozenset changed by the caller"] = (allowed, lambda: None, allow)

    counts = collections.Counter()
    tallies = collections.defaultdict(int)
    ordered = collections.OrderedDict(w=1.0)

    def tally(x):
        counts["calls"] += 1
        tallies["positive"] += int(np.sum(x > 0))
        ordered["w"] = ordered["w"] * 2.0
        return x * counts["calls"] + tallies["positive"] + ordered["w"]

    def reorder():
        ordered["w"] = 5.0
        tallies["positive"] = 100
    out["Counter, defaultdict and OrderedDict"] = (
        tally, lambda: (dict(counts), dict(tallies), list(ordered.items())), reorder)

    branch_config = program_module(tmp_path, f"state_kinds_branch_{len(sys.modules)}")

    def helper():
        pass
    helper.n = 0
    window3 = collections.deque([0.0, 0.0, 0.0], maxlen=3)
    votes = collections.Counter(up=0)

    def in_a_branch(x):
        if np.sum(x) > 0:  # (symbolic: both paths traced, the one taken runs)
            branch_config.steps += 1
            helper.n = helper.n + 2
            window3[1] = window3[1] + np.max(x)
            votes["up"] += 1
        return x * 2.0
    out["written under a symbolic condition"] = (
        in_a_branch, lambda: (branch_config.steps, helper.n, list(window3), dict(votes)),
        None)

    flags = bytearray(b"\x00")

    def flagged(x):
        return x * (2.0 if flags[0] else 1.0)

    def flag():
        flags[0] = 1
    out["bytearray changed by the caller"] = (flagged, lambda: bytes(flags), flag)
    return out


NAMES = ["written under a symbolic condition", "function attribute counter", "function attribute array",
         "function attribute changed by the caller", "program module globals", "deque",
         "set", "frozenset changed by the caller", "Counter, defaultdict and OrderedDict",
         "bytearray changed by the caller"]


SIGNS = [1.0, -1.0, -1.0, 1.0]  # (the paths a symbolic condition takes, call by call)


def run(tmp_path, name, wrap):
    fn, state, change = cases(tmp_path)[name]
    f = wrap(fn)
    seen = []
    for i in range(4):
        out = f(X * (i + 1) * SIGNS[i])
        seen.append((out, state()))
        if change is not None and i == 1:
            change()
    return seen


def same(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_state_kinds_match_python(tmp_path, name, mode):
    for part in ("eager", "graph"):
        (tmp_path / part).mkdir()
    expected = run(tmp_path / "eager", name, lambda f: f)
    got = run(tmp_path / "graph", name, MODES[mode])
    for i, (e, g) in enumerate(zip(expected, got)):
        assert same(e, g), f"call {i}: eager {e!r}, {mode} {g!r}"


def test_a_library_module_is_not_walked():
    """Only the program's modules are state: NumPy's globals are not guarded (reading
    `np.pi` costs no guard term per call)."""
    from runtime.state.state_kinds import module_with_state
    assert not module_with_state(np) and not module_with_state(collections)
    assert module_with_state(sys.modules[__name__])


@pytest.mark.parametrize("value", ["array", "counter"])
def test_an_attribute_set_on_an_ag_function_object_is_a_clear_error(value):
    """`@ag.function def f(x): f.calls += 1`: the name `f` is the Function itself, whose
    attributes are not walked as state (a documented limit). Setting one while tracing
    fails the trace, naming it, instead of a counter stuck at 1 or a dead symbolic
    value; the attribute is left as it was."""
    @ag.function
    def remembers(x):
        if value == "array":
            remembers.last = np.sum(x)
        else:
            remembers.calls = getattr(remembers, "calls", 0) + 1
        return x

    with pytest.raises(ValueError, match=r"it set remembers\.(last|calls): an attribute of an "
                                         r"ag\.function object"):
        remembers(X)
    assert not hasattr(remembers, "last") and not hasattr(remembers, "calls")


def test_the_compilers_own_cells_are_never_state():
    """A converted function's closure holds the runtime's list of graphs being built (the
    cell `ag__tracing`). Walked as a list of the program's, each call of a function
    that also appends to state wrote an item back into it: from then on every converted
    function behaved as if a trace were being built, for the rest of the process."""
    from runtime.core import tracing

    log = []

    def logs(x):
        log.append(np.sum(x))
        return x * len(log), sum(log)

    f = ag.function(ag.to_graph(logs))
    for i in range(3):
        f(X * (i + 1))
    assert list(tracing.building) == []
    assert [float(v) for v in log] == [2.5, 5.0, 7.5]


def test_a_set_grown_under_a_symbolic_condition_is_a_clear_error():
    """A set that gains an element on one path only changes its structure, which a graph
    of fixed structure cannot carry: the error names the set and the line (as for a
    list's append)."""
    seen = set()

    @ag.function
    def note(x):
        if np.sum(x) > 0:
            seen.add("positive")
        return x

    with pytest.raises(Exception, match=r"a set gains \['positive'\]"):
        note(X)

