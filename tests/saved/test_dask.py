"""ag.dask.map_blocks on a real LocalCluster with 2 worker processes: results equal the
function on the whole array (blockwise functions), with Dask's chunks / drop_axis /
new_axis conventions; each worker loads the saved graph once and reuses it."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    with cluster, distributed.Client(cluster) as c:
        yield c


@ag.function
def squash(x, scale):
    y = np.where(x > 0, np.tanh(x), x * scale)
    i = 0
    while i < 3:  # a loop in the graph; blockwise all the same
        y = y * 1.5 + 0.25
        i += 1
    return y


def test_two_worker_processes_compute_what_the_whole_array_gives(client):
    assert len(client.scheduler_info()["workers"]) == 2
    x = np.random.default_rng(0).normal(size=(40, 30)).astype(np.float32)
    y = ag.dask.map_blocks(squash, da.from_array(x, chunks=(7, 11)), 0.5)
    assert y.dtype == np.float32 and y.chunks == da.from_array(x, chunks=(7, 11)).chunks
    assert_same(y.compute(), squash(x, 0.5), rtol=0)
    info = client.run(ag.dask.cache_info)
    loads = sum(v[0] for per_worker in info.values() for v in per_worker.values())
    calls = sum(v[1] for per_worker in info.values() for v in per_worker.values())
    assert calls == 6 * 3 and 1 <= loads <= 2  # 18 blocks, loaded at most once per worker


def test_drop_axis_new_axis_and_two_inputs(client):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(50, 8))
    w = rng.normal(size=(50, 8))
    dx, dw = da.from_array(x, chunks=(10, 8)), da.from_array(w, chunks=(10, 8))
    rows = ag.dask.map_blocks(lambda a, b: np.sum(a * b, axis=1), dx, dw, drop_axis=1)
    assert_same(rows.compute(), np.sum(x * w, axis=1))
    col = ag.dask.map_blocks(lambda a: a[:, None] * 2.0, da.from_array(x[:, 0], chunks=10),
                             new_axis=1)
    assert_same(col.compute(), x[:, 0][:, None] * 2.0)
    sums = ag.dask.map_blocks(lambda a: np.sum(a, axis=0, keepdims=True), dx,
                              chunks=((1,) * 5, (8,)))
    assert_same(sums.compute(), np.stack([np.sum(x[i:i + 10], axis=0) for i in range(0, 50, 10)]))


def test_what_cannot_map_is_refused_clearly():
    x = da.ones((4, 4), chunks=2)
    with pytest.raises(TypeError, match="must return one array per block"):
        ag.dask.map_blocks(lambda a: (a, a), x)


def test_the_task_carries_saved_bytes_not_code():
    import pickle
    import pickletools

    cf = ag.dask.concrete_for_blocks(squash, (da.ones((4,), chunks=2), 0.5))
    block = ag.dask.SavedBlockFunction(ag.dask.saved_bytes(cf), cf.name)
    payload = pickle.dumps(block)
    strings = [arg for op, arg, _ in pickletools.genops(payload) if isinstance(arg, str)]
    # the only class named is the runner; "squash" is a plain name, for Dask's task keys
    assert strings == ["autograph.dask", "SavedBlockFunction", "squash"]
    assert ag.load(block.data)(np.ones(3), 0.5).shape == (3,)
