"""The `ag__` namespace: everything converted code calls.

Each operator behaves exactly like the Python construct it replaces when given Python
values, and builds graph nodes (through `runtime`) when given symbolic ones.
"""
import builtins as _builtins
import sys as _sys
import types as _types

import numpy as np

from autograph.pyct import lean_namespace as _lean_namespace
from autograph.operators.call import autograph_artifact, converted, converted_call, dir_, locals_, slice_
from autograph.operators.call import converted_at
from autograph.operators.call import defined, ld_declared, with_locals
from autograph.operators.conditionals import if_exp, if_stmt
from autograph.operators.conditionals import symbolic_test as symbolic
from autograph.operators.exceptions import (
    assert_stmt, jumped_over, python_only, try_graph, try_graph_mode, try_stmt,
)
from autograph.operators.generators import next_
from autograph.operators.handover import GraphModeError, handed_over
from autograph.operators.graph_sets import set_
from autograph.operators.recursion import enter_call, explained_recursion, leave_call
from autograph.operators.recursion import tracing_anywhere
from autograph.operators.array_like_args import array_like
from autograph.operators.index_tricks import array_item, index_trick
from autograph.operators.lists import array_, list_append, list_pop, sequence_call, stack
from autograph.operators.logical import and_, compare_chain, not_, or_, truth
from autograph.operators.loops import for_stmt, python_iterable, while_stmt
from autograph.operators.printing import print_, print_text
from autograph.operators.py_builtins import (
    abs_, enumerate_, float_, int_, len_, max_, min_, range_, sum_, zip_,
)
from autograph.operators.py_builtins import bool_, complex_, index_, isinstance_
from autograph.operators.item import item_
from autograph.operators.try_writes import put_attr, put_back
from autograph.operators.with_statements import errstate_region, with_manager
from autograph.operators.variables import (UNSET, Undefined, ld, ld_attr, set_attr, setitem,
                                          setitem_attr)

__all__ = [
    "autograph_artifact", "converted", "converted_call", "dir_", "locals_", "slice_", "if_exp", "if_stmt", "assert_stmt", "python_only", "try_graph", "try_graph_mode", "jumped_over", "list_append",
    "list_pop", "sequence_call", "stack", "and_", "compare_chain", "not_", "or_", "truth", "for_stmt", "while_stmt", "abs_",
    "enumerate_", "float_", "int_", "len_", "max_", "min_", "range_", "sum_", "zip_",
    "UNSET", "Undefined", "ld", "ld_attr", "set_attr", "setitem", "setitem_attr",
    "print_", "print_text", "with_manager", "errstate_region",
]
__all__ += ["isinstance_", "item_", "array_", "defined", "ld_declared", "next_", "try_stmt", "bool_",
            "complex_", "index_", "index_trick", "with_locals", "enter_call", "explained_recursion",
            "leave_call", "array_item", "array_like", "put_attr", "put_back"]
__all__ += ["symbolic", "python_iterable", "ndarray", "set_", "tracing_anywhere", "builtins",
            "converted_at", "MethodType", "bind", "BuiltinMethodType", "GraphModeError",
            "handed_over", "type_", "plain_receivers"]

builtins = _builtins  # a call site compares a builtin's name with it (fast_paths.py)
MethodType = bind = _types.MethodType  # a method's call site binds with it (fast_paths.py)
BuiltinMethodType = _types.BuiltinMethodType
type_ = type  # a method call site tells a builtin receiver by it (fast_paths.py)
# receivers whose methods are all builtin: outside traces a call site calls them as is
plain_receivers = frozenset({str, bytes, bytearray, list, dict, set, frozenset, tuple, int,
                             float, complex, bool, np.ndarray})
ndarray = np.ndarray  # converted code reads `xs[i]` inline unless `xs` is one (slices.py)


def set_converted(impl, at_site=None) -> None:
    """Inject the compiler's `converted` (`autograph.impl.calls` calls this when it is
    imported): generated code calls `ag__.converted(f)(...)`, so it is bound in this
    namespace directly (a converted call costs no wrapper frame). It replaces the
    stand-in `operators.call.converted`, which forwards to it where code still holds it.
    `at_site`: `converted` for a call site with a cache (`converters/fast_paths.py`),
    which only code the compiler compiled itself calls."""
    global converted, converted_at
    converted = impl
    if at_site is not None:
        converted_at = at_site



# Converted modules may have run on the lean `ag__` until now: from here on they find these
# operators, and the lean namespace reads the runtime's list (pyct/lean_namespace.py says
# why this, done during this import, is before any trace of converted code can start).
_lean_namespace.adopt(_sys.modules[__name__], tracing_anywhere)
