"""Unknown and data-dependent dimensions, end to end: each function runs under an
`input_signature` with None dims and under `reduce_retracing`, on several sizes (0
included), and equals eager NumPy in value, dtype and shape; the generated code and the
reference interpreter agree. `x.shape[i]` of an unknown dim is a symbolic int scalar.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime
from tests.helpers import assert_interpreter_agrees, assert_same


def run_everywhere(fn, spec_shapes, dtype, sizes_list, make=None):
    """fn(*arrays) under input_signature (None dims) and reduce_retracing vs eager."""
    make = make or (lambda shape: (np.arange(int(np.prod(shape))) % 5 * 0.75 - 1)
                    .reshape(shape).astype(dtype))
    sig = [ag.TensorSpec(s, dtype) for s in spec_shapes]
    signed = ag.function(fn, input_signature=sig)
    relaxed = ag.function(fn, reduce_retracing=True)
    for shapes in sizes_list:
        args = [make(s) for s in shapes]
        try:
            expected = fn(*[a.copy() for a in args])
        except Exception as e:  # noqa: BLE001 - the graph must raise the same
            for f in (signed, relaxed):
                with pytest.raises(type(e)):
                    f(*args)
            continue
        got = signed(*args)
        assert_same(got, expected)
        assert_same(relaxed(*args), expected)
        assert_interpreter_agrees(signed.get_concrete_function(*sig), args, got)
    signed.get_concrete_function(*sig).graph.verify()
    assert signed.tracing_count == 1
    assert relaxed.tracing_count <= 2  # the first shape, then one relaxed trace
    return signed


VECTORS = [[(n,)] for n in (3, 0, 5, 1, 8)]
MATRICES = [[(n, 4)] for n in (3, 0, 6, 1)]


def shape_arithmetic(x):
    n = x.shape[0]
    m = len(x)
    return (np.zeros(n + 1), np.ones((n, 2), np.int32), np.full(n * 2, 1.5, np.float32),
            x * n, x / (m + 1), n // 2, n > 4, x.size, np.float32(2) ** (n % 3))


def test_shape_arithmetic_sizes_and_creation():
    run_everywhere(shape_arithmetic, [(None,)], np.float32, VECTORS)


def reshape_with_unknown_dims(x):
    n = x.shape[0]
    flat = x.reshape(-1)
    return flat, x.reshape(n, -1), x.reshape(-1, 2), np.reshape(x, (2, n, -1)), x.T.reshape(-1)


def test_reshape_with_unknown_and_symbolic_dims():
    run_everywhere(reshape_with_unknown_dims, [(None, 4)], np.float64, MATRICES)


def branch_on_shape(x):
    if x.shape[0] > 4:
        y = x[:4] * 2
    else:
        y = np.concatenate((x, np.zeros(4 - x.shape[0], x.dtype)))
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return y, total


def test_shape_in_conditions_and_range():
    # `total = 0.0` stays a Python float when the loop runs no iteration, and is the
    # float32 the loop makes after one
    run_everywhere(branch_on_shape, [(None,)], np.float32, VECTORS)


def masks(x):
    m = x[x > 0]
    idx = np.nonzero(x > 0)
    return (m, m.size, m.shape[0], m.sum(), np.flatnonzero(x), np.argwhere(x > 0), idx,
            x[idx] * 2, np.zeros(m.size + 1, np.int8))


def test_masks_and_nonzero():
    run_everywhere(masks, [(None,)], np.float64, VECTORS)
    run_everywhere(lambda x: (np.nonzero(x), np.argwhere(x), x[x < 0].shape),
                   [(None, 4)], np.float32, MATRICES)


def uniques(x):
    r = np.round(x)
    values, index, inverse, counts = np.unique(r, return_index=True, return_inverse=True,
                                               return_counts=True)
    return (np.unique(r), values, index, inverse, counts, np.unique_counts(r),
            np.unique_inverse(r), np.unique_all(r), np.unique_values(r).shape,
            np.unique(r).size)


def test_unique_family_returns_numpy_named_tuples():
    f = run_everywhere(uniques, [(None,)], np.float64, VECTORS)
    x = np.array([2.0, 1.0, 2.0])
    assert type(f(x)[5]).__name__ == "UniqueCountsResult"
    assert f(x)[7].counts.tolist() == [1, 2]


def symbolic_ranges(x):
    n = x.shape[0]
    k = np.sum(x > 0)
    return (np.arange(n), np.arange(k), np.arange(1, n + 1, 2), np.arange(0.5, n),
            np.linspace(0, 1, n), np.eye(n), np.identity(k, np.int32),
            np.repeat(x, n), np.tile(x, (2, n)), np.bincount(np.arange(n) % 3),
            np.bincount((x > 0).astype(np.int64) * 2, minlength=2))


def test_symbolic_arange_linspace_eye_repeat_bincount():
    run_everywhere(symbolic_ranges, [(None,)], np.float32, VECTORS)


def varying_joins(x):
    pos = x[x > 0]
    return np.concatenate((pos, x)), np.append(pos, [1.5]), np.append(x, pos.size), \
        np.stack((x, -x)), np.hstack((pos, [x.shape[0]]))


def test_joins_of_varying_sizes():
    run_everywhere(varying_joins, [(None,)], np.float64, VECTORS)


def grow_in_while(x):
    out = np.zeros((0,), np.int64)
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            out = np.concatenate((out, [i]))
        i += 1
    return out, out.size


def grow_in_for(x):
    rows = np.zeros((0, 2), x.dtype)
    for v in x:
        rows = np.concatenate((rows, [[v, v * 2]]))
    return rows, rows.shape[0] * 2


def grow_with_invariant(x):
    acc = x[:1]
    i = 1
    while acc.size < 20 and i < 5:
        ag.set_loop_options(shape_invariants=[(acc, (None,))])
        acc = np.append(acc, acc * i)
        i += 1
    return acc


def test_arrays_growing_in_symbolic_loops():
    run_everywhere(grow_in_while, [(None,)], np.float32, VECTORS)
    run_everywhere(grow_in_for, [(None,)], np.float64, VECTORS)
    run_everywhere(grow_with_invariant, [(None,)], np.float64, [[(n,)] for n in (3, 1, 6)])


def dtype_change_in_loop(x):
    total = np.zeros(2, np.float64)
    for v in x:
        total = (total + v).astype(np.int32)  # a narrowing NumPy never does by itself
    return total


def test_loop_dtype_change_stays_an_error_naming_the_variable():
    f = ag.function(dtype_change_in_loop, input_signature=[ag.TensorSpec((None,), np.float32)])
    with pytest.raises(TypeError, match="total has dtype float64 before the loop but int32"):
        f(np.ones(3, np.float32))


def invariant_violated(x):
    t = np.zeros(1, x.dtype)
    i = 0
    while i < x.shape[0]:
        ag.set_loop_options(shape_invariants=[(t, (1,))])
        t = np.append(t, x[i])
        i += 1
    return t


def test_stated_shape_invariant_must_hold():
    f = ag.function(invariant_violated, input_signature=[ag.TensorSpec((None,), np.float32)])
    with pytest.raises(ValueError, match=r"Loop variable t has shape \[1\] before the loop "
                                         r"but \[2\] after one iteration.*shape invariant"):
        f(np.ones(3, np.float32))


def test_shape_is_ints_and_symbolic_scalars():
    seen = []

    def fn(x):
        rows, cols = x.shape  # what the trace sees (a symbolic value must not outlive it)
        seen.append((cols, type(cols), isinstance(rows, runtime.Tensor), rows.dtype, rows.ndim))
        return x.shape[1] * x.shape[0]

    f = ag.function(fn, input_signature=[ag.TensorSpec((None, 3), np.float32)])
    assert_same(f(np.ones((4, 3), np.float32)), 12)
    cols, cols_type, rows_symbolic, rows_dtype, rows_ndim = seen[0]
    assert cols == 3 and cols_type is int
    assert rows_symbolic
    assert rows_dtype == np.int64 and rows_ndim == 0
    cf = f.get_concrete_function(ag.TensorSpec((None, 3), np.float32))
    assert cf.graph.inputs[0].shape == (None, 3)  # a finished graph shows its static shape


def grow_matrix_by_padding(x):
    m = np.zeros((1, 1), x.dtype)
    i = 0
    while i < x.shape[0]:
        m = np.pad(m, ((1, 1), (1, 1)), constant_values=x[i])
        i += 1
    return m, np.size(m), np.size(m, 0), np.pad(x, x.shape[0] % 3)


def test_padding_with_symbolic_values_grows_a_loop_matrix():
    run_everywhere(grow_matrix_by_padding, [(None,)], np.int32, VECTORS,
                   make=lambda s: np.arange(s[0], dtype=np.int32))


def shaped_loss(x, c):
    n = x.shape[0]
    y = x.reshape(n, -1) * n
    z = np.pad(x, 1, constant_values=c)
    return (np.sum(y ** 2) + np.sum(z * np.arange(z.shape[0])) + np.sum(np.repeat(x, n) ** 2)
            + np.sum(np.full((2, n), c) * 3) + np.sum(x[x > 1] ** 3))


def shaped_loss_grads(x, c):
    with ag.GradientTape() as tape:
        tape.watch([x, c])
        loss = shaped_loss(x, c)
    return loss, tape.gradient(loss, [x, c])


def test_gradients_through_symbolic_sizes_match_central_differences():
    from tests.runtime.gradcheck import assert_grads, numeric_grads

    sig = [ag.TensorSpec((None,), np.float64), ag.TensorSpec((), np.float64)]
    f = ag.function(shaped_loss_grads, input_signature=sig)
    ops = {n.op.name for n in f.get_concrete_function(*sig).graph.walk()}
    assert {"reshape_dynamic", "repeat_dynamic", "full"} <= ops
    for n in (1, 4, 2):  # (n = 0: x.reshape(0, -1) raises in NumPy and in the graph)
        args = [np.arange(n, dtype=np.float64) * 0.75 + 0.5, np.float64(0.25)]
        value, grads = f(*args)
        assert_same(value, shaped_loss(*args))
        assert_grads(grads, numeric_grads(shaped_loss, args), "graph tape, unknown dims")


def early_return_of_unknown_shape(x):
    out = x * 2
    if np.sum(x) > 2:
        return x[x > 1], x.nbytes
    out = out[:3]
    return out, out.nbytes


def test_value_of_unknown_shape_set_on_one_path_only():
    run_everywhere(early_return_of_unknown_shape, [(None,)], np.float32, VECTORS)


def symbolic_slices(x):
    n = x.shape[0]
    return (x[:n // 2], x[n - 2:], x[::n // 2 + 1], x[1:n - 1:2],
            np.stack((x[:n // 2], x[n - n // 2:])), x[-n:])


def test_slicing_with_symbolic_bounds():
    run_everywhere(symbolic_slices, [(None,)], np.float32, [[(n,)] for n in (2, 3, 6, 7)])


def list_rebuilt_in_loop(x):
    s = [x[0]]
    for v in x:
        s = s + [v]
    return s


def test_list_rebuilt_in_a_symbolic_loop_says_to_append():
    f = ag.function(list_rebuilt_in_loop, input_signature=[ag.TensorSpec((None,), np.float32)])
    with pytest.raises(TypeError, match=r"Loop variable s is a list whose length the symbolic "
                                        r"loop changes.*s.append\(v\)"):
        f(np.ones(3, np.float32))


def shape_tuples(x):
    return (np.zeros(x.shape), x.reshape(x.shape), np.ones(x.shape[1:]),
            np.broadcast_to(x[:1], x.shape), np.full(x.shape[::-1], 2, np.int8),
            np.empty(x.shape).shape)


def test_shape_tuples_as_sizes():
    run_everywhere(shape_tuples, [(None, 4)], np.float32, MATRICES)


def extract_and_compress(x):
    m = x.reshape(-1, 2)
    return (np.extract(x > 0, x), np.extract(m > 0, m), np.compress(m[:, 0] > 0, m, axis=0),
            np.compress(x > 0, x), np.compress([True, False], m, axis=1))


def test_extract_and_compress():
    run_everywhere(extract_and_compress, [(None,)], np.float64, [[(n,)] for n in (4, 0, 6, 2)])


def python_numbers_through_control_flow(x, n):
    i = 0
    while i < n:
        i += 1
    k = 2 if n > 1 else 3
    return x * i, x + k, x * (i + k), x[:1] * x.shape[0]


def test_python_numbers_through_loops_and_branches_keep_nep50_dtypes():
    # a Python int a loop or branch produces stays weak: float32 * i is float32, as eagerly
    f = ag.function(python_numbers_through_control_flow)
    for dt in (np.float32, np.int8, np.float16):
        for n in (0, 3):
            x = np.ones(3, dt)
            assert_same(f(x, np.int64(n)), python_numbers_through_control_flow(x, np.int64(n)))
