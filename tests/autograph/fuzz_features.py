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
- "state": values stored on a module-level object that outlives the call
  (`st = STATE; st.v1 = x + 1`, `st.n0 = n % 7`, in branches and loops too), reset when
  the function starts. (Appends to lists in state are a unit test's: a list that grows
  in one branch of a symbolic `if` only is refused by another rule.) On
  the symbolic path a stored value computed from the arguments is symbolic: the trace
  must end in the escape check's error naming `STATE` (never a dead Tensor left in
  STATE, never another error); a program that stores only Python values must match.
- "random": draws from seeded generators (`random_*` below): NumPy's global one and a
  Generator made in the function, seeded from the arguments at its top, drawn from in
  branches and loops, with arguments computed in the function, and a shuffle of an array
  made from `xs`; the generators' next draws are observed after the body.

Each feature adds its setup lines at the top of the function, its statements to the
statement kinds, and its observable state as one more element of every returned tuple.
On the symbolic path (NumPy arguments) these are other items' work: `SYMBOLIC_OK` lists
the ones the graph path is checked with (none yet - see the module `fuzz.py` docstring).
"""
from __future__ import annotations

ALL = frozenset({"closures", "linked", "dicts", "lists", "raise", "arrays", "state", "random"})
SYMBOLIC_OK: frozenset = frozenset({"state", "random"})

HELPERS = '''
class Box:
    pass


STATE = Box()


class Node:
    def __init__(self, val):
        self.val = val
        self.next = None


def walk(node):
    out = []
    while node is not None:
        out.append(node.val)
        node = node.next
    return out
'''


def setup(features) -> list:
    """Lines at the top of the function body."""
    out = []
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
        out += ["st = STATE", "st.__dict__.clear()", "st.v0 = st.v1 = st.v2 = 0.0",
                "st.n0 = st.n1 = 0"]
    return out + random_setup(features)


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
        out.append("sorted(vars(st).items())")
    return out + random_observed(features)


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
    return out + random_kinds(features)


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
    elif kind == "store":
        if gen.chance(0.5):
            lines.append(f"{pad}st.v{r.randrange(3)} = {gen.float_expr(env, 1)}")
        else:
            lines.append(f"{pad}st.n{r.randrange(2)} = {gen.int_value(env, 1)}")
    elif kind == "alias_write":
        idx = gen.index(env)
        lines.append(f"{pad}ys[{idx}] = {gen.float_expr(env, 1)}")
    elif kind == "draw":
        random_stmt(gen, env, pad, lines)
    return False


# -- "random" ---------------------------------------------------------------------------------
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
