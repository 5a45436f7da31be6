"""Control flow, constants, run-time shapes and Variables as ONNX.

`cond` becomes `If` (branches read outer values directly, as ONNX subgraphs may);
`while_loop` becomes `Loop`: the condition is evaluated once before the loop and again
at the end of every body (ONNX checks its condition input before each iteration, as
the graph's `while` does), and `maximum_iterations` is the trip count `M`.
A Variable is a functional value here: `read_variable` returns its current value,
`assign_variable` makes a new one, and a Variable assigned inside a branch or loop
body is threaded through it as an extra `If` output / `Loop`-carried value.
Run-time checks and asserts cannot raise in ONNX: they are refused unless the export
asks to drop them (`assertions="drop"`).
"""
from __future__ import annotations

import numpy as np

from runtime.onnx_export.context import Emitter, value_info
from runtime.onnx_export.lists import sequence_info
from runtime.onnx_export.table import assigned_variables, convert_nodes, converter, converter_each
from runtime.ops.ufuncs_rules import resolve


@converter("constant")
def _constant(em, node):
    value = np.asarray(node.attrs["value"])
    return [em.cast(em.const(value), value.dtype, node.outputs[0].dtype)]


@converter("shape_of")
def _shape_of(em, node):
    return [em.op("Shape", [em.value(node.inputs[0])])]


@converter("shape_dim")
def _shape_dim(em, node):  # x.shape[axis] of an unknown dim: a 0-d int64
    x = node.inputs[0]
    axis = node.attrs["axis"] % len(x.static_shape)
    dim = em.op("Shape", [em.value(x)], start=axis, end=axis + 1)
    return [em.op("Reshape", [dim, em.const(np.zeros(0, np.int64))])]


@converter("size_of")
def _size_of(em, node):
    return [em.op("Size", [em.value(node.inputs[0])])]


@converter("path_result")
def _path_result(em, node):  # ONNX returns arrays: the shared value on every path
    return [em.op("Identity", [em.value(node.inputs[2])])]


@converter("python_number")
def _python_number(em, node):  # a NumPy scalar handed to NumPy as the Python number
    return [em.op("Identity", [em.value(node.inputs[0])])]


@converter_each({"check": {"user_assert": False}, "assert": {"user_assert": True}})
def _check(em, node, *, user_assert: bool):
    if em.shared.get("assertions") == "drop":
        return []
    what = "an assert" if user_assert else \
        f"a run-time check ({node.attrs.get('error', 'error')}: {node.attrs.get('message', '')})"
    raise em.error(f"{what} cannot raise in ONNX. Pass assertions='drop' to export the "
                   "graph without it (invalid inputs are then not detected)")


@converter("read_variable")
def _read(em, node):
    return [em.var_state[id(node.attrs["var"])]]


@converter("assign_variable")
def _assign(em, node):
    var, value, mode = node.attrs["var"], node.inputs[0], node.attrs["mode"]
    old = em.var_state[id(var)]
    if mode == "set":
        src = value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype
        new = em.value(value, var.dtype if src != var.dtype else None)
    else:
        loop_in = [np.dtype(d) for d in resolve(np.add, [var.dtype, value], {})[:2]]
        a = em.cast(old, var.dtype, loop_in[0])
        b = em.value(value, loop_in[1])
        new = em.cast(em.op("Add" if mode == "add" else "Sub", [a, b]), loop_in[0], var.dtype)
    if tuple(np.shape(value) if not hasattr(value, "shape") else value.shape) != var.shape:
        new = em.op("Expand", [new, em.shape_const(var.shape)])
    em.var_state[id(var)] = em.op("Identity", [new], hint=f"{var.name}_value")
    return []


def _bool_scalar(em, name: str, dtype) -> str:
    flag = em.cast(name, dtype, np.bool_)
    return em.op("Reshape", [flag, em.const(np.zeros(0, np.int64))], hint="flag")


def _info(em, name: str, item):
    """The ValueInfo of `name` typed like `item`: a Tensor (a graph list is a sequence)
    or a (dtype, shape) pair; unknown dims stay unnamed."""
    if isinstance(item, tuple):
        return value_info(name, *item)
    if item.dtype == np.dtype(object):
        return sequence_info(em, name, item)
    return value_info(name, item.dtype, item.shape)


def _graph_outputs(em, values, types, prefix):
    """Identity copies of `values` as subgraph outputs, typed like `types`."""
    return [_info(em, em.op("Identity", [v], hint=prefix), item)
            for v, item in zip(values, types)]


@converter("cond")
def _cond(em, node):
    from onnx import helper

    pred, *rest = node.inputs
    flag = _bool_scalar(em, em.value(pred), pred.dtype)
    branches = [node.attrs["then"], node.attrs["else_"]]
    variables = {id(v): v for g in branches for v in assigned_variables(g)}
    protos = []
    for sub in branches:
        child = em.child()
        for ph, x in zip(sub.inputs, rest):
            child.bind(ph, em.value(x))
        convert_nodes(child, sub)
        child.node = node
        values = [child.value(x) for x in sub.outputs] + \
            [child.var_state[k] for k in variables]
        types = list(sub.outputs) + [(v.dtype, v.shape) for v in variables.values()]
        outs = _graph_outputs(child, values, types, f"{sub.name}_out")
        protos.append(helper.make_graph(child.nodes, em.fresh(sub.name), [], outs))
    n_out = len(node.outputs) + len(variables)
    if n_out == 0:
        return []  # nothing flows out (e.g. dropped checks only)
    results = em.op("If", [flag], n_out=n_out, hint="if_out",
                    then_branch=protos[0], else_branch=protos[1])
    results = [results] if n_out == 1 else results
    for k, name in zip(variables, results[len(node.outputs):]):
        em.var_state[k] = name
    return results[:len(node.outputs)]


@converter("while_loop")
def _while(em, node):
    from onnx import helper

    g_cond, g_body = node.attrs["cond"], node.attrs["body"]
    n = len(node.outputs)
    has_max = node.attrs["has_max"]
    ins = node.inputs
    init, caps = ins[:n], ins[n:len(ins) - (1 if has_max else 0)]
    variables = {id(v): v for g in (g_cond, g_body) for v in assigned_variables(g)}
    init_names = [em.value(x, t.dtype) for x, t in zip(init, node.outputs)]
    cap_names = [em.value(x) for x in caps]

    def condition(scope: Emitter, carried: list[str]) -> str:
        for ph, name in zip(g_cond.inputs, carried + cap_names):
            scope.bind(ph, name)
        convert_nodes(scope, g_cond)
        scope.node = node
        out = g_cond.outputs[0]
        dtype = out.dtype if hasattr(out, "dtype") else np.asarray(out).dtype
        return _bool_scalar(scope, scope.value(out), dtype)

    first = condition(em, init_names)
    body = em.child()
    iteration, cond_in = body.fresh("iteration"), body.fresh("cond_in")
    carried_in = [body.fresh(f"{t.name}_in") for t in node.outputs]
    var_in = {k: body.fresh(f"{v.name}_in") for k, v in variables.items()}
    body.var_state.update(var_in)
    for ph, name in zip(g_body.inputs, carried_in + cap_names):
        body.bind(ph, name)
    convert_nodes(body, g_body)
    body.node = node
    new_values = [body.value(x, t.dtype) for x, t in zip(g_body.outputs, node.outputs)]
    cond_out = condition(body, new_values)
    types = list(node.outputs) + [(v.dtype, v.shape) for v in variables.values()]
    out_infos = [value_info(body.op("Identity", [cond_out], hint="cond_out"), np.bool_, ())]
    out_infos += _graph_outputs(body, new_values + [body.var_state[k] for k in variables],
                                types, "carried")
    in_infos = [value_info(iteration, np.int64, ()), value_info(cond_in, np.bool_, ())]
    in_infos += [_info(body, name, item)
                 for name, item in zip(carried_in + list(var_in.values()), types)]
    proto = helper.make_graph(body.nodes, em.fresh("body"), in_infos, out_infos)
    trip = ""
    if has_max:
        limit = ins[-1]
        trip = em.op("Max", [em.value(limit, np.int64), em.const(0, np.int64)], hint="trip")
    carried_init = init_names + [em.var_state[k] for k in variables]
    n_out = len(carried_init)
    if n_out == 0:
        return []
    results = em.op("Loop", [trip, first] + carried_init, n_out=n_out, hint="loop_out",
                    body=proto)
    results = [results] if n_out == 1 else results
    for k, name in zip(variables, results[n:]):
        em.var_state[k] = name
    return results[:n]
