"""The executor's buffer plan: last uses within one graph body, names to recycle, buffers to
write into, and which values may be updated in place or spelled inline.

    v1 = np_dot(x, c)
    np_add(v1, c_2, v1)               # v1 dies here: its buffer (and name) take the result
    np_tanh(v1, v1)                   # (a ufunc's argument after its inputs is `out`)
    v2 = np_dot(v1, c_3)              # v1 dies here: its buffer becomes spare
    np_add(v2, c_4, v2)
    v1 = np_dot(v2, c_5, v1)          # a spare buffer of the right shape takes the result

Used by `codegen.CodeGen`; the rules only read the graph.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.exec.spelling import is_float_2d_matmul
from runtime.core.tensor import Tensor
from runtime.ops.ufuncs import PYTHON_NUMBER


def copies_then_sets(node: Node) -> bool:
    """An element write (`index_update`, mode 'set') into an array it must copy first
    (spelled as the copy and the write, not a call of the op's kernel)."""
    if node.op.emit_in_place is None or node.attrs.get("mode") != "set" or not node.outputs:
        return False
    x = node.inputs[0]
    return (isinstance(x, Tensor) or isinstance(x, np.ndarray)) and x.ndim >= 1 \
        and node.outputs[0].ndim >= 1


def _owns_result(node: Node) -> bool:
    """Ops whose result is a new array that nothing else refers to."""
    k = node.op.kernel
    if isinstance(k, np.ufunc):
        return k.nout == 1 and node.outputs[0].ndim > 0
    return node.op.fresh_result


def updated_in_place(body: Graph, n_carried: int) -> set:
    """Loop variables whose only use in the body is as the array of an index update."""
    users: dict[int, list] = {}
    for node in body.nodes:
        for x in node.inputs:
            if isinstance(x, Tensor):
                users.setdefault(id(x), []).append(node)
    outputs = {id(x) for x in body.outputs if isinstance(x, Tensor)}
    position = {id(node): k for k, node in enumerate(body.nodes)}
    owned = set()
    for ph in body.inputs[:n_carried]:
        use = users.get(id(ph), [])
        if not use:
            continue
        update = use[-1]  # element reads before it (`d[i - 1, j]`) copy what they read
        if (all(_reads_element(u) and position[id(u)] < position[id(update)]
                for u in use[:-1])
                and update.op.emit_in_place is not None and update.inputs[0] is ph
                and ph.ndim > 0 and id(ph) not in outputs
                and sum(x is ph for x in update.inputs) == 1):
            owned.add(id(ph))
    return owned


def _reads_element(node: Node) -> bool:
    """A scalar copy of one element (`x[i, j]`): NumPy makes it no view of `x`."""
    return node.op.reads_element is not None and node.op.reads_element(node)


def _is_elementwise(node: Node) -> bool:
    k = node.op.kernel
    return isinstance(k, np.ufunc) and k.signature is None and k.nout == 1 and not node.attrs


def _fresh_array(node: Node) -> bool:
    """Outputs that are new arrays owned by nobody else (not views, not aliases)."""
    k = node.op.kernel
    return isinstance(k, np.ufunc) and k.nout == 1 and not node.attrs or (
        node.op.fresh_result and len(node.outputs) == 1)


def _same_size(x: Tensor, out: Tensor, node: Node) -> bool:
    """Whether `x` provably has the shape of `out` when the graph runs: equal known shapes,
    or (with unknown dims) every other operand 0-d, so nothing broadcasts `x` larger."""
    if x.static_shape != out.static_shape:
        return False
    return None not in out.static_shape or all(
        y is x or np.ndim(y) == 0 if not isinstance(y, Tensor) else y is x or y.ndim == 0
        for y in node.inputs)


# non-ufunc ops that cannot raise on 0-d values (a number's Python form, a selection)
_CANNOT_RAISE_ON_SCALARS = (PYTHON_NUMBER.kernel, np.where)


class BufferPlan:
    """Last uses within one graph body: names to recycle and buffers to write into.

    A value produced in this body dies at its last use here; its variable name is then
    reused for a later output (so the array is freed as early as in eager NumPy), and
    an elementwise op whose input dies at that op writes its result into that input's
    buffer with `out=` when shape and dtype match and nothing else can see the buffer.
    A buffer that died earlier and nothing else can see stays *spare* until its name is
    reused: a later elementwise op or 2-D float matmul of the same shape and dtype writes
    into it instead of allocating (a matmul only into one known to be C-contiguous, as
    `np.dot`/`np.matmul` need for bitwise the result a fresh one would hold).
    """

    def __init__(self, nodes: list[Node], outputs: list, owned: set = frozenset(),
                 keep_layouts: bool = False, zones: list | None = None):
        self.owned = owned
        # the silenced run of each node, or None (quiet_groups.py): a node is spelled
        # inside another only in the same one, so each runs under its own errstate
        self.zones = zones or [None] * len(nodes)
        self.keep_layouts = keep_layouts  # no `out=` into other buffers (reads_memory_order)
        self.last_use: dict[int, int] = {}
        self.uses: dict[int, int] = {}
        self.only_ufunc_users: dict[int, bool] = {}
        self.produced: dict[int, Node] = {}
        self.position: dict[int, int] = {}  # id(value) -> index of the node producing it
        self.element_reads: dict[int, int] = {}  # uses that copy one element (`x[i]`)
        self.viewless_users: dict[int, bool] = {}  # read only by ufuncs and element writes
        for k, node in enumerate(nodes):
            for o in node.outputs:
                self.produced[id(o)] = node
                self.position[id(o)] = k
            reads = _reads_element(node)
            for x in node.inputs:
                if isinstance(x, Tensor):
                    self.last_use[id(x)] = k
                    self.uses[id(x)] = self.uses.get(id(x), 0) + 1
                    if reads and x is node.inputs[0]:
                        self.element_reads[id(x)] = self.element_reads.get(id(x), 0) + 1
                    ok = self.only_ufunc_users.get(id(x), True)
                    self.only_ufunc_users[id(x)] = ok = ok and (  # users that keep no view
                        isinstance(node.op.kernel, np.ufunc) or bool(node.op.fused)
                        or is_float_2d_matmul(node))
                    # (an element write copies its value, and its array when not in place)
                    self.viewless_users[id(x)] = self.viewless_users.get(id(x), True) and (
                        ok or node.op.emit_in_place is not None)
        for x in outputs:
            if isinstance(x, Tensor):
                self.last_use[id(x)] = len(nodes)
                self.uses[id(x)] = self.uses.get(id(x), 0) + 1
        self.results = {id(x) for x in outputs if isinstance(x, Tensor)}
        # id(value) -> id(argument written into) whose buffer holds the value: an
        # intermediate computed into that buffer (`_written_argument`)
        self.home: dict[int, int] = {}
        self.free: list[str] = []
        self.held_names: set[str] = set()  # names a value takes but never frees (`_free`)
        self.spare: dict[str, tuple] = {}  # name in `free` -> (shape, dtype, C-contiguous)
        self._taken: tuple = (None, None)  # the last name take_name gave, its spare entry
        self.contiguous: set[int] = set()  # ids of values known to be C-contiguous arrays
        self.nodes = nodes
        self.is_subgraph = False
        self.held: dict[int, list] = {}  # join index -> inputs of a node running meanwhile

    def can_inline(self, node: Node, k: int) -> bool:
        """A pure, single-output node used exactly once, by the next node (or the
        body's result when it is the last node)."""
        if len(node.outputs) != 1 or node.op.stateful or node.op.effect or node.subgraphs():
            return False
        if not isinstance(node.op.kernel, np.ufunc) and not (
                node.op.kernel in _CANNOT_RAISE_ON_SCALARS and node.outputs[0].ndim == 0):
            return False  # ops that may raise keep a line of their own (error notes name it)
        out = node.outputs[0]
        if self.uses.get(id(out)) != 1 or self.last_use.get(id(out)) != k + 1:
            return False
        if self.zones[k] != (self.zones[k + 1] if k + 1 < len(self.nodes) else None):
            return False
        if k + 1 < len(self.nodes):
            nxt = self.nodes[k + 1]
            if self.reusable_input(nxt, k + 1) is out or (
                    self.updatable_in_place(nxt, k + 1) and nxt.inputs[0] is out):
                return False  # the next op writes into this buffer: it needs a name
            if nxt.op.once_inputs is not None:  # control flow: only into an input it
                # evaluates once (a value read inside a subgraph would be re-evaluated)
                return any(x is out for x in nxt.op.once_inputs(nxt))
            return True
        return len(self.nodes) > 0 and self.is_subgraph

    def reusable_input(self, node: Node, k: int):
        if self.keep_layouts or not _is_elementwise(node) or len(node.outputs) != 1:
            return None
        out = node.outputs[0]
        if out.ndim == 0:
            return None
        dying = [x for x in node.inputs
                 if isinstance(x, Tensor) and self.last_use.get(id(x)) == k
                 and (self._written_argument(x) or
                      id(x) in self.produced and _fresh_array(self.produced[id(x)]))
                 and self.only_ufunc_users.get(id(x)) and _same_size(x, out, node)
                 and x.dtype == out.dtype]
        dying = [x for x in dying if self._may_hold(x, out)]
        for x in dying:  # the argument's final value goes into the argument, as in NumPy
            if id(x) in self.owned:
                return self._housed(x, out)
        # the most recently written one: its lines are likeliest to sit in this core's
        # cache alone. Writing over an operand that BLAS's threads just read from both
        # cores costs more: `s = s + (s @ y) * x` at 256×256 float32 ran 1.07× eager with
        # the sum written over `s`, 0.97× with it written over the product.
        chosen = max(dying, key=lambda x: self.position.get(id(x), -1), default=None)
        return None if chosen is None else self._housed(chosen, out)

    def _home_of(self, x: Tensor) -> int | None:
        """id of the argument written into whose buffer holds `x`, or None."""
        return id(x) if self._written_argument(x) else self.home.get(id(x))

    def _may_hold(self, x: Tensor, out: Tensor) -> bool:
        """Whether `out` may be computed into `x`'s buffer. In an argument's buffer (the
        argument's final value is copied there after the call when not computed there)
        only that final value, or an intermediate that is no result and that only ufuncs
        and element writes read (their results are new arrays, or go into a buffer
        checked again here)."""
        home = self._home_of(x)
        return home is None or self.owned.get(home) is out or (
            id(out) not in self.results and self.viewless_users.get(id(out), True))

    def _housed(self, x: Tensor, out: Tensor) -> Tensor:
        home = self._home_of(x)
        if home is not None:
            self.home[id(out)] = home
        return x

    def _written_argument(self, x: Tensor) -> bool:
        """`x` is an argument the function writes into (`owned` maps such an input's id
        to its final value): its buffer takes its final value in the end, so a value
        computed from it where it dies goes into it, as `np.minimum(x, 1, out=x)` does
        in NumPy, and its final value then needs no copy."""
        return isinstance(self.owned, dict) and id(x) in self.owned

    def updatable_in_place(self, node: Node, k: int) -> bool:
        """An index update whose array is used only here (or also by element reads before
        it, which copy what they read) and owned by this body: a fresh result of an
        earlier op here, or a loop variable copied on loop entry."""
        if node.op.emit_in_place is None:
            return False
        x = node.inputs[0]
        if not isinstance(x, Tensor) or x.ndim == 0 or self.last_use.get(id(x)) != k or \
                self.uses.get(id(x)) - self.element_reads.get(id(x), 0) != 1 or \
                sum(y is x for y in node.inputs) != 1:
            return False
        if id(x) in self.owned:
            return self._may_hold(x, node.outputs[0]) and self._housed(x, node.outputs[0]) is x
        producer = self.produced.get(id(x))
        return producer is not None and _owns_result(producer) and \
            self._may_hold(x, node.outputs[0]) and self._housed(x, node.outputs[0]) is x

    def take_name(self) -> str | None:
        """A variable name freed by a dead value, if any (preferring names whose buffers
        are not spare: rebinding a name frees its buffer)."""
        if not self.free:
            return None
        plain = [i for i, name in enumerate(self.free) if name not in self.spare]
        name = self.free.pop(plain[-1] if plain else -1)
        self._taken = (name, self.spare.pop(name, None))
        return name

    def untake(self, name: str) -> None:
        """Give back a name the node did not bind after all (its call was inlined into
        the next statement): still free, and still spare if it was."""
        self.free.append(name)
        taken, entry = self._taken
        if taken == name and entry is not None:
            self.spare[name] = entry

    def take_spare(self, node: Node) -> tuple[str, bool] | None:
        """(name, C-contiguous?) of a spare buffer `node` can write its result into."""
        out = node.outputs[0] if len(node.outputs) == 1 else None
        matmul = is_float_2d_matmul(node)
        if self.keep_layouts or out is None or out.ndim == 0 or None in out.static_shape or not (
                matmul or _is_elementwise(node) or node.op.fused):  # (jit kernels take `out=`)
            return None
        for name, (shape, dtype, contiguous) in reversed(self.spare.items()):
            if shape == out.static_shape and dtype == out.dtype and (contiguous or not matmul):
                del self.spare[name]
                self.free.remove(name)
                return name, contiguous
        return None

    def note_result(self, node: Node, into=None, contiguous: bool = False) -> None:
        """Record the layout of `node`'s result: written into a buffer whose contiguity is
        `contiguous` (`into` is that buffer's value, for `out=` into a dying input), or
        freshly allocated."""
        if into is not None:
            contiguous = id(into) in self.contiguous
        elif is_float_2d_matmul(node):
            contiguous = True  # np.dot and np.matmul allocate C-contiguous results
        if contiguous:
            self.contiguous.add(id(node.outputs[0]))

    def release(self, node: Node, k: int, names: dict, keep=None) -> None:
        """Free the names of inputs that die at node `k`; `keep`: an input whose name and
        buffer live on as the node's result (an update in place, `out=`)."""
        for x in node.inputs:
            if x is keep:
                continue
            if isinstance(x, Tensor) and id(x) in self.produced and self.last_use.get(id(x)) == k:
                self._free(x, names)

    def hold(self, node: Node, k: int, until: int) -> None:
        """Node `k` runs on another thread until node `until` joins it: its inputs keep
        their names and buffers (no `out=` into them, no reuse) until then."""
        for x in node.inputs:
            if isinstance(x, Tensor) and id(x) in self.produced and self.last_use.get(id(x), -1) < until:
                self.last_use[id(x)] = until
                self.held.setdefault(until, []).append(x)

    def release_held(self, until: int, names: dict) -> None:
        """At the join before node `until`: free held inputs that no later node reads."""
        nxt = self.nodes[until].inputs if until < len(self.nodes) else ()
        for x in self.held.pop(until, ()):
            if all(y is not x for y in nxt) and self.last_use.get(id(x)) == until:
                self.last_use[id(x)] = until - 1  # died at the join, as if read there
                self._free(x, names)

    def _free(self, x: Tensor, names: dict) -> None:
        name = names[x]
        if name.isidentifier() and name not in self.free and name not in self.held_names:
            self.free.append(name)
            if self._may_be_spare(x):
                self.spare[name] = (x.static_shape, x.dtype, id(x) in self.contiguous)

    def _may_be_spare(self, x: Tensor) -> bool:
        """Its buffer is private: a fresh array that only ufuncs read (no view, no alias)."""
        producer = self.produced[id(x)]
        return id(x) not in self.home and x.ndim > 0 and None not in x.static_shape and bool(self.only_ufunc_users.get(id(x))) \
            and (_fresh_array(producer) or is_float_2d_matmul(producer))
