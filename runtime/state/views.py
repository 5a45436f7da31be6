"""Aliasing and views of symbolic arrays: NumPy's write-through semantics on immutable Tensors.

A Tensor is an immutable graph value, but the program being traced sees NumPy arrays:
`y = x; y[0] = 7` changes `x` too, `r = a[0]; r[:] = v` writes into `a`, and a view
taken before a write to its base sees the write. This module keeps, per top-level trace,
an *array identity* (`_Array`) for every Tensor object that takes part in a write or a
view, and the Tensor that is the array's current value (`latest`):

- a write (`x[i] = v`, `x += v`) makes a new Tensor the array's latest value; every
  Tensor object of that array (aliases held by other names, lists, ...) reads it from
  then on (`resolve`, called where NumPy code consumes a Tensor);
- a view (basic indexing, transpose) remembers its base and how it was taken: a write
  through it is written back into its base (up to the root array), and a view whose base
  changed since is taken again from the base's latest value when it is next used;
- `reshape` / `ravel` / `squeeze` / `expand_dims` return a view or a copy depending on
  memory layout, which a trace does not know: writing through one (or reading one whose
  base was written since) raises a clear error instead of guessing;
- across a symbolic `if` / loop (`view_links.link_outputs`), an output that is the same array as an
  input carries the input's identity; a branch or body that writes into an array defined
  outside it other than through its own loop variables raises a clear error.

The function's array arguments are roots: `written_inputs` tells the executor which
argument arrays to overwrite with their final value after a call (as NumPy would have
written into them). Tensors no write or view touched cost one dict lookup per use.

Gradient rules run with the bookkeeping off (`recorded_values`): a rule computes with
the values its op read when it ran, never with what the array holds after later writes.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import numpy as np

from runtime.core import tracing
from runtime.core.errors import where
from runtime.state import view_recipes as recipes
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import Tensor
from runtime.ops.functions import dispatch_function
from runtime.ops.indexing import IndexingHooks, index_update


class _Array:
    """One NumPy array as the traced program sees it."""

    __slots__ = ("latest", "version", "base", "recipe", "seen", "poison", "refusal")

    def __init__(self, latest, base=None, recipe=None, seen=0):
        self.latest = latest      # the Tensor holding the array's current value
        self.version = 0          # roots: bumped on every write into the array or a view of it
        self.base = base          # views: the _Array this is a view of
        self.recipe = recipe      # views: ("index", template, dynamic) / ("transpose", axes) / ("layout", what)
        self.seen = seen          # views: the root's version `latest` was taken at
        self.poison = None        # an error message: this array's value cannot be known
        self.refusal = None       # roots: called on any write into it (an exception to raise)


_state = threading.local()  # per thread: how many `recorded_values` blocks are open


@contextmanager
def recorded_values() -> Iterator[None]:
    """While gradient rules run: every Tensor stands for itself, the value the op that
    read it saw. (A view whose base was written later would otherwise be re-taken from
    the base's new value, and the rule would differentiate at the wrong point.)"""
    _state.frozen = getattr(_state, "frozen", 0) + 1
    try:
        yield
    finally:
        _state.frozen -= 1


def _table(create: bool = False):
    if getattr(_state, "frozen", 0):
        return None  # gradient rules: no resolution, no new views or writes recorded
    g = tracing.current_graph()
    if g is None:
        return None
    while g.parent is not None:
        g = g.parent
    table = g.__dict__.get("_arrays")
    if table is None and create:
        table = g._arrays = {}
    return table


def _lookup(table, t):
    e = table.get(id(t))
    return e[1] if e is not None and e[0] is t else None


def _register(table, t, arr: _Array) -> None:
    table[id(t)] = (t, arr)  # keeps t alive for the trace, so the id stays unique


def _root(a: _Array) -> _Array:
    while a.base is not None:
        a = a.base
    return a


def _array(table, t) -> _Array:
    a = _lookup(table, t)
    if a is None:
        a = _Array(t)
        _register(table, t, a)
    return a


# -- reading ---------------------------------------------------------------------------
def resolve(x: Any) -> Any:
    """The current value of the array `x` stands for (x itself unless written since)."""
    if type(x) is not Tensor:
        return x
    table = _table()
    if not table:
        return x
    a = _lookup(table, x)
    return x if a is None else _current(table, a)


def same_array(x: Any, y: Any) -> bool:
    """Whether Tensors `x` and `y` stand for the same NumPy array (`y = x; y += 1`
    leaves both names on one array, as `x += 1` leaves the name on it)."""
    if x is y:
        return True
    table = _table()
    if not table or type(x) is not Tensor or type(y) is not Tensor:
        return False
    a, b = _lookup(table, x), _lookup(table, y)
    return a is not None and a is b


def resolve_args(args):
    """`resolve` on each argument and on the items of list/tuple arguments."""
    table = _table()
    if not table:
        return args
    out = []
    for x in args:
        if type(x) is Tensor:
            a = _lookup(table, x)
            x = x if a is None else _current(table, a)
        elif type(x) in (list, tuple):
            x = type(x)(resolve(v) for v in x)
        out.append(x)
    return type(args)(out) if type(args) is tuple else out


def _current(table, a: _Array):
    if a.poison is not None:
        raise ValueError(a.poison)
    if a.base is None:
        return a.latest
    root = _root(a)
    if a.seen == root.version:
        return a.latest
    if a.recipe[0] == "layout":
        raise ValueError(
            f"This array was made by {a.recipe[1]} of an array that has been written since"
            f"{where()}. NumPy returns a view or a copy there depending on whether "
            f"{_layout_condition(a.recipe)}, which a graph does not know, so whether it sees "
            "the write is unknown. "
            "Take an explicit copy (`.copy()`) before the write, or take it again after.")
    value = recipes.apply(a.recipe, _current(table, a.base))
    if tracing.current_graph() is _root(a).latest.graph:  # not from inside a branch/loop
        a.latest, a.seen = value, root.version
        _register(table, value, a)
    return value


# -- views -----------------------------------------------------------------------------
def note_view(view: Any, base: Any, recipe: tuple) -> Any:
    """Record that Tensor `view` is a view of (the array of) `base`, taken by `recipe`."""
    if type(view) is not Tensor or type(base) is not Tensor or view is base:
        return view
    table = _table(create=True)
    if table is None:
        return view
    b = _array(table, base)
    _register(table, view, _Array(view, b, recipe, _root(b).version))
    return view


def forget(t: Any) -> Any:
    """`t` is a fresh array (e.g. `flatten`, which always copies), not a view."""
    table = _table()
    if table and _lookup(table, t) is not None:
        del table[id(t)]
    return t


def checkpoint() -> tuple:
    """The arrays' bookkeeping as it is now, for `rollback`."""
    table = _table()
    if not table:
        return {}, []
    arrays = {id(arr): arr for _, arr in table.values()}
    return dict(table), [(arr, [getattr(arr, k) for k in _Array.__slots__])
                         for arr in arrays.values()]


def rollback(saved: tuple) -> None:
    """Undo what a discarded trace of a symbolic `if` / loop recorded (traced again with
    more carried container locations): its writes made outer arrays' latest values
    outputs of a node that is gone."""
    table = _table()
    if table is None:
        return
    entries, fields = saved
    table.clear()
    table.update(entries)
    for arr, values in fields:
        for k, v in zip(_Array.__slots__, values):
            setattr(arr, k, v)


# -- writing ---------------------------------------------------------------------------
def write(target: Tensor, new: Tensor, kind: str = "assignment destination") -> Tensor:
    """Array `target` now holds `new` (same shape and dtype); returns `new`. `kind` names
    the written array in NumPy's error for a read-only one ("output array", ...)."""
    table = _table(create=True)
    if table is None:  # rules are functional: a write here is a bug in a rule
        raise RuntimeError("An array write was attempted while gradient rules ran; gradient "
                           "rules must use functional updates (index_update).")
    a = _array(table, target)
    c = a
    while c.base is not None:  # NumPy refuses a write through a read-only view first
        refused = recipes.refusal(c.recipe, kind)
        if refused is not None:
            raise ValueError(refused)
        c = c.base
    if a.poison is not None:
        raise ValueError(a.poison)
    root = _root(a)
    if root.refusal is not None:
        refused = root.refusal()
        if refused is not None:
            raise refused
    graph = tracing.current_graph()
    if not _in_order(graph, root.latest.graph):
        raise ValueError(
            f"This write{where()} changes an array defined outside the symbolic `if` / loop "
            "it is in, through a view or alias of it that is not a variable of that "
            "`if` / loop, so the graph cannot carry the change. Write into the array by "
            "its own name (e.g. `a[i, :] = row` instead of `r = a[i]; r[:] = row`), or "
            "take a copy (`.copy()`) if the original must not change.")
    _detach_layout_views(a)
    root = _root(a)
    a.latest = new
    _register(table, new, a)
    if a.base is None:
        a.version += 1
        return new
    chain, child, value = [a], a, new
    while child.base is not None:
        value = recipes.unapply(child.recipe, _current(table, child.base), value)
        child = child.base
        child.latest = value
        _register(table, value, child)
        chain.append(child)
    root.version += 1
    for c in chain[:-1]:
        c.seen = root.version
    return new


def _in_order(graph, outer) -> bool:
    """Whether `graph` is `outer`, or nested in it only through graphs that run where they
    stand (`in_order`: a graph `try`'s body and handlers, whose writes
    control_flow/try_arrays.py carries to each path): a write there is the array's
    next value."""
    while graph is not outer:
        if graph is None or not graph.__dict__.get("in_order"):
            return False
        graph = graph.parent
    return True


def _layout_condition(recipe: tuple) -> str:
    """What decides, when the graph runs, whether a "layout" view is one."""
    return recipe[2] if len(recipe) > 2 else "the array's memory layout makes it a view"


def _detach_layout_views(a: _Array) -> None:
    """A write through a reshape / ravel (at any level of the view chain) cannot say
    whether NumPy would reach the base: the base becomes unreadable (poisoned) and the
    view becomes an array of its own."""
    c = a
    while c.base is not None:
        if c.recipe[0] == "layout":
            _poison(c.base, f"An array was written through {c.recipe[1]} of it{where()}: "
                    f"NumPy writes through there only when {_layout_condition(c.recipe)}, "
                    "which a graph does not know. Write into the array itself "
                    "(index it with np.unravel_index for a flat position), or take an "
                    "explicit copy (`.reshape(...).copy()`) if the original must not change.")
            c.base, c.recipe, c.version = None, None, c.seen
            return
        c = c.base


def refuse_writes(t: Tensor, error: Callable[[], Exception | None]) -> None:
    """Any write into the array `t` stands for (or a view of it) first calls `error()`,
    and raises what it returns (a loop variable standing for a NumPy array other names
    hold, which would not see the write), or goes ahead on None."""
    table = _table(create=True)
    if table is not None:
        root = _root(_array(table, t))
        earlier = root.refusal
        root.refusal = error if earlier is None else (lambda: earlier() or error())


def poison_on_write(t: Tensor, other: Tensor, message: Callable[[], str]) -> None:
    """A write into `t`'s array makes `other`'s array unreadable (`message()`): after it,
    `other` holds what NumPy would give on some paths of the program only."""
    table = _table(create=True)
    if table is not None:
        victim = _array(table, other)
        refuse_writes(t, lambda: _poison(victim, message()))


def _poison(a: _Array, message: str) -> None:
    a = _root(a)
    a.poison = message


def setitem(target: Tensor, index: Any, value: Any, update,
            kind: str = "assignment destination") -> Tensor:
    """`target[index] = value` on a Tensor, written through aliases and views; `update`
    is the functional update `(current, index, value) -> new`."""
    current = resolve(target)
    new = update(current, _resolve_index(index), resolve(value))
    return write(target, new, kind)


def holds_view_of(value: Any, base: Any) -> bool:
    """Whether Tensor `value` is (a version of) a view of the array of `base`."""
    table = _table()
    if not table or type(value) is not Tensor:
        return False
    a, b = _lookup(table, value), _lookup(table, base)
    while a is not None and b is not None:
        if a.base is b:
            return True
        a = a.base
    return False


def _resolve_index(index):
    if type(index) is tuple:
        return tuple(resolve(i) for i in index)
    return resolve(index)


def in_place(target: Tensor, result: Any, op: str) -> Tensor:
    """`target op= value` on a Tensor whose out-of-place result is `result`: NumPy's
    in-place operation (same shape, result cast to target's dtype under 'same_kind')."""

    if not isinstance(result, Tensor):
        return result
    current = resolve(target)
    if tuple(result.shape) != tuple(current.shape) and None not in result.shape:
        raise ValueError(
            f"non-broadcastable output operand with shape {tuple(current.shape)} doesn't match "
            f"the broadcast shape {tuple(result.shape)} (`{op}` on an array is in place"
            f"{where()}; write `x = x {op[:-1]} y` for a new, larger array)")
    if result.dtype != current.dtype:
        if not np.can_cast(result.dtype, current.dtype, casting="same_kind"):
            raise TypeError(
                f"Cannot cast ufunc output from {result.dtype!r} to {current.dtype!r} with "
                f"casting rule 'same_kind' (`{op}` on an array is in place{where()}; write "
                f"`x = x {op[:-1]} y` for a new array of the promoted dtype)")
        result = dispatch_function(np.astype, (result, current.dtype), {})
    return write(target, result, "output array")


def ufunc_into(ufunc, inputs: tuple, kwargs: dict, dispatch) -> Any:
    """`ufunc(*inputs, out=t)` with `t` a Tensor: the result is written into t's array
    (cast under `casting`, broadcast to t's shape), as NumPy does; returns t. None when
    this is not that case (several outputs, `where=`, an out that is not a Tensor): the
    caller then refuses it."""
    out = kwargs["out"]
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != 1 or type(out[0]) is not Tensor or ufunc.nout != 1 or "where" in kwargs:
        return None

    target = out[0]
    rest = {k: v for k, v in kwargs.items() if k not in ("out", "casting")}
    casting = kwargs.get("casting", "same_kind")
    result = dispatch(ufunc, "__call__", resolve_args(inputs), rest)
    current = resolve(target)
    rdtype = np.result_type(result)
    if not np.can_cast(rdtype, current.dtype, casting=casting):
        raise TypeError(
            f"Cannot cast ufunc {ufunc.__name__!r} output from {rdtype!r} to "
            f"{current.dtype!r} with casting rule {casting!r}{where()}")
    if isinstance(result, Tensor) and result.dtype != current.dtype:
        result = dispatch_function(np.astype, (result, current.dtype), {})
    setitem(target, Ellipsis, result, index_update, "output array")
    return target


# -- control flow and function boundaries ----------------------------------------------
def written_inputs(inputs: list) -> list:
    """(position, final value) of each graph input array the trace wrote into."""
    table = _table()
    if not table:
        return []
    out = []
    for k, p in enumerate(inputs):
        a = _lookup(table, p)
        if a is None:
            continue
        if a.poison is not None:
            raise ValueError(a.poison)
        if a.latest is not p:
            out.append((k, a.latest))
    return out


# -- which NumPy calls return views (runtime/state/view_recipes.py) ---------------------------------
def after_function(func, args, kwargs, result) -> Any:
    """Record the view a NumPy function returned (`np.transpose(x)`, `x.T`, `x.reshape`,
    `np.diagonal(x)`, ...)."""
    if type(result) is not Tensor or not args or type(args[0]) is not Tensor:
        return result
    recipe = recipes.recipe_of(func, args, kwargs, result)
    return result if recipe is None else note_view(result, args[0], recipe)


# what a Tensor's dunders and the indexing op call (they sit below this module)
TensorProtocol.resolve = resolve
TensorProtocol.resolve_args = resolve_args
TensorProtocol.resolve_index = _resolve_index
TensorProtocol.after_function = after_function
TensorProtocol.ufunc_into = ufunc_into
TensorProtocol.write_item = setitem
TensorProtocol.write_array = write
TensorProtocol.in_place = in_place
TensorProtocol.holds_view_of = holds_view_of
TensorProtocol.forget = forget
IndexingHooks.note_view = note_view
