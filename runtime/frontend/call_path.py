"""The call path of one Function, generated once: what `f(...)` runs before the graph.

`make_entry(function)` writes a Python function with the user's own parameters (names,
kinds, defaults), so Python binds keywords, defaults, `*args` and `**kwargs` in C and a
bad call raises Python's own `TypeError`. Its body computes the cache key inline, one
block per parameter specialised to what that parameter can be (an `input_signature`
entry is a set lookup), looks the key up and runs the cached executor. A first branch
serves the typical call (arrays where there is no default, a Python scalar where there
is one) without building a list of leaves:

    def scale(x, factor=2.0):
        (eager or inside a trace?) -> the Python function on the bound arguments
        key part of x    (array: (dtype, shape), leaf) ...
        key part of factor (float: its bits) ...
        cf = the last call's trace if every part equals the last call's (`_F._last`,
             which keeps that trace's executor when it has no guard: run at once),
             else cache.get((k0, k1))
        guards hold? -> cf._fn(*leaves)
        a trace reading Python state as inputs: cf.stateful(leaves, args)
        anything else (a miss, a nested argument, the same array twice): the full path

After the first trace, `make_entry(function, atom_kinds(...))` writes the entry once
more with a typical branch for what that call passed where the first one assumes an
array: a str / int / bool / None, a list or tuple of arrays, arrays in `*args`, one
`**kwargs` option (it keeps its own last call, `_F._last_typed`).

`Function.__call__` reads it (`Function._entry`) and `BoundFunction` is a
`functools.partial` of it with the instance, so neither adds a Python frame. The keys
made here equal `signature.key_of`'s, so the full path (`Function._call_bound`) and this
one share one cache. Parameters spelled by no `def` (a `__signature__` with names that
are not identifiers) get `generic_entry`: bind with `inspect`, then the full path.
"""
from __future__ import annotations

import inspect
import os
import re
from typing import Any, Callable

import numpy as np

from runtime.core import tracing
from runtime.frontend.binder import def_parameters
from runtime.frontend.concrete import MISS
from runtime.frontend.modes import _run_eagerly
from runtime.frontend.signature import FloatKey, _identity_key, has_aliases, key_of
from runtime.frontend.tracebacks import filter_traceback
from runtime.state.python_state import never_holds

_P = inspect.Parameter
_HERE = os.path.dirname(os.path.abspath(__file__))
_ndarray, _generic = np.ndarray, np.generic
_object_hash, _object_eq = object.__hash__, object.__eq__
_new_str = str.__new__
_EMPTY_TUPLE, _EMPTY_DICT = (tuple, ()), (dict, ())
# names the generated code uses: a parameter so named takes `generic_entry`
_RESERVED = frozenset({
    "_F", "_state", "_building", "_eager", "_full", "_filter", "_ndarray", "_generic", "_floats",
    "_float_part", "_identity_part", "_ohash", "_oeq", "_seq", "_map", "_aliases",
    "_EMPTY_TUPLE", "_EMPTY_DICT", "_TUPLE", "_LIST", "_L", "_t", "_n", "_v", "_r", "_kv",
    "_l", "_DICT", "_MISS", "_cf", "_e", "_entry", "_g", "_NEVER", "_type", "_len", "_id", "_x",
    "_isinstance"})
# the builtins the generated code calls, under names no parameter can take (a parameter
# named `type` or `len` would otherwise be called in its place)
_BUILTIN_CALL = re.compile(r"(?<![\w.])(type|len|id|isinstance)\(")


def identity_part(function: Any, a: object) -> tuple | None:
    """The key part of an object keyed by identity (`self`, a module...), as
    `signature.key_of` makes it, kept per Function and object so that calls on the same
    `self` reuse it; None for an object keyed otherwise (the full path keys it)."""
    t = type(a)
    if t.__hash__ is not _object_hash or t.__eq__ is not _object_eq \
            or not t.__weakrefoffset__:
        return None
    part = (t, _identity_key(a, True))
    if len(function._identity_parts) >= 256:  # entries of dead objects are dropped here
        function._identity_parts = {}
    function._identity_parts[id(a)] = part
    return part


def float_part(function: Any, a: float) -> tuple:
    """`(float, FloatKey(a))`, kept per value (not for 0.0 / -0.0, equal as floats but
    keyed apart, nor NaN)."""
    if a != a:  # a NaN: its sign is in its bits, not in float.hex
        return (float, FloatKey(a))
    part = (float, _new_str(FloatKey, a.hex()))
    if a and len(function._float_parts) < 64:
        function._float_parts[a] = part
    return part


def sequence_part(function: Any, items: tuple, leaves: list, kind: type = tuple
                  ) -> tuple | None:
    """The key part of a `*args` tuple (or an argument that is a `kind` list or tuple)
    of arrays and Python scalars; None for other items. (Each item's part is made
    inline, as `key_of` makes it: this runs on every call.)"""
    parts = []
    append = parts.append
    for a in items:
        t = type(a)
        if t is _ndarray:
            leaves.append(a)
            append((a.dtype, a.shape))
        elif t is int or t is bool or t is str or a is None:
            append((t, a))
        elif t is float:
            append(function._float_parts.get(a) or float_part(function, a))
        elif isinstance(a, _generic):
            leaves.append(a)
            append((a.dtype, ()))
        else:
            return None
    return (kind, tuple(parts))


def mapping_part(function: Any, items: dict, leaves: list) -> tuple | None:
    """The key part of a `**kwargs` dict of arrays and Python scalars; None for others."""
    parts = []
    append = parts.append
    for name, a in items.items():
        t = type(a)
        if t is _ndarray:
            leaves.append(a)
            append((name, (a.dtype, a.shape)))
        elif t is int or t is bool or t is str or a is None:
            append((name, (t, a)))
        elif t is float:
            append((name, function._float_parts.get(a) or float_part(function, a)))
        elif isinstance(a, _generic):
            leaves.append(a)
            append((name, (a.dtype, ())))
        else:
            return None
    return (dict, tuple(parts))


def full_path(function: Any, args: tuple) -> Any:
    """A call the generated code does not finish: key and run it the general way."""
    return function._call_bound(args)


_SCALAR_DEFAULTS = (float, int, bool, str, type(None))


def _scalar_default(p: inspect.Parameter) -> bool:
    return p.default is not _P.empty and type(p.default) in _SCALAR_DEFAULTS


def _param_block(i: int, p: inspect.Parameter, spec, slow: str) -> list[str]:
    """Source lines computing key part `_k{i}` of parameter `p` (leaves into `_L`)."""
    n, k = p.name, f"_k{i}"
    if p.kind is _P.VAR_POSITIONAL or p.kind is _P.VAR_KEYWORD:
        helper, empty = ("_seq", "_EMPTY_TUPLE") if p.kind is _P.VAR_POSITIONAL \
            else ("_map", "_EMPTY_DICT")
        return [f"if {n}:",
                f"    {k} = {helper}(_F, {n}, _L)",
                f"    if {k} is None: {slow}",
                f"else: {k} = {empty}"]
    if spec is not None:  # an input_signature entry: arrays that an earlier call fitted
        return [f"if type({n}) is not _ndarray or ({n}.dtype, {n}.shape) not in _fit{i}:",
                f"    {slow}",
                f"{k} = _spec{i}",
                f"_L.append({n})"]
    first = [f"if {n} is _d{i}: {k} = _dp{i}", "el"] if _scalar_default(p) else [""]
    return [first[0]] * (len(first) == 2) + [
        f"{first[-1]}if type({n}) is _ndarray:",
        f"    {k} = ({n}.dtype, {n}.shape)",
        f"    _L.append({n})",
        "else:",
        f"    _t = type({n})",
        "    if _t is float:",
        f"        {k} = _floats.get({n}) if {n} else None",
        f"        if {k} is None: {k} = _float_part(_F, {n})",
        f"    elif _t is int or _t is bool or _t is str or {n} is None:",
        f"        {k} = (_t, {n})",
        f"    elif isinstance({n}, _generic):",
        f"        {k} = ({n}.dtype, ())",
        f"        _L.append({n})",
        # a list or tuple of arrays and Python scalars (`forward([a, b])`), keyed inline
        "    elif _t is _LIST or _t is _TUPLE:",
        f"        {k} = _seq(_F, {n}, _L, _t)",
        f"        if {k} is None: {slow}",
        "    else:",
        f"        {k} = _F._identity_parts.get(id({n}))",
        # a part is made (`identity_part`) only for a type keyed by identity
        f"        if {k} is None or {k}[0] is not _t or {k}[1].ref() is not {n}:",
        f"            {k} = _identity_part(_F, {n})",
        f"            if {k} is None: {slow}"]


_ATOMS = (str, int, bool, type(None))


def _array_part(part) -> bool:
    return type(part) is tuple and len(part) == 2 and isinstance(part[0], np.dtype) \
        and type(part[1]) is tuple


def atom_kinds(function: Any, key: tuple) -> dict[int, Any] | None:
    """What the first traced call passed, for `make_entry` to serve such calls in the
    typical branch: index -> a type for a parameter without a default given a str, int,
    bool or None (`update(p, g, "W")`); ("args", n) for `*args` of n arrays (n <= 3);
    ("kwargs", name, type) for `**kwargs` of one array, str, int or bool (`y=y`);
    ("items", n, list or tuple) for such an argument of n arrays (n <= 3). None when
    there is nothing to serve."""
    kinds: dict = {}
    for i, (p, part) in enumerate(zip(function._sig.parameters.values(), key)):
        if function._specs is not None and function._specs[i] is not None:
            continue
        if p.kind is _P.VAR_POSITIONAL:
            if 0 < len(part[1]) <= 3 and all(_array_part(x) for x in part[1]):
                kinds[i] = ("args", len(part[1]))
        elif p.kind is _P.VAR_KEYWORD:
            if len(part[1]) == 1:
                name, item = part[1][0]
                if _array_part(item):
                    kinds[i] = ("kwargs", name, _ndarray)
                elif any(item[0] is t for t in (str, int, bool)):
                    kinds[i] = ("kwargs", name, item[0])
        elif p.default is _P.empty and type(part) is tuple and len(part) == 2 \
                and any(part[0] is t for t in _ATOMS):  # (a dtype equals bool)
            kinds[i] = part[0]
        elif p.default is _P.empty and p.kind is not _P.KEYWORD_ONLY and type(part) is tuple \
                and len(part) == 2 and (part[0] is list or part[0] is tuple) \
                and 0 < len(part[1]) <= 3 and all(_array_part(x) for x in part[1]):
            kinds[i] = ("items", len(part[1]), part[0])  # a list or tuple of n arrays
    return kinds or None


def _typical_block(params: list, specs, args: str, atoms_of=None) -> list[str]:
    """The branch for the typical call, tested first: parameters without a default are
    arrays (`self` / `cls` first: an object keyed by identity), those with a Python
    scalar default have it or another value of its type (a float seen before),
    input_signature entries fit, and `*args` / `**kwargs` hold arrays and Python scalars.
    No list of leaves is built but those of `*args` / `**kwargs`."""
    tests, parts, leaves, var_leaves, fits = [], [], [], [], []
    same, atoms = [], []  # this call's parts against the last call's (`_F._last`)

    def last(check: str, atom: str) -> None:
        same.append(check.replace("{}", "{0}").format(f"_l[{len(atoms)}]"))
        atoms.append(atom)

    for i, p in enumerate(params):
        n = p.name
        kind = atoms_of.get(i) if atoms_of else None
        if type(kind) is tuple and kind[0] in ("args", "items"):  # n arrays, as the
            # first call passed them: `*args`, or a list or tuple argument
            names = [f"_a{i}_{j}" for j in range(kind[1])]
            seq = "_TUPLE" if kind[0] == "args" else f"_T{i}"
            tests.append(("" if kind[0] == "args" else f"type({n}) is _T{i} and ")
                         + f"len({n}) == {kind[1]}" + "".join(
                f" and type({a} := {n}[{j}]) is _ndarray" for j, a in enumerate(names)))
            parts.append(f"({seq}, (" + "".join(f"({a}.dtype, {a}.shape), " for a in names)
                         + "))")
            for a in names:
                leaves.append(a)
                last(f"{a}.dtype is {{}}", f"{a}.dtype")
                last(f"{a}.shape == {{}}", f"{a}.shape")
            continue
        if type(kind) is tuple and kind[0] == "kwargs":  # one option, as the first call
            o, name = f"_o{i}", kind[1]
            if kind[2] is _ndarray:
                tests.append(f"len({n}) == 1 and type({o} := {n}.get({name!r})) is _ndarray")
                parts.append(f"(_DICT, (({name!r}, ({o}.dtype, {o}.shape)),))")
                leaves.append(o)
                last(f"{o}.dtype is {{}}", f"{o}.dtype")
                last(f"{o}.shape == {{}}", f"{o}.shape")
            else:
                tests.append(f"len({n}) == 1 and type({o} := {n}.get({name!r})) is _T{i}")
                parts.append(f"(_DICT, (({name!r}, (_T{i}, {o})),))")
                last(f"{o} == {{}}", o)
            continue
        if p.kind is _P.VAR_POSITIONAL:
            # one array inline (the usual `*args`), other arrays and Python scalars
            # through `_seq` (anything else: the general branch)
            tests.append(f"(_k{i} := (_TUPLE, ((_a{i}.dtype, _a{i}.shape),)) "
                         f"if len(_L{i} := {n}) == 1 and type(_a{i} := {n}[0]) is _ndarray "
                         f"else _seq(_F, {n}, (_L{i} := []))) is not None")
            parts.append(f"_k{i}")
            last(f"_k{i} == {{}}", f"_k{i}")
            leaves.append(f"*_L{i}")
            var_leaves.append(f"_L{i}")
            continue
        if p.kind is _P.VAR_KEYWORD:  # none given (the usual call), or one option that
            # is an int, bool, str (`flag=1`) or array (`y=y`), needs no function call
            tests.append(f"(not (_L{i} := ()) and (_k{i} := _EMPTY_DICT if not {n} else "
                         f"(_DICT, ((_kv[0], (_t, _kv[1])),)) if len({n}) == 1 and "
                         f"((_t := type((_kv := (*{n}.items(),)[0])[1])) is int or _t is bool "
                         f"or _t is str) else "
                         f"(_DICT, ((_kv[0], (_kv[1].dtype, _kv[1].shape)),)) if len({n}) == 1 "
                         f"and _t is _ndarray and (_L{i} := (_kv[1],)) else "
                         f"_map(_F, {n}, (_L{i} := []))) is not None)")
            parts.append(f"_k{i}")
            last(f"_k{i} == {{}}", f"_k{i}")
            leaves.append(f"*_L{i}")
            var_leaves.append(f"_L{i}")
            continue
        if specs is not None and specs[i] is not None:
            # fits an input_signature entry: as the last call's array of that dtype and
            # shape did, or as an earlier call's (`_fit`, tested only then)
            tests.append(f"type({n}) is _ndarray")
            fits.append(f"({n}.dtype, {n}.shape) in _fit{i}")
            parts.append(f"_spec{i}")
            leaves.append(n)
            last(f"{n}.dtype is {{}}", f"{n}.dtype")
            last(f"{n}.shape == {{}}", f"{n}.shape")
        elif _scalar_default(p):  # the default, or another value of its type
            t = type(p.default)
            other = "" if p.default is None else \
                f" or type({n}) is float and (_k{i} := _floats.get({n})) is not None" \
                if t is float else f" or type({n}) is {t.__name__} and (_k{i} := ({t.__name__}, {n}))"
            tests.append(f"({n} is _d{i} and (_k{i} := _dp{i}){other})")
            parts.append(f"_k{i}")
            # the default's part and a float's are kept objects: the same one, usually
            last(f"(_k{i} is {{0}} or _k{i} == {{0}})", f"_k{i}")
        elif kind is not None:  # a str / int / bool / None, keyed by value
            tests.append(f"{n} is None" if atoms_of[i] is type(None) else
                         f"type({n}) is _T{i}")
            parts.append(f"(_T{i}, {n})")
            last(f"{n} == {{}}", n)
        elif i == 0 and n in ("self", "cls") and p.default is _P.empty:
            tests.append(f"(_k0 := _F._identity_parts.get(id({n}))) is not None and "
                         f"_k0[0] is type({n}) and _k0[1].ref() is {n}")
            parts.append("_k0")
            last("_k0 is {}", "_k0")  # (one part per live object: `identity_part`)
        else:
            tests.append(f"type({n}) is _ndarray")
            parts.append(f"({n}.dtype, {n}.shape)")
            leaves.append(n)
            last(f"{n}.dtype is {{}}", f"{n}.dtype")
            last(f"{n}.shape == {{}}", f"{n}.shape")
    # an entry made with `atoms_of` keeps its own last call (another layout of parts;
    # a BoundFunction made before it may still run the first entry)
    last_attr = "_last_typed" if atoms_of else "_last"
    fixed = [x for x in leaves if not x.startswith("*")]
    if not leaves:
        return []
    # no array passed twice: pairwise identity tests (15 for six arrays, cheaper than a
    # call), one `_aliases` call beyond (model code passes many weights: `lstm_cell(x, h,
    # c, W, U, b)` took the general branch, ~1 us more)
    tests += [f"{a} is not {b}" for j, a in enumerate(fixed) for b in fixed[j + 1:]] \
        if len(fixed) <= 6 else [f"not _aliases([{', '.join(fixed)}])"]
    if var_leaves:  # the same array twice among them: the general branch marks it
        # (one array in `*args` / `**kwargs`, the usual case, is compared inline)
        some = " or ".join(var_leaves)
        one = f"({some})[0]" if len(var_leaves) > 1 else f"{var_leaves[0]}[0]"
        count = " + ".join(f"len({v})" for v in var_leaves)
        single = " and ".join([f"(_v := {one}) is not {fixed[0]}"] +
                              [f"_v is not {x}" for x in fixed[1:]]) if fixed else "True"
        tests.append(f"(not ({some}) or {count} == 1 and {single} or "
                     f"{count} > 1 and not _aliases([{', '.join(leaves)}]))")
    # the last call's parts and trace, compared part by part, cost less than making
    # and hashing the key; equal parts are equal keys (a changed trace for a key resets
    # `_last`: `Function._retrace_for_state`, `_forget`)
    # (the last trace's executor is kept next to it when it has no guard: a call equal
    # to the last one runs it without reading the trace's attributes)
    return [f"if {' and '.join(tests)}:",
            f"    if (_l := _F.{last_attr}) is not None{''.join(' and ' + c for c in same)}:",
            "        if (_x := _l[-1]) is not None:",
            "            _F._calls += 1",
            "            try:",
            f"                return _x({', '.join(leaves)})",
            "            except Exception as _e:",
            f"                _l[-2]._failed(_e, {args})",
            "                raise",
            "        _cf = _l[-2]",
            f"    elif {''.join(x + ' and ' for x in fits)}"
            f"(_cf := _F._cache.get(({''.join(x + ', ' for x in parts)}))) is not None:",
            f"        _F.{last_attr} = ({''.join(a + ', ' for a in atoms)}_cf, "
            "_cf._fn if _cf.guard is None else None)",
            *(["    else:", "        _cf = None"] if fits else []),
            # (a trace read through `stateful` has a guard that never holds: not called)
            f"    if _cf is not None and ((_g := _cf.guard) is None or _g is not _NEVER "
            f"and _g({args})):",
            "        _F._calls += 1",
            "        try:",
            f"            return _cf._fn({', '.join(leaves)})",
            "        except Exception as _e:",
            f"            _cf._failed(_e, {args})",
            "            raise",
            # a trace with inputs read from Python state (`ConcreteFunction.stateful`)
            "    if _cf is not None and _cf.stateful is not None and "
            f"(_r := _cf.stateful([{', '.join(leaves)}], {args})) is not _MISS:",
            "        return _r"]


def make_entry(function: Any, atoms_of: dict[int, Any] | None = None) -> Callable:
    """The generated call path of `function` (see the module docstring); `atoms_of`:
    what the first traced call passed where the generic typical branch does not serve
    it (`atom_kinds`)."""
    sig = function._sig
    params = list(sig.parameters.values())
    if not all(p.name.isidentifier() and p.name not in _RESERVED
               and not re.fullmatch(r"_(k|spec|fit|d|dp|L|a|T|o)\d+(_\d+)?", p.name) for p in params):
        return generic_entry(function)
    try:
        source_params, defaults, kwdefaults = def_parameters(sig)
    except SyntaxError:
        return generic_entry(function)
    args = "(" + "".join(f"{p.name}, " for p in params) + ")"
    slow = f"return _full(_F, {args})"
    name = function.__name__ if function.__name__.isidentifier() else "function"
    specs = function._specs
    consts: dict = {}
    for i, p in enumerate(params):
        if _scalar_default(p):  # the default itself: its key part is made once
            consts[f"_d{i}"], consts[f"_dp{i}"] = p.default, key_of(p.default, [])
        if specs is not None and specs[i] is not None:
            consts[f"_spec{i}"], consts[f"_fit{i}"] = specs[i]
        if atoms_of and i in atoms_of:  # (the type of a parameter or of its option)
            consts[f"_T{i}"] = atoms_of[i] if type(atoms_of[i]) is type else atoms_of[i][-1]
    body = ["if _eager[0] or _building and _state.graph is not None:",
            f"    return _F._call_nested({args})"]
    if function.input_signature is not None and specs is None:
        body.append(slow)  # nested specs: checked by the full path
    else:
        body += _typical_block(params, specs, args, atoms_of)
        body.append("_L = []")
        for i, p in enumerate(params):
            body += _param_block(i, p, specs[i] if specs is not None else None, slow)
        keys = "(" + "".join(f"_k{i}, " for i in range(len(params))) + ")"
        body += ["_n = len(_L)",
                 "if _n > 1 and (_L[0] is _L[1] if _n == 2 else _aliases(_L)):",
                 f"    {slow}",  # the same array twice: one graph input (mark_aliases)
                 f"_cf = _F._cache.get({keys})",
                 "if _cf is not None and _cf.stateful is not None:",
                 f"    if (_r := _cf.stateful(_L, {args})) is not _MISS:",
                 "        return _r",
                 f"    {slow}",
                 f"if _cf is None or _cf.guard is not None and not _cf.guard({args}):",
                 f"    {slow}",
                 "_F._calls += 1",
                 "try:",
                 "    return _cf._fn(*_L)",
                 "except Exception as _e:",
                 f"    _cf._failed(_e, {args})",
                 "    raise"]
    # the user's frames only, this one's too (an exception passing through a frame adds
    # it to the traceback; one re-raised by a bare `raise` does not); free when nothing
    # is raised
    body = body[:2] + ["try:"] + [f"    {line}" for line in body[2:]] + [
        "except Exception as _e:", "    _filter(_e)", "    raise"]
    scope = {"_F": function, "_state": tracing._state, "_building": tracing.building,
             "_eager": _run_eagerly,
             "_full": full_path, "_filter": filter_traceback, "_ndarray": _ndarray,
             "_generic": _generic, "_floats": function._float_parts,
             "_float_part": float_part, "_identity_part": identity_part,
             "_ohash": _object_hash, "_oeq": _object_eq, "_seq": sequence_part,
             "_map": mapping_part, "_aliases": has_aliases,
             "_EMPTY_TUPLE": _EMPTY_TUPLE, "_EMPTY_DICT": _EMPTY_DICT,
             "_TUPLE": tuple, "_DICT": dict, "_LIST": list, "_MISS": MISS,
             "_NEVER": never_holds, "_type": type, "_len": len, "_id": id,
             "_isinstance": isinstance, **consts}
    # the names are the globals of the generated function, not cells of a closure: a
    # call of a closure copies each of its ~30 cells into the new frame (a tenth of the
    # call path's cost), a global is read through a cached index
    body = [_BUILTIN_CALL.sub(r"_\1(", line) for line in body]
    source = f"def _entry({', '.join(source_params)}):\n" + "".join(
        f"    {line}\n" for line in body)
    # a file name inside the package: every check of "the user's frame" skips it
    exec(compile(source, os.path.join(_HERE, f"<call path of {name}>"), "exec"), scope)
    entry = scope.pop("_entry")
    entry.__defaults__ = tuple(defaults) or None
    entry.__kwdefaults__ = kwdefaults or None
    qualname = getattr(function.python_function, "__qualname__", name)
    entry.__name__, entry.__qualname__ = name, qualname
    # Python names the function in its binding errors by the code object's qualname
    entry.__code__ = entry.__code__.replace(co_name=name, co_qualname=qualname) \
        if hasattr(entry.__code__, "co_qualname") else entry.__code__.replace(co_name=name)
    entry.source, entry.function = source, function
    return entry


def generic_entry(function: Any) -> Callable:
    """The call path for parameters no `def` can spell: bind, then the full path."""
    def call(*args, **kwargs):  # noqa: ANN202
        bound = function._bind(args, kwargs)
        if tracing._state.graph is not None or _run_eagerly[0]:
            return function._call_nested(bound)
        try:
            return full_path(function, bound)
        except Exception as e:  # the user's frames only
            filter_traceback(e)
            raise
    call.function = function
    return call
