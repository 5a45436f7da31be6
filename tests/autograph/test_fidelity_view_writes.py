"""Writes through every kind of view, table-driven: each view maker (np.diagonal,
np.broadcast_to, split pieces, x.T, swapaxes, reshape, x.view(), squeeze, x.real, ...)
crossed with each write form (setitem by int / slice / mask, augmented assignment,
ufunc out=, fill, sort). The traced graph must equal eager NumPy - return values, the
caller's argument array after the call, raised exception types - or refuse with a clear
error at the user's line (runtime/state/views.py, runtime/state/view_recipes.py)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


# -- view makers --------------------------------------------------------------------------
def alias(x): return x
def row(x): return x[0]
def tail(x): return x[1:]
def ellipsis(x): return x[...]
def newaxis(x): return x[..., None]
def both_newaxes(x): return x[None, :, None]
def diagonal(x): return np.diagonal(x)
def diagonal_method(x): return x.diagonal()
def diagonal_tail(x): return np.diagonal(x)[1:]
def broadcast_to(x): return np.broadcast_to(x, (2,) + x.shape)
def split(x): return np.split(x, 3)[1]
def array_split(x): return np.array_split(x, 2)[0]
def hsplit(x): return np.hsplit(x, 2)[1]
def vsplit(x): return np.vsplit(x, 3)[0]
def transpose_attr(x): return x.T
def transpose_of_tail(x): return x[1:].T
def swapaxes(x): return np.swapaxes(x, 0, 1)
def moveaxis(x): return np.moveaxis(x, 0, -1)
def transpose(x): return np.transpose(x)
def reshape(x): return x.reshape(4, 3)
def reshape_row(x): return x.reshape(4, 3)[0]
def reshape_unit(x): return x.reshape(1, 3, 4)
def view(x): return x.view()
def squeeze(x): return np.squeeze(x[None])
def expand_dims(x): return np.expand_dims(x, 0)
def expand_dims_row(x): return np.expand_dims(x, 1)[0]
def atleast_1d(x): return np.atleast_1d(x)
def atleast_2d(x): return np.atleast_2d(x)
def atleast_3d(x): return np.atleast_3d(x)
def ravel(x): return x.ravel()
def np_ravel(x): return np.ravel(x)
def real(x): return x.real
def imag(x): return x.imag


VIEWS = [alias, row, tail, ellipsis, newaxis, both_newaxes, diagonal, diagonal_method,
         diagonal_tail, broadcast_to, split, array_split, hsplit, vsplit, transpose_attr,
         transpose_of_tail, swapaxes, moveaxis, transpose, reshape, reshape_row,
         reshape_unit, view, squeeze, expand_dims, expand_dims_row, atleast_1d, atleast_2d,
         atleast_3d, ravel, np_ravel, real, imag]


# -- write forms --------------------------------------------------------------------------
def set_int(v): v[0] = 7
def set_slice(v): v[:1] = -2
def set_mask(v): v[v > 3] = 7
def set_all(v): v[...] = 5


def augmented(v):
    v += 1


def ufunc_out(v): np.multiply(v, 3, out=v)
def fill(v): v.fill(-1)
def sort(v): v.sort()


WRITES = [set_int, set_slice, set_mask, set_all, augmented, ufunc_out, fill, sort]

# NumPy returns a view or a copy there depending on the memory layout
LAYOUT = {reshape, reshape_row, ravel, np_ravel}


def through(x, make, write):
    v = make(x)
    write(v)
    return x, v


def read_after_base_write(x, make):
    v = make(x)
    x[0, 0] = -5
    x[2] += 1
    return v


def write_then_read_both(x, make):
    v = make(x)
    write_v = v * 1  # the value before the write, a copy
    v[...] = v * 2
    return x.sum(), v, write_v


def _calls(fn, *args):
    """eager and graph results of two calls (tracing, then the cached graph) on copies."""
    f = ag.function(fn)
    out = []
    for _ in range(2):
        x = args[0]
        e_x, g_x = x.copy(), x.copy()
        try:
            expected = ("ok", fn(e_x, *args[1:]))
        except Exception as e:  # noqa: BLE001 - compared with the graph's
            expected = ("raised", e)
        try:
            got = ("ok", f(g_x, *args[1:]))
        except Exception as e:  # noqa: BLE001
            got = ("raised", e)
        out.append((expected, got, e_x, g_x))
    return out


def _check(fn, x, make, *rest, refusals=()):
    for (ekind, e), (gkind, g), e_x, g_x in _calls(fn, x, make, *rest):
        if ekind == "raised":  # NumPy raises (a read-only view): the graph raises the same
            assert gkind == "raised", f"NumPy raised {e!r}; the graph returned {g!r}"
            builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
            assert isinstance(g, builtin), (g, e)  # (NumPy's UFuncTypeError: a TypeError)
            assert str(e) in str(g) or builtin is TypeError
            continue
        if gkind == "raised":
            assert make in refusals, f"unexpected error: {g!r}"
            assert type(g) is ValueError
            msg = str(g)
            assert "test_fidelity_view_writes.py:" in msg  # at the user's line
            assert "copy" in msg or "x[...] =" in msg  # says how to write it instead
            return
        assert make not in refusals, f"{make.__name__} was expected to be refused"
        assert_same(g, e)
        assert_same(g_x, e_x)


def _base(make):
    x = np.arange(12.0).reshape(3, 4)
    if make in (real, imag):
        return x + 0.5j * x[::-1]
    return x


@pytest.mark.parametrize("write", WRITES, ids=lambda w: w.__name__)
@pytest.mark.parametrize("make", VIEWS, ids=lambda m: m.__name__)
def test_write_through_view(make, write):
    refusals = LAYOUT | {real, imag}
    _check(through, _base(make), make, write, refusals=refusals)


@pytest.mark.parametrize("make", [real, imag], ids=lambda m: m.__name__)
@pytest.mark.parametrize("write", [set_int, augmented, fill], ids=lambda w: w.__name__)
def test_real_and_imag_of_a_real_array(make, write):
    # x.real is the array itself; x.imag is a read-only array of zeros
    _check(through, np.arange(12.0).reshape(3, 4), make, write)


@pytest.mark.parametrize("make", VIEWS, ids=lambda m: m.__name__)
def test_view_sees_later_writes_into_its_base(make):
    # a reshape / ravel taken before the base's write may be a view or a copy: refused
    _check(read_after_base_write, _base(make), make, refusals=LAYOUT)


@pytest.mark.parametrize("make", [m for m in VIEWS if m not in (diagonal, diagonal_method,
                                                                diagonal_tail, broadcast_to)],
                         ids=lambda m: m.__name__)
def test_write_then_read_view_and_base(make):
    _check(write_then_read_both, _base(make), make, refusals=LAYOUT | {real, imag})


# -- the ufunc out= form in detail --------------------------------------------------------
def out_cast(x, y):
    r = np.add(x, y, out=x)
    return r is x, x


def out_broadcast(x, y):
    np.add(y[0], 1, out=x)
    return x


def test_ufunc_out_returns_the_array_and_casts_like_numpy():
    _check(out_cast, np.arange(4), np.arange(4))
    _check(out_cast, np.arange(4.0), np.arange(4))
    _check(out_cast, np.arange(4), np.arange(4.0))  # float into int: a casting TypeError
    _check(out_broadcast, np.zeros((2, 3)), np.arange(6.0).reshape(2, 3))


# -- x.view(dtype) of another item size and x.sort(order=) have no graph meaning ----------
def view_as_int(x):
    return x.view(np.int32)  # (the same item size works: test_idioms_iteration_and_functions)


def test_view_with_a_dtype_is_refused_clearly():
    view_as_int(np.arange(3.0))
    with pytest.raises(TypeError, match=r"x.view\(dtype\).*test_fidelity_view_writes.py:.*astype"):
        ag.function(view_as_int)(np.arange(3.0))
