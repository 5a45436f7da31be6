"""What converted code calls: `ag__.converted(f)(x, k=2)` for a call `f(x, k=2)`.

`converted(f)` only decides *what* to call; the call itself is made by the user's
(converted) frame, so a callee that reads its caller's frame (`namedtuple`, `TypeVar`,
`warnings.warn(stacklevel=2)`, `doctest`) sees the user's function and module, as in
Python. The decision, cheapest first:

- a Python function whose code is library code (NumPy, the standard library, site
  packages, a generator): `f` itself. The verdict is cached per code object, keyed by
  `id(code)` and checked by identity - the callee itself is never hashed (an unhashable
  callable, a dead `weakref.ref` or a `functools.cmp_to_key` object is called as is);
- user code: its converted version (cached on the function), which counts its own calls
  for the recursion room (`operators/recursion.py`) and is called directly too; code
  `autograph convert` wrote, nested converted defs, and wrappers of them
  (`functools.cache`) run as is - through `counted_call` while a trace is being built
  (only then can a level take more than one frame);
- a bound method: decided on its function; the converted one gets `self` bound;
- a builtin with an `ag__` overload (`fn = len; fn(xs)`), by identity: the overload;
- while tracing, NumPy creators with a possibly symbolic size, random draws, copies,
  sequence functions, array constructors and as_strided: their graph forms;
- while tracing, a user's class (metaclass `type`, its own Python `__init__`): made as
  `type.__call__` makes it, with the `__init__` converted - so the arrays it makes
  (`self.m = np.zeros(n)`) are arrays of the trace that later in-place writes
  (`self.m += v`) update, as any array the function makes;
- anything else (classes, ufuncs, objects): `f` itself. While no trace is being built
  (on any thread), builtins, classes and NumPy's callables are `f` itself at once: the
  overloads and graph forms above are `f` on values that cannot be symbolic. A function
  whose source cannot be read (made by `exec`, `dataclasses`, `namedtuple`, a frozen
  module) is called as is, silently: nothing in it can be converted.
"""
from __future__ import annotations

import dis
import functools
import types
from typing import Any, Callable

import numpy as np

from autograph import operators
from autograph.converters.fast_paths import EMPTY, CallSite
from autograph.errors import ConversionError
from autograph.impl import api
from autograph.operators import lists
from autograph.operators.builtin_calls import OVERLOADS
from autograph.operators.recursion import counted_call
from autograph.operators.random_calls import NOT_RANDOM, random_call, routes
from autograph.pyct import registry
from runtime.core import errors, log, tracing
from runtime.core.tensor import Tensor
from runtime.frontend.function import BoundFunction, Function
from runtime.ops.dynamic import CREATORS, creator_call
from runtime.ops.strided import as_strided_call
from runtime.state.random_watch import note_call

_FUNCTION = types.FunctionType
_METHOD = types.MethodType
_BUILTIN = types.BuiltinFunctionType
_MODULE = types.ModuleType
_PLAIN, _COUNTED, _USER = 0, 1, 2    # verdicts per code object
_VERDICTS: dict = {}                 # id(code) -> (code, verdict); never keyed by callee
_CALL_ATTR = "__ag_call__"           # on a function: (generation, it, what to call for it)
_DO_NOT = registry.DO_NOT_CONVERT_ATTR
_GENERATION = api._GENERATION
_in_graph = tracing.in_graph_mode
# graphs being built on any thread: calls are counted for the recursion room only while
# this thread builds one (`operators/recursion.py`); outside a trace a level is one frame,
# as in Python
_tracing_anywhere = tracing.building  # empty: no thread is tracing


def _tracing() -> bool:
    return bool(_tracing_anywhere) and _in_graph()


def converted(f: Any) -> Callable:
    """What converted code calls for `f` (see the module docstring)."""
    t = type(f)
    if t is _FUNCTION:
        code = f.__code__
        known = _VERDICTS.get(id(code))
        if known is not None and known[0] is code:
            verdict = known[1]
            # (`not _tracing_anywhere` first: no call, so no frame, on Python values - a
            # recursion then stops at Python's depth with Python's message)
            if verdict == _PLAIN or verdict == _COUNTED and not (_tracing_anywhere and
                                                                 _in_graph()):
                return f
            d = f.__dict__
            entry = d.get(_CALL_ATTR)
            if type(entry) is tuple and entry[0] == _GENERATION[0] and \
                    entry[1] is f and _DO_NOT not in d:
                return entry[2]
        return _function(f)
    if t is _METHOD:
        return _method(f)
    if t in _AS_IS_OUTSIDE_TRACES and not _tracing_anywhere:
        return f  # (an overload is the builtin itself on values that cannot be symbolic)
    if t is _BUILTIN or t is type:
        overload = _OVERLOADS.get(id(f))  # `len` -> `ag__.len_`
        if overload is not None and overload[0] is f:
            return overload[1]
    by_type = _BY_TYPE.get(t)
    if by_type is not None:
        return by_type(f)
    return _other(f)


def converted_at(site: CallSite, f: Any) -> Callable:
    """`converted(f)` for a call site with a cache (`converters/fast_paths.py`). The site
    is filled at its first call with an answer that holds whether or not a trace is being
    built: a Python function that runs as is, or a user function's converted version
    (counting its own calls). A call of a name then calls it without asking again while
    the name means `f`; a method call (`obj.step(x)`, which calls here each time) binds
    it to the receiver while the method's function is the same."""
    if f is site.callee:  # an attribute that is a function (`helpers.step(x)`)
        return site.run
    t = type(f)
    if t is _METHOD:
        fn = f.__func__
        if fn is site.callee:
            return _METHOD(site.run, f.__self__)
        run = _method(f)
        if site.callee is EMPTY and type(fn) is _FUNCTION and fn is not _TENSOR_ITEM:
            if run is f:
                _fill(site, fn, fn)
            elif type(run) is _METHOD and run.__self__ is f.__self__:
                _fill(site, fn, run.__func__)
        return run
    if t in _AS_IS_OUTSIDE_TRACES and not _tracing_anywhere:
        return f
    run = converted(f)
    if site.callee is EMPTY and t is _FUNCTION:
        _fill(site, f, run)
    return run


def _fill(site: CallSite, fn, run) -> None:
    """Cache `run` for the function `fn` in `site` when `fn`'s verdict makes it hold in
    and out of traces: `fn` itself (plain, or user code that runs as is), or user code's
    converted version, which counts its own calls."""
    if fn.__closure__ is not None:
        return  # (a closure is made per call and holds its cells: a site would keep them)
    code = fn.__code__
    known = _VERDICTS.get(id(code))  # (special functions have no cached verdict)
    if known is not None and known[0] is code and (
            known[1] == _PLAIN and run is fn or known[1] == _USER and
            (run is fn or type(run) is _FUNCTION and api.counts_its_calls(run.__code__))):
        site.run = run  # (before the callee: another thread may read the site)
        site.callee = fn


def converted_call(f: Any, *args, **kwargs):
    """`f(*args, **kwargs)` as converted code makes it (the form modules written by
    earlier versions of `autograph convert` call)."""
    return converted(f)(*args, **kwargs)


def _function(f):
    special = _SPECIAL.get(id(f))
    if special is not None and special[0] is f:
        return special[1](f)
    verdict = _verdict(f)
    if verdict == _PLAIN or verdict == _COUNTED and not _tracing_anywhere:
        return f
    if verdict == _COUNTED:
        return _remember(f, f) if _tracing() else f
    g = _converted_function(f)
    return f if g is f else _remember(f, g)


def _remember(f, g):
    """Cache what runs for the function `f` on it, for the next call: `g` itself when it
    counts its own calls (converted code does), else `g` through `counted_call`. The
    entry is (generation, f, callable): one copied to another function's dict
    (`functools.wraps`) names its own function, so it is not taken for that one's."""
    run = g if api.counts_its_calls(g.__code__) else functools.partial(counted_call, g)
    try:
        f.__dict__[_CALL_ATTR] = (_GENERATION[0], f, run)
    except (AttributeError, TypeError):
        pass
    return run


def _verdict(fn) -> int:
    """The verdict for a Python function, cached per code object when it holds for every
    function made from that code (a do-not-convert mark is the function's own)."""
    code = fn.__code__
    if api.counts_its_calls(code):
        verdict = _PLAIN  # converted code counts its own calls: called like any function
    elif registry.is_generated_code(code):
        verdict = _COUNTED
    elif registry.is_marked_do_not_convert(fn):
        return _PLAIN
    else:
        verdict = _USER if registry.is_convertible(fn) else _PLAIN
    if id(code) not in _SPECIAL_CODES:
        _VERDICTS[id(code)] = (code, verdict)
    return verdict


def _converted_function(f):
    """The converted version of the user function `f`, or `f` when it stays as is
    (marked do-not-convert, or its source cannot be read)."""
    if _DO_NOT in f.__dict__:
        return f
    try:
        g = api.convert(f, recursive=True)
    except ConversionError as e:
        if "source code is unavailable" not in str(e):
            raise
        log.CONVERT.debug("%s: called unconverted (%s)", f.__qualname__, e)
        return f
    rebound = _rebound_free_variables(f.__code__)
    if rebound and not registry.is_defined_in_converted_class(f.__code__):
        return _guard_rebinding(f, g, rebound)
    return g


def _rebound_free_variables(code) -> list:
    """The free variables `code` assigns or deletes (`nonlocal count; count += 1`)."""
    names = {i.argval for i in dis.get_instructions(code)
             if i.opname in ("STORE_DEREF", "DELETE_DEREF")}
    return [n for n in code.co_freevars if n in names]


def _guard_rebinding(f, g, rebound: list):
    """`g` (the converted `f`), refusing what cannot be carried: `f` was made outside the
    converted function and rebinds a variable of the function it was defined in, which
    is no variable of the converted code (`converters/nonlocal_writes.py` carries those
    of nested defs). Called inside a symbolic branch, loop or graph `try` (a child
    graph), each traced path would rebind it; elsewhere a symbolic value it stores would
    outlive the trace, unless the cell is one of the traced function's own closure (its
    state, written back after each call). Either is a TypeError naming the fix; Python
    values stored at the top level are a trace-time effect like any other
    (docs/sharp_bits.md)."""
    cells = [c for n, c in zip(f.__code__.co_freevars, f.__closure__ or ()) if n in rebound]

    def guarded(*args, **kwargs):
        graph = tracing.current_graph() if _tracing_anywhere else None
        if graph is not None and graph.parent is not None:
            raise TypeError(_rebinding_message(f, rebound, "is called inside a branch, loop "
                                               "or `try` that runs in the graph"))
        before = [_contents(c) for c in cells]
        out = g(*args, **kwargs)
        if graph is not None:
            # (a cell of the traced function's own closure is written back after each
            # call, as any state of it: runtime/frontend/trace.py)
            own = getattr(graph, "state_cells", ())
            for name, cell in zip(rebound, cells):
                if isinstance(_contents(cell), Tensor) and id(cell) not in own:
                    for c, o in zip(cells, before):  # (no symbolic value outlives the trace)
                        _set_contents(c, o)
                    raise TypeError(_rebinding_message(f, [name], "stores a value computed "
                                                       "in the graph there"))
        return out

    functools.update_wrapper(guarded, g)
    return guarded


_EMPTY = object()


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell)
        return _EMPTY


def _set_contents(cell, value) -> None:
    if value is _EMPTY:
        del cell.cell_contents
    else:
        cell.cell_contents = value


def _rebinding_message(f, names: list, what: str) -> str:
    shown = ", ".join(f"`{n}`" for n in names)
    name = f.__name__
    return (f"{name} assigns {shown} of the function it was defined in (`nonlocal`) and "
            f"{what}{errors.where()}: that variable is not one of the converted function's, "
            f"so it cannot be carried. Return the new value from {name} and assign it "
            f"where you call it (`{names[0]} = {name}(...)`), or define {name} inside "
            "the converted function (its nonlocal variables are carried there).")


def _method(m):
    fn = m.__func__
    if type(fn) is not _FUNCTION:
        return _other(m)
    if fn is _TENSOR_ITEM:  # `x.item()` of a symbolic value: NumPy answers a Python number
        return functools.partial(operators.item_, m.__self__)
    code = fn.__code__
    known = _VERDICTS.get(id(code))
    verdict = known[1] if known is not None and known[0] is code else _verdict(fn)
    if verdict == _PLAIN or verdict == _COUNTED and not _tracing_anywhere:
        return m
    if verdict == _COUNTED:
        return functools.partial(counted_call, m) if _tracing() else m
    d = fn.__dict__
    entry = d.get(_CALL_ATTR)
    if type(entry) is tuple and entry[0] == _GENERATION[0] and entry[1] is fn and \
            _DO_NOT not in d:
        run = entry[2]
    else:
        g = _converted_function(fn)
        if g is fn:
            return m
        run = _remember(fn, g)
    if type(run) is _FUNCTION:  # converted code counting its own calls
        return _METHOD(run, m.__self__)
    return functools.partial(run, m.__self__)


def _special_or_as_is(f):
    """Builtins, classes, NumPy's dispatchers: an overload or graph form by identity."""
    special = _SPECIAL.get(id(f))
    if special is not None and special[0] is f:
        return special[1](f)
    if type(f) is type and _in_graph() and _converts_its_init(f):
        return functools.partial(_construct, f)
    if type(getattr(f, "__self__", None)) is _MODULE:  # `math.sqrt`: no draw, no copy
        return f
    if _in_graph():
        return _traced_library_call(f)
    return f


def _as_is(f):
    return f


def _converts_its_init(cls: type) -> bool:
    """A user's class whose instances `type.__call__` makes with a user `__init__` (not an
    exception class: `raise E(...)` is made as Python makes it)."""
    init = cls.__init__
    return type(init) is _FUNCTION and not issubclass(cls, BaseException) and \
        _verdict(init) == _USER


def _construct(cls, *args, **kwargs):
    """`cls(*args, **kwargs)` as `type.__call__` does it, calling the converted `__init__`."""
    new = cls.__new__
    if new is object.__new__:
        obj = object.__new__(cls)
    else:
        obj = (converted(new) if type(new) is _FUNCTION else new)(cls, *args, **kwargs)
    if isinstance(obj, cls):
        init = type(obj).__init__
        result = converted(init)(obj, *args, **kwargs) if type(init) is _FUNCTION else \
            init(obj, *args, **kwargs)
        if result is not None:
            raise TypeError(f"__init__() should return None, not '{type(result).__name__}'")
    return obj




def _other(f):
    """Every other callable (an object with `__call__`, a partial, a wrapper)."""
    special = _SPECIAL.get(id(f))
    if special is not None and special[0] is f:
        return special[1](f)
    if registry.is_convertible(f):
        try:
            return api.convert(f, recursive=True)  # (converted code counts its own calls)
        except ConversionError as e:
            if "source code is unavailable" not in str(e):
                raise
            return f
    inner = getattr(f, "__wrapped__", None) if not isinstance(f, type) else None
    if type(inner) is _FUNCTION and registry.is_generated_code(inner.__code__) and \
            not api.counts_its_calls(inner.__code__) and _tracing():
        return functools.partial(counted_call, f)  # `functools.cache` around converted code
    if _in_graph():
        return _traced_library_call(f)
    return f


def _traced_library_call(f):
    """While tracing: random draws and copies of NumPy arrays take their graph forms."""
    if routes(f):
        return functools.partial(_random, f)
    owner = getattr(f, "__self__", None)
    if type(owner) is np.ndarray and getattr(f, "__name__", None) in ("copy", "astype"):
        return functools.partial(_copy, f)
    note_call(f)  # a bit generator's method and the like: only noticed (random_watch.py)
    return f


# -- graph forms (reached by identity or while tracing only) ---------------------------------
def _random(f, *args, **kwargs):
    drawn = random_call(f, args, kwargs)
    return f(*args, **kwargs) if drawn is NOT_RANDOM else drawn


def _copy(f, *args, **kwargs):
    made = f(*args, **kwargs)  # (`astype(copy=False)` may give the array itself)
    return made if made is getattr(f, "__self__", None) else lists.array_of_the_trace(made)


def _sequence(f, *args, **kwargs):
    return lists.sequence_call(f, *args, **kwargs) if args else f(*args, **kwargs)


def _array(f, *args, **kwargs):
    return lists.array_(f, *args, **kwargs) if args else f(*args, **kwargs)


def _create(f, *args, **kwargs):
    # np.zeros(n) with a symbolic n: NumPy itself would call n.__index__
    return lists.array_of_the_trace(creator_call(f, args, kwargs))


def _while_tracing(form):
    def make(f):
        return functools.partial(form, f) if _in_graph() else f
    return make


_SPECIAL: dict = {}        # id(callee) -> (callee, make the callable for it)
_OVERLOADS: dict = {id(f): (f, impl) for f, impl in OVERLOADS.items()}
_SPECIAL_CODES: set = set()  # ids of the code of special Python functions: never cached


def _add_special(f, make) -> None:
    _SPECIAL[id(f)] = (f, make)
    code = getattr(f, "__code__", None)
    if code is not None:
        _SPECIAL_CODES.add(id(code))


for _builtin, _impl in OVERLOADS.items():
    _add_special(_builtin, lambda f, impl=_impl: impl)
for _f in lists.SEQUENCE_FORMS:
    _add_special(_f, _while_tracing(_sequence))
for _f in (np.array, np.asarray, np.asanyarray, np.ascontiguousarray):
    _add_special(_f, _while_tracing(_array))
for _f in (np.copy, np.zeros_like, np.ones_like, np.empty_like, np.full_like):
    _add_special(_f, _while_tracing(_copy))
for _f in CREATORS:
    if id(_f) not in _SPECIAL:
        _add_special(_f, _while_tracing(_create))
# as_strided converts its argument with np.asarray (no NumPy dispatch): the graph op
_add_special(np.lib.stride_tricks.as_strided,
             _while_tracing(lambda f, *args, **kwargs: as_strided_call(f, args, kwargs)))

_TENSOR_ITEM = Tensor.item
_BY_TYPE: dict = {
    _METHOD: _method,
    types.BuiltinFunctionType: _special_or_as_is,
    type: _special_or_as_is,
    type(np.sum): _special_or_as_is,   # NumPy's array-function dispatchers
    np.ufunc: _as_is,
    Function: _as_is,            # (`ag.function`: the converted code counts its calls)
    BoundFunction: _as_is,
    types.MethodWrapperType: _as_is,
    types.WrapperDescriptorType: _as_is,
    types.MethodDescriptorType: _special_or_as_is,
}

# callables of these types run as they are while no trace is being built on any thread:
# nothing can be symbolic then, and each graph form and `ag__` overload they map to is
# the callable itself on other values (methods are decided on their function)
_AS_IS_OUTSIDE_TRACES = frozenset(_BY_TYPE) - {_METHOD}

# generated code calls `ag__.converted`: the operators get this one injected
registry.set_compiler(converted=converted, converted_at=converted_at,
                      converted_call=converted_call)
operators.set_converted(converted, converted_at)

__all__ = ["converted", "converted_at", "converted_call"]
