"""The op set: one `OpDef` record per op, holding everything about it — kernel, explicit
shape/dtype rule, gradient rule (`grad`, the only gradient lookup), how generated code
spells it, state/effect flags, and (control flow, runtime/control_flow/) the hooks the
executors and passes call. Nothing outside an op's own files asks which op a node is.

Each op file pairs with its rule file (`X.py` defines the records, `X_rules.py` holds
their shape/dtype rules; small ones keep the rules in the same file):

- `ufuncs.py` (+ `ufuncs_rules.py`): every NumPy ufunc, one record each, made on first use.
- `functions.py` (+ `functions_rules.py`): NumPy functions — reductions, selection,
  products, comparisons — and the registrars (`leading_arrays`, `sequence_op`) the
  other function files use.
- `shaping.py` (+ `shaping_rules.py`): reshape, transpose, joining, padding, einsum.
- `more.py` (+ `more_rules.py`): searching, interpolation, convolution, order
  statistics; `more_stats.py` composes cov/corrcoef from other ops (no records).
- `linalg.py` (+ `linalg_rules.py`), `fft.py` (+ `fft_rules.py`): np.linalg, np.fft.
- `dynamic.py` (+ `dynamic_rules.py`): symbolic and data-dependent sizes.
- `indexing.py` (+ `indexing_rules.py`): `x[i]` and functional index updates.
- `matrix_forms.py`: np.diag, np.diagflat, np.rot90; `ufunc_methods.py`: `ufunc.at`,
  `.outer`, `.reduce`, `.accumulate`, `.reduceat`.
- `idiom_functions.py`: np.where(condition), np.dstack, np.insert, np.intersect1d,
  sliding_window_view, built from other ops.
- `strided.py`: `x.strides` and as_strided where the graph knows the memory layout.
- `shape.py`, `constant.py`: run-time shapes and constants (rules inside).
- `rules_common.py`: the helpers every rule file builds on (broadcasting, axes, NEP 50).

Gradient rules are written with NumPy calls in runtime/autodiff/*rules.py and attach
to their records (`op.grad`) when those modules load, or sit next to the op.

Adding an op means adding one record in one file:

    def _cube_rule(op, inputs, attrs):            # shapes and dtypes only, no kernel runs
        return [(shape(inputs[0]), dtype(inputs[0]))]

    def _cube_grad(rec, cts):                     # output cotangents -> input cotangents
        return [cts[0] * 3 * rec.inputs[0] ** 2]

    CUBE = OpDef("cube", lambda x: x ** 3, _cube_rule, grad=_cube_grad)

    def cube(x):
        return bind(CUBE, x)                      # a node in graphs, the kernel eagerly

To make it reachable from NumPy, register a handler in the module's `TABLE` (NumPy
functions) and, for saved graphs, list the record in runtime/saved/optable.py.

The record type and `bind` live in `runtime/core/registry.py`. This layer may import
`runtime.core` only. Its modules fill in what a Tensor's NumPy protocol calls
(`runtime/core/protocol.py`) when they load; importing this package loads them all.
"""
from runtime.ops import functions  # noqa: F401 - the NumPy function table and registrars
from runtime.ops import shaping, more, fft, linalg, dynamic  # noqa: F401 - their TABLE entries
from runtime.ops import ufuncs, indexing, shape, constant  # noqa: F401 - ufuncs, x[i], x.shape
from runtime.ops import matrix_forms  # noqa: F401 - np.diag, np.diagflat, np.rot90
from runtime.ops import idiom_functions  # noqa: F401 - np.where(c), np.insert, np.dstack, ...
from runtime.ops import strided  # noqa: F401 - x.strides, np.lib.stride_tricks.as_strided
