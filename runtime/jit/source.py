"""Numba source for one region: readable Python that `numba.njit` compiles.

A scalar region becomes a function of its inputs returning `(outputs..., bad)`,
with `if`/`while` statements for `cond`/`while_loop` nodes; the first guard that
fires returns at once with `bad = True` (the caller then reruns the region on NumPy).
Arrays it carries are written in place where the emitter *owns* the buffer (a copy it
made, or a loop's own state) and nothing reads the old value afterwards; a loop copies
an array once on entry, and a branch or loop result that would share a buffer with
another is copied, so no two live names ever alias one buffer that gets written.

An array region becomes a kernel: one loop over flattened operands that writes the
given output arrays (any slice of the whole: the executor runs large ones in
cache-sized slices across the cores, exec/chunks.py) and returns nonzero when NumPy
would have warned. Float guards are not tested per element: the loop clears the
IEEE exception flags, runs branch-free (so the compiler vectorizes it), and returns the
flags NumPy reports (invalid, divide by zero, overflow, underflow). These are the flags
NumPy's own loops raise for the same IEEE operations; a flag raised where NumPy's loop
would not (a comparison of a NaN) only sends the slice to NumPy. Integer guards
(division by zero) stay per element. Where this platform's flag values are not known,
the float guards are tested per element too.

    def region_1(t_n):
        t_v17_loop, t_v18_loop = t_n, np.int64(0)
        while True:
            t_v16 = t_v17_loop != np.int64(1)
            ...

    def chain_region1(t_x, t_v2_out):
        fe_clear(61)
        bad = 0
        for i in range(t_v2_out.size):
            t_x_i = t_x[i]
            t_v1 = np.float64(t_x_i * np.float64(2.0))
            t_v2 = np.float64(t_v1 + np.float64(1.0))
            t_v2_out[i] = t_v2
        return bad + fe_test(29)
"""
from __future__ import annotations

import re

import numpy as np

from runtime.core.liveness import live_nodes
from runtime.core.graph import Graph, Node
from runtime.jit.array_ops import is_array_op, lower_array_op
from runtime.jit.element_ops import is_element_op, lower_element, writes_input
from runtime.jit.int_ranges import NO_BOUNDS, Bounds, bound_integers
from runtime.jit.numpy_loops import numpy_loop_node
from runtime.jit.ops import cast, control_kind, dtype_of, fe_flags, literal, lower_node
from runtime.jit.regions import Region
from runtime.core.tensor import Tensor


class _Emitter:
    def __init__(self, scalar: bool, flags: int | None = None, bounds: Bounds = NO_BOUNDS):
        self.scalar = scalar
        # the integer intervals of a scalar region (int_ranges.py): the guards and index
        # checks they prove needless are not emitted
        self.bounds = bounds
        # the IEEE flags NumPy reports, when float guards are left to them (array kernels,
        # and scalar regions holding whole-array ops: tested per loop iteration and at
        # the end), else None
        self.flags = flags
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.bail = "return True"
        self.guard_lines: list[str] = []
        # scalar regions: how many value guards were folded into `deferred` so far
        self.deferred = 0
        # ids of the array values whose buffer nothing else holds: written in place when
        # nothing reads them afterwards (by value: a name may stand for several values)
        self.owned: set[int] = set()
        # checks already passed on every path to the current line (each name holds one
        # value in its scope): `d[i - 1, j]` then `d[i - 1, j - 1]` test `i - 1` once
        self.passed: set[str] = set()

    def fresh(self, base: str) -> str:
        base = "t_" + re.sub(r"\W", "_", base)
        name, k = base, 1
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name

    def ref(self, x) -> str | None:
        return self.names[id(x)] if isinstance(x, Tensor) else None

    def value(self, x, dtype: np.dtype) -> str:
        """An operand as an expression of `dtype` (Tensors are already of their dtype)."""
        if isinstance(x, Tensor):
            return cast(self.names[id(x)], x.dtype, dtype)
        if isinstance(x, np.ndarray) and x.ndim > 0:
            return self.names[id(x)]  # a constant array: a parameter of the region
        text = literal(x, dtype)
        if text is None:  # the region is then not compiled (reported, stays NumPy)
            raise ValueError(f"the constant {x!r} does not convert quietly to {dtype}")
        return text

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    # -- nodes ----------------------------------------------------------------------
    def body(self, nodes: list[Node], indent: int, outputs=()) -> None:
        last = _last_uses(nodes, outputs)
        for p, node in enumerate(nodes):
            kind = control_kind(node.op)
            if kind == "cond":
                self._cond(node, indent, p, last)
            elif kind == "while":
                self._while(node, indent, p, last)
            else:
                self._op(node, indent, p, last)

    def _sole(self, x, p: int, last: dict, node: Node) -> bool:
        """Whether node `p` may take `x`'s buffer: owned, dead after it, passed once."""
        return isinstance(x, Tensor) and id(x) in self.owned \
            and last.get(id(x)) == p and sum(y is x for y in node.inputs) == 1

    def _op(self, node: Node, indent: int, p: int = 0, last: dict | None = None) -> None:
        out = self.fresh(node.outputs[0].name)
        if is_element_op(node.op):
            in_place = writes_input(node.op) and self._sole(
                node.inputs[0], p, last or {}, node)
            low = lower_element(node, self.names, out, in_place, self.bounds)
            if node.outputs[0].ndim:
                self.owned.add(id(node.outputs[0]))  # a copy, or a dead owner's buffer
        elif self.scalar and is_array_op(node):  # loops over a small array (array_ops.py)
            low = lower_array_op(node, self.names, out, self.bail, self.flags is not None)
            if node.outputs[0].ndim:
                self.owned.add(id(node.outputs[0]))  # a fresh array
            if low is not None and low.defers:
                self.deferred += 1
        else:
            low = lower_node(node, [self.ref(x) for x in node.inputs], out, self.scalar,
                             self.bounds)
        assert low is not None, node  # the partition only admits lowerable nodes
        origin = f"  # {node.origin.filename.rsplit('/', 1)[-1]}:{node.origin.lineno}" \
            if node.origin is not None else ""
        checks = [c for c in low.checks if c not in self.passed]
        self.passed.update(checks)
        if checks:  # before the lines: an index is tested before memory is touched
            self.emit(indent, f"if {' or '.join(checks)}:")
            self.emit(indent + 1, self.bail)
        for k, line in enumerate(low.lines):
            self.emit(indent, line + (origin if k == len(low.lines) - 1 else ""))
        self.names[id(node.outputs[0])] = low.result or out
        if low.guards and not (low.ieee and self.flags is not None):
            test = " or ".join(low.guards)
            if self.scalar:  # tested once per loop iteration (see `_bail_if_deferred`)
                self.emit(indent, f"deferred = deferred | ({test})")
                self.deferred += 1
            else:
                self.emit(indent, f"if {test}:")
                self.emit(indent + 1, "bad += 1")

    def _bail_if_deferred(self, indent: int) -> None:
        self.emit(indent, "if deferred:")
        self.emit(indent + 1, self.bail)

    def _bind(self, sub: Graph, exprs: list[str], indent: int, owned=()) -> None:
        for k, (ph, e) in enumerate(zip(sub.inputs, exprs)):
            if e.isidentifier():  # a variable: read it directly (numba counts references
                self.names[id(ph)] = e  # of every array variable an assignment makes)
            else:
                name = self.fresh(ph.name)
                self.emit(indent, f"{name} = {e}")
                self.names[id(ph)] = name
            if k in owned:
                self.owned.add(id(ph))

    def _results(self, sub: Graph, outs: list[Tensor]) -> list[str]:
        """The subgraph's results, an array copied unless its buffer is its alone (so the
        carried or joined arrays never share memory, and are all writable)."""
        results, taken = [], set()
        for x, o in zip(sub.outputs, outs):
            text = self.value(x, o.dtype)
            if o.ndim:
                if id(x) not in self.owned or id(x) in taken:
                    text += ".copy()"
                taken.add(id(x))
            results.append(text)
        return results

    def _cond(self, node: Node, indent: int, p: int = 0, last: dict | None = None) -> None:
        pred, *rest = node.inputs
        outs = [self.fresh(o.name) for o in node.outputs]
        ins = [self.value(x, dtype_of(x) or np.dtype(type(x))) for x in rest]
        # a branch may write into an input array this node is the last to read
        owned = {k for k, x in enumerate(rest) if self._sole(x, p, last or {}, node)}
        self.emit(indent, f"if {self.value(pred, dtype_of(pred) or np.dtype(bool))}:")
        passed = set(self.passed)
        for i, sub in enumerate((node.attrs["then"], node.attrs["else_"])):
            if i == 1:
                self.emit(indent, "else:")
            self.passed = set(passed)  # a branch's checks hold in that branch only
            self._bind(sub, ins, indent + 1, owned)
            self.body(live_nodes(sub), indent + 1, sub.outputs)
            results = self._results(sub, node.outputs)
            self.emit(indent + 1, f"{', '.join(outs)} = {', '.join(results)}" if outs else "pass")
        self.passed = passed
        for o, name in zip(node.outputs, outs):
            self.names[id(o)] = name
            if o.ndim:
                self.owned.add(id(o))

    def _while(self, node: Node, indent: int, p: int = 0, last: dict | None = None) -> None:
        g_cond, g_body = node.attrs["cond"], node.attrs["body"]
        n = len(node.outputs)
        ins = list(node.inputs)
        init, caps = ins[:n], ins[n:len(ins) - (1 if node.attrs["has_max"] else 0)]
        carried = [self.fresh(o.name + "_loop") for o in node.outputs]
        cap_exprs = [self.value(x, dtype_of(x) or np.dtype(type(x))) for x in caps]
        if carried:
            values = []
            for x, o in zip(init, node.outputs):
                text = self.value(x, o.dtype)
                if o.ndim and not self._sole(x, p, last or {}, node):
                    text += ".copy()"  # the loop writes its arrays in place
                values.append(text)
            self.emit(indent, f"{', '.join(carried)} = {', '.join(values)}")
        counter = None
        if node.attrs["has_max"]:
            counter = self.fresh("iteration")
            self.emit(indent, f"{counter} = 0")
            limit = self.value(ins[-1], np.dtype(np.int64))
        guarded = self.deferred
        passed = set(self.passed)  # the body's checks hold in one iteration only
        self.emit(indent, "while True:")
        self._bind(g_cond, carried + cap_exprs, indent + 1)
        self.body(live_nodes(g_cond), indent + 1, g_cond.outputs)
        self.emit(indent + 1, f"if not {self.value(g_cond.outputs[0], np.dtype(bool))}:")
        self.emit(indent + 2, "break")
        if counter is not None:
            self.emit(indent + 1, f"if {counter} >= {limit}:")
            self.emit(indent + 2, "break")
            self.emit(indent + 1, f"{counter} += 1")
        self._bind(g_body, carried + cap_exprs, indent + 1, range(n))
        self.body(live_nodes(g_body), indent + 1, g_body.outputs)
        if self.deferred > guarded:  # a guard fired: no further iteration on its value
            self._bail_if_deferred(indent + 1)
        if self.flags is not None and self.scalar:  # (also ends a loop on NaN's path)
            self.emit(indent + 1, f"if fe_test({self.flags}) != 0:")
            self.emit(indent + 2, self.bail)
        if carried:
            results = self._results(g_body, node.outputs)
            self.emit(indent + 1, f"{', '.join(carried)} = {', '.join(results)}")
        self.passed = passed
        outs = [self.fresh(o.name) for o in node.outputs]
        if outs:
            self.emit(indent, f"{', '.join(outs)} = {', '.join(carried)}")
        for o, name in zip(node.outputs, outs):
            self.names[id(o)] = name
            if o.ndim:
                self.owned.add(id(o))


def _last_uses(nodes: list[Node], outputs) -> dict[int, int]:
    """For each value the nodes read: the position of the last node reading it
    (len(nodes) when the body returns it)."""
    last: dict[int, int] = {}
    for p, node in enumerate(nodes):
        for x in node.inputs:
            if isinstance(x, Tensor):
                last[id(x)] = p
    for x in outputs:
        if isinstance(x, Tensor):
            last[id(x)] = len(nodes)
    return last


def _zero(t: Tensor) -> str:
    """A placeholder result of `t`'s type, returned with `bad` (then discarded)."""
    if t.ndim:
        return f"np.zeros({tuple(d or 0 for d in t.static_shape)!r}, np.{t.dtype.name})"
    return f"np.{t.dtype.name}(0)" if t.dtype.kind != "b" else "False"


def _holds_array_ops(nodes) -> bool:
    return any(is_array_op(n) and not is_element_op(n.op) or
               any(_holds_array_ops(s.nodes) for s in n.subgraphs()) for n in nodes)


def scalar_source(region: Region, fname: str) -> str:
    flags = fe_flags() if _holds_array_ops(region.nodes) else None
    e = _Emitter(scalar=True, flags=None if flags is None else flags[1],
                 bounds=bound_integers(region.nodes, region.inputs))
    params = [e.fresh(x.name) for x in region.inputs]
    for x, p in zip(region.inputs, params):
        e.names[id(x)] = p
    for k, c in enumerate(region.constants):
        params.append(e.fresh(f"const{k}"))
        e.names[id(c)] = params[-1]
    zeros = [_zero(o) for o in region.outputs]
    e.bail = f"return ({''.join(z + ', ' for z in zeros)}True)"
    e.emit(0, f"def {fname}({', '.join(params)}):")
    e.emit(1, "deferred = False")
    if flags is not None:  # whole-array ops: their float guards are the IEEE flags
        e.emit(1, f"fe_clear({flags[0]})")
    e.body(region.nodes, 1, region.outputs)
    if e.deferred:
        e._bail_if_deferred(1)
    else:
        e.lines.pop(1)
    results = [e.names[id(o)] for o in region.outputs]
    bad = "False" if flags is None else f"fe_test({flags[1]}) != 0"
    e.emit(1, f"return ({''.join(r + ', ' for r in results)}{bad})")
    return "\n".join(e.lines) + "\n"


FE_DECLARATIONS = ('fe_clear = types.ExternalFunction("feclearexcept", types.intc(types.intc))\n'
                   'fe_test = types.ExternalFunction("fetestexcept", types.intc(types.intc))\n')


def array_source(region: Region, fname: str) -> str:
    """The kernel `fname(inputs..., outputs...)` of an array region (see the module doc)."""
    flags = fe_flags()
    if any(numpy_loop_node(n) for n in region.nodes):
        return _blocked_source(region, fname, flags)
    e = _Emitter(scalar=False, flags=None if flags is None else flags[1])
    params = [e.fresh(x.name) for x in region.inputs]
    outs = [e.fresh(o.name + "_out") for o in region.outputs]
    e.emit(0, f"def {fname}({', '.join(params + outs)}):")
    if flags is not None:
        e.emit(1, f"fe_clear({flags[0]})")
    e.emit(1, "bad = 0")
    e.emit(1, f"for i in range({outs[0]}.size):")
    for x, p in zip(region.inputs, params):
        if x.ndim == 0:
            e.names[id(x)] = p
        else:  # one load per element, then a local (an output may share an input's memory)
            name = e.fresh(x.name + "_i")
            e.emit(2, f"{name} = {p}[i]")
            e.names[id(x)] = name
    e.body(region.nodes, 2)
    for o, name in zip(region.outputs, outs):
        e.emit(2, f"{name}[i] = {e.names[id(o)]}")
    e.emit(1, f"return bad + fe_test({flags[1]})" if flags is not None else "return bad")
    return "\n".join(e.lines) + "\n"


# Elements per block of a kernel calling NumPy loops: a few buffers of it stay in the
# first-level cache (a multiple of 64, as the executor's slices)
BLOCK = 1024


def _blocked_source(region: Region, fname: str, flags: tuple) -> str:
    """An array kernel with NumPy loops among its ops (`fname(inputs..., outputs...,
    loops)`, `loops` holding the pointers of each loop call, numpy_loops.py): blocks of
    `BLOCK` elements, each a run of loops of the kernel's own ops and NumPy loop calls
    between them; values that cross from one run to another live in a block buffer.

        for b in range(0, n, 1024):
            m = min(1024, n - b)
            for j in range(m):                 # x * 2.0 + 1.0 into buffer 0
                ...
            bad |= fe_test(29)
            if numpy_loop(loops[0], loops[1], loops[2], m,  # tanh: buffer 0 -> 1
                          (b0.ctypes.data, b1.ctypes.data), (8, 8)) != 0:
                bad |= 1
            for j in range(m):                 # the rest, reading buffer 1
                ...
    """
    e = _Emitter(scalar=False, flags=flags[1])
    params = [e.fresh(x.name) for x in region.inputs]
    outs = [e.fresh(o.name + "_out") for o in region.outputs]
    pieces: list = [[]]  # runs of own nodes, with the NumPy loop nodes between them
    for node in region.nodes:
        if numpy_loop_node(node):
            pieces += [node, []]
        else:
            pieces[-1].append(node)
    made: dict[int, int] = {}  # id(value) -> the piece computing it (inputs: none)
    for k, piece in enumerate(pieces):
        for node in (piece if isinstance(piece, list) else [piece]):
            made[id(node.outputs[0])] = k
    read: dict[int, set] = {}  # id(value) -> the pieces reading it
    for k, piece in enumerate(pieces):
        for node in (piece if isinstance(piece, list) else [piece]):
            for x in node.inputs:
                if isinstance(x, Tensor):
                    read.setdefault(id(x), set()).add(k)
    values = {id(x): x for n in region.nodes for x in [*n.inputs, *n.outputs]
              if isinstance(x, Tensor)}
    outputs = {id(o): name for o, name in zip(region.outputs, outs)}
    def is_call(k: int) -> bool:
        return not isinstance(pieces[k], list)

    # block buffers: the operands and results of NumPy loops, and values read in a later
    # run than their own
    buffered = [i for i in values
                if i in made and (is_call(made[i]) or any(k != made[i] for k in read.get(i, ())))
                or i not in made and any(is_call(k) for k in read.get(i, ()))]
    for x, p in zip(region.inputs, params):
        e.names[id(x)] = e.fresh(x.name + "_i") if x.ndim else p
    buf = {i: e.fresh(values[i].name + "_buf") for i in buffered}
    e.emit(0, f"def {fname}({', '.join(params + outs)}, loops):")
    e.emit(1, f"fe_clear({flags[0]})")
    e.emit(1, "bad = 0")
    e.emit(1, f"n = {outs[0]}.size")
    for i in buffered:
        e.emit(1, f"{buf[i]} = np.empty({BLOCK}, np.{values[i].dtype.name})")
    calls = [p for p in pieces if not isinstance(p, list)]
    e.emit(1, f"for b in range(0, n, {BLOCK}):")
    e.emit(2, f"m = min({BLOCK}, n - b)")
    # the block's views, indexed from 0 by the runs' loop variable: indices known not
    # negative (`x[b + j]` costs a wraparound test per element and stops vectorizing)
    view = {}
    for x, p in zip(region.inputs, params):
        if x.ndim:
            view[id(x)] = e.fresh(x.name + "_blk")
            e.emit(2, f"{view[id(x)]} = {p}[b:b + m]")
    for i, o in outputs.items():
        view[i] = e.fresh(values[i].name + "_blk")
        e.emit(2, f"{view[i]} = {o}[b:b + m]")
    for k, piece in enumerate(pieces):
        if not isinstance(piece, list):
            c = calls.index(piece)
            e.emit(2, f"bad |= fe_test({flags[1]})  # NumPy's loop of `{piece.op.name}`")
            operands = [*piece.inputs, piece.outputs[0]]
            data = ", ".join(f"{buf[id(x)]}.ctypes.data" for x in operands)
            steps = ", ".join(str(x.dtype.itemsize) for x in operands)
            e.emit(2, f"if numpy_loop(loops[{3 * c}], loops[{3 * c + 1}], loops[{3 * c + 2}], "
                      f"m, ({data}), ({steps})) != 0:")
            e.emit(3, "bad |= 1")
            continue
        # stored here: values of this run read later, and inputs the next NumPy loop reads
        stores = [i for i in buffered if made.get(i) == k
                  or i not in made and k + 1 in read[i] and is_call(k + 1)]
        results = [i for i in outputs if made[i] == k
                   or k == len(pieces) - 1 and is_call(made[i])]
        loads = [i for i in values if made.get(i) != k and (
            k in read.get(i, ()) or i in stores or i in results)]
        if not piece and not stores and not results:
            continue
        e.emit(2, "for j in range(m):")
        for i in loads:
            x = values[i]
            if i not in made:  # an input of the kernel (0-d ones are its parameters)
                if x.ndim:
                    e.emit(3, f"{e.names[i]} = {view[i]}[j]")
            else:
                e.names[i] = e.fresh(x.name + "_b")
                e.emit(3, f"{e.names[i]} = {buf[i]}[j]")
        e.body(piece, 3)
        for i in stores:
            e.emit(3, f"{buf[i]}[j] = {e.names[i]}")
        for i in results:
            e.emit(3, f"{view[i]}[j] = {e.names[i]}")
    e.emit(1, f"return bad | fe_test({flags[1]})")
    return "\n".join(e.lines) + "\n"
