"""How a symbolic `if` / loop's outputs relate to the arrays that went in (views.py's
table of arrays, seen from control flow).

- `unreturned_writes`: arrays a branch wrote that no output carries out, made extra
  outputs so the outer array gets the write.
- `numpy_arrays_out`: an output that is, on some path, a NumPy array the graph did not
  make (`al = self.cache["m"]`) refuses writes with `StateArrayWrite`: the trace then
  makes that array an input when it is Python state, and the user sees the error if not.
- `link_outputs`: an output that every path takes from (a written version of) the same
  array becomes that array's new value; an output that is another array on each path,
  or an array the function already had on one path only (`if c: al = a`), refuses
  writes, through it and through that array: which array a later write lands in is only
  known when the graph runs.

    a = np.zeros(3); al = np.ones(3)
    if x > 0:
        al = a          # al is `a` on one path only
    al[0] = 1.0         # refused: NumPy would write `a` on that path
"""
from __future__ import annotations

import functools

import numpy as np

from runtime.core import tracing
from runtime.core.errors import StateArrayWrite, where
from runtime.core.tensor import Tensor
from runtime.state.effects import raises_always
from runtime.state.views import (_array, _lookup, _poison, _register, _root, _table,
                                 poison_on_write, refuse_writes, resolve, write)


def unreturned_writes(operands: list, subgraphs: list, returned: list) -> list[list]:
    """For a symbolic `if` whose branches (`subgraphs`, their first inputs the
    `operands`' placeholders) wrote into an operand array that no output returns (the
    name is not used after the `if`, but the array may be an argument or have aliases):
    per subgraph, the extra outputs that carry each such array's final value out, so
    `link_outputs` writes it into the outer array. `returned` holds each subgraph's
    outputs."""
    table = _table()
    if not table:
        return [[] for _ in subgraphs]
    n = len(operands)
    wanted: list[int] = []
    for sub, outs in zip(subgraphs, returned):
        arrays = {id(a) for a in (_lookup(table, o) for o in outs) if a is not None}
        for i, p in enumerate(sub.inputs[:n]):
            a = _lookup(table, p)
            if a is not None and a.latest is not p and id(a) not in arrays and \
                    type(operands[i]) is Tensor and a.poison is None and i not in wanted:
                wanted.append(i)
    return [[resolve(p) for p in (sub.inputs[i] for i in wanted)] for sub in subgraphs]


def link_outputs(operands: list, subgraphs: list, outputs: list, own: list,
                 labels: list | None = None, unread: list | None = None) -> None:
    """After a symbolic `if` / loop: `operands` are the outer values passed in (one per
    input of each subgraph, in order), `subgraphs` the traced branches / body (their first
    len(operands) inputs are the operands' placeholders, their outputs match `outputs`),
    `own[j]` the operand that is output j's own variable (None: unknown), `unread[k]` the
    outputs subgraph k gives no value of its own (its path raises). An output that
    every subgraph returns as (a written version of) the same input array becomes the
    outer array's new value."""
    table = _table()
    if not table:  # nothing written or viewed yet: only aliases to look for
        table = _table(create=True)
        if table is not None:
            _passed_through(table, operands, subgraphs, outputs)
            _link_aliases(table, operands, subgraphs, outputs, own, set(), labels, unread)
        return
    _passed_through(table, operands, subgraphs, outputs)
    n = len(operands)
    returned: set = set()
    maps = []
    for sub in subgraphs:
        arrays = {id(_lookup(table, p)): i for i, p in enumerate(sub.inputs[:n])
                  if _lookup(table, p) is not None}
        m, written = [], set()
        for o in sub.outputs:
            a = _lookup(table, o)
            i = arrays.get(id(a)) if a is not None else None
            if i is None:
                i = next((k for k, p in enumerate(sub.inputs[:n]) if p is o), None)
            m.append(i)
            # (a version of the array other than the input itself; not another name for
            # the unchanged array, as a branch that passes it through gives: `_passed_through`)
            if i is not None and o is not sub.inputs[i] and \
                    not (a is not None and a.base is None and a.latest is sub.inputs[i]):
                written.add(i)
        maps.append((m, written))
        returned.update(i for i in m if i is not None)
        for i, p in enumerate(sub.inputs[:n]):
            a = _lookup(table, p)
            if a is not None and a.latest is not p and i not in m and type(operands[i]) is Tensor:
                # written, but the conversion does not carry the name out (it is not read
                # afterwards): aliases and views of the array would miss the write
                _poison(_array(table, operands[i]), (
                    f"An array was written inside a symbolic `if` / loop{where()} through a "
                    "name that is not used after it, and is read afterwards through another "
                    "name (an alias or view), or is an argument of the function. The graph "
                    "only carries the names used afterwards: use the written name after the "
                    "`if` / loop (or write through the name you read), or take a copy "
                    "(`.copy()`) before it."))
        for i in written:  # a captured alias of an array the body writes reads a stale value
            root = _root(_array(table, operands[i])) if type(operands[i]) is Tensor else None
            for outer in list(sub.captures):
                c = _lookup(table, outer)
                if root is not None and c is not None and _root(c) is root:
                    raise ValueError(
                        f"An `if` / loop{where()} writes into an array that it also reads "
                        "through another name (an alias or view taken before it), which the "
                        "graph cannot keep in step. Read the array through the name it is "
                        "written by, or take a copy (`.copy()`) before the `if` / loop.")
    # outputs every path takes from the same array first: the array's new value is known
    # even when another output (a return value) is that array on one path only
    ambiguous = []
    unread = unread or [()] * len(maps)
    for j, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            continue
        # (a path that raises gives no value: the others decide which array it is)
        taken = [(m, w) for (m, w), u in zip(maps, unread) if j not in u] or maps
        sources = {m[j] if j < len(m) else None for m, _ in taken}
        wrote = any(j < len(m) and m[j] in w for m, w in taken)
        if len(sources) == 1 and None not in sources:
            i = sources.pop()
            # (a path that raises may have written the array and give no value: the
            # output is still that array, which the others pass through unwritten)
            if type(operands[i]) is Tensor and (wrote or any(
                    i in w for (_, w), u in zip(maps, unread) if j in u)):
                write(operands[i], out)
        elif wrote:
            ambiguous.append(j)
    for j in ambiguous:  # written on one path, another array on the other: unknown afterwards
        for i in {m[j] for m, _ in maps if j < len(m) and m[j] is not None}:
            if type(operands[i]) is Tensor:
                _poison(_array(table, operands[i]),
                        f"An array was written in one branch of a symbolic `if`{where()} and "
                        "replaced by another array in the other, so which array it is "
                        "afterwards is only known when the graph runs. Make both branches "
                        "write it (or both assign a new one).")
    _link_aliases(table, operands, subgraphs, outputs, own, set(ambiguous), labels, unread)


def _link_aliases(table, operands, subgraphs, outputs, own, skip: set, labels,
                  unread: list | None = None) -> None:
    """An output that is, on some path, an array the function already had other than its
    own variable's (`al = a`, `a` captured or another variable): the same array on every
    path becomes an alias of it; on some paths only, writes through either refuse. A path
    that raises (`unread`) gives no value and does not count."""
    loop = len(subgraphs) == 1  # a loop's other path: no iteration (its own variable)
    unread = unread or [()] * len(subgraphs)
    for j, out in enumerate(outputs):
        if type(out) is not Tensor or j in skip or not out.ndim:
            continue  # (a 0-d value stands for a number, which no write changes in place)
        # (a path that raises gives no value; one that gives a placeholder, which code
        # never reads, is still a path whose array differs)
        giving = [sub for sub, u in zip(subgraphs, unread) if j not in u] or subgraphs
        if any(not raises_always(sub) for sub, u in zip(subgraphs, unread) if j in u):
            giving = subgraphs
        sources = [_outer_source(table, sub, j, operands) for sub in giving]
        mine = operands[own[j]] if own[j] is not None else _sole_operand(sources, operands)
        aliased, other, kept = {}, loop, loop  # (no iteration: the variable kept)
        for src in sources:
            if src is None or src is mine:
                other = True
                kept = kept or src is mine
            else:
                aliased[id(src)] = src
        if not aliased:
            if type(mine) is Tensor and _lookup(table, out) is None and all(
                    _outer_source(table, sub, j, operands) is mine for sub in subgraphs):
                # every path passes the variable's array through unwritten: the output is
                # that array, which later writes must reach (an argument's, a view's)
                _register(table, out, _array(table, mine))
                continue
            # (Python state's array, kept in its own place `self.g`, is written back to
            # that place: not paired, see README "Arrays, aliases and views"; through a
            # local name, or an argument's, it is)
            label = labels[j] if labels is not None and j < len(labels) else None
            local = label is not None and "." not in label  # (None: the name is unknown)
            if kept and type(mine) is Tensor and (mine.node is not None or _is_argument(mine)
                                                  or local) and \
                    _rebound_somewhere(table, giving, j, operands, mine):
                # `a = a + x` on some paths only: afterwards `a` is the old array on the
                # others, which other names may hold; writing either makes the other
                # depend on the path
                view_poison_pair(out, mine)
            continue
        if other or len(aliased) > 1:
            for t in [out, *aliased.values()]:
                refuse_writes(t, _path_dependent_alias)
        else:
            (src,) = aliased.values()
            _register(table, out, _array(table, src))


def _passed_through(table, operands: list, subgraphs: list, outputs: list) -> None:
    """An output that every path passes through unchanged from the same operand (`if c:
    xs = xs`, a loop that leaves `xs` alone, a `try` state variable) is that operand's
    array: a later write through it reaches the array and its other names (the caller's
    argument), as in Python."""
    n = len(operands)
    loop = len(subgraphs) == 1  # (a loop body: its own variable only, iteration after
    for j, out in enumerate(outputs):  # iteration; another's is that one's previous value)
        if type(out) is not Tensor or _lookup(table, out) is not None:
            continue
        found = {next((i for i, p in enumerate(sub.inputs[:n]) if p is sub.outputs[j]
                       and (i == j or not loop)), None)
                 if j < len(sub.outputs) else None for sub in subgraphs}
        if len(found) == 1 and None not in found:
            src = operands[found.pop()]
            if type(src) is Tensor and src.shape == out.shape and src.dtype == out.dtype:
                _register(table, out, _array(table, src))


def _sole_operand(sources: list, operands: list):
    """Without the variables' names: the one operand some paths give (the variable's
    own value passed through; the others make new arrays), else None."""
    found = {id(s): s for s in sources if s is not None}
    if len(found) == 1:
        (src,) = found.values()
        if any(src is o for o in operands):
            return src
    return None


def _rebound_somewhere(table, subgraphs, j, operands, mine) -> bool:
    return any(_outer_source(table, sub, j, operands) is not mine for sub in subgraphs)


def view_poison_pair(out: Tensor, old: Tensor) -> None:
    """`out` is `old`'s array on some paths and a new one on the others: a write into
    either makes the other unreadable."""
    poison_on_write(out, old, _kept_on_some_paths)
    poison_on_write(old, out, _kept_on_some_paths)


def _kept_on_some_paths() -> str:
    return ("This array depends on the path a symbolic `if` / loop took: a variable was "
            "rebound to a new array on some paths and kept its array on others, and one of "
            f"the two was then written in place{where()}, which NumPy would have seen "
            "through both names on the paths that kept it. Take a copy before the `if` / "
            "loop (`a = a.copy()`), or assign a new array on every path.")


def _path_dependent_alias() -> ValueError:
    return ValueError(
        f"This write{where()} goes into an array that a symbolic `if` / loop made an alias "
        "of another array on some paths only (`al = a` in one branch), so which array it "
        "lands in is only known when the graph runs. Take a copy there (`al = a.copy()`), "
        "or write the array by its own name.")


def _outer_source(table, sub, j: int, operands: list):
    """The outer value (operand or capture) whose array output j of `sub` is (or a
    version of), or None (an array the path made)."""
    if j >= len(sub.outputs) or type(sub.outputs[j]) is not Tensor:
        return None
    o = sub.outputs[j]
    n = len(operands)
    outer = [(p, operands[i]) for i, p in enumerate(sub.inputs[:n])] + \
        [(inner, outer) for outer, inner in sub.captures.items()]
    for p, src in outer:
        if p is o:
            return src if type(src) is Tensor else None
    a = _lookup(table, o)
    if a is None:
        return None
    root = _root(a)
    for p, src in outer:
        b = _lookup(table, p)
        if b is not None and _root(b) is root and type(src) is Tensor:
            return src
    return None


def numpy_arrays_out(outputs: list, paths: list, own: list, labels: list) -> None:
    """`paths[p][j]`: what path p gives output j; `own[j]`: what its variable held before.
    One that is on some path a NumPy array other than its own earlier value (an array of
    Python state read in a branch, `al = self.cache["m"]`) is that array there, which a
    graph value cannot stand for once written: writes through the output refuse. (Its
    own earlier value kept on a path, when the variable is that place itself, `self.g`,
    is written back to its place by the trace.)"""
    for j, out in enumerate(outputs):
        if type(out) is not Tensor or not out.ndim:
            continue
        local = j < len(labels) and labels[j] is not None and "." not in labels[j]
        arrays = [p[j] for p in paths if j < len(p) and type(p[j]) is np.ndarray
                  and (p[j] is not own[j] or local) and _is_state(p[j])]
        if arrays:
            refuse_writes(out, functools.partial(_numpy_array_alias, arrays[0]))


def _is_argument(t: Tensor) -> bool:
    """Whether `t` is the placeholder of an argument of the function being traced."""
    graph = tracing.current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    return id(t) in getattr(graph, "argument_ids", ())


def _is_state(array: np.ndarray) -> bool:
    """Whether the trace reaches `array` as Python state (the frontend's plan says; a
    NumPy array made in a branch, `self.g * 0.5`, is not, and no other place holds it)."""
    graph = tracing.current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    place_of = getattr(graph, "place_of", None)
    return place_of is not None and place_of(array) is not None


def _numpy_array_alias(array) -> StateArrayWrite:
    return StateArrayWrite(
        f"This write{where()} goes into a value that a symbolic `if` / loop made of a NumPy "
        "array the graph did not make (an array of an object, a global or a closure, "
        "`al = self.cache['m']` on one path), which the graph value cannot write into. "
        "Write that array by its own place (`self.cache['m'][i] = v`), or take a copy "
        "(`al = self.cache['m'].copy()`).", array)
