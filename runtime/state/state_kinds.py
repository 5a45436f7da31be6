"""What counts as Python state, and how each kind of container is read and put back.

The walk (`state_walk.py`) asks this module which objects hold state and what they hold:

- classes of the program or of a library (`state_class`), with their data attributes
  (`class_items`) and `__slots__` (`slot_items`);
- a function's attributes (`f.calls += 1`; `function_with_state`, `user_attributes`);
- the globals of the program's own modules (`module_with_state`: not the standard
  library's, NumPy's, this package's or an installed library's);
- the standard library's containers, walked as the builtins they extend (`_DICTS`, a
  deque as a list, a set by its elements) or guarded by value (`_BY_VALUE`).

Each container is recorded as (kind, object, contents): `contents_of` reads the
contents, `restore` puts them back after a trace.

    kinds: "dict", "list", "deque", "set", "attrs" (an object's __dict__), "class",
           "slots", "function" (the attributes the program set on a function)
"""
from __future__ import annotations

import abc
import collections
import sys
import sysconfig
import types

_OWN_TOP = frozenset({"runtime", "autograph"})  # (the packages themselves too)

# the standard library's mutable containers, walked as the builtins they extend: these
# dicts as dicts (their type checked too), a deque as a list, a set by its elements
_DICTS = (dict, collections.defaultdict, collections.OrderedDict, collections.Counter)
_BY_VALUE = (frozenset, bytearray)  # guarded by value (a bytearray against its bytes)

def _own(obj) -> bool:
    return _own_module(type(obj).__module__)


def _own_module(name: str) -> bool:
    """Whether the module `name` is this package's (`autograph`, `runtime.state`, ...)."""
    return name.partition(".")[0] in _OWN_TOP


# the standard library's classes (a logger's class holds every logger) and NumPy's
_NOT_STATE = frozenset(sys.stdlib_module_names) | {"builtins", "numpy"}
_OUTSIDE = _NOT_STATE | _OWN_TOP  # (module tops that never hold the program's state)
_INSTALLED = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                        "platlib")})


def state_class(cls) -> bool:
    """Whether the class `cls` is walked for its data attributes: the program's own or a
    library's (not the standard library's, NumPy's or this package's), with the plain
    metaclass or ABCMeta (an Enum's members are fixed; other metaclasses may make
    attributes up)."""
    module = getattr(cls, "__module__", None) or "builtins"
    return type(cls) in (type, abc.ABCMeta) and module.partition(".")[0] not in _OUTSIDE


def class_items(cls) -> list:
    """The data attributes a class holds itself, (name, value) in definition order:
    not dunders, methods, descriptors (property, staticmethod, ...) or nested classes."""
    return [(k, v) for k, v in vars(cls).items()
            if type(k) is str and k.isidentifier() and not k.startswith(("__", "_abc_"))
            and not hasattr(type(v), "__get__") and not callable(v)]


def state_mro(cls) -> list:
    """The classes whose data attributes `cls`'s lookups may read (its MRO's state classes,
    `object` aside), or [] when none holds any: a class without data is not state."""
    classes = [c for c in cls.__mro__[:-1] if state_class(c)]
    return classes if any(class_items(c) for c in classes) else []


def slot_names(cls) -> tuple:
    """The `__slots__` attribute names of `cls` and its bases (private ones mangled)."""
    names = []
    for c in cls.__mro__[:-1]:
        slots = vars(c).get("__slots__", ())
        for n in (slots,) if isinstance(slots, str) else slots:
            if n in ("__dict__", "__weakref__") or not isinstance(n, str):
                continue
            names.append(f"_{c.__name__.lstrip('_')}{n}" if n.startswith("__") else n)
    return tuple(dict.fromkeys(names))


def slot_items(obj) -> list:
    """(name, value) of each slot `obj` has a value in."""
    out = []
    for n in slot_names(type(obj)):
        try:
            out.append((n, getattr(obj, n)))
        except AttributeError:  # (an unset slot)
            continue
    return out


def contents_of(kind: str, obj) -> list:
    """A container's contents as the walk records them (to diff and to undo)."""
    if kind == "function":
        return list(user_attributes(obj).items())
    if kind in ("list", "deque", "set"):
        return list(obj)
    if kind == "slots":
        return slot_items(obj)
    return class_items(obj) if kind == "class" else list(obj.items())


def container_kind(x) -> str | None:
    """The kind of the standard library's containers and of a function holding state:
    "dict" (a dict or one of `_DICTS`), "deque", "set", "function"; None for the rest
    (lists, objects, classes and values: each walk tells those apart itself)."""
    t = type(x)
    if t in _DICTS:
        return "dict"
    if t is collections.deque:
        return "deque"
    if t is set:
        return "set"
    return "function" if function_with_state(x) else None


def module_with_state(module) -> bool:
    """Whether `module` is one of the program's (not of the standard library, NumPy, this
    package or an installed library): its globals are state a traced function may write."""
    name = getattr(module, "__name__", None) or "builtins"
    path = getattr(module, "__file__", None) or ""
    return name.partition(".")[0] not in _OUTSIDE and bool(path) \
        and not path.startswith(_INSTALLED)


def function_with_state(obj) -> bool:
    """Whether `obj` is a Python function of the program (not of the standard library,
    NumPy or this package), whose attributes are walked as state."""
    if type(obj) is not types.FunctionType:
        return False
    module = getattr(obj, "__module__", None) or "builtins"
    return module.partition(".")[0] not in _OUTSIDE


def global_with_state(value) -> bool:
    """Whether a module global is state to walk (not a module, not this package's)."""
    return not isinstance(value, types.ModuleType) and not _own(value)


def user_attributes(fn) -> dict:
    """The attributes the program set on `fn`: on a function, all but the compiler's
    caches (`__ag_...`); on an object of this package that lists its own attributes
    (`ag.function`'s Function: `__ag_own_attributes__`), the public ones not listed."""
    own = getattr(type(fn), "__ag_own_attributes__", None)
    if own is not None:
        return {k: v for k, v in vars(fn).items() if k not in own and not k.startswith("_")}
    return {k: v for k, v in vars(fn).items() if not str(k).startswith("__ag_")}


def restore_contents(obj, kind: str, before: list) -> None:
    """Put a class's data attributes, or an object's slots, back as the walk saw them."""
    was, now = dict(before), dict(contents_of(kind, obj))
    for k in now:
        if k not in was:
            delattr(obj, k)
    for k, v in before:
        if now.get(k, _MISSING) is not v:
            setattr(obj, k, v)


def restore(kind: str, obj, before: list) -> None:
    """Put a container of any kind back as the walk saw it (`before`: `contents_of`)."""
    if kind in ("list", "deque"):
        if len(obj) != len(before) or any(a is not b for a, b in zip(obj, before)):
            obj.clear()
            obj.extend(before)
    elif kind == "set":
        if obj != set(before):
            obj.clear()
            obj.update(before)
    elif kind in ("class", "slots"):
        restore_contents(obj, kind, before)
    elif kind == "function":
        _restore_attributes(obj, before)
    elif len(obj) != len(before) or any(ka is not kb or a is not b
                                        for (ka, a), (kb, b) in zip(obj.items(), before)):
        obj.clear()
        for k, v in before:  # (item by item: a Counter's update adds)
            obj[k] = v


def _restore_attributes(fn, before: list) -> None:
    """Put a function's attributes back as the walk saw them (its own and the compiler's
    entries, which the trace may have added, stay)."""
    attrs, was, now = vars(fn), dict(before), user_attributes(fn)
    for k in now:
        if k not in was:
            del attrs[k]
    for k, v in before:
        if now.get(k, _MISSING) is not v:
            attrs[k] = v


_MISSING = object()
