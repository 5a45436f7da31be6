"""Argument write-back: a traced function that writes into an argument array
(`def f(x): x[0] = 7; ...`) changes the caller's array, as the NumPy code does.

The graph computes the argument's final value as an extra output (see
`views.written_inputs`); `writing_back` wraps the generated executor so that, after a
call, that value is copied into the caller's array. Only functions that write into an
argument pay for it (one `np.copyto` per written argument and an overlap check).

When the graph cannot raise, a second executor writes into the caller's arrays
themselves (`direct`: each value computed from an argument goes into its buffer, as
NumPy's `out=` does, so the final value usually needs no copy); `_direct_call` is its
call, generated once per trace with the checks that make it safe written inline.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from runtime.core.tensor import Tensor
from runtime.state.views import resolve

_ndarray = np.ndarray
try:  # NumPy's errstate, a context variable (NumPy 2): read in ~20 ns
    from numpy._core.umath import _extobj_contextvar
    _errstate = _extobj_contextvar.get
    _DEFAULT_ERRSTATE = _errstate() if all(v != "raise" for v in np.geterr().values()) \
        else None
except ImportError:  # no cheap way to read it: arguments are never written directly
    def _errstate():
        return None
    _DEFAULT_ERRSTATE = object()


@dataclass
class DirectSpelling:
    """The generated executor writing into the argument arrays (`direct`), as
    `direct_variant` rewrites it: its source, file name and globals, its parameter names,
    the test of its second line (a GradientTape records), the index of its return line,
    and the expressions of its results and of each argument's final value."""
    source: str
    filename: str
    names: dict
    params: list
    tape_test: str
    return_index: int
    results: str
    finals: list


def writing_back(fn: Callable, writeback: list, name: str, n_extra: int,
                 keep_rest: bool = False, direct: Callable | None = None,
                 n_leaves: int = 0, spelling: DirectSpelling | None = None) -> Callable:
    """`fn` returns (results, *final values) when it has `n_extra` final values, else the
    results; the wrapper copies the first final values into the argument arrays at
    `writeback`'s positions and returns the results (with the values after those, when
    `keep_rest`: they fill list and dict arguments). A final value that is the argument
    array itself is not copied.

    `direct`: the same graph's executor writing into the argument arrays themselves
    (`codegen`'s owned inputs: `x[i] = v`, `np.add(x, 1, x)` as NumPy does them, no copy),
    for a graph that `cannot_raise`; it runs while NumPy's errstate is the default one
    (under another, a ufunc may raise after a direct write, and the rerun of
    `after_error` would then apply that write twice). `spelling`: its source, for
    `direct_variant` to make the checks and the executor one function."""
    positions = [k for k, _ in writeback]
    labels = dict(writeback)
    n_written = len(positions)

    def check(leaves) -> None:
        # the common case (writable arrays owning their memory) in a few tests
        apart = len(leaves) == 1 or _own_memory(leaves)
        for k in positions:
            target = leaves[k]
            if type(target) is not _ndarray or not target.flags.writeable or not apart:
                _check_writable(leaves, k, labels[k], name)

    if not n_extra:
        def run(*leaves):
            return fn(*leaves), ()
    elif not n_written:  # only values for Python state and containers: nothing to check
        def run(*leaves):
            out, *finals = fn(*leaves)
            return (out, finals) if keep_rest else out
    elif n_written == 1 and n_extra == 1 and not keep_rest:
        k = positions[0]

        def run(*leaves):
            target = leaves[k]
            if type(target) is not _ndarray or not target.flags.writeable or \
                    len(leaves) > 1 and not _own_memory(leaves):
                _check_writable(leaves, k, labels[k], name)
            out, value = direct(*leaves) if direct is not None and \
                type(target) is _ndarray and _errstate() is _DEFAULT_ERRSTATE else fn(*leaves)
            if value is not target:
                _copy_into(target, value)
                if out is value or type(out) is tuple:
                    return _as_arguments(out, ((value, target),))
            return out
    else:
        def run(*leaves):
            check(leaves)
            out, *finals = direct(*leaves) if direct is not None and \
                _errstate() is _DEFAULT_ERRSTATE and \
                all(type(leaves[k]) is _ndarray for k in positions) else fn(*leaves)
            copied = []
            for k, value in zip(positions, finals):
                if value is not leaves[k]:
                    _copy_into(leaves[k], value)
                    copied.append((value, leaves[k]))
            if copied:
                out = _as_arguments(out, copied)
            if keep_rest:
                return out, finals[n_written:]
            return out

    run.__wrapped__ = fn
    if direct is not None and not keep_rest and n_extra == n_written and n_leaves:
        if spelling is not None and len(spelling.params) == n_leaves and \
                "_wb_" not in spelling.source:
            return direct_variant(run, spelling, positions)
        return _direct_call(run, direct, positions, n_leaves)
    if direct is None and n_written and n_leaves and \
            not (n_written == 1 and n_extra == 1 and not keep_rest):
        return _copying_call(run, fn, positions, n_leaves, keep_rest)
    return run


# the names the generated checks use: distinct from every name of an executor (whose
# parameters are the user's, `type` or `len` among them)
_CHECK_NAMES = {"_wb_type": type, "_wb_isinstance": isinstance, "_wb_len": len,
                "_wb_id": id, "_wb_ndarray": _ndarray, "_wb_generic": np.generic}


def _plain_leaves(names: list, positions: list) -> list[str]:
    """Tests that the leaves are distinct arrays owning their memory (so none overlaps
    another), those written into writable, and the others arrays or NumPy scalars
    (they read `_CHECK_NAMES`)."""
    tests = []
    for i, a in enumerate(names):
        if i in positions:
            tests.append(f"_wb_type({a}) is _wb_ndarray and {a}.base is None and "
                         f"{a}.flags.writeable")
        else:  # a NumPy scalar holds its own value
            tests.append(f"(_wb_type({a}) is _wb_ndarray and {a}.base is None or "
                         f"_wb_isinstance({a}, _wb_generic))")
    n = len(names)
    if n <= 4:  # distinct leaves (a call's are: the same array twice is one leaf)
        tests += [f"{a} is not {b}" for j, a in enumerate(names) for b in names[j + 1:]]
    else:
        tests.append(f"_wb_len({{{', '.join(f'_wb_id({a})' for a in names)}}}) == {n}")
    return tests


def _copying_call(checked: Callable, fn: Callable, positions: list, n: int,
                  keep_rest: bool) -> Callable:
    """`run` above for several written arguments (or one with Python state written
    too), written out once for `n` leaves: when `_plain_leaves` hold, `fn` runs and its
    final values are copied into the arguments without the per-leaf checks; any other
    call takes `checked`."""
    names = [f"a{i}" for i in range(n)]
    args = ", ".join(names)
    finals = "".join(f"v{k}, " for k in positions)
    pairs = ", ".join(f"(v{k}, a{k})" for k in positions)
    lines = [f"def run({args}):",
             f"    if {' and '.join(_plain_leaves(names, positions))}:",
             f"        out, {finals}*rest = _fn({args})",
             f"        out = _copy_finals(out, ({pairs},))",
             f"        return {'(out, rest)' if keep_rest else 'out'}",
             f"    return _checked({args})"]
    scope = {**_CHECK_NAMES, "_fn": fn, "_checked": checked, "_copy_finals": _copy_finals}
    exec(compile("\n".join(lines) + "\n", "<argument write-back>", "exec"), scope)  # noqa: S102
    run = scope["run"]
    run.__wrapped__ = fn
    return run


def _direct_call(checked: Callable, direct: Callable, positions: list, n: int) -> Callable:
    """The call of a `direct` executor with `n` leaves, written out once: when the
    arguments written into are plain writable arrays owning their memory, every other
    leaf owns its memory too (so none overlaps another) and NumPy's errstate is the
    default one, `direct` runs on them as they are; the final values it did not compute
    into their argument are copied there. Any other call takes `checked` (`run` above)."""
    names = [f"a{i}" for i in range(n)]
    tests = ["_errstate() is _DEFAULT"] + _plain_leaves(names, positions)
    finals = [f"v{k}" for k in positions]
    args = ", ".join(names)
    same = " and ".join(f"v{k} is a{k}" for k in positions)
    pairs = ", ".join(f"(v{k}, a{k})" for k in positions)
    source = (f"def run({args}):\n"
              f"    if {' and '.join(tests)}:\n"
              f"        out, {', '.join(finals)}, = _direct({args})\n"
              f"        if {same}:\n"
              f"            return out\n"
              f"        return _copy_finals(out, ({pairs},))\n"
              f"    return _checked({args})\n")
    scope = {**_CHECK_NAMES, "_errstate": _errstate, "_DEFAULT": _DEFAULT_ERRSTATE,
             "_direct": direct, "_checked": checked, "_copy_finals": _copy_finals}
    exec(compile(source, "<argument write-back>", "exec"), scope)  # noqa: S102 - ours
    run = scope["run"]
    run.__wrapped__ = checked.__wrapped__
    return run


def direct_variant(checked: Callable, spelling: DirectSpelling, positions: list) -> Callable:
    """`_direct_call` and the `direct` executor as one function: the executor's source
    with its GradientTape line replaced by the checks of `_direct_call` (when they fail
    or a tape records, `checked` runs the call) and its return giving the results, the
    final values not computed into their argument copied there. One Python call fewer
    per call, and no tuple of final values. The line numbers and file name stay the
    executor's, so errors and warnings still name the user's lines."""
    params = spelling.params
    lines = spelling.source.split("\n")
    tests = ["_wb_errstate() is _wb_DEFAULT"] + _plain_leaves(params, positions)
    for k in positions:  # the caller's arrays, kept: the executor may rebind a parameter
        tests[1 + k] = tests[1 + k].replace(f"_wb_type({params[k]})",
                                            f"_wb_type(_wb_a{k} := {params[k]})", 1)
    lines[1] = f"    if {spelling.tape_test} or not ({' and '.join(tests)}): " \
               f"return _wb_checked({', '.join(params)})"
    pairs = [(v, f"_wb_a{k}") for k, v in zip(positions, spelling.finals)]
    copying = f"_wb_copy_finals({spelling.results}, ({''.join(f'({v}, {a}), ' for v, a in pairs)}))"
    # (a final value spelled as an expression is computed once: in the copy)
    lines[spelling.return_index] = f"    return {copying}" if not all(
        v.isidentifier() for v, _ in pairs) else \
        f"    return {spelling.results} if {' and '.join(f'{v} is {a}' for v, a in pairs)} " \
        f"else {copying}"
    scope = {**spelling.names, **_CHECK_NAMES, "_wb_errstate": _errstate,
             "_wb_DEFAULT": _DEFAULT_ERRSTATE, "_wb_checked": checked,
             "_wb_copy_finals": _copy_finals}
    exec(compile("\n".join(lines), spelling.filename, "exec"), scope)  # noqa: S102 - ours
    run = scope[lines[0][4:lines[0].index("(")]]
    run.__wrapped__ = checked.__wrapped__
    return run


def _copy_finals(out, finals: tuple):
    """Copy each (final value, argument) pair's value into the argument when it is not
    the argument itself; the results, with those values replaced by their arguments."""
    copied = []
    for value, target in finals:
        if value is not target:
            _copy_into(target, value)
            copied.append((value, target))
    return _as_arguments(out, copied) if copied else out


def cannot_raise(graph) -> bool:
    """Whether no node of `graph` can raise under NumPy's default errstate: elementwise
    ufuncs (they warn) and index updates (`emit_in_place`) setting constant indices
    (checked against the static shape while tracing)."""
    for node in graph.nodes:
        kernel = node.op.kernel
        if isinstance(kernel, np.ufunc):
            if kernel.nout != 1 or node.attrs or node.subgraphs():
                return False
        elif node.op.emit_in_place is None or node.attrs.get("mode") != "set" or \
                len(node.inputs) != 2 or None in node.inputs[0].static_shape:
            return False
    return True


def _as_arguments(out, copied):
    """The results with each final value copied into an argument replaced by that
    argument: `return x` gives the caller's array, as in Python."""
    for value, target in copied:
        if out is value:
            return target
    if type(out) is tuple:
        return tuple([_as_arguments(o, copied) for o in out])
    return out


def _copy_into(target: np.ndarray, value) -> None:
    if not isinstance(target, np.ndarray):  # a value an eager GradientTape follows: it
        target.write_back(value)             # holds the written value
        return
    if getattr(value, "dtype", None) is target.dtype:
        target[...] = value  # a fifth of np.copyto's cost on small arrays
    else:
        np.copyto(target, value, casting="unsafe")


def _own_memory(leaves) -> bool:
    """Whether the leaves are distinct arrays that each own their memory (no `base`): then
    no two can overlap, and `np.may_share_memory` (~0.5 µs a pair) need not run."""
    for a in leaves:
        if type(a) is not _ndarray or a.base is not None:
            return False
    n = len(leaves)
    return leaves[0] is not leaves[1] if n == 2 else len(set(map(id, leaves))) == n


def _check_writable(leaves, k: int, label: str, name: str) -> None:
    target = leaves[k]
    check = getattr(type(target), "check_write_back", None)
    if check is not None and not isinstance(target, np.ndarray):
        check(target, f"{name}() writes into its argument {label!r}")
        return
    if not isinstance(target, np.ndarray):
        raise TypeError(f"{name}: argument {label!r} is written into, but "
                        f"'{type(target).__name__}' object does not support item assignment")
    if not target.flags.writeable:
        raise ValueError(f"{name}: argument {label!r} is written into, but the array is "
                         "read-only (assignment destination is read-only)")
    for j, other in enumerate(leaves):
        if j != k and isinstance(other, np.ndarray) and np.may_share_memory(target, other):
            raise ValueError(
                f"{name}: argument {label!r} is written into and shares memory with another "
                f"argument (argument #{j}); the graph treats arguments as separate arrays, so "
                "it cannot show the write through the other one. Pass a copy (`x.copy()`) "
                "for one of them.")


# -- list and dict arguments ---------------------------------------------------------
# A Function traces on a copy of each list/dict argument (its array leaves become
# placeholders). A function that changes such a container in place (`t[i] = v`,
# `t.append(v)`, `d[k] = v`) would change the caller's container in Python, so the trace
# records each changed container's final contents as a template, and every call puts
# those contents into the caller's container. Template items:
#   ("ref", arg, path)   the caller's container at that path (identity kept)
#   ("leaf", k)          the caller's k-th array leaf (identity kept)
#   ("out", j)           the j-th extra graph output (a value computed by the graph)
#   ("new", type, items) a container the function created (items are templates; a dict's
#                        items are (key, template) pairs)
#   ("const", v)         a Python value


def snapshot_containers(args) -> list:
    """(arg, path, container, shallow copy of its contents) for every list and dict
    reachable from the (traced) arguments through lists, tuples and dicts."""
    found: list = []

    def walk(obj, arg, path):
        t = type(obj)
        if t is list:
            found.append((arg, path, obj, list(obj)))
            items = enumerate(obj)
        elif t is dict:
            found.append((arg, path, obj, list(obj.items())))
            items = obj.items()
        elif t is tuple:
            items = enumerate(obj)
        else:
            return
        for k, v in items:
            walk(v, arg, path + (k,))

    for i, a in enumerate(args):
        walk(a, i, ())
    return found


def _changed(obj, before) -> bool:
    now = list(obj) if type(obj) is list else list(obj.items())
    if len(now) != len(before):
        return True
    if type(obj) is list:
        return any(a is not b for a, b in zip(now, before))
    return any(ka != kb or va is not vb for (ka, va), (kb, vb) in zip(now, before))


def container_writes(snapshots: list, inputs: list, capture) -> tuple[list, list]:
    """The changed containers as (arg, path, template), and the graph values the
    templates read (their ("out", j) items), for the trace that just ran."""
    changed = [(arg, path, obj) for arg, path, obj, before in snapshots
               if _changed(obj, before)]
    if not changed:
        return [], []
    known = {id(obj): (arg, path) for arg, path, obj, _ in snapshots}
    leaf_of = {id(p): k for k, p in enumerate(inputs)}
    outputs: list = []

    def encode(v):
        if id(v) in known:
            return ("ref",) + known[id(v)]
        if type(v) is Tensor:
            if id(v) in leaf_of and resolve(v) is v:
                return ("leaf", leaf_of[id(v)])
            value = resolve(v)
            outputs.append(capture(value))
            if value.weak and value.ndim == 0:  # stands for a Python number: put as one
                return ("number", len(outputs) - 1, _PYTHON_NUMBER[value.dtype.kind])
            return ("out", len(outputs) - 1)
        if type(v) in (list, tuple):
            return ("new", type(v), [encode(x) for x in v])
        if type(v) is dict:
            return ("new", dict, [(k, encode(x)) for k, x in v.items()])
        return ("const", v)

    writes = [(arg, path, [(k, encode(x)) for k, x in obj.items()] if type(obj) is dict
               else [encode(x) for x in obj]) for arg, path, obj in changed]
    return writes, outputs


_PYTHON_NUMBER = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def apply_container_writes(writes: list, args, leaves: list, values) -> None:
    """Put each changed container's final contents into the caller's container."""
    def at(arg, path):
        obj = args[arg]
        for k in path:
            obj = obj[k]
        return obj

    targets = [at(arg, path) for arg, path, _ in writes]  # before anything moves

    def build(t):
        kind = t[0]
        if kind == "ref":
            return at(t[1], t[2])
        if kind == "leaf":
            return leaves[t[1]]
        if kind == "out":
            return values[t[1]]
        if kind == "number":
            return t[2](values[t[1]])
        if kind == "new":
            if t[1] is dict:
                return {k: build(x) for k, x in t[2]}
            return t[1](build(x) for x in t[2])
        return t[1]

    contents = [[(k, build(x)) for k, x in items] if type(target) is dict else
                [build(x) for x in items]
                for target, (_, _, items) in zip(targets, writes)]
    for target, new in zip(targets, contents):
        if type(target) is dict:
            target.clear()
            target.update(new)
        else:
            target[:] = new
