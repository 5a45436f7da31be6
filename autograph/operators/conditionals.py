"""`if_stmt` and `if_exp`: Python `if` on Python values, `runtime.cond` on symbolic ones.

Generated code calls

    x, y = ag__.if_stmt(cond, if_true, if_false, (x, y), ('x', 'y'))
    return ag__.if_stmt(cond, if_true, if_false)        # both branches return

Branch functions take the state (the variables a branch may leave unchanged or reads
before writing) and return the outputs (`names`: one value bare, several as a tuple).
A missing branch (None) returns its state unchanged. Without `names` the `if` ends the
function and its value is what the branch returns; an `if` that ends the function and
also updates state outliving it (`self.balance`, a global) has 'return' first in `names`:
its branches return `(value, outputs...)`.

On a symbolic condition both branches are traced into a `cond` node. Diagnostics name
the variable and the user's line: a variable defined in only one branch, or a branch
that returns a value while the other falls through. `UNSET` (a `return` value not set
yet) takes the type of the value the other branch gives it: `runtime.cond` learns it
(`runtime/control_flow/learn_types.py`), this module only names values and errors.
"""
from __future__ import annotations

import dis
import re
import sys
from typing import Callable, Sequence

import numpy as np

import runtime
from autograph.errors import Diagnostic, caller_location
from autograph.operators import containers, sole_holder
from autograph.operators.first_assigned import note_first_assigned_read
from autograph.operators.partly_bound import as_partly_bound, needs_carrying
from autograph.operators.branch_notes import note_branch_error
from autograph.operators.variables import UNSET, Undefined, is_undefined
from autograph.pyct import unbound
from autograph.pyct.registry import CONVERTED_CODES
from runtime.core import tracing
from runtime.core.errors import where as user_line
from runtime.core.known_value import UNKNOWN, known_value
from runtime.core.tensor import Tensor
from runtime.control_flow.try_op import reraise
from runtime.state import views
from runtime.state.effects import raise_


def is_symbolic(x) -> bool:
    # on every `if` / loop test of converted code: keep it this cheap (an import statement
    # here would cost more than the check on the Python-value path). By the type, never
    # `isinstance`: that reads `x.__class__` through a user's `__getattribute__` (or a
    # `__class__` property), which Python's own builtins and statements never do
    return issubclass(type(x), Tensor)


def symbolic_test(x) -> bool:
    """A test only the graph can decide. A symbolic value computed from constants alone
    (`pred = np.asarray([1])`, `i < 10` of such an `i`) is known while tracing
    (known_value.py): Python decides it now, as it would on the NumPy value.

    Converted code asks it (as `ag__.symbolic`) of every test that is not a bool before
    choosing between the inline Python statement and its functional form
    (`converters/dual_path.py`); the operators ask it too, so both agree."""
    return issubclass(type(x), Tensor) and known_value(x, Tensor) is UNKNOWN


def pack(values: tuple, names):
    """Outputs as generated code expects them: None, one bare value or a tuple."""
    if names is None:
        return values[0] if values else None
    if len(names) == 1:
        return values[0]
    return tuple(values) if names else None


def unpack(out, names) -> tuple:
    if names is None or len(names) == 1:
        return (out,)
    if not names:
        return ()
    return tuple(out)


RETURN = "return"   # in `names`: the value the function returns (never a variable name)


def _returns(names) -> bool:
    return bool(names) and names[0] == RETURN


def _identity(state: tuple, names):
    """What a missing branch gives: the state unchanged (and no return value)."""
    if names is None:
        return None
    if _returns(names):
        return pack((None,) + state[:len(names) - 1], names)
    return pack(state[:len(names)], names)


def _labels(names) -> list:
    if names is None:
        return [_RETURN_LABEL]
    return [_RETURN_LABEL if n == RETURN and k == 0 else n for k, n in enumerate(names)]


_RETURN_LABEL = "the return value"


def if_stmt(cond, body: Callable | None, orelse: Callable | None, state: Sequence = (),
            names: Sequence[str] | None = None):
    """`if cond: body else: orelse`, passing `state` in and returning the outputs."""
    if tracing._state.graph is not None and state:
        # arrays of `state` this statement's branches may write: whether another name
        # holds them is decided here, before the branch calls hold them too
        sole_holder.enter_state(state)
        try:
            if type(cond) is not bool and symbolic_test(cond):
                return _symbolic_if(cond, body, orelse, tuple(state), names,
                                    caller_location(), local_names=_own_names(1))
            if cond:
                return body(*state) if body is not None else _identity(tuple(state), names)
            return orelse(*state) if orelse is not None else _identity(tuple(state), names)
        finally:
            sole_holder.leave_state()
    if type(cond) is not bool and symbolic_test(cond):  # (a bool first: the common case)
        return _symbolic_if(cond, body, orelse, tuple(state), names, caller_location(),
                            local_names=_own_names(1))
    if cond:
        return body(*state) if body is not None else _identity(tuple(state), names)
    return orelse(*state) if orelse is not None else _identity(tuple(state), names)


def if_exp(cond, if_true: Callable, if_false: Callable, rebinds: tuple = ()):
    """`if_true() if cond else if_false()`, lazily; a `cond` node when symbolic.
    `rebinds`: variables a call in an arm may rebind (`nonlocal`), refused then."""
    if symbolic_test(cond):
        if rebinds:
            raise rebinding_operands_error(rebinds, "conditional expression")
        return _symbolic_if(cond, lambda: if_true(), lambda: if_false(), (), None,
                            caller_location(), what="conditional expression",
                            local_names=_own_names(1))
    return if_true() if cond else if_false()


def rebinding_operands_error(names: tuple, what: str) -> TypeError:
    """A symbolic `a if c else b` / `a and b` / `a or b` whose lazy operand calls a nested
    function that rebinds `names`: both operands are traced, and an expression cannot
    carry a variable (converters/nonlocal_writes.py carries them for statements)."""
    shown = ", ".join(f"`{n}`" for n in names)
    return TypeError(
        f"this {what} has a symbolic condition, and an operand it may skip calls a "
        f"function that assigns {shown} (`nonlocal`){user_line()}: both operands are "
        "traced, and an expression cannot carry the variable. Write it as an `if` "
        "statement (`if c:\n    y = a\nelse:\n    y = b`), which carries it.")


# -- symbolic -----------------------------------------------------------------------------
def _own_names(depth: int) -> frozenset:
    """The variables of the converted function `depth` frames above the caller (the
    one that called `if_stmt`): a variable of its own bound on one path only can be
    carried as PartlyBound, a `global` one cannot."""
    code = sys._getframe(depth + 1).f_code
    return frozenset(code.co_varnames + code.co_cellvars + code.co_freevars)


def _symbolic_if(cond, body, orelse, state, names, loc, what="`if`",
                 local_names: frozenset = frozenset()):
    """`local_names`: the calling function's own variables (`_own_names`); one of them
    bound by one branch only is carried as PartlyBound, any other is the Diagnostic."""
    where = f"{loc[0]}:{loc[1]}"
    record: dict = {}
    labels = _labels(names)
    outer: list = []
    snap = containers.Snapshot(containers.roots_of(body, orelse, values=state, outer=outer),
                               names, outer)
    carried: list = []  # container locations a branch replaces: extra outputs
    graph = tracing.current_graph()
    arrays = views.checkpoint()  # (for a retrace: `record['new']`, `record['new_partly']`)
    cells = _cells(body, orelse)
    partly: set = set()  # outputs bound on one path only: carried as PartlyBound
    for _ in range(2 + _MAX_NEW_LOCATIONS):
        record.clear()
        record["snapshot"], record["carried"], record["new"] = snap, carried, []
        record["cells"], record["partly"], record["new_partly"] = cells, partly, []
        record["locals"] = local_names
        true_fn = _branch(body, "true", state, names, labels, record, where, what)
        false_fn = _branch(orelse, "false", state, names, labels, record, where, what)
        start = len(graph.nodes)
        extra = [containers.describe(c) for c in carried]
        out = runtime.cond(cond, true_fn, false_fn, state,
                           names=labels + extra if names or extra else None)
        if record["new"] or record["new_partly"]:
            # trace again, carrying them too (and drop this `cond`)
            del graph.nodes[start:]
            views.rollback(arrays)
            carried.extend(record["new"])
            partly.update(record["new_partly"])
            continue
        out = tuple(out)
        for location, value in zip(carried, out[len(labels):]):
            containers.put(location, value)
        if record.get("raised_true") and record.get("raised_false"):
            # the `if` raises either way when the graph runs: the code after it never
            # runs, so it is not traced either (traced with made-up values, it could
            # fail where Python raises). The error goes on as the user's `raise` seen
            # while tracing: each construct around records it after this node, which
            # raises first
            raise record["error_false"]
        # a container both branches leave as the object they were given: that object
        # (its items were put back above), as Python keeps it
        out = tuple(state[v.index] if type(v) is _Same else v for v in out[:len(labels)])
        if names is None:
            return out[0]
        return pack(out, names)
    raise Diagnostic(f"{where}: this symbolic {what} replaces items of Python containers in "
                     "too many places; make them variables it assigns.")


_MAX_NEW_LOCATIONS = 2  # retraces to find every location both branches replace


class _Same:
    """A branch output that is the list / dict the branch was given (state[index])."""
    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


_EMPTY = object()


def _cells(*fns) -> list:
    """(cell, its value) for each variable the branch functions share with the function
    (closures.py: a variable a closure reads is one cell, which a branch writes)."""
    out = []
    for fn in fns:
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                out.append((cell, cell.cell_contents))
            except ValueError:  # (unbound)
                out.append((cell, _EMPTY))
    return out


def _restore_cells(cells: list) -> None:
    """The shared variables as they were before the `if`: each branch is traced from
    them (the true branch's writes are its own path's, not the false branch's start)."""
    for cell, value in cells:
        try:
            now = cell.cell_contents
        except ValueError:
            now = _EMPTY
        if now is not value:
            if value is _EMPTY:
                del cell.cell_contents
            else:
                cell.cell_contents = value


def _branch(fn, side, state, names, labels, record, where, what):
    def run(*args):
        _restore_cells(record["cells"])  # (also for a retrace: see `_symbolic_if`)
        if record["snapshot"]:
            # runtime.cond hands each branch a copy of every list and dict in the state,
            # holding the branch's placeholders; the branch gets the objects themselves,
            # holding those placeholders, so that what it writes into them (`xs[0] = v`)
            # is what the snapshot sees: carried and put back in place
            args = tuple(containers.share(s, a, record["snapshot"]) for s, a in zip(state, args))
            record["snapshot"].rebase()
        try:
            out = fn(*args) if fn is not None else _identity(args, names)
        except Exception as e:
            if not defer_raise(e):
                record["snapshot"].restore()
                note_branch_error(e, side, where, what)
                raise
            # the branch ends in a graph-side raise: its outputs never reach anyone, so
            # they are UNSET, which runtime.cond gives the other branch's types
            record["raised_" + side] = True
            record["error_" + side] = e
            out = pack((UNSET,) * len(labels), names)
        outs = list(unpack(out, names))
        if record["snapshot"]:
            outs = _own_containers(outs, state, names, record, side, labels, where, what)
        extra = _replaced(record, side, where, what) if record["snapshot"] else ()
        for k in record["partly"]:
            outs[k] = as_partly_bound(outs[k], labels[k])
        record[side] = tuple(outs)
        if side == "false":
            record["new_partly"] = _check(record["true"], outs, labels, where, what,
                                          record["locals"])
            for k in record["new_partly"]:  # (this trace is dropped: any type will do)
                if not is_undefined(outs[k]) and not is_undefined(record["true"][k]):
                    outs[k] = UNSET
            if record.get("raised_true") and record.get("raised_false"):
                # the `if` raises either way: its outputs are never read (the trace
                # ends after it: `_symbolic_if`); any type will do
                outs = [np.float64(0.0)] * len(outs)
            for k, v in enumerate(outs):
                other = record["true"][k]
                if is_undefined(v) and is_undefined(other):
                    outs[k] = other
        return tuple(outs) + tuple(extra)
    return run


def _own_containers(outs, state, names, record, side, labels, where, what) -> list:
    """The branch's outputs before its containers are put back as they were: a state
    list / dict it returns as itself is `_Same` (the object stays the caller's), any
    other container is copied with the items it holds now."""
    same = record.setdefault("same", {})
    for k, v in enumerate(outs):
        # (by identity: the outputs are not the state's variables in its order - a
        # branch's state holds only those it reads, `u, cells = if_stmt(.., (cells,), ..)`)
        i = next((i for i, s in enumerate(state) if s is v), None) \
            if names is not None and type(v) in (list, dict) else None
        if i is not None:
            outs[k] = same.setdefault(i, _Same(i))
        else:
            outs[k] = containers.detached(v)
        if side == "false" and (type(outs[k]) is _Same) != (type(record["true"][k]) is _Same) \
                and not {type(outs[k]), type(record["true"][k])} & {type(UNSET), Undefined}:
            raise Diagnostic(
                f"{where}: '{labels[k]}' is the same Python container after one branch of "
                f"this symbolic {what} and a new object after the other; which object "
                f"it is would depend on a value known only when the graph runs. Assign "
                f"a new container on both paths, or update the same one on both.")
    return outs


def _replaced(record, side, where, what) -> list:
    """After tracing a branch: the values at the carried container locations; notes the
    locations it replaced that are not carried yet; puts every container back."""
    snap, carried = record["snapshot"], record["carried"]
    values = [containers.get(c) for c in carried]
    if side == "false":
        containers.check_same_structure(carried, record["carried_true"], values, where,
                                        f"symbolic {what}")
    record["carried_" + side] = values
    # a list / dict whose structure a branch changes (`xs.append(v)`) is carried whole:
    # exact when both paths leave it with the same structure, else runtime.cond's error
    found, structural = snap.changes(whole=True)
    snap.restore()
    containers.check_structure(structural, where, f"symbolic {what}")
    for c in containers.new_locations(found, carried + record["new"]):
        record["new"].append(c)
    return values


def _one_path_only(name: str, message: str) -> Diagnostic:
    """The error for a variable defined in one branch of a symbolic `if` only; `.name`
    lets a loop say it in its own terms (loops.py)."""
    e = Diagnostic(message)
    e.name = name
    return e


def _check(a: tuple, b: list, labels, where, what, local_names=frozenset()) -> list:
    """The errors of the two branches' outputs `a`, `b`; returns the outputs that one
    branch binds and the other does not, that the graph can carry as PartlyBound (the
    function's own variables: `local_names`)."""
    partly = []
    for k, (label, x, y) in enumerate(zip(labels, a, b)):
        if x is UNSET or y is UNSET:
            continue  # (a branch that raises gives nothing: the other's value goes on)
        if label in local_names and needs_carrying(x, y):
            partly.append(k)
            continue
        if is_undefined(x) != is_undefined(y):
            side, other = ("true", "false") if is_undefined(y) else ("false", "true")
            raise _one_path_only(label,
                f"{where}: '{label}' is defined in the {side} branch of this {what} but not "
                f"in the {other} branch, and is used after it. The condition is symbolic, "
                f"so both branches must define it: give '{label}' a value before the "
                f"{what} or in the {other} branch too.")
        if label == _RETURN_LABEL and (x is None) != (y is None) and \
                x is not UNSET and y is not UNSET:  # a raising branch takes the other's
            side = "true" if x is not None else "false"
            other = "false" if side == "true" else "true"
            raise Diagnostic(
                f"{where}: the {side} branch of this symbolic {what} returns a value but the "
                f"{other} branch falls through without one (it would return None). Add a "
                f"`return` with a value of the same type at the end of the {other} branch.")
    return partly


# -- `raise` under a symbolic condition -----------------------------------------------------
_RAISE_VARARGS = dis.opmap["RAISE_VARARGS"]
_SYMBOLIC_TEXT = re.compile(r"Tensor\([^,()]+, \w+\[")


def raised_by_user(e: BaseException) -> tuple[str, int] | None:
    """(file, line) of the user's `raise` statement that raised `e` in converted code,
    or None when `e` comes from anywhere else (an op, the runtime, a re-raise)."""
    tb = e.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if CONVERTED_CODES.get(id(code)) is not code:
        return None
    raw = code.co_code
    k = tb.tb_lasti
    if not (0 <= k < len(raw) - 1) or raw[k] != _RAISE_VARARGS or raw[k + 1] == 0:
        return None
    return code.co_filename, tb.tb_lineno


# errors a Python operation of the user's code raises on Python values fixed by the
# trace (`60 // 0`, a list index, a dict key): every run that takes this path raises them
REPLAYABLE = (KeyError, AttributeError, NameError, ZeroDivisionError, IndexError)

_UNBOUND_FILE = unbound.__file__


def python_error_at(e: BaseException) -> tuple[str, int] | None:
    """(file, line) in converted code where a Python operation on Python values raised
    `e`, one of REPLAYABLE (not a graph value's error: an attribute a symbolic value
    lacks may exist on the array), or None."""
    if not isinstance(e, REPLAYABLE) or isinstance(e, Diagnostic) or \
            isinstance(getattr(e, "obj", None), Tensor):
        return None
    tb = e.__traceback__
    if tb is None:
        return None
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    # (a read of a variable no path to it bound: `ag__.ld` raised Python's error for it)
    while len(frames) > 1 and frames[-1].tb_frame.f_code.co_filename == _UNBOUND_FILE:
        frames.pop()
    tb = frames[-1]
    code = tb.tb_frame.f_code
    if CONVERTED_CODES.get(id(code)) is not code:
        return None
    return code.co_filename, tb.tb_lineno


def python_read_error(e: BaseException) -> BaseException:
    """`e`, or Python's UnboundLocalError where `e` is the NameError that reading a
    variable of the user's function raised in a function the compiler generated (a
    branch or loop body, where the variable lives in a cell of the converted function):
    the read is `ag__.ld(name)`, which the converter writes only for reads of the
    function's own variables that may be unbound, where Python raises UnboundLocalError."""
    if type(e) is not NameError or not getattr(e, "name", None) or e.__traceback__ is None:
        return e
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if CONVERTED_CODES.get(id(code)) is not code:
        return e
    previous = None
    for instruction in dis.get_instructions(code):
        if instruction.offset == tb.tb_lasti:
            if instruction.opname == "LOAD_DEREF" and instruction.argval == e.name and \
                    previous is not None and previous.argval == "ld" and \
                    previous.opname in ("LOAD_METHOD", "LOAD_ATTR"):
                return unbound.unbound_error(e.name).with_traceback(e.__traceback__)
            return e
        previous = instruction
    return e


def defer_raise(e: Exception) -> bool:
    """While tracing a branch or loop body that runs only when a symbolic condition says
    so: turn the user's `raise` (`e`, raised by converted code) into a graph-side raise
    (`runtime.state.effects.raise_`) that fires with `e`'s type and message when the graph
    reaches this point at run time; the same for an error a Python operation on Python
    values raised there (`60 // 0`: raised only if that path is taken, as in Python).
    False (re-raise `e` now) for any other error."""
    loc = raised_by_user(e)
    if loc is None:
        loc = python_error_at(e)
        if loc is None:
            return False
        # (as Python raises it if the path is taken)
        note_first_assigned_read(e)
        raise_(python_read_error(e), f"{loc[0]}:{loc[1]}")
        return True
    if reraise(e):  # `raise e` / `raise X from e` of a `try` handler traced into a graph
        return True
    if any(isinstance(a, Tensor) for a in e.args) or _SYMBOLIC_TEXT.search(str(e)):
        raise Diagnostic(
            f"{loc[0]}:{loc[1]}: this `raise {type(e).__name__}(...)` runs only when a "
            "symbolic condition holds, so it is raised when the graph runs - and its "
            "message uses a symbolic value, which has no value while tracing. Give the "
            "exception a message made of Python values only (and print the value with "
            "ag.print(...) just before the `raise`).") from e
    raise_(e, f"{loc[0]}:{loc[1]}")
    return True
