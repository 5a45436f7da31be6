"""How the code generator spells the control-flow ops: `cond` as a real `if`/`else`
statement and `while_loop` as a real `while` statement, their subgraphs inlined.

    if v1:                          while i_loop < n:
        v2 = x                          i_loop = i_loop + 1
    else:                           v3 = i_loop
        v2 = np.multiply(x, 0.0)

These are the `emit` hooks of the COND and WHILE_LOOP records, attached at the bottom
when this module loads (runtime/exec/__init__.py imports it, so importing any part of
the executor attaches them); `codegen.py` calls `node.op.emit(gen, node, outs, indent)`
and knows no control-flow op by name. The control-flow layer below defines the ops and
never imports the executor.
"""
from __future__ import annotations

import numpy as np

from runtime.control_flow.cond import COND
from runtime.control_flow.lists import is_list
from runtime.control_flow.while_loop import WHILE_LOOP
from runtime.control_flow.try_op import RERAISE, TRY
from runtime.exec.buffer_plan import updated_in_place
from runtime.exec.call_forms import bare as _bare, joined as _joined, paren as _paren
from runtime.exec.counted_loops import (
    common_shift, counted_loop, counter_span, counting, element_reads, pure_test,
    python_counter,
)
from runtime.core.graph import Graph, Node
from runtime.core.liveness import live_nodes
from runtime.core.tensor import Tensor

_MIN, _MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def _copy_lists(gen, inputs, indent: int) -> None:
    """Graph lists entering a branch recorded by a gradient tape are copied: appends in
    the branch must not change the list the conditional was given, because the
    gradient replays the branch from that list. (Otherwise appends stay in place.)"""
    for ph in inputs:
        if is_list(ph):
            name = gen.fresh(ph.name)
            gen.emit(indent, f"{name} = list({gen.names[ph]})")
            gen.names[ph] = name


def _bind_inputs(gen, sub: Graph, exprs: list[str], values=None) -> None:
    """Name `sub`'s inputs; `values`: the outer values they stand for unchanged (a Python
    int among them stays known as one inside: scalar_forms.py)."""
    for ph, e in zip(sub.inputs, exprs):
        gen.names[ph] = e
    for ph, outer in zip(sub.inputs, values or ()):
        span = gen.python_ints.get(id(outer), False) if isinstance(outer, Tensor) else False
        if span is not False:
            gen.python_ints[id(ph)] = span


def emit_cond(gen, node: Node, outs: list[str], indent: int) -> None:
    pred, *rest = [gen.expr(x) for x in node.inputs]
    gen.emit(indent, f"if {_bare(pred)}:", node)
    for i, sub in enumerate((node.attrs["then"], node.attrs["else_"])):
        if i == 1:
            gen.emit(indent, "else:")
        _bind_inputs(gen, sub, rest, node.inputs[1:])
        start = len(gen.lines)
        if node.attrs.get("copy_lists"):
            _copy_lists(gen, sub.inputs, indent + 1)
        results = gen.emit_graph_body(sub, indent + 1)
        # (a loop variable a branch leaves as it is: no assignment, see _emit_counting)
        pairs = [(o, r, x) for o, r, x in zip(outs, results, sub.outputs) if o != r]
        if pairs:
            gen.emit(indent + 1, f"{', '.join(o for o, _, _ in pairs)} = "
                                 f"{_joined([r for _, r, _ in pairs])}")
            gen.map_inlined_line([x for _, _, x in pairs], [r for _, r, _ in pairs])
        tail = gen.branch_tails.get(id(node), {}).get(i)
        if tail is not None:  # a loop's test, where this branch changes what it reads
            tail(indent + 1)
        if len(gen.lines) == start:
            gen.emit(indent + 1, "pass")


def emit_while(gen, node: Node, outs: list[str], indent: int) -> None:
    g_cond, g_body = node.attrs["cond"], node.attrs["body"]
    n = len(node.outputs)
    ins = [gen.expr(x) for x in node.inputs]
    init, caps = ins[:n], ins[n:len(ins) - (1 if node.attrs["has_max"] else 0)]
    init = [gen.result_expr(x) for x in node.inputs[:n]]
    carried = [gen.fresh(o.name + "_loop") for o in node.outputs]
    owned = updated_in_place(g_body, n)
    if carried:
        init = [f"list({e})" if is_list(o) else
                f"{_paren(e)}.copy()" if id(g_body.inputs[i]) in owned else e
                for i, (e, o) in enumerate(zip(init, node.outputs))]
        gen.emit(indent, f"{', '.join(carried)} = {', '.join(init)}", node)
    for sub in (g_cond, g_body):  # (captures stand for the same values in every iteration)
        _bind_inputs(gen, sub, carried + caps, [None] * n + list(node.inputs[n:]))
    counting = counted_loop(node)
    if counting is not None:
        return _emit_counting(gen, node, outs, indent, carried, owned, *counting)
    counter = None
    if node.attrs["has_max"]:
        counter = gen.fresh("iteration")
        gen.emit(indent, f"{counter} = 0")
    gen.emit(indent, "while True:", node)
    header = len(gen.lines)
    gen.emit_graph_body(g_cond, indent + 1)
    test = gen.expr(g_cond.outputs[0])
    if len(gen.lines) == header and counter is None:
        # the condition is one expression: put it in the while statement itself
        code, _, comment = gen.lines[header - 1].partition("  # ")
        code = code.rstrip().replace("while True:", f"while {_bare(test)}:", 1)
        gen.lines[header - 1] = f"{code:<52}  # {comment}" if comment else code
    else:
        gen.emit(indent + 1, f"if not {_paren(test)}:")
        gen.emit(indent + 2, "break")
        if counter is not None:
            gen.emit(indent + 1, f"if {counter} >= {ins[-1]}:")
            gen.emit(indent + 2, "break")
            gen.emit(indent + 1, f"{counter} += 1")
    start = len(gen.lines)
    results = gen.emit_graph_body(g_body, indent + 1, owned=owned)
    if carried:
        gen.emit(indent + 1, f"{', '.join(carried)} = {_joined(results)}")
        gen.map_inlined_line(g_body.outputs, results)
    elif len(gen.lines) == start:
        gen.emit(indent + 1, "pass")
    if outs:
        gen.emit(indent, f"{', '.join(outs)} = {', '.join(carried)}")


def _emit_counting(gen, node: Node, outs: list[str], indent: int, carried: list[str],
                   owned, k: int, bound, rest) -> None:
    """A counting loop as a Python `for` over the counter's next values (counted_loops.py)."""
    g_cond, g_body = node.attrs["cond"], node.attrs["body"]
    plan = gen.emitting_plan
    as_int = python_counter(node, k, plan.uses.get(id(node.outputs[k]), 0) > 0)
    # (the counter's `+ 1` is the `for`'s next value: not computed unless read elsewhere)
    others = [x for i, x in enumerate(g_body.outputs) if i != k]
    direct = _assigned_by_branches(gen, g_body, others, k, carried)
    moved = as_int and len(direct) == len(carried) - 1 and isinstance(rest, Tensor) \
        and pure_test(rest) and _tested_in_branches(gen, node, k, rest, direct, indent)
    outer = indent
    if moved:  # tested once here, then only where a branch changes what it reads
        gen.emit_graph_body(g_cond, indent, [rest])
        gen.emit(indent, f"if {_bare(gen.expr(rest))}:")
        indent += 1
    if as_int:
        # the counter itself as Python's int: the fastest to count, test and index with
        step = gen.fresh(node.outputs[k].name + "_i")
        span = counter_span(node.inputs[k], bound)  # its values, when known here
        shifted = common_shift(node, k) if span is not None else None
        s, reads = 0, []
        if shifted is not None and all(_MIN <= v + shifted[0] <= _MAX for v in span):
            s, reads = shifted  # read as `int(i + s)`: the `for` counts `i + s` itself
            for x in reads:
                gen.aliases[id(x)] = step
                gen.python_ints[id(x)] = (span[0] + s, span[1] + s)
        lo, hi = f"int({carried[k]})", f"int({_bare(gen.expr(bound))})"
        if s:
            lo, hi = f"{lo} + {s}", f"{hi} + {s}"
        elements = None if span is None else element_reads(
            node, [g_body.inputs[k]] if not s else reads, span[0] + s, span[1] + s)
        if elements is not None:  # `x[i]` read: the elements come from iterating x
            array, got = elements
            element, ends = gen.fresh("element"), gen.fresh("ends")
            gen.emit(indent, f"{ends} = {lo}, {hi}", node)
            gen.emit(indent, f"for {step}, {element} in zip(range(*{ends}), "
                             f"{_paren(gen.names[array])}[{ends}[0]:{ends}[1]]):", node)
            gen.loop_names.add(element)
            for x in got:
                gen.aliases[id(x)] = element
        else:
            gen.emit(indent, f"for {step} in range({lo}, {hi}):", node)
        gen.loop_names.add(step)
        counter = step if not s else f"({step} - {s})" if s > 0 else f"({step} + {-s})"
        gen.names[g_cond.inputs[k]] = gen.names[g_body.inputs[k]] = counter
        for ph in (g_cond.inputs[k], g_body.inputs[k]):
            gen.python_ints[id(ph)] = span
    else:
        step = gen.fresh(node.outputs[k].name + "_next")
        gen.emit(indent, f"for {step} in {gen.const(counting, 'counting')}({carried[k]}, "
                         f"{_bare(gen.expr(bound))}):", node)
    header = len(gen.lines)
    if isinstance(rest, Tensor) and not moved:
        gen.emit_graph_body(g_cond, indent + 1, [rest])
        gen.emit(indent + 1, f"if {_negated(gen.expr(rest))}:")
        gen.emit(indent + 2, "break")
    results = gen.emit_graph_body(g_body, indent + 1, others, owned=owned)
    results.insert(k, step)
    pairs = [(c, r, x) for i, (c, r, x) in enumerate(zip(carried, results, g_body.outputs))
             if i not in direct and not (as_int and i == k)]
    # (nothing reads a Python-int counter's final value: it is not carried)
    if pairs:
        gen.emit(indent + 1, f"{', '.join(c for c, _, _ in pairs)} = "
                             f"{_joined([r for _, r, _ in pairs])}")
        gen.map_inlined_line([x for _, _, x in pairs], [r for _, r, _ in pairs])
    elif len(gen.lines) == header:
        gen.emit(indent + 1, "pass")
    if not pure_test(rest):  # the `while` computes its condition once more at the end
        gen.emit(indent, "else:")
        gen.emit_graph_body(g_cond, indent + 1, [rest])
        if not gen.expr(rest).isidentifier():
            gen.emit(indent + 1, _bare(gen.expr(rest)))
    if outs:
        gen.emit(outer, f"{', '.join(outs)} = {', '.join(carried)}")


def _tested_in_branches(gen, node: Node, k: int, rest, direct: dict, indent: int) -> bool:
    """Whether the rest of the condition reads only loop variables that the body's last
    conditional assigns (and values the loop is given): it then holds as long as no
    branch changes them, and is tested at the end of the branches that do (`if flag:
    break` where a `return` or `break` set the flag, not at every iteration's start).
    Registers those tests with emit_cond (`gen.branch_tails`)."""
    g_cond, g_body, n = node.attrs["cond"], node.attrs["body"], len(node.outputs)
    position = {id(ph): i for i, ph in enumerate(g_cond.inputs[:n])}
    deps, seen, todo = set(), set(), [rest]
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if id(x) in position:
            deps.add(position[id(x)])
        elif x.node is not None:
            todo.extend(v for v in x.node.inputs if isinstance(v, Tensor))
    if k in deps or not deps <= set(direct):
        return False
    last = direct[next(iter(direct))].node
    tails = {}
    for b, sub in enumerate((last.attrs["then"], last.attrs["else_"])):
        for p in deps:
            r = sub.outputs[[id(o) for o in last.outputs].index(id(direct[p]))]
            m = next((i for i, ph in enumerate(sub.inputs) if ph is r), None)
            if m is None or last.inputs[1 + m] is not g_body.inputs[p]:
                tails[b] = _branch_test(gen, g_cond, rest)  # this branch changes it
                break
    gen.branch_tails[id(last)] = tails
    return True


def _branch_test(gen, g_cond: Graph, rest):
    def emit(indent: int) -> None:
        gen.emit_graph_body(g_cond, indent, [rest])
        gen.emit(indent, f"if {_negated(gen.expr(rest))}:")
        gen.emit(indent + 1, "break")
    return emit


def _negated(expr: str) -> str:
    """`not expr`, without a double negation (`not (not x)` is tested as `x`)."""
    bare = _bare(expr)
    if bare.startswith("not ") and _paren(bare[4:]) == bare[4:]:
        return bare[4:]
    return f"not {_paren(expr)}"


def _assigned_by_branches(gen, g_body: Graph, outputs: list, k: int, carried: list[str]):
    """Positions of loop variables that the body's last node, a conditional, can assign
    itself (`if ...: s_loop = v` instead of `s = v` then `s_loop = s`): its results that
    are the body's results and read nowhere else, when no other result is a loop variable
    as the iteration found it (which the branch would have overwritten)."""
    nodes = live_nodes(g_body, outputs)
    last = nodes[-1] if nodes else None
    if last is None or last.op.emit is not emit_cond:
        return {}
    read = {id(x) for node in nodes for x in node.inputs}
    direct = {}
    for o in last.outputs:
        at = [i for i, x in enumerate(g_body.outputs) if x is o]
        if len(at) == 1 and at[0] != k and id(o) not in read:
            direct[at[0]] = o
    placeholders = {id(g_body.inputs[i]) for i in direct}
    if any(id(x) in placeholders for i, x in enumerate(g_body.outputs) if i not in direct):
        return {}
    for i, o in direct.items():
        gen.result_names[id(o)] = carried[i]
    return direct


def emit_try(gen, node: Node, outs: list[str], indent: int) -> None:
    """A real `try` around the body's code, one `except` clause per handler; each path
    assigns the outputs (the state, then the path taken). Every body result is
    evaluated (an operation whose error a handler catches must run)."""
    ins = [gen.expr(x) for x in node.inputs]
    n_out = node.attrs["n_out"]
    caught = gen.__dict__.setdefault("caught_names", {})
    guarded = node.attrs["n_handlers"] > 0  # (none: no handler can catch what it raises)
    errstate = node.attrs.get("errstate")
    if errstate is not None:  # an errstate region: `with np.errstate(...)` in the source
        kwargs = ", ".join(f"{k}={v!r}" for k, v in errstate)
        gen.emit(indent, f"with {gen.const(np.errstate, 'errstate')}({kwargs}):", node)
        guarded = True
    elif guarded:
        gen.emit(indent, "try:", node)
    subs = [(node.attrs["body"], None)] + [
        (node.attrs[f"except_{i}"], i) for i in range(node.attrs["n_handlers"])]
    for sub, i in subs:
        if i is not None:
            kinds = node.attrs[f"kinds_{i}"] or (BaseException,)
            var = caught[node.attrs[f"var_{i}"]] = gen.fresh("caught")
            gen.emit(indent, f"except {gen.const(tuple(kinds), 'kinds')} as {var}:")
        _bind_inputs(gen, sub, ins)
        start, inner = len(gen.lines), indent + guarded
        results = gen.emit_graph_body(sub, inner)
        for expr in results[n_out:]:
            if not expr.isidentifier():
                gen.emit(inner, _bare(expr))
        if sub.outputs and outs:
            gen.emit(inner, f"{', '.join(outs)} = {_joined(results[:n_out])}")
            gen.map_inlined_line(sub.outputs, results[:n_out])
        elif len(gen.lines) == start and guarded:
            gen.emit(inner, "pass")


def emit_reraise(gen, node: Node, outs: list[str], indent: int) -> None:
    var = gen.caught_names[node.attrs["var"]]
    error = node.attrs["error"]
    if error is None:
        gen.emit(indent, f"raise {var}", node)
    else:
        gen.emit(indent, f"raise {gen.const(error, 'error')}(*{gen.lit(node.attrs['args'])}) "
                         f"from {var}", node)


COND.emit = emit_cond
TRY.emit = emit_try
RERAISE.emit = emit_reraise
WHILE_LOOP.emit = emit_while
