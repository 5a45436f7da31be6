"""Learning the types of loop variables and branch outputs from the traced functions.

The one owner of what a `cond` / `while_loop` learns by tracing (the callers only name
values for messages):

- A *no value yet* placeholder: any object whose type has `graph_placeholder = True`
  (autograph's `UNSET` return value and `Undefined` variables, or a caller's own). In a
  `cond` it takes the structure, dtype and shape of the other branch's value (it is
  never read there); as the initial value of a `while_loop` variable it takes what the
  body gives it. A type that also has `graph_placeholder_needs_value = True` must be
  given an array or number by the body on every path, else `UntypedLoopVariable`;
  one the body gives back as a placeholder of its own type (no path of the traced body
  assigns it: `unassigned`) is not carried, and stays as it was after the loop.
- A Python number as a loop variable is weak (NEP 50): the body decides its dtype
  (`0.0 + float32` is float32); it stays a Python number while the body keeps it one.
- An array the body widens as NumPy promotes (int32 -> int64, int -> float64) takes
  the wider dtype; a loop that runs zero times then returns the initial value in it.
- A dimension one iteration changes becomes unknown (None), unless a shape invariant
  is given for the variable.
- A Python list whose length one iteration changes (`xs.append(v)`) becomes a graph
  list (`lists.loop_list`); one whose length the body keeps stays a nested structure of
  its items (as in tf.function).

`LoopTypes` holds what a loop knows so far: `while_loop` traces its body with these
types, `learn` updates them from the outputs and says whether to trace again (each
round types, relaxes, fills or turns a list into a graph list, so the rounds end).
"""
from __future__ import annotations


import numpy as np

from runtime.control_flow.common import aval_of, is_python_scalar, is_weak
from runtime.control_flow.lists import check_loop_list, loop_list
from runtime.state import views
from runtime.core.errors import where
from runtime.core.structure import flatten, path_names, unflatten
from runtime.core.tensor import Tensor, _fmt_shape


class UntypedLoopVariable(ValueError):
    """A loop variable with no value before the loop to which the body gives no array or
    number (on some path). `label` names the variable."""

    def __init__(self, message: str, label: str):
        super().__init__(message)
        self.label = label


def is_placeholder(x) -> bool:
    return getattr(type(x), "graph_placeholder", False) is True


def needs_value(x) -> bool:
    return getattr(type(x), "graph_placeholder_needs_value", False) is True


def unassigned(start, value) -> bool:
    """Whether a loop body gives back placeholder `start` unassigned (a placeholder of its
    type: no path of the body assigns the variable, e.g. its assignment is under a
    Python condition that is false)."""
    return is_placeholder(start) and is_placeholder(value) and type(value) is type(start)


def _typed(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic)) or is_python_scalar(x)


def zeros_like(value):
    """A value with the structure, dtype and (known) shape of `value`: zeros for arrays
    and numbers (a Python number stays one of its type), other objects as they are."""
    t = type(value)
    if t is tuple or t is list:
        return t(zeros_like(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return t(*(zeros_like(v) for v in value))
    if t is dict:
        return {k: zeros_like(v) for k, v in value.items()}
    if is_python_scalar(value):
        return t(0)
    if is_weak(value) and value.ndim == 0:  # a value standing for a Python number: one
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}.get(value.dtype.kind, 0)
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        shape, dtype = aval_of(value)
        # (an unknown dim: any size will do - the value is never read)
        zeros = np.zeros(tuple(0 if d is None else d for d in shape), dtype)
        return zeros[()] if zeros.ndim == 0 and not isinstance(value, np.ndarray) else zeros
    return value


def fill_placeholders(value, other, fill=None):
    """`value` with each placeholder that `other` has a value for (a leaf or a whole
    structure) replaced by zeros of that value's type (or by `fill(other)`)."""
    if is_placeholder(value):
        return value if is_placeholder(other) else (fill or zeros_like)(other)
    t = type(value)
    if t is not type(other):
        return value
    if t is dict:
        if list(value) != list(other):
            return value
        return {k: fill_placeholders(value[k], other[k], fill) for k in value}
    if isinstance(value, (tuple, list)) and len(value) == len(other):
        items = [fill_placeholders(a, b, fill) for a, b in zip(value, other)]
        return t(*items) if hasattr(value, "_fields") else t(items)
    return value


def loop_labels(loop_vars: tuple, names) -> list[str]:
    """A name per leaf: the caller's name of each loop variable (with the path inside it
    for a nested one), else `loop_vars[k]...`."""
    names = list(names) if names is not None else None
    leaves = flatten(loop_vars)[0]
    if names is not None and len(names) == len(leaves) and len(names) != len(loop_vars):
        return names  # (already one name per leaf)
    if names is None or len(names) != len(loop_vars):
        return path_names(loop_vars, "loop_vars")
    out: list[str] = []
    for name, var in zip(names, loop_vars):
        out.extend(path_names(var, name))
    return out


class _Mark:
    """Where a leaf was, while placeholders are filled (`LoopTypes.fill`)."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def is_carried(x) -> bool:
    """Whether a loop carries leaf `x` as a graph value: symbolic values, arrays, numbers."""
    return isinstance(x, (Tensor, np.ndarray, np.generic)) or is_python_scalar(x)


class LoopTypes:
    """The loop variables' leaves and the types a symbolic loop gives them so far."""

    def __init__(self, loop_vars: tuple, names, shape_invariants):
        self.names, self.shape_invariants = names, shape_invariants
        leaves, self.tree = flatten(loop_vars)
        self.leaves = [views.resolve(x) for x in leaves]
        self.avals: dict = {}  # leaf index -> (shape, dtype) of the carried leaves
        self._index()
        for i in self.carried:
            shape, dtype = aval_of(self.leaves[i])
            if self.invariants[i] is not None:
                shape = check_invariant(self.labels[i], shape, self.invariants[i])
            self.avals[i] = (shape, dtype)
        # the Python numbers (and values standing for one, and filled placeholders): the
        # body decides their dtype
        self.numbers = {i for i in self.avals if is_python_scalar(self.leaves[i]) or
                        is_weak(self.leaves[i])}
        self.weak = set(self.numbers)  # those the body keeps numbers so far
        # filled placeholders: never read before the body assigns them, so traced as
        # values whose dtype yields (as a number's), e.g. to a branch's that sets them
        self.yielding: set = set()
        # A round that types one number can type another in the next (`r += s` once `s`
        # is int32), so n numbers may need n rounds; no more (then the checks report).
        self.dtype_rounds = len(self.numbers)

    def _index(self) -> None:
        loop_vars = unflatten(self.tree, self.leaves)
        self.labels = loop_labels(loop_vars, self.names)
        self.invariants = leaf_invariants(self.shape_invariants, loop_vars, len(self.leaves))
        self.carried = [i for i, x in enumerate(self.leaves) if is_carried(x)]

    def arg_avals(self) -> list[tuple]:
        """(shape, dtype, weak) of the body's placeholder for each carried leaf."""
        return [self.avals[i] + (i in self.weak or i in self.yielding,) for i in self.carried]

    def learn(self, out_leaves: list) -> bool:
        """Update the types from one traced iteration; whether to trace again."""
        changed = self._learn_dtypes(out_leaves) if self.dtype_rounds > 0 else False
        if changed:
            self.dtype_rounds -= 1
        widened = self._widen_dtypes(out_leaves)
        return self._relax_shapes(out_leaves) or changed or widened

    def fill(self, outputs) -> bool:
        """Give each placeholder the body gives a value (a leaf or a structure) zeros of
        that value's type, to carry; whether there was one. What was learned about the
        other leaves is kept."""
        if not any(is_placeholder(x) for x in self.leaves):
            return False
        marked = [x if is_placeholder(x) else _Mark(i) for i, x in enumerate(self.leaves)]
        new_leaves, new_tree = flatten(fill_placeholders(unflatten(self.tree, marked), outputs))
        if new_tree == self.tree and all(a is b for a, b in zip(marked, new_leaves)):
            return False
        self._adopt(new_leaves, new_tree, fresh_yield=True)
        return True

    def grow_lists(self, outputs, every: bool = False) -> bool:
        """A Python list an iteration gives another length (`xs.append(v)`) becomes a
        graph list holding its items (`lists.loop_list`), as a dimension that changes
        becomes unknown; whether there was one (then the body is traced again). A list
        whose length the body keeps stays a nested structure of its items. `every`: each
        Python list becomes a graph list (when the body cannot be traced with a list as
        a structure, e.g. a symbolic `if` appends to it in one branch only)."""
        marked = unflatten(self.tree, [_Mark(i) for i in range(len(self.leaves))])
        top = list(self.names) if self.names is not None and \
            len(self.names) == len(marked) else [f"loop_vars[{k}]" for k in range(len(marked))]
        grown = [False]

        def unmark(v):
            leaves, tree = flatten(v)
            return unflatten(tree, [self.leaves[m.index] for m in leaves])

        def walk(v, out, label):
            t = type(v)
            if every:
                out = v
            if t is list and (every or type(out) is list and len(out) != len(v)):
                items = unmark(v)  # (as before the loop; the trace saw placeholders)
                check_loop_list(items + out[len(v):], label)
                grown[0] = True
                return loop_list(items, label)
            if t is not type(out):
                return v
            if t is dict:
                return {k: walk(v[k], out[k], f"{label}[{k!r}]") for k in v} \
                    if list(v) == list(out) else v
            if isinstance(v, (tuple, list)) and len(v) == len(out):
                items = [walk(a, b, f"{label}[{k}]") for k, (a, b) in enumerate(zip(v, out))]
                return t(*items) if hasattr(v, "_fields") else t(items)
            return v

        if every:
            outputs = marked
        if not isinstance(outputs, (tuple, list)) or len(outputs) != len(marked):
            return False
        new = tuple(walk(v, out, name) for v, out, name in zip(marked, outputs, top))
        if not grown[0]:
            return False
        self._adopt(*flatten(new), fresh_yield=False)
        return True

    def _adopt(self, new_leaves: list, new_tree, fresh_yield: bool) -> None:
        """Take a new structure of leaves: `_Mark`s stand for the old leaves (what was
        learned about them is kept), other leaves are new (`fresh_yield`: filled
        placeholders, whose dtype follows the body's; else graph lists, typed)."""
        old = self.leaves
        moved = {k: x.index for k, x in enumerate(new_leaves) if isinstance(x, _Mark)}
        self.moved = moved  # new leaf index -> old, for what others keep by leaf index
        self.leaves = [old[moved[k]] if k in moved else x for k, x in enumerate(new_leaves)]
        self.tree = new_tree
        self._index()
        avals, numbers, weak, yielding = {}, set(), set(), set()
        for k in self.carried:
            i = moved.get(k)
            if i is None and not fresh_yield:
                avals[k] = aval_of(self.leaves[k])
                continue
            if i is None:  # a filled placeholder: its dtype follows the body's, as a
                avals[k] = aval_of(self.leaves[k])  # number's does (weak while a number)
                numbers.add(k)
                yielding.add(k)
                if is_python_scalar(self.leaves[k]):
                    weak.add(k)
                self.dtype_rounds += 1
                continue
            if i in self.yielding:
                yielding.add(k)
            avals[k] = self.avals[i]
            if i in self.numbers:
                numbers.add(k)
            if i in self.weak:
                weak.add(k)
        self.avals, self.numbers, self.weak, self.yielding = avals, numbers, weak, yielding


    def _learn_dtypes(self, out_leaves) -> bool:
        """A number the body turns into a typed value takes that dtype (and is no longer
        weak), also a dtype a later iteration widens it to (`u + k + r` once `r` is int64);
        one the body keeps a number takes the kind it gives (`i / 2` a float)."""
        changed = False
        for i in sorted(self.numbers):
            out = out_leaves[i]
            if not _typed(out):
                continue
            dtype = aval_of(out)[1]
            if not (is_python_scalar(out) or is_weak(out)):
                # a filled placeholder the body gives a typed value is typed from now on
                # (else its weakness spreads to the values it is passed on to)
                # (it takes effect on the next trace, if another change calls for one)
                self.yielding.discard(i)
                if i not in self.weak and dtype == self.avals[i][1]:
                    continue
                self.weak.discard(i)
            elif i not in self.weak or dtype == self.avals[i][1] or dtype.kind not in "biufc":
                continue
            self.avals[i] = (self.avals[i][0], dtype)
            changed = True
        return changed

    def _widen_dtypes(self, out_leaves) -> bool:
        """An array the body gives the dtype NumPy promotes it to (an int32 accumulator
        plus int64 items is int64, an int array plus floats float64) takes that dtype,
        as NumPy's value does from the first iteration on. Widening only, so the rounds
        end; any other change stays an error (`_check_loop_var`)."""
        changed = False
        for i, (shape, dtype) in self.avals.items():
            out = out_leaves[i]
            if i in self.numbers or not isinstance(out, (Tensor, np.ndarray, np.generic)):
                continue
            out_dtype = aval_of(out)[1]
            if out_dtype == dtype or dtype.kind not in "biuf" or out_dtype.kind not in "biufc":
                continue
            if np.promote_types(dtype, out_dtype) == out_dtype:
                self.avals[i] = (shape, out_dtype)
                changed = True
        return changed

    def _relax_shapes(self, out_leaves) -> bool:
        """Relax to None each dimension of a loop variable that one iteration changed
        (same rank, no explicit shape invariant). A rank change stays an error."""
        changed = False
        for i in self.avals:
            out = out_leaves[i]
            if self.invariants[i] is not None or not isinstance(
                    out, (Tensor, np.ndarray, np.generic)):
                continue
            shape, dtype = self.avals[i]
            out_shape = aval_of(out)[0]
            if len(out_shape) == len(shape) and any(
                    d is not None and d != o for d, o in zip(shape, out_shape)):
                self.avals[i] = (tuple(None if d != o else d for d, o in zip(shape, out_shape)),
                                 dtype)
                changed = True
        return changed


def _pairs(value, other):
    """(placeholder, what `other` has in its place) for each placeholder in `value`."""
    if is_placeholder(value):
        yield value, other
        return
    t = type(value)
    if t is not type(other):
        return
    if t is dict:
        if list(value) == list(other):
            for k in value:
                yield from _pairs(value[k], other[k])
    elif isinstance(value, (tuple, list)) and len(value) == len(other):
        for a, b in zip(value, other):
            yield from _pairs(a, b)


def check_placeholders_given(leaves: list, tree, outputs, labels: list[str],
                             where_text: str) -> None:
    """A loop variable without a value before the loop that must get one: the body must
    give it an array or a number (or a structure of those) on every path."""
    for p, value in _pairs(unflatten(tree, leaves), outputs):
        if needs_value(p) and not unassigned(p, value) and (
                is_placeholder(value) or not all(_typed(x) for x in flatten(value)[0])):
            label = labels[next(i for i, x in enumerate(leaves) if x is p)]
            raise UntypedLoopVariable(
                f"Loop variable {label} has no value before the loop{where_text}, and the "
                "loop body does not give it an array or a number on every path (it reads it "
                "before assigning it, assigns it on some paths only, or assigns another "
                f"kind of object). Give {label} an initial value before the loop, with "
                "the dtype and shape it has inside.", label)


def leaf_invariants(shape_invariants, loop_vars, n) -> list:
    """The shape invariant of each leaf (a loop variable's applies to all its leaves)."""
    if shape_invariants is None:
        return [None] * n
    if len(shape_invariants) != len(loop_vars):
        raise ValueError(f"shape_invariants has {len(shape_invariants)} entries but there are "
                         f"{len(loop_vars)} loop variables{where()}.")
    out = []
    for inv, var in zip(shape_invariants, loop_vars):
        k = len(flatten(var)[0])
        out.extend([tuple(inv) if inv is not None else None] * k)
    return out


def check_invariant(label, shape, invariant):
    if len(shape) != len(invariant) or any(
            i is not None and i != s for s, i in zip(shape, invariant)):
        raise ValueError(f"The shape invariant {_fmt_shape(invariant)} given for {label} does "
                         f"not fit its initial shape {_fmt_shape(shape)}{where()}.")
    return tuple(invariant)
