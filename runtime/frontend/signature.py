"""Input signatures: `TensorSpec`, cache keys, and matching arguments to traces.

A cache key has one part per argument (after binding keywords and defaults):
- an array or NumPy scalar: `(dtype, shape)`; it becomes a graph input
- a Python scalar or other hashable value: `(type, value)`; a new value retraces
- a list / tuple / dict: its type plus the parts of its items (structure + leaves)
- a Variable or an unhashable object: its identity
- an array that is the same object as an earlier array leaf (`f(x, x)`):
  `(AliasOf, AliasOf(i))`, one graph input shared with leaf i (see `mark_aliases`)
"""
from __future__ import annotations

import struct

import weakref
from typing import Any, Sequence

import numpy as np

from runtime.autodiff.tape_values import TapeValue
from runtime.core.registry import recorder
from runtime.core.tensor import _fmt_shape
from runtime.state.variables import Variable


class TensorSpec:
    """The dtype and shape of an array argument, with `None` for a size that may vary.

    Used in `input_signature=[...]` (one trace for every call that fits) and in
    `get_concrete_function(...)`.

    Args:
        shape: a tuple of sizes, `None` for a dimension of any size; `()` for a scalar.
        dtype: a NumPy dtype or anything `np.dtype` accepts (default float32).
        name: an optional name (shown in saved and exported signatures).

    Raises:
        TypeError: `dtype` is not a dtype NumPy knows, or a size is not a number.
        ValueError: a size is a string that is not an integer.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function(input_signature=[ag.TensorSpec((None,), np.float64)])
        def total(x):
            return np.sum(x)

        total(np.ones(3))  # -> np.float64(3.0)
        total(np.ones(5))  # -> np.float64(5.0)
        total.tracing_count  # -> 1
        ag.TensorSpec((None, 3), np.int32)  # -> TensorSpec(shape=(None, 3), dtype=int32)
        ```
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape: Sequence[int | None], dtype: Any = np.float32,
                 name: str | None = None):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    @classmethod
    def from_value(cls, value) -> "TensorSpec":
        value = np.asarray(value)
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, value) -> bool:
        shape = value.shape if isinstance(value, TensorSpec) else np.shape(value)
        dtype = value.dtype if isinstance(value, TensorSpec) else np.asarray(value).dtype
        return dtype == self.dtype and shape_fits(shape, self.shape)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype})"


def shape_fits(shape, pattern) -> bool:
    return len(shape) == len(pattern) and all(p is None or p == s for s, p in zip(shape, pattern))


class IdentityKey:
    """Keys an object by identity (keeps it alive while the cache holds the trace)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, IdentityKey) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)

    def __repr__(self) -> str:
        return f"<{type(self.obj).__name__} at {id(self.obj):#x}>"


class WeakIdentityKey(int):
    """Keys an object by identity without keeping it alive (as tf.function does): the
    owning Function drops the traces keyed on it when it dies (`Function._watch`).
    A dead key equals nothing, so an object that reuses the id never matches it.

    An `int` (the object's id) only so that hashing it, on every call of a method, is
    C-level; equality is the identity test below, never the int's."""

    def __new__(cls, obj, ref, shown: bool):
        self = int.__new__(cls, id(obj))
        self.ref = ref
        self.ident = id(obj)
        self.shown = shown  # listings show repr(obj) (hashable objects) or type + address
        return self

    @property
    def obj(self):
        return self.ref()

    def __eq__(self, other):
        if not isinstance(other, WeakIdentityKey) or other.ident != self.ident:
            return False
        obj = self.ref()
        return obj is not None and other.ref() is obj

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = int.__hash__

    def __repr__(self) -> str:
        obj = self.ref()
        if obj is not None and self.shown:
            return repr(obj)
        state = "" if obj is not None else "dead "
        return f"<{state}object at {self.ident:#x}>"

    __str__ = __repr__

    def __copy__(self):
        return self  # as the weakref it holds, copied as itself

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError("an identity key cannot be pickled")


_INTERNED: dict = {}  # id(object) -> its WeakIdentityKey (validated by the weakref)


def _identity_key(a, shown: bool):
    """A weak identity key for `a`, or a strong one when `a` cannot be weakly referenced.
    One key object per live object: a call's key then holds the very key object a cached
    key holds, and the dict lookup compares them by identity (no Python `__eq__`)."""
    k = _INTERNED.get(id(a))
    if k is not None and k.shown is shown and k.ref() is a:
        return k
    try:
        k = WeakIdentityKey(a, weakref.ref(a), shown)
    except TypeError:
        return IdentityKey(a) if not shown else a
    if len(_INTERNED) >= 4096:  # entries of dead objects are dropped here
        _INTERNED.clear()
    _INTERNED[id(a)] = k
    return k


def weak_keys(part, found: list) -> list:
    """The WeakIdentityKeys inside a key part."""
    if isinstance(part, WeakIdentityKey):
        found.append(part)
    elif type(part) is tuple:
        for p in part:
            weak_keys(p, found)
    return found


_SCALARS = (int, float, bool, str, complex, type(None), bytes)


class FloatKey(str):
    """A float or complex compared by its bits: -0.0 is not 0.0, and NaN equals NaN
    (so each traces once, and `x / -0.0` keeps its sign). A `str` of those bits, so
    hashing and comparing it are C-level (the call fast path builds one per float
    argument with `str.__new__(FloatKey, x.hex())`)."""

    __slots__ = ()

    def __new__(cls, value):
        if value != value:  # a NaN: float.hex and repr drop its sign, its 8 bytes keep it
            parts = (value.real, value.imag) if type(value) is complex else (value,)
            return str.__new__(cls, "bits:" + struct.pack(f"<{len(parts)}d", *parts).hex())
        return str.__new__(cls, repr(complex(value)) if type(value) is complex else value.hex())

    @property
    def value(self):
        # complex bits are `repr(complex)`: "(1+2j)" or "2j"; a float's are `float.hex`
        if self.startswith("bits:"):
            parts = struct.unpack(f"<{(len(self) - 5) // 16}d", bytes.fromhex(self[5:]))
            return complex(*parts) if len(parts) == 2 else parts[0]
        return complex(self) if self[0] == "(" or self[-1] == "j" else float.fromhex(self)

    def __repr__(self) -> str:
        return repr(self.value)


def key_of(a, leaves: list):
    """The cache-key part for argument `a`; appends its array leaves to `leaves`."""
    t = type(a)
    if t is np.ndarray:
        leaves.append(a)
        return (a.dtype, a.shape)
    if t is float or t is complex:
        return (t, FloatKey(a))
    if t in _SCALARS:
        return (t, a)
    if t is TapeValue:  # an array an eager GradientTape follows: a leaf like the array
        leaves.append(a if recorder() is not None else a.value)
        return (a.dtype, a.shape)
    if isinstance(a, np.ndarray):
        return _subclass_key(a, leaves)
    if t is tuple or t is list:
        return (t, tuple([key_of(x, leaves) for x in a]))
    if t is dict:
        return (dict, tuple([(k, key_of(v, leaves)) for k, v in a.items()]))
    if isinstance(a, np.generic):
        leaves.append(a)
        return (a.dtype, ())
    if t is TensorSpec:
        leaves.append(a)
        return (a.dtype, a.shape)
    if isinstance(a, Variable):
        return (Variable, IdentityKey(a))
    if isinstance(a, tuple) and hasattr(a, "_fields"):
        return (t, tuple([key_of(x, leaves) for x in a]))
    try:
        hash(a)
    except TypeError:
        return (t, _identity_key(a, False))
    if t.__hash__ is object.__hash__ and t.__eq__ is object.__eq__:
        return (t, _identity_key(a, True))  # compared by identity: `self`, functions
    return (t, a)


class AliasOf:
    """Key part of an array argument that is the very object of an earlier array leaf
    (`f(x, x)`): the trace binds one graph input for both, so `x is y` holds and a
    write through one name shows through the other, as in Python. A call with another
    pattern of shared arguments has another key, so it retraces."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index  # position of the first occurrence among the distinct leaves

    def __eq__(self, other):
        return isinstance(other, AliasOf) and other.index == self.index

    def __hash__(self):
        return hash((AliasOf, self.index))

    def __repr__(self) -> str:
        return f"the same array as array argument #{self.index}"


def has_aliases(leaves: list) -> bool:
    """True when an array leaf appears twice (the same object passed twice)."""
    n = len(leaves)
    if n < 2:
        return False
    if n == 2:
        return leaves[0] is leaves[1] and type(leaves[0]) is not TensorSpec
    return len({id(x) for x in leaves if type(x) is not TensorSpec}) < \
        sum(type(x) is not TensorSpec for x in leaves)


def mark_flat_aliases(key: tuple, leaves: list) -> tuple[tuple, list]:
    """`mark_aliases` for a key of arrays and Python scalars only (the call fast path's:
    an array's part is (dtype, shape), a scalar's (type, value)), without the walk."""
    first: dict = {}
    distinct: list = []
    out = []
    position = iter(leaves)
    for part in key:
        if type(part[1]) is tuple:
            leaf = next(position)
            i = first.get(id(leaf))
            if i is None:
                first[id(leaf)] = len(distinct)
                distinct.append(leaf)
                out.append(part)
            else:
                out.append((AliasOf, AliasOf(i)))
        else:
            out.append(part)
    return tuple(out), distinct


def mark_aliases(key: tuple, leaves: list) -> tuple[tuple, list]:
    """`key` and `leaves` with every repeated array leaf replaced by an `AliasOf` part
    naming its first occurrence (leaves keep one entry per distinct object). Called only
    when `has_aliases(leaves)`: the common call pays for that check alone."""
    first: dict = {}  # id(leaf) -> index among the distinct leaves
    distinct: list = []
    position = iter(leaves)

    def walk(part):
        if is_array_part(part):
            leaf = next(position)
            if type(leaf) is not TensorSpec and id(leaf) in first:
                return (AliasOf, AliasOf(first[id(leaf)]))
            first.setdefault(id(leaf), len(distinct))
            distinct.append(leaf)
            return part
        t, v = part
        if type(v) is tuple and (_is_sequence(t) or t is dict):
            if t is dict:
                return (t, tuple([(k, walk(p)) for k, p in v]))
            return (t, tuple([walk(p) for p in v]))
        return part

    return tuple([walk(p) for p in key]), distinct


def _subclass_key(a, leaves: list):
    """ndarray subclasses are traced as plain arrays, except those whose operators mean
    something else (np.matrix, masked arrays), which are refused."""
    if isinstance(a, (np.matrix, np.ma.MaskedArray)):
        raise TypeError(
            f"{type(a).__name__} arguments are not supported: graphs follow plain ndarray "
            "semantics. Pass np.asarray(x) (and the mask separately for a masked array).")
    plain = np.asarray(a)
    leaves.append(plain)
    return (plain.dtype, plain.shape)


def _is_sequence(t) -> bool:
    """tuple, list or a namedtuple class: key parts with one sub-part per item."""
    return t is tuple or t is list or (
        isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields"))


def is_array_part(part) -> bool:
    return isinstance(part[0], np.dtype)


def generalize(new, old):
    """A key where dims that differ between `new` and `old` are None; None if impossible."""
    if is_array_part(new) and is_array_part(old):
        if new[0] != old[0] or len(new[1]) != len(old[1]):
            return None
        return (new[0], tuple(a if a == b else None for a, b in zip(new[1], old[1])))
    if type(new[1]) is tuple and (_is_sequence(new[0]) or new[0] is dict) \
            and new[0] is old[0]:
        if len(new[1]) != len(old[1]):
            return None
        items = []
        for x, y in zip(new[1], old[1]):
            if new[0] is dict:
                if x[0] != y[0]:
                    return None
                g = generalize(x[1], y[1])
                items.append(None if g is None else (x[0], g))
            else:
                items.append(generalize(x, y))
            if items[-1] is None:
                return None
        return (new[0], tuple(items))
    return new if new == old else None


def key_fits(key, pattern) -> bool:
    """True when an argument with key `key` may run a trace made for `pattern`."""
    if is_array_part(key) and is_array_part(pattern):
        return key[0] == pattern[0] and shape_fits(key[1], pattern[1])
    if key[0] is not pattern[0]:
        return False
    if (_is_sequence(key[0]) or key[0] is dict) and type(key[1]) is tuple:
        if len(key[1]) != len(pattern[1]):
            return False
        if key[0] is dict:
            return all(a[0] == b[0] and key_fits(a[1], b[1]) for a, b in zip(key[1], pattern[1]))
        return all(key_fits(a, b) for a, b in zip(key[1], pattern[1]))
    return key == pattern


def describe_part(part) -> str:
    """`float32[2,?]`, `int = 3`, `list[float32[]]` ... for signatures and errors."""
    if is_array_part(part):
        return f"{part[0]}{_fmt_shape(part[1])}"
    t, v = part
    if _is_sequence(t) and type(v) is tuple:
        inner = ", ".join(describe_part(p) for p in v)
        if t is list:
            return f"[{inner}]"
        if t is tuple:
            return f"({inner}{',' if len(v) == 1 else ''})"
        return f"{t.__name__}({', '.join(f'{n}: {describe_part(p)}' for n, p in zip(t._fields, v))})"
    if t is dict and type(v) is tuple:
        return "{" + ", ".join(f"{k!r}: {describe_part(p)}" for k, p in v) + "}"
    if isinstance(v, IdentityKey) or isinstance(v, WeakIdentityKey) and not v.shown \
            or t is AliasOf:
        return repr(v)
    return f"{t.__name__} = {v!r}"


def has_unknown_dims(part) -> bool:
    """True when an array part of the key has a None dimension."""
    if is_array_part(part):
        return None in part[1]
    if _is_sequence(part[0]) and type(part[1]) is tuple:
        return any(has_unknown_dims(p) for p in part[1])
    if part[0] is dict and type(part[1]) is tuple:
        return any(has_unknown_dims(p) for _, p in part[1])
    return False
