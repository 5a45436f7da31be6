"""Optional statement kinds for the compiler fuzzer (`fuzz.py`), chosen with `features`:

- "closures": lambdas and defs appended to a list inside loops (and branches), called
  after the loop - late binding: they see the variables' final values;
- "linked": a small linked list built through a rebound name
  (`cur.next = Node(v); cur = cur.next`) and attribute updates through it;
- "dicts": `d[k] = v`, `d.pop(k, None)`, `d = dict(d)` (rebound), under conditions;
- "lists": `acc.append(v)` / `acc.pop()` under conditions;
- "raise": `raise ValueError(...)` in branches (the runner compares the exception's
  type and message);
- "arrays": writes to the `xs` argument through an alias (`ys = xs; ys[i] = v`), read
  back through `xs` (the runner compares `xs` after the call too);
- "state": a module-level object whose state outlives the call and carries over
  from call to call (the runner resets it before each run of the argument sets):
  stores (`st.v1 = x + 1`, `st.n0 = (st.n0 + k) % 1009`), read-modify-writes
  (`st.v0 = st.v0 * 0.5 + y`), reads (`x = x + st.v2`), a dict of values
  (`st.memo['a'] = ...`, also through a local name `memo`), an array of state rebound (`st.arr = st.arr * 0.5 + x`) and
  one written in place (`st.acc += x`), in branches and loops too, and an append to a list in state
  as the function's first statement (a list that grows in one branch of a symbolic
  `if` only is refused by another rule). The runner compares the state after every call,
  on the symbolic path too: written values are written back by every call.
- "state_kinds" (with "state"): state the walk once saw only by its type - a helper
  function's attributes (`tally.n = (tally.n + k) % 1009`, `tally.v = tally.v * 0.5 + y`),
  items of a fixed-length `deque` (`st.dq[1] = ...`) and a `Counter`'s counts, written
  and read in branches and loops, and a set that grows by one element a call (first
  statement); the runner compares them after every call with the rest of the state.
- "try": `try` / `except E as e` / `else` / `finally` and `with` blocks holding random
  statements (jumps and returns included, in loops too) and operations that may raise
  (`ZeroDivisionError`, `IndexError`); handlers, `finally` and `__exit__` append to
  `log`, which the runner compares.
- "graph_try": `try` blocks, `with np.errstate(...)` regions and raising operations
  checked on the graph path against eager NumPy (fuzz_try.py).
- "partly_bound": a variable `pb0` bound on some paths only - first under a condition
  at the top (in a quarter of the programs not at all), then in branches and loops -
  read by later statements and at every return: Python raises UnboundLocalError where no path taken bound it, and the graph
  must raise it there too (the runner compares the exception), else give the value.
- "random": draws from seeded generators (`random_*` below): NumPy's global one and a
  Generator made in the function, seeded from the arguments at its top, drawn from in
  branches and loops, with arguments computed in the function, and a shuffle of an array
  made from `xs`; the generators' next draws are observed after the body.

Each feature adds its setup lines at the top of the function, its statements to the
statement kinds, and its observable state as one more element of every returned tuple.
On the symbolic path (NumPy arguments) some are other items' work: `SYMBOLIC_OK` lists
the ones the graph path is checked with by default ("state", "random" and the object
features of fuzz_objects.py).
"""
from __future__ import annotations

from tests.autograph import fuzz_objects, fuzz_try

ALL = frozenset({"closures", "linked", "dicts", "lists", "raise", "arrays", "state", "try",
                  "random", "graph_try", "state_kinds", "partly_bound"}) | fuzz_objects.ALL
SYMBOLIC_OK: frozenset = frozenset({"state", "random", "state_kinds", "partly_bound"}) | \
    fuzz_objects.ALL

HELPERS = '''
class Box:
    pass


STATE = Box()


def reset_state():
    STATE.__dict__.clear()
    STATE.v0 = STATE.v1 = STATE.v2 = 0.0
    STATE.n0 = STATE.n1 = 0
    STATE.hist = []
    STATE.memo = {'a': 0.0}
    STATE.arr = __import__('numpy').zeros(4)
    STATE.acc = __import__('numpy').zeros(4)
    STATE.dq = __import__('collections').deque([0.0, 0.0, 0.0], maxlen=3)
    STATE.cnt = __import__('collections').Counter(a=0, b=0.0)
    STATE.seen = {0}
    tally.__dict__.clear()
    tally.n, tally.v = 0, 0.0


def tally():
    pass


def _plain(v):
    if type(v) is dict or type(v).__name__ == 'Counter':
        return sorted(v.items())
    if type(v) is list or type(v).__name__ == 'deque':
        return list(v)
    if type(v) is set:
        return sorted(v)
    return v.tolist() if getattr(v, 'ndim', 0) else v


def snap(st, lists=True):
    items = list(vars(st).items()) + [('tally.' + k, v) for k, v in vars(tally).items()]
    return sorted((k, _plain(v)) for k, v in items
                  if lists or not (type(v).__name__ in ('list', 'deque', 'Counter', 'set')
                                   or getattr(v, 'ndim', 0)))


class Node:
    def __init__(self, val):
        self.val = val
        self.next = None


class Logged:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(("enter", self.tag))
        return self.tag

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.tag, kind.__name__ if kind else None))
        return False


def walk(node):
    out = []
    while node is not None:
        out.append(node.val)
        node = node.next
    return out
'''


def setup(gen) -> list:
    """Lines at the top of the function body."""
    features = gen.features
    out = fuzz_objects.setup(gen)
    if "closures" in features:
        out.append("fs = []")
    if "linked" in features:
        out += ["head = Node(0)", "cur = head"]
    if "dicts" in features:
        out.append("d = {}")
    if "lists" in features:
        out.append("acc = []")
    if "arrays" in features:
        out.append("ys = xs")
    if "state" in features:
        # appended first: later, an early `return` under a symbolic condition would put
        # the append under that condition, where changing a list's length is refused
        out += ["st = STATE", "st.hist.append(x - y)", "memo = st.memo"]
        if "state_kinds" in features:  # (first: a set that grows under a symbolic
            # condition is refused as a change of structure, as a list's append is)
            out.append("st.seen.add(len(st.hist) % 4)")
    if "try" in features:
        out.append("log = []")
    if "partly_bound" in features:
        # (a quarter of the programs bind it under a condition Python decides, never
        # true: unbound on every path until a statement binds it, a read in a symbolic
        # branch raises when the graph takes that branch, as Python does)
        test = "x > y" if gen.chance(0.75) else "len(xs) < 0"
        out += [f"if {test}:", "    pb0 = x * 0.5"]
    return out + random_setup(features) + fuzz_try.setup(features)


def observed(features) -> list:
    """Expressions appended to every returned tuple: the state the features built."""
    out = []
    if "closures" in features:
        out.append("[f(1) for f in fs]")
    if "linked" in features:
        out.append("walk(head)")
    if "dicts" in features:
        out.append("sorted(d.items())")
    if "lists" in features:
        out.append("list(acc)")
    if "state" in features:
        # lists and arrays: the runner compares them after each call
        out.append("snap(st, False)")
    if "try" in features:
        out.append("list(log)")
    if "partly_bound" in features:
        out.append("pb0")
    return out + random_observed(features) + fuzz_objects.observed(features) + \
        fuzz_try.observed(features)


def kinds(gen, env) -> list:
    """Extra statement kinds available at this point of the program."""
    out = []
    features = gen.features
    if "closures" in features and (env.loop_depth or env.if_depth):
        out += ["closure", "closure"]
    if "linked" in features:
        out += ["link"]
    if "dicts" in features:
        out += ["dict"]
    if "lists" in features:
        out += ["list"]
    if "raise" in features and env.if_depth:
        out += ["raise"]
    if "arrays" in features:
        out += ["alias_write"]
    if "state" in features:
        out += ["store"]
    if "state_kinds" in features:
        out += ["store_kind"]
    if "partly_bound" in features:
        out += ["partly_read"] + ["partly"] * bool(env.if_depth or env.loop_depth)
    if "try" in features:
        out += ["may_raise"]
        if gen.budget > 2 and env.if_depth < 3:
            out += ["try", "with"]
    return out + random_kinds(features) + fuzz_objects.kinds(gen, env) + \
        fuzz_try.kinds(gen, env)


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    """Append one statement of `kind`; True if it always jumps (raise)."""
    r = gen.r
    if kind == "closure":
        if env.fvars and gen.chance(0.5):
            var = r.choice(env.fvars)
        else:
            var = r.choice(env.bounded + env.ivars)
        if gen.chance(0.5):
            lines.append(f"{pad}fs.append(lambda q: q + {var})")
        else:
            g = gen.fresh("g")
            lines += [f"{pad}def {g}(q):", f"{pad}    return q * 2 + {var}",
                      f"{pad}fs.append({g})"]
    elif kind == "link":
        form = r.choice(["append", "append", "update", "restart"])
        if form == "append":
            lines += [f"{pad}cur.next = Node({gen.int_value(env, 1)})", f"{pad}cur = cur.next"]
        elif form == "update":
            lines.append(f"{pad}cur.val = (cur.val + {gen.bounded_int(env)}) % 1009")
        else:
            lines.append(f"{pad}cur = head")
    elif kind == "dict":
        key = f"({gen.bounded_int(env)}) % 3"
        form = r.choice(["store", "store", "pop", "rebind", "aug"])
        if form == "store":
            lines.append(f"{pad}d[{key}] = {gen.int_value(env, 1)}")
        elif form == "pop":
            lines.append(f"{pad}d.pop({key}, None)")
        elif form == "rebind":
            lines.append(f"{pad}d = dict(d)")
        else:
            lines += [f"{pad}if {key} in d:", f"{pad}    d[{key}] += 1"]
    elif kind == "list":
        if gen.chance(0.6):
            lines.append(f"{pad}acc.append({gen.int_value(env, 1)})")
        else:
            lines += [f"{pad}if acc:", f"{pad}    acc.pop()"]
    elif kind == "raise":
        lines.append(f"{pad}raise ValueError(f'bad {{{r.choice(env.bounded)}}}')")
        return True
    elif kind == "partly":
        lines.append(f"{pad}pb0 = {gen.float_expr(env)}")
    elif kind == "partly_read":
        target = r.choice(gen.float_names)
        lines.append(f"{pad}{target} = {target} + pb0 * 0.5")
    elif kind == "store":
        form = r.choice(["float", "float", "int", "carry", "read", "memo", "array", "in_place"])
        v = r.randrange(3)
        if form == "float":
            lines.append(f"{pad}st.v{v} = {gen.float_expr(env, 1)}")
        elif form == "int":
            lines.append(f"{pad}st.n{r.randrange(2)} = {gen.int_value(env, 1)}")
        elif form == "carry":
            if gen.chance(0.5):
                lines.append(f"{pad}st.v{v} = st.v{v} * 0.5 + {gen.float_expr(env, 1)}")
            else:
                i = r.randrange(2)
                lines.append(f"{pad}st.n{i} = (st.n{i} + {gen.bounded_int(env)}) % 1009")
        elif form == "read":
            var = r.choice(["x", "y"])
            lines.append(f"{pad}{var} = {var} + st.v{v}")
        elif form == "array":   # an array of state rebound (read as an input once it changes)
            lines.append(f"{pad}st.arr = st.arr * 0.5 + {gen.float_expr(env, 1)}")
        elif form == "in_place":  # an array of state written in place (identity kept)
            lines.append(f"{pad}st.acc += {gen.float_expr(env, 1)}")
        elif len(lines) % 2:  # (not drawn: the programs of earlier seeds stay as they were)
            # through a local name: a variable of the symbolic `if` / loop it is in, whose
            # dict must stay the state's object
            lines.append(f"{pad}memo['a'] = memo['a'] * 0.25 + {gen.float_expr(env, 1)}")
        else:
            lines.append(f"{pad}st.memo['a'] = st.memo['a'] * 0.25 + {gen.float_expr(env, 1)}")
    elif kind == "store_kind":
        _store_kind(gen, env, pad, lines)
    elif kind in ("try", "with"):
        _block_stmt(gen, kind, env, pad, lines)
    elif kind == "may_raise":
        target = r.choice(gen.int_names)
        if gen.chance(0.5):
            rhs = f"60 // ({gen.bounded_int(env)} - {gen.bounded_int(env)})"
        else:
            rhs = f"[3, 5, 7][{gen.bounded_int(env)}]"
        lines.append(f"{pad}{target} = ({target} + {rhs}) % 1009")
    elif kind == "alias_write":
        idx = gen.index(env)
        lines.append(f"{pad}ys[{idx}] = {gen.float_expr(env, 1)}")
    elif kind == "draw":
        random_stmt(gen, env, pad, lines)
    elif kind in ("graph_try", "errstate", "raise_const", "graph_may_raise") + \
            fuzz_try.fuzz_try_writes.KINDS + fuzz_try.fuzz_try_labels.KINDS + \
            fuzz_try.fuzz_try_raises.KINDS + fuzz_try.fuzz_try_chain.KINDS:
        return fuzz_try.stmt(gen, kind, env, pad, lines)
    else:
        return fuzz_objects.stmt(gen, kind, env, pad, lines)
    return False


def _block_stmt(gen, kind: str, env, pad: str, lines: list) -> None:
    """A `try` (handlers, maybe `else` / `finally`) or a `with Logged(...)` block."""
    r = gen.r
    indent = len(pad) // 4 + 1
    inner = env.child()
    inner.if_depth += 1
    tag = gen.fresh("b")
    if kind == "with":
        lines.append(f"{pad}with Logged(log, '{tag}') as {tag}:")
        gen.block(inner.child(), indent, lines)
        return
    lines.append(f"{pad}try:")
    gen.block(inner.child(), indent, lines)
    handlers = r.sample(["ZeroDivisionError", "IndexError", "ArithmeticError",
                         "(ValueError, LookupError)", "Exception"], r.randint(0, 2))
    if not handlers and gen.chance(0.5):
        handlers = ["ZeroDivisionError"]
    for h in handlers:
        if gen.chance(0.5):
            lines.append(f"{pad}except {h} as e:")
            lines.append(f"{pad}    log.append(('{tag}', type(e).__name__))")
        else:
            lines.append(f"{pad}except {h}:")
            lines.append(f"{pad}    log.append(('{tag}', '{h}'))")
        if gen.chance(0.5):
            gen.block(inner.child(), indent, lines, max_stmts=2)
    if handlers and gen.chance(0.3):
        lines.append(f"{pad}else:")
        lines.append(f"{pad}    log.append(('{tag}', 'else'))")
        if gen.chance(0.5):
            gen.block(inner.child(), indent, lines, max_stmts=2)
    if not handlers or gen.chance(0.5):
        lines.append(f"{pad}finally:")
        lines.append(f"{pad}    log.append(('{tag}', 'finally'))")


# -- "random" ---------------------------------------------------------------------------------
def _store_kind(gen, env, pad: str, lines: list) -> None:
    """One write or read of the "state_kinds" state (see the module docstring)."""
    r = gen.r
    form = r.choice(["fn_int", "fn_float", "deque", "count", "count_float", "read"])
    if form == "fn_int":
        lines.append(f"{pad}tally.n = (tally.n + {gen.bounded_int(env)}) % 1009")
    elif form == "fn_float":
        lines.append(f"{pad}tally.v = tally.v * 0.5 + {gen.float_expr(env, 1)}")
    elif form == "deque":
        i = r.randrange(3)
        lines.append(f"{pad}st.dq[{i}] = st.dq[{i}] * 0.5 + {gen.float_expr(env, 1)}")
    elif form == "count":
        lines.append(f"{pad}st.cnt['a'] = (st.cnt['a'] + {gen.bounded_int(env)}) % 1009")
    elif form == "count_float":
        lines.append(f"{pad}st.cnt['b'] = st.cnt['b'] * 0.25 + {gen.float_expr(env, 1)}")
    else:
        var = r.choice(["x", "y"])
        lines.append(f"{pad}{var} = {var} + tally.v + st.dq[{r.randrange(3)}] + "
                     f"(1.0 if {r.randrange(4)} in st.seen else 0.0)")


def random_setup(features) -> list:
    if "random" not in features:
        return []
    # the module imports nothing: numpy is reached through __import__
    return ["rnp = __import__('numpy')", "rnp.random.seed(abs(k) * 5 + n)",
            "rng = rnp.random.default_rng(abs(k) + n * 3)"]


def random_observed(features) -> list:
    return ["[rng.random(), rnp.random.random()]"] if "random" in features else []


def random_kinds(features) -> list:
    return ["draw", "draw"] if "random" in features else []


def random_stmt(gen, env, pad: str, lines: list) -> None:
    r = gen.r
    target = r.choice(gen.float_names)
    arg = gen.float_expr(env, 1)
    draw = r.choice([
        "rng.normal()", "rnp.random.rand()", "rng.random()", "rnp.random.randint(0, 4)",
        f"rng.uniform({arg}, {arg} + 1.0)", f"rng.normal({arg}, 0.5)",
        "rng.standard_normal(3).sum()", "rnp.random.normal(size=2)[1]",
        "rng.integers(0, 5) * 0.5", f"rng.choice(xs) * {arg}", "rng.permutation(xs)[0]",
    ])
    if gen.chance(0.2):
        s = gen.fresh("s")
        lines += [f"{pad}{s} = rnp.array(xs)",
                  f"{pad}{r.choice(['rng', 'rnp.random'])}.shuffle({s})",
                  f"{pad}{target} = {target} + {s}[0] - {s}[3]"]
    else:
        lines.append(f"{pad}{target} = {target} + {draw}")
