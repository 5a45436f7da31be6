"""vmap of a sum, max or min of one example's short float vector, spelled as NumPy's own
order of operations on the batch's columns (runtime/transforms/batch_reductions.py),
equals the loop of calls bitwise: for every length NumPy's summation treats differently
(one by one below 8, eight running sums up to 128, halves beyond), on values whose sums
depend on the order, on -0, infinities and NaNs, and on a batch that is not C-contiguous
(a mapped axis 1). Each check runs with the column form forced (whatever the batch size)
and with the cost model's choice."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag

from runtime.transforms import batch_reductions
from runtime.transforms.batch_reductions import CHAIN_MAX_LENGTH, PAIRWISE_BLOCK
from tests.runtime.vmap_harness import check_vmap


@pytest.fixture(params=["columns", "cost model"])
def columns(request, monkeypatch):
    if request.param == "columns":
        monkeypatch.setattr(batch_reductions, "_columns_pay", lambda *args: True)

LENGTHS = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 64, 100, PAIRWISE_BLOCK, PAIRWISE_BLOCK + 1]


def spread(n: int, dtype, seed: int = 0, batch: int = 6):
    """Values over many orders of magnitude (a sum's rounding depends on its order), with
    a row of zeros of both signs, and infinities and a NaN in the others."""
    rng = np.random.default_rng(seed + n)
    x = rng.normal(size=(batch, n)) * np.exp(rng.normal(size=(batch, n)) * 6)
    x = x.astype(dtype)
    x[1] = np.where(np.arange(n) % 2, 0.0, -0.0)
    x[2] = -0.0
    x[3, n // 2] = np.inf
    x[4, 0] = np.nan
    return x


def _sum(v):
    return np.sum(v)


def _sum_keepdims(v):
    return np.sum(v, axis=-1, keepdims=True)


def _max(v):
    return np.max(v)


def _min_axis(v):
    return np.min(v, axis=0)


def _amax_keepdims(v):
    return np.amax(v, keepdims=True)


@pytest.mark.usefixtures("columns")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", LENGTHS)
def test_sums_equal_the_loop_of_calls(n, dtype):
    x = spread(n, dtype)
    check_vmap(_sum, x)
    check_vmap(_sum_keepdims, x)
    check_vmap(_sum, np.ascontiguousarray(x.T), in_axes=1)  # the batch is not C-ordered
    check_vmap(lambda v: np.sum(v * 2.0) + np.sum(v[::-1]), x)


@pytest.mark.usefixtures("columns")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", range(1, CHAIN_MAX_LENGTH + 2))
def test_max_and_min_equal_the_loop_of_calls(n, dtype):
    x = spread(n, dtype)
    nans = np.array([0x7FF8000000000000, 0xFFF8000000000000], np.uint64).view(np.float64)
    x[5] = np.resize(np.concatenate([[0.0, -0.0], nans.astype(dtype)]), n)  # ties of +-0, NaNs
    for fn in (_max, _min_axis, _amax_keepdims):
        check_vmap(fn, x)
        check_vmap(fn, np.ascontiguousarray(x.T), in_axes=1)


def test_the_column_form_is_used_where_it_pays():
    source = ag.vmap(_sum).get_concrete_function(spread(4, np.float64, batch=1024)).python_code
    assert "[:, 3]" in source and "np_sum" not in source and ".sum(" not in source
    small = ag.vmap(_sum).get_concrete_function(spread(64, np.float64, batch=16)).python_code
    assert ".sum(axis=" in small  # NumPy's batched reduction (spelled as the method)


@pytest.mark.usefixtures("columns")
def test_reductions_of_other_shapes_and_dtypes_keep_numpys_batched_call():
    check_vmap(_sum, np.arange(12, dtype=np.int64).reshape(3, 4))
    check_vmap(lambda m: np.sum(m, axis=1), spread(6, np.float64).reshape(3, 2, 6))
    check_vmap(lambda v: np.sum(v, dtype=np.float32), spread(5, np.float64))
    check_vmap(_max, spread(CHAIN_MAX_LENGTH + 3, np.float64))
