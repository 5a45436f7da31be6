"""Random numbers drawn while tracing where no call could be seen: notice it and warn.

Converted code routes every draw to a stateful graph op (autograph/operators/
random_calls.py, runtime/state/random_ops.py) that draws again on every call. Plain
tracing (autograph=False) and functions left unconverted call NumPy directly: a draw there
runs once, while tracing, and becomes a constant every later call reuses. Three ways such
a trace can draw, and how each is noticed:

- NumPy's legacy global generator (`np.random.normal`): its state before and after;
- a `np.random.Generator` or `RandomState` the function reaches through its closure, the
  globals it names, or the attributes of the object it is a method of: each one's state
  before and after;
- a method of a bit generator or other random object called from converted code
  (`ag__.converted` reports the calls it does not route here).

`numpy.random` is imported lazily (it costs more than a small trace): when nothing has
imported it yet, no generator can exist, and importing it during the trace means it
was used.
"""
from __future__ import annotations

import sys
import types
import warnings

import numpy as np

from runtime.core import tracing
from runtime.core.errors import user_stacklevel


# `rng.shuffle(x)` of a symbolic array in code the tracer cannot see calls in (autograph=
# False) swaps rows through views and duplicates them; NumPy warns first (it shuffles an
# object that is not an ndarray). Tensors exist only while tracing, so making exactly that
# warning an error affects nothing else; converted code shuffles exactly (random_ops.py).
warnings.filterwarnings("error", message="you are shuffling a 'Tensor' object",
                        category=UserWarning)


def _random_types() -> tuple:
    random = sys.modules.get("numpy.random")
    return () if random is None else (random.Generator, random.RandomState,
                                      random.BitGenerator)


def _state(obj):
    if hasattr(obj, "bit_generator"):
        return obj.bit_generator.state
    if hasattr(obj, "get_state"):
        return obj.get_state()
    return obj.state


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


# methods of generators that draw nothing (the rest draw, or reseed: state changes)
_NOT_DRAWING = frozenset({"spawn", "jumped", "get_state", "__getstate__", "__reduce__",
                          "__copy__", "__deepcopy__"})


def _reachable(fn) -> dict:
    """{description: generator} for the generators `fn` can see without calling anything:
    its closure, the globals it names, its defaults and the attributes of `self`."""
    kinds = _random_types()
    if not kinds:
        return {}
    found = {}
    owner = getattr(fn, "__self__", None)
    if owner is not None and hasattr(owner, "__dict__"):
        for name, value in vars(owner).items():
            if isinstance(value, kinds):
                found[f"`self.{name}`"] = value
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # a cell not filled yet
                continue
            if isinstance(value, kinds):
                found[f"`{name}`"] = value
        namespace = getattr(fn, "__globals__", {})
        for name in code.co_names:
            value = namespace.get(name)
            if isinstance(value, kinds):
                found[f"`{name}`"] = value
        params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        defaults = dict(zip(params[code.co_argcount - len(fn.__defaults__ or ()):],
                            fn.__defaults__ or ()))
        defaults.update(getattr(fn, "__kwdefaults__", None) or {})
        for name, value in defaults.items():
            if isinstance(value, kinds):
                found[f"`{name}` (a default)"] = value
    return found


class RandomWatch:
    """The random states a trace could change, taken before it runs."""

    def __init__(self, fn):
        random = sys.modules.get("numpy.random")
        self.imported = random is not None
        self.global_state = random.get_state() if random is not None else None
        self.generators = {what: (g, _state(g)) for what, g in _reachable(fn).items()}

    def drawn(self, graph) -> list[str]:
        """What drew random numbers while `graph` was traced (each generator named once)."""
        called = {id(owner): what for what, owner in graph.random_draws}
        found = list(dict.fromkeys(called.values()))
        random = sys.modules.get("numpy.random")
        if random is not None and (not self.imported or
                                   not _same(random.get_state(), self.global_state)):
            found.append("np.random")
        found += [f"the {type(g).__name__} {what}" for what, (g, before) in
                  self.generators.items() if not _seen(g, called) and not _same(_state(g), before)]
        return found


def _seen(generator, called: dict) -> bool:
    return id(generator) in called or id(getattr(generator, "bit_generator", None)) in called


def warn_if_drawn(watch: RandomWatch, graph, name: str) -> None:
    drawn = watch.drawn(graph)
    if drawn:
        warnings.warn(
            f"{', '.join(drawn)} drew random numbers while tracing {name} in code the "
            "tracer cannot see calls in (autograph=False, or a function left unconverted): "
            "they were drawn once and frozen into the graph as constants, so every call "
            "reuses them. Converted code (autograph=True, the default) draws on every call, "
            "from the same generator as NumPy; otherwise draw outside the function and pass "
            "the numbers in as arguments.", UserWarning, stacklevel=user_stacklevel())


def note_call(f) -> None:
    """Called by `ag__.converted` for each call it does not convert: remember a method of a
    random generator called while tracing."""
    owner = getattr(f, "__self__", None)
    kinds = _random_types()
    name = getattr(f, "__name__", "method")
    if owner is None or not kinds or not isinstance(owner, kinds) or name in _NOT_DRAWING:
        return
    graph = tracing.current_graph()
    if graph is None:
        return
    while graph.parent is not None:
        graph = graph.parent
    graph.random_draws.append((f"{type(owner).__name__}.{name}", owner))
