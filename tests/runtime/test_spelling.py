"""How the executor spells matmuls (runtime/exec/spelling.py) and the identities
`zeros_like(x) + y`, `ones_like(x) * y` (runtime/passes/simplify.py): bitwise against
eager NumPy, on every operand layout and on signed zeros, NaN, inf and integer extremes."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime.exec.spelling import DOT_MAX_WORK


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def _layouts(a):
    """`a` (m×k) in the layouts eager code passes to `@`: C, F, reversed, stepped, a
    transposed view."""
    m, k = a.shape
    return {
        "C": a,
        "F": np.asfortranarray(a),
        "reversed rows": a[::-1].copy()[::-1],
        "stepped columns": np.repeat(a, 2, axis=1)[:, ::2],
        "stepped rows": np.repeat(a, 2, axis=0)[::2],
        "transposed view": np.ascontiguousarray(a.T).T,
    }


SHAPES = [(1, 64, 64), (64, 64, 1), (1, 1, 1), (3, 5, 7), (8, 8, 8), (64, 64, 64), (96, 96, 96),
          (17, 33, 65), (2, 300, 2), (300, 1, 300), (0, 4, 3), (4, 0, 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_matmul_of_arguments_is_bitwise_eager_in_every_layout(m, k, n, dtype):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)

    def fn(a, b):
        return a @ b, np.tanh(a) @ b, np.tanh(a) @ np.exp(b)

    f = ag.function(fn, autograph=False)
    for name_a, la in _layouts(a).items():
        for name_b, lb in _layouts(b).items():
            got, want = f(la, lb), fn(la, lb)
            for g, w in zip(got, want):
                assert _bits(g) == _bits(w), (name_a, name_b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_with_itself_and_reversed_views_are_bitwise_eager(dtype):
    """`a @ a.T` takes BLAS's symmetric path; `a[::-1] @ v` NumPy's own loop (np.dot would
    copy and call BLAS: different last bits, the reason arguments are never dot-spelled)."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 64)).astype(dtype)
    v = rng.standard_normal((64, 1)).astype(dtype)

    def fn(a, v):
        t = np.tanh(a)
        return a @ a.T, t @ t.T, a[::-1] @ v, t[::-1] @ v, t[:, ::2] @ v[::2], (t @ v)[::-1]

    f = ag.function(fn, autograph=False)
    for g, w in zip(f(a, v), fn(a, v)):
        assert _bits(g) == _bits(w)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [s for s in SHAPES if s[0] * s[1] * s[2] <= DOT_MAX_WORK])
def test_np_dot_equals_matmul_bitwise_for_blas_layouts(m, k, n, dtype):
    """The premise of spelling as np.dot: for C- and F-contiguous operands (what ufunc
    and matmul results and checked constants are) it calls the BLAS routine matmul calls."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    for la in (a, np.asfortranarray(a)):
        for lb in (b, np.asfortranarray(b)):
            assert _bits(np.dot(la, lb)) == _bits(la @ lb)
            out = np.empty((m, n), dtype)
            assert _bits(np.dot(la, lb, out)) == _bits(la @ lb)
    assert _bits(np.dot(a, a.T)) == _bits(a @ a.T)


def test_spelling_depends_on_known_layout_and_size():
    rng = np.random.default_rng(0)
    w_small = rng.standard_normal((64, 64)).astype(np.float32)
    w_big = rng.standard_normal((256, 256)).astype(np.float32)

    def small(x):
        return np.tanh(np.tanh(x @ w_small) @ w_small)

    def big(x):
        return np.tanh(np.tanh(x @ w_big) @ w_big)

    x_small = rng.standard_normal((64, 64)).astype(np.float32)
    x_big = rng.standard_normal((256, 256)).astype(np.float32)
    code = ag.function(small, autograph=False).get_concrete_function(x_small).python_code
    # the argument may be any view: checked per call; the tanh result is contiguous: dot
    assert "x.dot(c) if x.flags.forc else x @ c" in code and code.count(".dot(") == 2, code  # `a.dot(b)`: np.dot's product
    code = ag.function(big, autograph=False).get_concrete_function(x_big).python_code
    assert ".dot(" not in code and "np_dot(" not in code, code
    for fn, x in ((small, x_small), (big, x_big)):
        assert _bits(ag.function(fn, autograph=False)(x)) == _bits(fn(x))
    # one trace, arguments in every layout: the contiguous ones take `dot`, views `@`
    # (a reversed view times a column: np.dot would copy it and differ in the last bits)
    v = rng.standard_normal((64, 1)).astype(np.float32)

    def column(x):
        return x @ v

    assert _bits(np.dot(x_small[::-1], v)) != _bits(x_small[::-1] @ v)  # the premise
    f = ag.function(column, autograph=False)
    wide = rng.standard_normal((64, 128)).astype(np.float32)
    for x in (x_small, np.asfortranarray(x_small), x_small[::-1], wide[:, ::2], x_small.T,
              x_small[:, ::-1]):
        assert _bits(f(x)) == _bits(column(x))
    assert f.tracing_count == 1
    assert "x.dot(c) if x.flags.forc else x @ c" in f.get_concrete_function(x_small).python_code


def _loop(s, y, x):
    """The seeds' matmul loop."""
    for _ in range(10):
        s = s + (s @ y) * x
    return s


def _bitwise_on_layouts(f, n: int):
    """`f` against `_loop` on C-contiguous arguments and on views; returns one argument."""
    s = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32) * 0.01
    for args in ((s, s.copy(), s.copy()), (s.T, s[::-1], s)):
        assert _bits(f(*args)) == _bits(_loop(*args))
    return s


def test_matmul_loop_into_spare_buffers_is_bitwise_eager():
    """The seeds' loop: results written into spare C-contiguous buffers with np.matmul(..., out)."""
    f = ag.function(_loop, autograph=False)
    s = _bitwise_on_layouts(f, 256)
    # the sum goes over the product (written last, on this core), not over the matmul's
    # operand, which BLAS's threads have just read from both cores
    lines = f.get_concrete_function(s, s, s).python_code.splitlines()
    for k, line in enumerate(lines):
        if "np_add(" in line and k > 3:
            product = lines[k - 1].split("(")[1].split(",")[0]  # np_multiply(<product>, x, ...)
            assert line.split("#")[0].rstrip().endswith(f", {product})"), lines[k - 2:k + 1]


@pytest.mark.filterwarnings("ignore::runtime.jit.JitFallbackWarning")
def test_jit_kernels_write_into_spare_buffers_bitwise(small_jit_regions):
    """A kernel's result may go into a buffer that died earlier (not into its operands:
    a NumPy rerun still reads them), also when the matmul before it is inlined."""
    f = ag.function(_loop, autograph=False, jit_compile=True)
    s = _bitwise_on_layouts(f, 64)
    code = f.get_concrete_function(s, s, s).python_code
    assert code.count("k_jit_region") == 10 and code.count("out=") >= 8, code


# -- identities -----------------------------------------------------------------------------

def _special(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 1.5, -2.0, np.finfo(dtype).max,
                         np.finfo(dtype).tiny], dtype)
    if dtype.kind == "b":
        return np.array([True, False, True, False, True, False, True, False, True])
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1, 2, 3, 5], dtype)


IDENTITIES = {
    "zeros_like + y": lambda x, y: (np.zeros_like(x) + y) * 1,
    "y + zeros_like": lambda x, y: (y + np.zeros_like(x)) - y,
    "y - zeros_like": lambda x, y: (y - np.zeros_like(x)) + y,
    "ones_like * y": lambda x, y: (np.ones_like(x) * y) * 3,
    "y * ones_like": lambda x, y: (y * np.ones_like(x)) + y,
    "zeros const + y": lambda x, y: (np.zeros(x.shape, x.dtype) + y) * 1,
    "ones const * y": lambda x, y: (np.ones(x.shape, x.dtype) * y) - y,
    "broadcast zeros + y": lambda x, y: (np.zeros((4, 9), x.dtype) + y) * 1,
    "zeros_like(other dtype) + y": lambda x, y: (np.zeros_like(x, dtype=np.float64) + y) * 1,
    "zeros_like(int8) + y": lambda x, y: (np.zeros_like(x, dtype=np.int8) + y) * 1,
}


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64, np.float16,
                                   np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("name", list(IDENTITIES))
def test_identities_are_bitwise_eager_on_special_values(name, dtype):
    fn = IDENTITIES[name]
    y = _special(dtype)
    x = y[::-1].copy()
    f = ag.function(fn, autograph=False)
    with np.errstate(all="ignore"):
        try:
            want = fn(x, y)
        except TypeError as e:  # bool - bool: NumPy refuses; the graph must too
            with pytest.raises(TypeError):
                f(x, y)
            assert "subtract" in str(e)
            return
        got = f(x, y)
    assert _bits(got) == _bits(want)


def test_zeros_like_plus_float_keeps_the_addition():
    """0.0 + -0.0 is +0.0: `zeros_like(x) + y` is not `y` on floats (copysign shows it)."""
    def fn(x, y):
        return np.copysign(1.0, np.zeros_like(x) + y)

    y = np.array([-0.0, 0.0, -1.0])
    f = ag.function(fn, autograph=False)
    assert _bits(f(y, y)) == _bits(fn(y, y))
    assert f(y, y)[0] == 1.0


def test_integer_identities_leave_no_node():
    def fn(x, y):
        return (np.zeros_like(x) + y) * 2 + (y * np.ones_like(x))

    y = np.arange(5, dtype=np.int32)
    cf = ag.function(fn, autograph=False).get_concrete_function(y, y)
    names = [n.op.name for n in cf.optimized_graph.nodes]
    assert "zeros_like" not in names and "ones_like" not in names and names.count("add") == 1, names
    assert _bits(cf(y, y)) == _bits(fn(y, y))


def test_identity_with_unknown_shape():
    """With unknown dimensions the shapes cannot be proven equal: the add stays, exact."""
    def fn(x, y):
        return (np.zeros_like(x) + y) * 2

    spec = ag.TensorSpec((None,), np.int64)
    f = ag.function(fn, autograph=False, input_signature=[spec, spec])
    y = np.array([np.iinfo(np.int64).max, -3, 0])
    assert _bits(f(y, y)) == _bits(fn(y, y))
    # a y that broadcasts against x is not the result: the shape check keeps the add
    g = ag.function(fn, autograph=False)
    x2, y1 = np.zeros((2, 3), np.int64), np.array([1, 2, 3])
    assert _bits(g(x2, y1)) == _bits(fn(x2, y1))
