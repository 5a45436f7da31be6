"""The executor: lower a graph to Python source, one NumPy call per node, and exec it.

    def relu(x):
        v1 = np.greater(x, 0)                       # demo.py:5
        if v1:
            v2 = x
        else:
            v2 = np.multiply(x, 0.0)                # demo.py:8
        return v2

Control-flow nodes become real `if` / `while` statements with their subgraphs inlined
(spelled by their op's `emit` hook, control_emit.py);
constants that are not literals are bound as globals of the generated function. Only
live nodes are emitted (non-strict execution). The source is registered with
`linecache` for as long as the function lives (generated_source.py), so tracebacks show
it, and `line_origins` maps each generated line back to the node and the user's line
that created it.
"""
from __future__ import annotations

import functools
import gc
import itertools
import keyword
import math
import re
import warnings
from typing import Any

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.core.registry import _recording, recording_threads
from runtime.core.liveness import live_nodes
from runtime.exec.buffer_plan import BufferPlan, copies_then_sets
from runtime.exec.call_forms import bare as _bare, method_form, operator_form, \
    paren as _paren
from runtime.exec.generated_source import drop_source_with, register_source
from runtime.passes.memory_order import reads_memory_order
from runtime.exec.chunks import emit_region, find_regions
from runtime.exec.quiet_groups import close_group, open_group, plan_groups
from runtime.exec.scalar_forms import scalar_form
from runtime.exec.schedule import emit_offloaded, join_offloaded, plan_offloads
from runtime.exec.spelling import spell_as_dot
from runtime.core.tensor import Tensor
from runtime.core.tensor_map import TensorMap

_LITERAL_TYPES = (bool, int, str, type(None), bytes)
_compile_count = itertools.count(1)  # thread-safe in CPython: names stay unique
_MAX_INLINE_DEPTH = 6  # keeps generated expressions readable (and far from parser limits)


class CodeGen:
    def __init__(self):
        self.lines: list[str] = []
        self.globals: dict[str, Any] = {"np": np}
        self.names: TensorMap = TensorMap()  # Tensor -> its Python expression
        self.depth: TensorMap = TensorMap()  # nesting of inlined expressions
        self.line_origins: dict[int, Node] = {}
        self._const_ids: dict = {}
        self._used: set[str] = set()
        self.keep_layouts = False  # set for graphs that read memory order
        # ids of matmul nodes spelled a.dot(b) -> operands whose layout is checked first
        self.as_dot: dict[int, tuple] = {}
        self.parallel = False  # run expensive independent nodes on the pool (schedule.py)
        self.joins: dict = {}  # (id(plan), node index) -> offloaded results joined there
        self.extra: list = []  # (indent, line, node) of module-level helpers (chunks.py)
        self.regions: dict = {}  # slice-function text -> its name (chunks.py)
        self.quiet_inside = False  # emitting inside a silenced run (quiet_groups.py)
        # scalar_forms.py: id(0-d where / logical_not result) -> (its inputs, its call)
        self.selects: dict = {}
        self.negations: dict = {}
        self.emitting_plan: BufferPlan | None = None  # of the body being emitted
        # id(value) -> (lowest, highest) or None: loop counters held as Python ints
        self.python_ints: dict = {}
        self.result_names: dict = {}  # id(control-flow result) -> the name it must take
        self.aliases: dict = {}  # id(`int(i + s)` value) -> the `for` variable counting it
        # names a counting `for` binds (its counter, the element it iterates): nothing
        # else assigns them in its body, so a value equal to one is spelled by its name
        self.loop_names: set[str] = set()
        self.branch_tails: dict = {}  # id(cond node) -> {branch: emit(indent)} (loop tests)
        # the executor's GradientTape test (its second line) and the index of its return
        # line: a variant of it replaces both (state/writeback.py `direct_variant`)
        self.tape_test: str | None = None
        self.return_index: int | None = None

    # -- naming -----------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = re.sub(r"\W", "_", base) or "v"
        if base[0].isdigit() or keyword.iskeyword(base):
            base = "_" + base
        name, k = base, 1
        while name in self._used or name in self.globals:
            k += 1
            name = f"{base}_{k}"
        self._used.add(name)
        return name

    def const(self, value, hint="c") -> str:
        """A global name bound to `value` in the generated module (`hint`: the name to
        start from, or a function of the value giving it, called for new values only)."""
        # NumPy scalars are immutable: equal ones (same type and bits) share one global
        key = (type(value), value.tobytes()) if isinstance(value, np.generic) else id(value)
        if key not in self._const_ids:
            name = self.fresh(hint if type(hint) is str else hint(value))
            self.globals[name] = value
            self._const_ids[key] = name
        return self._const_ids[key]

    def lit(self, value) -> str:
        """Python source for a constant: a literal when safe, else a bound global."""
        t = type(value)
        if t in _LITERAL_TYPES:
            return repr(value)
        if t is float:
            if value != value:  # a NaN: its sign and payload are in its bits, not its repr
                return self.const(value, "nan")
            return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
        if t in (tuple, list):
            items = [self.lit(v) for v in value]
            if t is tuple:
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            return "[" + ", ".join(items) + "]"
        if t is slice:
            return f"slice({self.lit(value.start)}, {self.lit(value.stop)}, {self.lit(value.step)})"
        if value is Ellipsis:
            return "..."
        if isinstance(value, np.dtype):
            return f"np.dtype({str(value)!r})" if value.isbuiltin else self.const(value, "dtype")
        if isinstance(value, type) and issubclass(value, np.generic) and getattr(np, value.__name__, None) is value:
            return f"np.{value.__name__}"
        if isinstance(value, np.generic) or isinstance(value, np.ndarray) and value.ndim == 0:
            return self.const(value, _scalar_name)
        return self.const(value, "c")

    def kernel_ref(self, node: Node) -> str:
        """The name generated code calls for `node`'s kernel, bound as a global.

        NumPy kernels are bound as `np_<name>` (one global lookup instead of `np.<name>`);
        (a small 2-D float matmul of operands in a BLAS layout is spelled `a.dot(b)`
        instead, in `emit_node`: see spelling.py).
        """
        kernel, ref = node.op.kernel, node.op.kernel_ref
        if ref is None:
            return self.const(kernel, f"k_{node.op.name}")
        name = ref.replace(".", "_")
        if self.globals.setdefault(name, kernel) is not kernel:
            return ref
        return name

    def expr(self, x) -> str:
        return self.names[x] if isinstance(x, Tensor) else self.lit(x)

    def bare_expr(self, x) -> str:
        """`expr(x)` without the parentheses an operand would need (a whole right side)."""
        return _bare(self.expr(x))

    def result_expr(self, x) -> str:
        """A value that becomes a branch or loop result: constant arrays are copied, since
        what a call returns must not be shared with the next call."""
        if isinstance(x, np.ndarray):
            return f"{self.lit(x)}.copy()"
        return self.expr(x)

    def emit(self, indent: int, text: str, node: Node | None = None) -> None:
        text = "    " * indent + text
        if node is not None and node.origin is not None:
            text = f"{text:<52}  # {_short(node.origin.filename)}:{node.origin.lineno}"
        self.lines.append(text)
        if node is not None:
            self.line_origins[len(self.lines)] = node

    def map_inlined_line(self, tensors, exprs) -> None:
        """The line just emitted assigns results spelled inline (`v1 = x / d` ending a
        branch): map it to the node of the first such result, so that a warning or error
        of that line is shown at the user's line (generated_source.line_origin)."""
        line = len(self.lines)
        if line in self.line_origins:
            return
        for t, e in zip(tensors, exprs):
            node = getattr(t, "node", None) if isinstance(t, Tensor) else None
            if node is not None and node.origin is not None and not e.isidentifier():
                self.line_origins[line] = node
                return

    # -- graphs -----------------------------------------------------------------------
    def emit_graph_body(self, graph: Graph, indent: int, outputs=None,
                        owned: set | None = None) -> list[str]:
        """Emit the live nodes of `graph`; returns the expressions of its outputs.
        `owned`: ids of inputs this body may update in place (copied on loop entry)."""
        outputs = graph.outputs if outputs is None else outputs
        nodes = live_nodes(graph, outputs)
        offloads = plan_offloads(nodes, outputs) if self.parallel else {}
        regions = find_regions(nodes) if self.parallel and not self.keep_layouts else {}
        elsewhere = set(offloads).union(*(range(k, e) for k, e in regions.items()))
        nodes, zones = plan_groups(nodes, self.quiet_inside, elsewhere)
        plan = BufferPlan(nodes, outputs, owned or set(), self.keep_layouts, zones)
        plan.is_subgraph = graph.parent is not None
        skip, zone, base, token, start = 0, None, indent, "", 0
        for k, node in enumerate(nodes):
            if k < skip:
                continue
            if zones[k] != zone:  # a run of quiet ops: silenced once (quiet_groups.py)
                if zone is not None:
                    close_group(self, base, token, start)
                zone, indent = zones[k], base + (zones[k] is not None)
                if zone is not None:
                    token, start = open_group(self, base), len(self.lines) + 1
            for j in range(k, regions.get(k, k + 1)) if offloads else ():
                join_offloaded(self, indent, plan, j)
            if k in regions:
                emit_region(self, nodes, k, regions[k], indent, plan)
                skip = regions[k]
            elif k in offloads:
                emit_offloaded(self, node, indent, plan, k, offloads[k])
            elif zone is not None and node.subgraphs():  # quiet control flow, spelled inside
                self.quiet_inside, inside = True, self.quiet_inside
                self.emit_node(node, indent, plan, k)
                self.quiet_inside = inside
            else:
                self.emit_node(node, indent, plan, k)
        if zone is not None:
            close_group(self, base, token, start)
        if offloads:
            join_offloaded(self, base, plan, len(nodes))
        return [self.result_expr(x) for x in outputs]

    def emit_node(self, node: Node, indent: int, plan: "BufferPlan", k: int) -> None:
        """Emit node `k` of a body; `plan` knows the body's last uses and buffers."""
        self.emitting_plan = plan  # (what reads a value: scalar_forms, counted_loops)
        reuse = plan.reusable_input(node, k)
        spare = plan.take_spare(node) if reuse is None else None
        outs = []
        for o in node.outputs:
            fixed = self.result_names.pop(id(o), None) if node.op.emit is not None else None
            if fixed is not None:  # a branch assigns a loop's variable itself
                outs.append(fixed)
                self.names[o] = fixed
                continue
            # a result written into a buffer keeps that buffer's name
            name = self.names[reuse] if reuse is not None else spare[0] if spare \
                else plan.take_name()
            outs.append(name or self.fresh(o.name))
            self.names[o] = outs[-1]
        if plan.updatable_in_place(node, k):
            plan.free.extend(outs)  # the result keeps the updated array's name
            node.op.emit_in_place(self, node, indent)  # e.g. `x[i] = v` instead of a copy
            self.names[node.outputs[0]] = self.names[node.inputs[0]]
            return plan.release(node, k, self.names, keep=node.inputs[0])
        if node.op.emit_in_place is not None and reuse is None and spare is None \
                and copies_then_sets(node):
            # `y = x.copy('K'); y[i] = v`: what the kernel does, without its call
            source = node.inputs[0]
            # a name of its own: the value and index, read after the copy, may be spelled
            # with the names of values that die here (one of which the plan would give)
            plan.untake(outs[0])
            outs[0] = self.names[node.outputs[0]] = self.fresh(node.outputs[0].name)
            self.emit(indent, f"{outs[0]} = {_paren(self.expr(source))}.copy('K')", node)
            spelled, self.names[source] = self.names.get(source), outs[0]
            node.op.emit_in_place(self, node, indent)
            if spelled is None:
                self.names.pop(source)
            else:
                self.names[source] = spelled
            plan.note_result(node)
            return plan.release(node, k, self.names)
        if node.op.emit is not None:  # control flow: statements of its own
            return node.op.emit(self, node, outs, indent)
        ins = [self.expr(x) for x in node.inputs]
        checks = spell_as_dot(node, plan.produced)
        if checks is not None and all(self.names[x].isidentifier() for x in checks):
            self.as_dot[id(node)] = checks
        scalar = scalar_form(self, node, ins) if reuse is None and spare is None else None
        if scalar is not None:
            call = scalar
        elif node.op.format is not None:
            call = node.op.format(self, ins, node.attrs)
        else:
            args = ins + [f"{k}={self.lit(v)}" for k, v in node.attrs.items()]
            operator = (operator_form(node, ins, id(node) in self.as_dot)
                        or method_form(self, node, ins)) \
                if reuse is None and spare is None else None
            if operator is not None:
                call = operator
            elif id(node) in self.as_dot:  # the method: no __array_function__ dispatch
                into = self.names[reuse] if reuse is not None else spare[0] if spare else None
                call = f"{_paren(ins[0])}.dot({ins[1]}{'' if into is None else ', ' + into})"
                checks = self.as_dot[id(node)]
                if checks:  # an argument in a BLAS layout (checked per call), else matmul
                    test = " and ".join(f"{self.names[x]}.flags.forc" for x in checks)
                    other = f"{_paren(ins[0])} @ {_paren(ins[1])}" if into is None else \
                        f"{self.kernel_ref(node)}({ins[0]}, {ins[1]}, {into})"
                    call = f"({call} if {test} else {other})"
            elif reuse is not None or spare is not None:
                # into a dying input's buffer, or one that died earlier; `out` passed by
                # position where NumPy allows it (these nodes have no keywords): ~30 ns less
                into = self.names[reuse] if reuse is not None else spare[0]
                args.append(into if _positional_out(node.op.kernel) else f"out={into}")
                call = f"{self.kernel_ref(node)}({', '.join(args)})"
            else:
                call = f"{self.kernel_ref(node)}({', '.join(args)})"
        if node.outputs:
            plan.note_result(node, into=reuse, contiguous=bool(spare and spare[1]))
        if scalar is not None and scalar in self.loop_names and len(outs) == 1:
            # the `for`'s own variable (`element`, the counter): read by its name, not
            # copied into another name on every iteration
            self.names[node.outputs[0]] = scalar
            plan.held_names.add(scalar)  # (the `for` binds it: never another value's)
            plan.untake(outs[0])
            plan.release(node, k, self.names)
            return
        depth = 1 + max((self.depth.get(x, 0) for x in node.inputs if isinstance(x, Tensor)),
                        default=0)
        if plan.can_inline(node, k) and reuse is None and spare is None \
                and depth <= _MAX_INLINE_DEPTH:
            self.depth[node.outputs[0]] = depth
            # used once, by the very next statement: spell it inside that statement
            self.names[node.outputs[0]] = f"({call})"
            plan.untake(outs[0])  # the name (and buffer) it would have used stay available
            plan.release(node, k, self.names)
            return
        if outs and reuse is None:
            # an op with a varying number of outputs returns a tuple, even of one
            target = ", ".join(outs) + ("," if len(outs) == 1 and node.op.num_outputs != 1 else "")
            self.emit(indent, f"{target} = {_bare(call)}", node)
        else:  # no result, or one computed in place into its input's buffer
            self.emit(indent, call, node)
        plan.release(node, k, self.names, keep=reuse)


@functools.cache
def _positional_out(kernel) -> bool:
    """Whether `kernel(*inputs, out)` is accepted without a warning: true of most ufuncs
    (and of np.dot, which a float 2-D matmul is lowered to), but NumPy deprecates it for
    some (np.maximum, np.minimum), so ask NumPy once per ufunc."""
    if not isinstance(kernel, np.ufunc):
        return False
    try:
        dtypes = [np.dtype(c) for c in kernel.types[0].replace("->", "")]
        args = [np.ones(1, dt) for dt in dtypes]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("error", DeprecationWarning)
            warnings.simplefilter("error", FutureWarning)
            kernel(*args)
    except Exception:  # noqa: BLE001 - any doubt: spell it `out=`
        return False
    return True


def _scalar_name(value) -> str:
    """`int64_1`, `float32_0_5`, `float64_m2`: a NumPy scalar's global says what it is."""
    text = str(value[()]).strip("()")  # NumPy's shortest digits for the dtype
    text = text[:-2] if text.endswith(".0") else text
    text = text[0] + text[1:].replace("+", "_").replace("-", "_m") if text else text
    text = text.replace("-", "m").replace(".", "_")
    return f"{value.dtype.name}_{text}"


def _short(filename: str) -> str:
    return filename.rsplit("/", 1)[-1]


def structure_expr(gen: CodeGen, tree, leaves) -> str:
    """Source that rebuilds a flattened structure from its leaf expressions."""
    it = iter(leaves)

    def build(t):
        if t is None:
            x = next(it)
            if isinstance(x, Tensor):
                return gen.names[x]
            if isinstance(x, np.ndarray):
                return f"{gen.const(x)}.copy()"  # callers may mutate what we return
            return gen.lit(x)
        kind = t[0]
        if kind is dict:
            return "{" + ", ".join(f"{k!r}: {build(s)}" for k, s in zip(t[1], t[2])) + "}"
        items = [build(s) for s in t[1]]
        if kind is tuple:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if kind is list:
            return "[" + ", ".join(items) + "]"
        return f"{gen.const(kind, kind.__name__)}({', '.join(items)})"

    return build(tree)


def compile_graph(graph: Graph, out_tree, out_leaves, name: str, parallel: bool = True,
                  owned_inputs: dict | None = None, on_tape=None):
    """Generate, register and exec the source for `graph`; returns (fn, source, gen).
    `parallel`: expensive independent nodes may run on the thread pool (schedule.py).
    `owned_inputs`: {position: final value} of inputs the executor may write into
    (arguments whose final value is copied into them anyway: an index update may write
    there when it is the input's only use, and the final value may be computed there).
    `on_tape(fn, args)`: runs a call made while an eager GradientTape records on the
    thread instead (tape_calls.py); the executor's first line checks for that."""
    collecting = gc.isenabled()
    gc.disable()  # generation makes many objects and no garbage (see `saved/load.py`)
    try:
        return _compile_graph(graph, out_tree, out_leaves, name, parallel, owned_inputs,
                              on_tape)
    finally:
        if collecting:
            gc.enable()


def _compile_graph(graph: Graph, out_tree, out_leaves, name: str, parallel: bool,
                   owned_inputs: dict | None, on_tape):
    gen = CodeGen()
    gen.parallel = parallel
    gen.keep_layouts = reads_memory_order(graph)
    params = [gen.fresh(t.name) for t in graph.inputs]
    for t, p in zip(graph.inputs, params):
        gen.names[t] = p
    fname = gen.fresh(name)
    gen.emit(0, f"def {fname}({', '.join(params)}):")
    if on_tape is not None:
        threads = gen.const(recording_threads, "_taping")
        recording, hook = gen.const(_recording, "_tape"), gen.const(on_tape, "_on_tape")
        # (the arguments as `locals()`: the only names defined on the first line)
        gen.tape_test = f"{threads}[0] and {recording}.fn is not None"
        gen.emit(1, f"if {gen.tape_test}: return {hook}({fname}, locals())  # a GradientTape records")
    gen.emit_graph_body(graph, 1, [x for x in out_leaves if isinstance(x, Tensor)],
                        owned={id(graph.inputs[k]): final
                               for k, final in (owned_inputs or {}).items()})
    gen.return_index = len(gen.lines)  # (a variant spells its own return: writeback.py)
    gen.emit(1, f"return {structure_expr(gen, out_tree, out_leaves)}")
    for indent, text, node in gen.extra:
        gen.emit(indent, text, node)
    source = "\n".join(gen.lines) + "\n"
    filename = f"<autograph-graph {name}#{next(_compile_count)}>"
    register_source(filename, source)
    namespace = dict(gen.globals)
    exec(compile(source, filename, "exec"), namespace)
    drop_source_with(namespace[fname], filename, gen.line_origins)
    return namespace[fname], source, gen, filename
