"""Run a converted function over an array larger than a worker's memory, block by block,
on a Dask cluster of 2 worker processes (needs the `dask` extra).

Shows: ag.dask.map_blocks (the graph travels to the workers as saved bytes, which each
worker loads once), Dask's chunking and its progress bar, and that the blockwise result
equals the function applied to a whole (small) array.
"""
import logging

import numpy as np

import autograph as ag


@ag.function
def soft_clip(x, limit):
    """Elementwise, with real control flow per block."""
    y = np.where(np.abs(x) > limit, limit * np.tanh(x / limit), x)
    if np.max(y) > limit:           # a symbolic condition: a cond in the graph
        y = np.minimum(y, limit)
    return y * y


def main():
    try:
        import dask.array as da
        from distributed import Client, LocalCluster, progress
    except ImportError:
        print(ag.dask.INSTALL)
        return

    # the same function on a small whole array and blockwise: equal
    small = np.random.default_rng(0).normal(size=(100, 50)).astype(np.float32)
    blocks = ag.dask.map_blocks(soft_clip, da.from_array(small, chunks=(30, 20)), 2.0)
    assert np.array_equal(blocks.compute(scheduler="sync"), soft_clip(small, 2.0))

    # silence_logs=CRITICAL: at shutdown the scheduler logs the cancelled feed of the
    # progress bar as an error, after every result is in
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="256MiB",
                      dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster) as client:
        # 384 MiB of float32, more than one worker's whole memory limit: each 16 MiB block
        # is made, transformed and reduced on a worker, and never gathered
        x = da.random.default_rng(1).random((6_144, 16_384), dtype=np.float32,
                                            chunks=(256, 16_384)) * 8 - 4
        y = ag.dask.map_blocks(soft_clip, x, 2.0)
        total = client.compute(y.mean(dtype=np.float64))
        progress(total, interval="1s")
        print()
        print(f"mean of soft_clip(x) over {x.shape} float32 ({x.nbytes / 2**20:.0f} MiB, "
              f"{x.numblocks[0]} blocks of {x.blocks[0].nbytes / 2**20:.0f} MiB): "
              f"{total.result():.4f}")
        loads = client.run(ag.dask.cache_info)
        print("per worker (times loaded, blocks run):",
              {w.rsplit(":", 1)[-1]: list(v.values()) for w, v in loads.items()})


if __name__ == "__main__":
    main()
