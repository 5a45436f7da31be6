"""`ag.dask.map_blocks`: run a converted function on every block of Dask arrays.

    import dask.array as da
    y = ag.dask.map_blocks(f, x)            # x: a dask.array; y: a dask.array
    y.compute()                              # on the current scheduler / distributed Client

The function is traced once for blocks of any size (every dimension unknown), and the
trace travels to the workers in the saved format (`ag.save`): bytes that each worker
process loads once — with `ag.load`, which runs nothing from them — and caches by
digest. No Python code of the user's is pickled. Keyword arguments are Dask's
`map_blocks` ones (`chunks`, `drop_axis`, `new_axis`, `dtype`, `meta`, `name`, ...);
`dtype` and `meta` default to the traced result's. Needs the `dask` extra
(`pip install "autograph-numpy[dask]"`).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from typing import Any, Callable

import numpy as np

from autograph.api import function
from runtime import TensorSpec
from runtime.core.tensor import Tensor
from runtime.frontend.function import ConcreteFunction, Function
from runtime.saved import load, save

INSTALL = ('ag.dask needs Dask: pip install "autograph-numpy[dask]" '
           '(or pip install "dask[distributed]")')

_cache: dict = {}           # digest -> loaded function, per worker process
_calls: dict = {}           # digest -> [loads, calls], for cache_info()
_lock = threading.Lock()


def _dask_array():
    try:
        import dask.array as da
    except ImportError:
        raise ImportError(INSTALL) from None
    return da


def saved_bytes(cf) -> bytes:
    """The `.agz` bytes of a ConcreteFunction (what travels to the workers)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "fn.agz")
        save(cf, path)
        with open(path, "rb") as f:
            return f.read()


class SavedBlockFunction:
    """The per-block callable Dask runs: holds only the saved bytes and their digest.
    Pickled, it is those bytes; on a worker the first call loads them, later calls (and
    other tasks in the same process) reuse the loaded function."""

    def __init__(self, data: bytes, name: str = "fn"):
        self.data = bytes(data)
        self.digest = hashlib.sha256(self.data).hexdigest()
        self.__name__ = f"ag_{name}"

    def __dask_tokenize__(self):
        return ("autograph-saved", self.digest)

    def __reduce__(self):
        return (SavedBlockFunction, (self.data, self.__name__[3:]))

    def loaded(self):
        fn = _cache.get(self.digest)
        if fn is None:
            with _lock:
                fn = _cache.get(self.digest)
                if fn is None:
                    fn = _cache[self.digest] = load(self.data)
                    _calls.setdefault(self.digest, [0, 0])[0] += 1
        return fn

    def __call__(self, *blocks, **kwargs):
        fn = self.loaded()
        with _lock:
            _calls.setdefault(self.digest, [0, 0])[1] += 1
        return fn(*blocks, **kwargs)


def cache_info() -> dict:
    """{digest: (times loaded, blocks run)} in this process (run it on workers with
    `client.run(ag.dask.cache_info)`)."""
    with _lock:
        return {k: tuple(v) for k, v in _calls.items()}


def concrete_for_blocks(fn, args: tuple):
    """The trace of `fn` that serves every block: dask arrays become TensorSpecs with all
    dimensions unknown; other arguments are traced as they are."""
    da = _dask_array()
    if isinstance(fn, ConcreteFunction):
        return fn
    if not isinstance(fn, Function):
        fn = function(fn)
    if fn.input_signature is not None:
        return fn.get_concrete_function()
    specs = [TensorSpec((None,) * a.ndim, a.dtype) if isinstance(a, da.Array) else a
             for a in args]
    return fn.get_concrete_function(*specs)


def map_blocks(fn: Callable, *args: Any, **map_blocks_kwargs: Any) -> Any:
    """`dask.array.map_blocks` for a converted function: `fn` runs on every block.

    `fn` is traced once for blocks of any size and travels to the workers as its saved
    graph (no pickled Python code). Needs the `dask` extra.

    Args:
        fn: an `ag.function`, a plain function (converted), or a ConcreteFunction; it
            must return one array per block.
        *args: the arguments: dask arrays (blocked together, as Dask does) and other
            values passed to every block as they are.
        **map_blocks_kwargs: Dask's `map_blocks` keywords (`chunks`, `drop_axis`,
            `new_axis`, `dtype`, `meta`, `name`, ...); `dtype` and `meta` default to
            the traced result's.

    Returns:
        A lazy dask array; `.compute()` runs it on the current scheduler.

    Raises:
        TypeError: `fn` does not return exactly one array per block.
        ImportError: Dask is not installed.

    Example:
        ```python
        import numpy as np
        import dask.array as da
        import autograph as ag

        def softplus(x):
            return np.log1p(np.exp(x))

        x = da.from_array(np.zeros(6), chunks=3)
        y = ag.dask.map_blocks(softplus, x)
        np.allclose(y.compute(scheduler="synchronous"), np.log(2.0))  # -> True
        ```
    """
    da = _dask_array()

    cf = concrete_for_blocks(fn, args)
    leaves = cf._out_leaves
    if cf.out_tree is not None or len(leaves) != 1 or not isinstance(leaves[0], Tensor):
        raise TypeError(f"ag.dask.map_blocks: {cf.name} must return one array per block "
                        f"(it returns {cf.pretty_printed_signature().split(' -> ')[1]}); "
                        "map each result separately")
    out = leaves[0]
    kwargs = dict(map_blocks_kwargs)
    kwargs.setdefault("dtype", out.dtype)
    if "meta" not in kwargs:  # Dask would otherwise call the function on empty blocks
        kwargs["meta"] = np.empty((0,) * len(out.shape), kwargs["dtype"])
    block_fn = SavedBlockFunction(saved_bytes(cf), cf.name)
    return da.map_blocks(block_fn, *args, **kwargs)
