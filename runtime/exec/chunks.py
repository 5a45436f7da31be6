"""Chunked elementwise regions: a run of elementwise ufunc nodes over large arrays of one
shape, computed slice by slice (cache-sized) across the cores.

    def chain(x):
        v4, = ag_chunked(region, 1000000, 65536, (x,), specs)

    def region(_s, _a0, _o0):                    # one slice `_s` along axis 0
        _t0 = np_multiply(_a0[_s], float64_2)
        np_add(_t0, float64_1, out=_t0)
        np_tanh(_t0, out=_t0)
        np_multiply(_t0, _a0[_s], out=_o0[_s])

The temporaries of a slice stay in cache, and slices run on the runtime's thread pool
and the calling thread at once, each thread through a contiguous share; a share whose
pool worker has not started when the calling thread is done with its own (the worker is
busy with another job, or is the calling thread itself) is done by the calling thread
instead of waited for. With `jit_compile=True`, runs of elementwise ops are
compiled kernels (`OpDef.fused`, runtime/jit) that the slice function calls like ufuncs:
`_t0 = k_jit_region(_a0[_s])`, then an op left to NumPy (`np_arctan2(_t0, 0.5, out=_t0)`),
then the next kernel. Every op is
per element and each slice starts at a multiple of 64 elements, so SIMD lanes line up as
in one call over the whole array: the result is bitwise eager's
(tests/runtime/test_parallel_exec.py checks the ufuncs on special values). Only
C-contiguous array inputs are sliced; others run the region once over whole arrays on
the calling thread.

Errors and warnings: the slices run with NumPy's errstate set to record floating-point
errors instead of acting on them. If one was recorded and the caller's errstate does
anything with it (warn, raise, call, log), the region runs again over whole arrays on the
calling thread under the caller's errstate — op by op as eagerly, so the same warnings
and the same FloatingPointError come out, in order. A slice that raises (an integer to a
negative power) also sends the region to that whole-array run, which raises eager's
exception. Results never depend on chunking.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from runtime.exec import schedule
from runtime.core.graph import Node
from runtime.core.tensor import Tensor

CHUNK_ELEMENTS = 65536        # float64: 512 KiB per temporary, a few fit in a 2 MiB L2
# (the 1M chain: 3.5 ms at 65536, 5.0 ms at 16384, where the per-slice calls add up)
# Below these sizes the ops' own calls (in place, into dead buffers) cost less than the
# hand-offs and the region's fresh outputs: a 256×256 float32 `s + (s @ y) * x` (2 ops on
# 65536 elements) stays serial, where BLAS's threads are still spinning after the matmul.
MIN_REGION_ELEMENTS = 131072  # 1 MiB of float64
MIN_REGION_WORK = 1 << 20     # elements × ops
MIN_REGION_OPS = 2            # a lone op gains no locality
_LANES = 64                   # slice starts are multiples of this many elements
# Ops that move more memory than they compute: a region made only of these is bound by
# memory bandwidth, which the cores share, so slicing it across threads gains nothing and
# its fresh outputs cost more than the serial in-place calls (the 1000×1000 float32
# `s + (s @ y) * x` ran 1.15× eager chunked, 1.04× serial).
MEMORY_BOUND = frozenset({
    np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute, np.maximum,
    np.minimum, np.fmax, np.fmin, np.equal, np.not_equal, np.less, np.less_equal,
    np.greater, np.greater_equal, np.logical_and, np.logical_or, np.logical_not,
    np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert,
})


def run_chunked(region: Callable, n_rows: int, rows: int, inputs: tuple, out_specs: tuple):
    """Allocate the region's outputs and fill them slice by slice (see the module doc)."""
    outs = tuple(np.empty(shape, dtype) for shape, dtype in out_specs)
    if not schedule.parallel_enabled() or not all(
            x.flags.c_contiguous for x in inputs if isinstance(x, np.ndarray) and x.ndim):
        region(slice(None), *inputs, *outs)
        return outs
    slices = [slice(i, min(i + rows, n_rows)) for i in range(0, n_rows, rows)]
    parts = max(1, min(len(slices), schedule.WORKERS + 1))
    per = math.ceil(len(slices) / parts)
    groups = [slices[i:i + per] for i in range(0, len(slices), per)]
    errors: list = []

    def work(group):
        with np.errstate(all="call", call=lambda kind, flag: errors.append(kind)):
            for s in group:
                region(s, *inputs, *outs)

    helpers = [(schedule.submit(work, g), g) for g in groups[1:]]  # in a copy of this context
    failed = False
    try:
        work(groups[0])
    except Exception:  # noqa: BLE001 - e.g. an integer to a negative power: see below
        failed = True
    for f, group in helpers:  # every slice has finished before the outputs are used
        if f.cancel():
            # not started: its worker is busy with another job (or is this very thread,
            # when a pool worker runs the graph), so this thread does that share
            if not failed:
                try:
                    work(group)
                except Exception:  # noqa: BLE001
                    failed = True
            continue
        try:
            f.result()
        except Exception:  # noqa: BLE001
            failed = True
    if failed or errors and any(mode != "ignore" for mode in np.geterr().values()):
        # eager's warnings and exceptions, op by op, in eager's order (slices may have
        # met different errors in a different order)
        region(slice(None), *inputs, *outs)
    return outs


def _elementwise(node: Node, shape: tuple) -> bool:
    """A one-output ufunc node (or compiled elementwise kernel), no keywords, whose array
    operands all have `shape`."""
    k = node.op.kernel
    ufunc = isinstance(k, np.ufunc) and k.signature is None and k.nout == 1
    if not (ufunc or node.op.fused) or node.attrs or len(node.outputs) != 1 \
            or node.op.format is not None:
        return False
    out = node.outputs[0]
    if tuple(out.static_shape) != shape or out.dtype.kind not in "biuf":
        return False
    for x in node.inputs:
        if isinstance(x, Tensor):
            if tuple(x.static_shape) != shape and x.ndim != 0:
                return False
            if x.dtype.kind not in "biuf":
                return False
        elif isinstance(x, np.ndarray):
            if x.shape != shape and x.ndim != 0 or x.dtype.kind not in "biuf":
                return False
        elif not isinstance(x, (bool, int, float, complex, np.generic)):
            return False
    return True


def _rows_per_chunk(shape: tuple) -> int | None:
    """Rows (along axis 0) per slice: ~CHUNK_ELEMENTS, each slice a multiple of _LANES
    elements; None when the array has too few rows to split."""
    row = math.prod(shape[1:])
    if row == 0:
        return None
    step = _LANES // math.gcd(row, _LANES)  # rows whose elements are a multiple of _LANES
    rows = max(step, (CHUNK_ELEMENTS // row) // step * step)
    return rows if shape[0] >= 2 * rows else None


def find_regions(nodes: list[Node]) -> dict[int, int]:
    """{first index: end index (exclusive)} of the runs of elementwise nodes worth chunking."""
    regions: dict[int, int] = {}
    k = 0
    while k < len(nodes):
        out = nodes[k].outputs[0] if len(nodes[k].outputs) == 1 else None
        shape = tuple(out.static_shape) if out is not None and out.ndim >= 1 else None
        if shape is None or None in shape or math.prod(shape) < MIN_REGION_ELEMENTS \
                or _rows_per_chunk(shape) is None or not _elementwise(nodes[k], shape):
            k += 1
            continue
        end = k + 1
        while end < len(nodes) and _elementwise(nodes[end], shape):
            end += 1
        ops = [f for n in nodes[k:end] for f in (n.op.fused or (n.op.kernel,))]
        if len(ops) >= MIN_REGION_OPS and len(ops) * math.prod(shape) >= MIN_REGION_WORK \
                and not all(f in MEMORY_BOUND for f in ops):
            regions[k] = end
        k = end
    return regions


def emit_region(gen, nodes: list[Node], start: int, end: int, indent: int, plan) -> None:
    """Emit `nodes[start:end]` as a module-level slice function (in `gen.extra`) and one
    `ag_chunked` call; values read after the region become its outputs."""
    region = nodes[start:end]
    shape = tuple(region[0].outputs[0].static_shape)
    inside = {id(n.outputs[0]) for n in region}
    last_inside: dict[int, int] = {}
    inputs: dict[int, Tensor] = {}
    for k, node in enumerate(region):
        for x in node.inputs:
            if isinstance(x, Tensor):
                last_inside[id(x)] = k
                if id(x) not in inside:
                    inputs.setdefault(id(x), x)
    outs = [n.outputs[0] for n in region if plan.last_use.get(id(n.outputs[0]), -1) >= end]
    # local names by position (`_a0`, `_o0`, `_t0`), reserved so that no global takes
    # them: regions that compute the same thing get the same text and share one function
    params = {i: _local(gen, f"_a{n}") for n, i in enumerate(inputs)}
    out_params = [_local(gen, f"_o{n}") for n in range(len(outs))]
    sl = _local(gen, "_s")  # the slice
    local: dict[int, str] = {}  # id(value) -> its expression inside the slice function
    for i, x in inputs.items():
        local[i] = f"{params[i]}[{sl}]" if x.ndim else params[i]
    for o, p in zip(outs, out_params):
        local[id(o)] = f"{p}[{sl}]"
    temps: set[str] = set()
    body = []
    for k, node in enumerate(region):
        args = []
        for x in node.inputs:
            if isinstance(x, Tensor):
                args.append(local[id(x)])
            elif isinstance(x, np.ndarray) and x.ndim:
                args.append(f"{gen.const(x)}[{sl}]")
            else:
                args.append(gen.lit(x))
        out = node.outputs[0]
        call = f"{gen.kernel_ref(node)}({', '.join(args)}"
        if id(out) in local:  # a region output: straight into its slice
            body.append((f"{call}, out={local[id(out)]})", node))
            continue
        dying = None if node.op.fused else next(  # (a kernel never writes over an operand)
            (local[id(x)] for x in node.inputs if isinstance(x, Tensor)
             and local.get(id(x)) in temps and last_inside[id(x)] == k
             and x.dtype == out.dtype), None)
        if dying is not None:  # a temporary that dies here takes the result
            body.append((f"{call}, out={dying})", node))
            local[id(out)] = dying
        else:
            local[id(out)] = _local(gen, f"_t{len(temps)}")
            temps.add(local[id(out)])
            body.append((f"{local[id(out)]} = {call})", node))
    key = (", ".join([*params.values(), *out_params]),) + tuple(text for text, _ in body)
    fname = gen.regions.get(key)
    if fname is None:
        fname = gen.regions[key] = gen.fresh("region")
        gen.extra.append((0, f"def {fname}({sl}, {key[0]}):", None))
        gen.extra.extend((1, text, node) for text, node in body)
    # names in the caller: results take free names; values living only in the slices
    # have none (the buffer plan skips names that are not identifiers)
    names = []
    for o in outs:
        names.append(plan.take_name() or gen.fresh(o.name))
        gen.names[o] = names[-1]
    for node in region:
        gen.names.setdefault(node.outputs[0], "(slice)")
    spec = tuple((shape, o.dtype) for o in outs)
    specs = gen.regions.get(spec) or gen.regions.setdefault(spec, gen.const(spec, "specs"))
    ins = ", ".join(gen.expr(x) for x in inputs.values())
    rows = _rows_per_chunk(shape)
    gen.emit(indent, f"{', '.join(names)}, = {gen.const(run_chunked, 'ag_chunked')}({fname}, "
                     f"{shape[0]}, {rows}, ({ins}{',' if len(inputs) == 1 else ''}), {specs})",
             region[-1])
    for k in range(start, end):
        plan.release(nodes[k], k, gen.names)


def _local(gen, name: str) -> str:
    """A slice function's local name; a global of the same name would be shadowed."""
    if name in gen.globals:
        raise AssertionError(f"generated global {name!r} would be shadowed")  # fresh() avoids it
    gen._used.add(name)
    return name
