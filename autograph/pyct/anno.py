"""Every annotation the compiler keeps on AST nodes, in one place.

Analyses and converters leave facts on the nodes they concern (what is live after an
`if`, which loop a flag breaks, ...); later passes read them. Each key is listed here
with its meaning and who writes it, and every access goes through `get` / `set_` /
`has` / `pop`, so that no module spells a key as a string of its own.
"""
from __future__ import annotations

from typing import Any

# -- parsing (pyct/parser.py) -------------------------------------------------------------
DEPTH = "ag_depth"                  # FunctionDef: nesting depth of its source (recursion room)
KINDS = "ag_kinds"                  # FunctionDef: the names of the `ast` node classes of its
                                    # source (`ast_to_gast`): passes skip what is absent

# -- scope rewrites / pipeline (impl/conversion.py) ---------------------------------------
USER_AG_NAME = "ag_user"            # Name: the user's own `ag__`, not the operators module
DONE = "ag_done"                    # FunctionDef: already converted (walks skip it)
PYTHON_ONLY = "ag_python"           # If/While/For: stays Python control flow (inside `try`)
TRY_SWITCH = "ag_try_switch"        # If: a `try`'s graph form, else its Python form
                                    # (`converters/try_statements.py`)
REBOUND_BY_CALLS = "ag_rebound"    # FunctionDef: variables it sees that a nested function
                                    # rebinds (`nonlocal`): state of its blocks that call
                                    # (`converters/nonlocal_writes.py`)
NOTE = "ag_note"                    # FunctionDef/AsyncFunctionDef: left as Python, why
                                    # (`converters/left_alone.py`; a comment in `to_code`)

# -- directives (converters/directives.py) ------------------------------------------------
LOOP_OPTIONS = "ag_loop_options"    # While/For: the options of its `set_loop_options` call

# -- jumps (converters/return_statements.py, break_statements.py) -------------------------
FLAG = "ag_flag"                    # If: the flag a generated `if not flag:` guard tests
GENERATED = "ag_generated"          # If: a guard the jump converters made (dropped if empty)
EXTRA_TEST = "ag_extra_test"        # For: must stay true to keep iterating (`not break_`)

# -- expressions (converters/logical_expressions.py, introspection.py) --------------------
BOOL_OP = "ag_bool_op"              # Call: an ag__.and_/or_/not_ call (gives a truth value)
DUAL = "ag_dual"                    # IfExp `inline if <operand is a bool> else functional`:
                                    # its functional form alone; NamedExpr: a generated
                                    # one (logical_expressions.dual); Assign: the generated
                                    # `cond = test` of a dual-path `if` (dual_path.py)
GETTER = "ag_getter"                # Lambda: a generated `locals()` getter, not a user closure

# -- compiled fast paths (converters/fast_paths.py) ---------------------------------------
AS_WRITTEN = "ag_as_written"        # a compiled call site: the callee (on the Call's func)
                                    # or the call (on a method call's IfExp) as the user
                                    # wrote it, which the Python-values copy calls
COPY = "ag_copy"                    # If: `if not <tracing>: <Python-values copy> else: ...`
                                    # (`converters/python_copy.install`)

# -- analysis (pyct/dataflow.py, pyct/activity.py) ----------------------------------------
MAYBE_IN = "ag_maybe_in"            # If/While/For: locals that may be defined on entry
MUST_IN = "ag_must_in"              # If/While/For: locals surely defined on entry
ATTRS_IN = "ag_attrs_in"            # If/While/For: attribute chains surely existing on entry
MAYBE_UNDEFINED = "ag_maybe_undefined"  # Name (load): may read a local not defined yet
LIVE_OUT = "ag_live_out"            # If/While/For: names read after the statement
LIVE_BODY = "ag_live_body"          # If: names live at the start of the body
LIVE_ORELSE = "ag_live_orelse"      # If: names live at the start of the else branch
LIVE_HEAD = "ag_live_head"          # While/For: names live at the loop head (fixed point)
WRITES = "_ag_w"                    # compound statement: memo of the names it writes
RETURN_LENGTH = "ag_return_length"  # Return of a generated `try_return`: the length of the
                                    # tuples it holds (-1: not all tuples of one length)

KEYS = frozenset({
    DEPTH, KINDS, USER_AG_NAME, DONE, PYTHON_ONLY, TRY_SWITCH, NOTE, LOOP_OPTIONS, FLAG, GENERATED, EXTRA_TEST,
    BOOL_OP, DUAL, GETTER, AS_WRITTEN, COPY, MAYBE_IN, MUST_IN, ATTRS_IN, MAYBE_UNDEFINED,
    LIVE_OUT, LIVE_BODY, LIVE_ORELSE, LIVE_HEAD, WRITES, RETURN_LENGTH, REBOUND_BY_CALLS,
})

_REQUIRED = object()


def get(node, key: str, default: Any = _REQUIRED) -> Any:
    """The annotation `key` of `node`; without a default, a missing one is an error (the
    pass that writes it did not run on this node)."""
    value = node.__dict__.get(key, _REQUIRED)
    if value is _REQUIRED:
        if default is _REQUIRED:
            raise AttributeError(f"{type(node).__name__} node at line "
                                 f"{getattr(node, 'lineno', '?')} has no {key} annotation")
        return default
    return value


def set_(node, key: str, value: Any) -> None:
    node.__dict__[key] = value


def has(node, key: str) -> bool:
    return key in node.__dict__


def pop(node, key: str) -> Any:
    """Remove the annotation (None when there was none)."""
    return node.__dict__.pop(key, None)
