"""Tape values: what an eager `GradientTape` hands back for watched arrays and the NumPy
calls on them (`TapeValue`), and how those calls are computed and recorded on the open
tapes (`_record_eager`, installed as the registry's recorder while a tape records).

A TapeValue behaves as the NumPy value it holds (`isinstance(v, np.ndarray)`, formatting,
`.item()`), and writes into it (`y[i] = v`, `y += v`) are recorded like any other op.
"""


import itertools
import operator
import threading
import weakref

import numpy as np

from runtime.core.errors import where
from runtime.core import registry
from runtime.core.tensor import NumpyOperators
from runtime.ops.functions import dispatch_function
from runtime.ops.indexing import getitem, index_update
from runtime.ops.more import register_symbolic_type
from runtime.ops.ufuncs import dispatch_ufunc


_local = threading.local()  # per thread: the open eager tapes, and hoisted reads


def _eager_tapes() -> list:
    tapes = getattr(_local, "tapes", None)
    if tapes is None:
        tapes = _local.tapes = []
    return tapes


def _hoisted() -> dict:
    """id(value a branch/body got for a hoisted Variable read) -> (value, outer read)."""
    hoisted = getattr(_local, "hoisted", None)
    if hoisted is None:
        hoisted = _local.hoisted = {}
    return hoisted


_KEYS = itertools.count(1)  # eager records name values by these keys (see TapeValue.key)


class TapeValue(NumpyOperators):
    """An array being watched by an eager tape (behaves like the array it wraps).

    Not an ndarray subclass, on purpose: NumPy hands an ndarray's memory to plain NumPy
    code without asking, whereas for this wrapper it calls `__array__`, which is how the
    tape notices a value leaving its records (`y[i] = v` into a plain array) and says so
    instead of returning a silently missing gradient. Once the tape stops recording it
    answers as the NumPy value it holds: `isinstance(v, np.ndarray)` (or the NumPy scalar
    type), f-strings and `format`, `str`, `.item()`, `.tolist()`.

    `key` names the value in the tape's records. A write (`y[i] = v`, `y += v`) is
    recorded as a new value (`index_update`, `add`) that this same object then holds under
    a new key, so every name bound to it sees the write, as in NumPy, while the records
    keep the value each op read."""

    __slots__ = ("value", "key", "pinned", "views")

    def __init__(self, value):
        self.value = value
        self.key = next(_KEYS)
        self.pinned = False  # its memory is an array given to tape.watch (the caller's)
        self.views: list = []  # weak references to tape values sharing its memory

    @property
    def shares_memory(self) -> bool:
        """Whether a write NumPy makes in place would show in another live array."""
        return self.pinned or any(ref() is not None for ref in self.views)

    @property
    def __class__(self):
        # `isinstance` falls back on `__class__`: after the computation the value counts
        # as the NumPy value it holds; while a tape records, the runtime sees a TapeValue
        if registry.recorder() is not None:
            return TapeValue
        return np.ndarray if isinstance(self.value, np.ndarray) else type(self.value)

    shape = property(lambda self: np.shape(self.value))
    dtype = property(lambda self: np.asarray(self.value).dtype)
    ndim = property(lambda self: np.ndim(self.value))
    size = property(lambda self: np.size(self.value))

    # While a tape records, NumPy calls go through the op table (and are recorded);
    # after the block a tape value is just its array.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if registry.recorder() is None:
            return getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        return dispatch_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if registry.recorder() is None:
            return func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
        return dispatch_function(func, args, kwargs)

    def __getitem__(self, index):
        if registry.recorder() is None:
            return self.value[_unwrap(index)]
        return getitem(self, index)

    # An implicit conversion while a tape records (`y[i] = v` into a NumPy array,
    # np.asarray, float()) hands the value to plain NumPy, where no gradient follows it:
    # noted, and reported by `gradient` (`.numpy()` is the explicit, silent way out).
    def __array__(self, dtype=None, copy=None):
        _note_escape(self)
        return np.asarray(self.value, dtype=dtype)

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        _note_escape(self)
        return float(self.value)

    def __int__(self):
        _note_escape(self)
        return int(self.value)

    def __index__(self):
        _note_escape(self)
        return int(self.value)

    def __setitem__(self, index, value):
        if registry.recorder() is None:
            self.value[_unwrap(index)] = _unwrap(value)
            return
        self._refuse_shared_write("y[i] = value", "y = runtime.index_update(y, i, value)")
        self._become(index_update(self, index, value))

    # A compiled function writing into a watched argument (`def f(x): x[0] = v`) while
    # the tape records: the write is the recorded value the call computed, held as `y +=
    # v` holds its result (state/writeback.py calls these two)
    def check_write_back(self, what: str) -> None:
        if registry.recorder() is None:
            return
        if self.shares_memory or len(_eager_tapes()) > 1:
            raise TypeError(
                f"{what}{where()}, a value watched by an eager GradientTape that shares "
                "memory with the array given to tape.watch (or with a view of it), or is "
                "watched by nested tapes: the tape never writes its values in place. Pass "
                "a copy computed under the tape (`f(np.copy(x))`), or return the new value "
                "from the function instead of writing into the argument.")

    def write_back(self, value) -> None:
        held = np.asarray(self.value)
        if registry.recorder() is None:
            np.copyto(held, _unwrap(value), casting="unsafe")
            return
        if np.asarray(_unwrap(value)).dtype != held.dtype:
            value = np.astype(value, held.dtype)  # written into x: x's dtype, as NumPy
        self._become(value)

    def _refuse_shared_write(self, what: str, instead: str) -> None:
        """The tape never writes into its values' memory (its records hold them): a write
        NumPy would show through a view, or into the caller's array, is refused."""
        if self.shares_memory:
            raise TypeError(
                f"`{what}` on a value watched by an eager GradientTape{where()}, which shares "
                "memory with a view of it taken earlier (`r = y[...]`) or with the array "
                "given to tape.watch: NumPy would write through to it, but the tape "
                f"never writes its values in place. Write `{instead}` if the other array "
                "should keep the old values (or watch a copy), or run the code in an "
                "ag.function, where views see the write.")
        if len(_eager_tapes()) > 1:
            raise TypeError(
                f"`{what}` on a value watched by nested eager GradientTapes{where()}: write "
                f"`{instead}` instead (the outer tape records the inner one's values).")

    def _become(self, new) -> "TapeValue":
        """Hold `new` (the recorded result of a write) under its key: names bound to this
        object see the write."""
        self.pinned, self.views = False, []  # new memory: no view of the old one sees it
        if type(new) is TapeValue:
            self.value, self.key = new.value, new.key
        else:  # an integer result the tape does not follow
            self.value, self.key = new, next(_KEYS)
        return self

    def __len__(self):
        return len(self.value)

    # `y += v` on a tape value computes `y + v`, recorded, and this object holds the
    # result (so every name bound to it sees it, as in NumPy); its old value stays in the
    # records, never written over. NumPy would also write into y's memory, which a view
    # taken earlier (`r = y[1:3]`) sees: where such a view exists, that difference would
    # be silent, so it is refused.
    def _in_place(self, name: str, op: str, other):
        if registry.recorder() is None:  # after the block: NumPy's own in-place write
            self.value = getattr(operator, f"i{name}")(self.value, _unwrap(other))
            return self
        self._refuse_shared_write(f"y {op} v", f"y = y {op[:-1]} v")
        held = np.asarray(self.value)
        probe = np.ones_like(held)  # NumPy's own error when it cannot cast or broadcast
        with np.errstate(all="ignore"):
            getattr(operator, f"i{name}")(probe, np.ones_like(np.asarray(_unwrap(other))))
        result = getattr(self, f"__{name}__")(other)
        if np.asarray(_unwrap(result)).dtype != held.dtype:
            result = np.astype(result, held.dtype)  # written into y: y's dtype, as NumPy
        return self._become(result)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def numpy(self):
        return np.asarray(self.value)

    # -- as the NumPy value it holds (a Python number from it carries no gradient) -------
    def item(self, *args):
        _note_escape(self)
        return np.asarray(self.value).item(*args)

    def tolist(self):
        _note_escape(self)
        return np.asarray(self.value).tolist()

    def __complex__(self):
        _note_escape(self)
        return complex(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        if registry.recorder() is None:
            return repr(self.value)
        return f"TapeValue({self.value!r})"


def _note_escape(value: TapeValue) -> None:
    if registry.recorder() is None or np.asarray(value.value).dtype.kind not in "fc":
        return  # not recording, or an integer (an index, a count): no gradient lost
    place = where().strip().removeprefix("(at ").removesuffix(")") or "an unknown place"
    for tape in _eager_tapes():
        if place not in tape._escapes:
            tape._escapes.append(place)


register_symbolic_type(TapeValue)  # ops/more.py: kept in NumPy calls, never np.asarray'd


def _unwrap(x):
    if type(x) is TapeValue:
        return x.value
    if type(x) in (tuple, list):
        return type(x)(_unwrap(v) for v in x)
    return x


class _EagerRecord:
    __slots__ = ("op", "inputs", "attrs", "outputs", "in_keys", "out_keys", "keep", "origin")


def _record_eager(op, inputs, attrs):
    """bind() while an eager tape is recording: compute, and record if watched."""
    if not any(type(x) is TapeValue for x in inputs):
        return op.kernel(*inputs, **attrs)
    raw = [x.value if type(x) is TapeValue else x for x in inputs]
    out = op.kernel(*raw, **attrs)
    outs = [out] if op.num_outputs == 1 else list(out or ())
    wrapped = [TapeValue(o) if np.asarray(o).dtype.kind in "fc" else o for o in outs]
    for x in inputs:  # a view of a tape value: both then share memory (see `_in_place`)
        if type(x) is TapeValue and isinstance(x.value, np.ndarray):
            for o, w in zip(outs, wrapped):
                if type(w) is TapeValue and isinstance(o, np.ndarray) and o.size and \
                        np.may_share_memory(o, x.value):
                    x.views.append(weakref.ref(w))
                    w.views.append(weakref.ref(x))
    rec = _EagerRecord()
    rec.op, rec.inputs, rec.attrs, rec.outputs = op, raw, attrs, outs
    rec.in_keys = [x.key if type(x) is TapeValue else None for x in inputs]
    rec.out_keys = [w.key if type(w) is TapeValue else None for w in wrapped]
    # the tape values themselves, for a tape recording the backward pass (an enclosing
    # tape, or a persistent one differentiating inside its block: `_recording_view`);
    # only then: they keep every view alive (`shares_memory`)
    tapes = _eager_tapes()
    rec.keep = (inputs, wrapped) if len(tapes) > 1 or tapes[0].persistent else None
    rec.origin = None
    for tape in _eager_tapes():
        tape._records.append(rec)
    if op.num_outputs == 1:
        return wrapped[0]
    return tuple(wrapped) if op.num_outputs else None


def _tape_in_place_operator(name: str, op: str):
    def method(self, other):
        return self._in_place(name, op, other)
    method.__name__ = f"__i{name}__"
    return method


for _name, _op in (("add", "+="), ("sub", "-="), ("mul", "*="), ("truediv", "/="),
                   ("floordiv", "//="), ("mod", "%="), ("pow", "**="), ("matmul", "@=")):
    setattr(TapeValue, f"__i{_name}__", _tape_in_place_operator(_name, _op))
del _name, _op
