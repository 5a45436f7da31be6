"""The operations a Tensor's NumPy protocol calls, filled in by the layers that own them.

`Tensor` lives in core, the lowest layer, but what its dunders do belongs higher up:
`x + y` and `np.sum(x)` record op nodes (`runtime/ops/`), `x[i] = v` and `x += v` write
through NumPy's aliasing model (`runtime/state/views.py`), `round(x)` records run-time
checks (`runtime/state/checks.py`). Those modules build on Tensor, so Tensor cannot
import them; instead each one assigns its functions here when it is imported, and
`import runtime` imports them all before any Tensor exists. A slot still None means
the module that fills it was never imported, which `runtime/__init__.py` rules out.

    before (an import inside every dunder, upward):   after:
        def __getitem__(self, index):                     def __getitem__(self, index):
            from runtime.ops.indexing import getitem          return TensorProtocol.getitem(...)
"""
from __future__ import annotations


class TensorProtocol:
    """Class attributes, read on each call (a plain attribute lookup)."""

    # runtime/ops: one NumPy call -> one graph node
    dispatch_ufunc = None        # ops/ufuncs.py: (ufunc, method, inputs, kwargs) -> result
    dispatch_function = None     # ops/functions.py: (func, args, kwargs) -> result
    getitem = None               # ops/indexing.py: (x, index) -> x[index]
    index_update = None          # ops/indexing.py: the value of x after x[index] = v
    symbolic_shape = None        # ops/shape.py: x.shape where a dimension is unknown
    symbolic_size = None         # ops/shape.py: x.size where a dimension is unknown
    # runtime/state: what NumPy programs see beyond values
    check = None                 # state/checks.py: (condition, exception name, message)
    resolve = None               # state/views.py: a Tensor's current value (after writes)
    resolve_args = None          # state/views.py: the same for a call's arguments
    resolve_index = None         # state/views.py: the same inside an index
    after_function = None        # state/views.py: note views a NumPy function returned
    ufunc_into = None            # state/views.py: a ufunc with out= writes into its array
    write_item = None            # state/views.py: x[index] = v, seen by aliases and views
    write_array = None           # state/views.py: an in-place method's new value of x
    in_place = None              # state/views.py: x op= v
    holds_view_of = None         # state/views.py: whether value is a view of x
    forget = None                # state/views.py: a fresh array, not a view
