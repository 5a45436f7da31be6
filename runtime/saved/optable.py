"""The fixed table of ops a saved graph may name, and what each op's attributes may be.

Built from the runtime's own registries (every NumPy ufunc, the NumPy function table,
indexing, run-time shapes, control flow, Variables, graph side effects, run-time checks,
graph lists and the gradient shape helpers). A name not in the table is a load error:
nothing is looked up by a name taken from a file anywhere else.

Attributes are checked per op before anything uses them: the runtime's own ops have an
explicit schema (`check` may only raise one of its four exception names, a Variable
update has one of three modes, ...); NumPy ops accept only the keyword names their NumPy
function takes. Attribute names become keywords in generated code, so they are always
plain identifiers.
"""
from __future__ import annotations

import functools
import inspect
import keyword

import numpy as np

from runtime.autodiff import shapes
from runtime.control_flow import COND, WHILE_LOOP, lists, try_marks, try_op
from runtime.ops import (constant, exact_ints, functions, indexing, math_ops, path_arith,
                         path_result, shape, ufuncs)
from runtime.ops.indexing import Slot
from runtime.saved.format import _DTYPE, LoadError, exception_name
from runtime.state import checks, effects, printing, variables
from runtime.state.variables import Variable


@functools.cache
def op_table() -> dict:
    """op name -> OpDef, for every op a graph can hold."""
    table: dict = {}

    def add(op):
        known = table.setdefault(op.name, op)
        if known is not op:
            raise RuntimeError(f"two ops are named {op.name!r}: saved graphs need unique names")

    for name in dir(np):
        u = getattr(np, name)
        if isinstance(u, np.ufunc):
            add(ufuncs.ufunc_op(u))
    for op in functions.OPS.values():
        add(op)
    for op in math_ops.MATH_OPS.values():
        add(op)
    for op in (indexing.GETITEM, indexing.INDEX_UPDATE, shape.SHAPE_OF, shape.SHAPE_DIM,
               shape.SIZE_OF, ufuncs.PYTHON_NUMBER, path_result.PATH_RESULT, path_arith.PATH_ARITH,
               exact_ints.EXACT_INT, constant.CONSTANT,
               COND, WHILE_LOOP, try_op.TRY, try_op.RERAISE, effects.KEEP, try_marks.MARK,
               try_marks.READ, variables.READ_VARIABLE,
               variables.ASSIGN_VARIABLE, printing.PRINT, effects.ASSERT, effects.RAISE,
               checks.CHECK,
               lists.LIST_NEW, lists.LIST_APPEND, lists.SAVE_STATE, lists.LIST_STACK,
               lists.LIST_COPY, lists.LIST_GET, lists.LIST_ZEROS, lists.LIST_LEN,
               shapes.SUM_TO, shapes.BROADCAST_LIKE, shapes.RESHAPE_LIKE):
        add(op)
    return table


def lookup(name, where: str):
    if type(name) is not str:
        raise LoadError(f"{where}: the op name must be a string")
    op = op_table().get(name)
    if op is None:
        raise LoadError(f"{where}: unknown op {name[:80]!r} (this version of autograph-numpy "
                        "does not have it)")
    return op


def _is_str(v):
    return type(v) is str


def _one_of(*choices):
    return lambda v: type(v) is str and v in choices


def _is_bool(v):
    return type(v) is bool


def _is_int(v):
    return type(v) is int and v >= 0


def _is_exception_class(v):
    return isinstance(v, type) and issubclass(v, Exception) and exception_name(v) is not None


def _is_exception_tuple(v):
    """`except` classes: a tuple of the classes a file may name (empty: a bare `except`)."""
    return type(v) is tuple and all(isinstance(k, type) and issubclass(k, BaseException)
                                    and exception_name(k) is not None for k in v)


def _is_slot_name(v):
    """The name of a per-thread slot (a caught exception, a marked value): plain text."""
    return type(v) is str and 0 < len(v) <= 200 and v.replace("@", "_").isidentifier()


_ERRSTATE_KINDS = ("all", "divide", "over", "under", "invalid")
_ERRSTATE_ACTIONS = ("ignore", "warn", "raise", "call", "print", "log")


def _is_errstate(v):
    """An errstate region's settings: (kind, action) pairs, each kind once. The kinds
    become keywords in generated code, so only NumPy's five are accepted."""
    return type(v) is tuple and all(
        type(p) is tuple and len(p) == 2 and p[0] in _ERRSTATE_KINDS and
        type(p[0]) is str and type(p[1]) is str and p[1] in _ERRSTATE_ACTIONS for p in v) \
        and len({p[0] for p in v}) == len(v)


def _check_try(attrs: dict, where: str) -> None:
    """A `try` node's attributes: `n_out`, `n_handlers`, and per handler i its classes
    `kinds_i`, caught-exception slot `var_i` and path code `code_i`; or, for an errstate
    region, `errstate` and no handlers (runtime/control_flow/try_op.py)."""
    n = attrs.get("n_handlers")
    if type(n) is not int or not 0 <= n <= 10_000 or type(attrs.get("n_out")) is not int \
            or attrs["n_out"] < 1:
        raise LoadError(f"{where}: op try needs n_handlers and n_out (counts)")
    per = {"kinds": _is_exception_tuple, "var": _is_slot_name,
           "code": lambda v: type(v) is int and v >= 0}
    expected = {"n_handlers", "n_out"} | {f"{k}_{i}" for k in per for i in range(n)}
    if "errstate" in attrs:
        if n or not _is_errstate(attrs["errstate"]):
            raise LoadError(f"{where}: op try has a bad errstate region")
        expected.add("errstate")
    if set(attrs) != expected:
        raise LoadError(f"{where}: op try has attributes {sorted(attrs)[:20]}, not "
                        f"{sorted(expected)[:20]}")
    for i in range(n):
        for k, ok in per.items():
            if not ok(attrs[f"{k}_{i}"]):
                raise LoadError(f"{where}: op try has a bad attribute {k}_{i}")


def subgraph_names(op, attrs: dict) -> tuple:
    """The subgraphs a node of `op` holds, by attribute name (a `try`: its body, then
    one per handler)."""
    return op.subgraph_attrs if op.subgraph_names is None else op.subgraph_names(attrs)


def _print_args_ok(specs, n_inputs: int) -> bool:
    """Each printed argument: an input's position, constant text, or a template of text
    parts alternating with input positions or (position, format spec or None) pairs
    (runtime.state.printing)."""
    def position(p):
        return type(p) is int and 0 <= p < n_inputs

    def piece(p):
        return position(p) or (type(p) is tuple and len(p) == 2 and position(p[0])
                               and (p[1] is None or type(p[1]) is str))
    return all(position(a) or type(a) is str or (
        type(a) is tuple and all(type(p) is str if k % 2 == 0 else piece(p)
                                 for k, p in enumerate(a))) for a in specs)


def _is_variable(v):
    return isinstance(v, Variable)


def _is_array(v):
    return isinstance(v, np.ndarray)


def _is_constant(v):
    """An array, or a NumPy scalar (a Python number's constant: control_flow/common.py)."""
    return isinstance(v, np.ndarray) or isinstance(v, np.generic) and v.dtype.kind != "O"


def _is_shape(v):
    return type(v) is tuple and all(type(d) is int and d >= 0 for d in v)


def _is_dtype_text(v):
    return type(v) is str and _DTYPE.fullmatch(v) is not None


def _index_ok(template, n_dynamic: int, top: bool = True) -> bool:
    if type(template) is tuple and top:
        return all(_index_ok(t, n_dynamic, False) for t in template)
    if type(template) is slice:
        return all(_index_ok(p, n_dynamic, False) for p in
                   (template.start, template.stop, template.step))
    if type(template) is Slot:
        return template.k < n_dynamic
    return (template is None or template is Ellipsis or type(template) in (int, bool)
            or isinstance(template, (np.integer, np.bool_)))


# op name -> ({attribute: check}, required attributes, number of non-index inputs)
_SCHEMAS = {
    "constant": ({"value": _is_constant}, {"value"}),
    "cond": ({"copy_lists": _is_bool}, set()),
    "while_loop": ({"has_max": _is_bool, "saved": _is_int}, {"has_max"}),
    "print": ({"args": lambda v: type(v) is tuple, "sep": _is_str, "end": _is_str,
               "stream": _one_of("stdout", "stderr", "__stdout__", "__stderr__"),
               "flush": _is_bool}, {"args", "sep", "end"}),
    "raise": ({"error": _is_exception_class, "args": lambda v: type(v) is tuple,
               "message": _is_str, "where": _is_str}, {"error", "args", "message", "where"}),
    "assert": ({"message": _is_str}, {"message"}),
    "reraise": ({"var": _is_slot_name, "args": lambda v: type(v) is tuple,
                 "error": lambda v: v is None or _is_exception_class(v)},
                {"var", "error", "args"}),
    "try_mark": ({"var": _is_slot_name}, {"var"}),
    "try_mark_read": ({"var": _is_slot_name, "kind_var": _is_slot_name,
                       "dtype": _is_dtype_text, "shape": _is_shape, "kinded": _is_bool,
                       "number_dtype": lambda v: v is None or _is_dtype_text(v)},
                      {"var", "dtype", "shape", "kinded", "number_dtype"}),
    "check": ({"error": _one_of(*checks.ERRORS),
               "message": _is_str}, {"error", "message"}),
    "exact_int": ({"ufunc": _one_of(*(u.__name__ for u in exact_ints.EXACT)),
                   "where": _is_str, "masked": _is_bool}, {"ufunc", "where"}),
    "path_arith": ({"ufunc": _one_of(*path_arith.UFUNC_NAMES),
                    "parts": lambda v: type(v) is tuple and all(p in ("k", "v") for p in v),
                    "value_dtype": _is_dtype_text, "number_dtype": _is_dtype_text,
                    "where": _is_str}, {"ufunc", "parts", "value_dtype", "number_dtype", "where"}),
    "read_variable": ({"var": _is_variable}, {"var"}),
    "assign_variable": ({"var": _is_variable, "mode": _one_of("set", "add", "sub")},
                        {"var", "mode"}),
    "getitem": ({"index": lambda v: True}, {"index"}),
    "index_update": ({"index": lambda v: True, "mode": _one_of("set", "add")},
                     {"index", "mode"}),
    "list_zeros": ({"shape": _is_shape, "dtype": _is_dtype_text}, {"shape", "dtype"}),
}
_NO_ATTRS = ("keep", "shape_of", "list_new", "list_append", "save_state", "list_stack", "list_copy",
             "list_get", "list_len", "sum_to_shape_of", "broadcast_like", "reshape_like")
_UFUNC_KEYWORDS = frozenset({"dtype", "casting", "order", "subok", "signature"})


@functools.cache
def _numpy_keywords(name: str):
    """The keyword names op `name`'s kernel takes (None: any identifier, **kwargs). Most
    kernels are NumPy's own function (`np.sum`, `np.linalg.svd` for "linalg.svd")."""
    fn = op_table()[name].kernel
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind is not p.VAR_POSITIONAL)


def check_attrs(op, attrs: dict, n_inputs: int, where: str) -> None:
    """Raise LoadError unless `attrs` are what `op` takes."""
    name = op.name
    for k in attrs:
        if not k.isidentifier() or keyword.iskeyword(k) or k.startswith("_"):
            raise LoadError(f"{where}: {k[:80]!r} is not an attribute name")
    if op.slot_use == "catch":
        _check_try(attrs, where)
        return
    if name in _SCHEMAS:
        schema, required = _SCHEMAS[name]
        missing = required - set(attrs)
        if missing:
            raise LoadError(f"{where}: op {name} lacks attribute(s) {sorted(missing)}")
        for k, v in attrs.items():
            if k not in schema or not schema[k](v):
                raise LoadError(f"{where}: op {name} has a bad attribute {k!r}")
        if name == "print" and not _print_args_ok(attrs["args"], n_inputs):
            raise LoadError(f"{where}: op print has malformed arguments")
        if name in ("getitem", "index_update"):
            fixed = 1 if name == "getitem" else 2
            if n_inputs < fixed or not _index_ok(attrs["index"], n_inputs - fixed):
                raise LoadError(f"{where}: op {name} has a malformed index")
        return
    if name in _NO_ATTRS:
        if attrs:
            raise LoadError(f"{where}: op {name} takes no attributes")
        return
    if isinstance(op.kernel, np.ufunc):
        if n_inputs != op.kernel.nin:
            raise LoadError(f"{where}: np.{name} takes {op.kernel.nin} inputs, not {n_inputs}")
        allowed = _UFUNC_KEYWORDS
    elif name == "einsum":
        if type(attrs.get("subscripts")) is not str:
            raise LoadError(f"{where}: einsum needs a subscripts string")
        allowed = frozenset({"subscripts", "dtype", "order", "casting", "optimize"})
    else:
        allowed = _numpy_keywords(name)
    if allowed is not None:
        for k in attrs:
            if k not in allowed:
                raise LoadError(f"{where}: np.{name} takes no keyword {k!r}")
