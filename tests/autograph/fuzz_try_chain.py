"""The fuzzer's "try_chain" feature (with "graph_try", fuzz_try.py): the raising sources of
issue 20 the other try features do not write - graph assertions, re-raising and
exception chaining.

Generated statements:
- `assert <condition>, 'fuzz aN'` anywhere (on symbolic values: a graph assertion, an
  `AssertionError` when the graph runs), which handlers name too (`except
  AssertionError`);
- at the end of a handler, sometimes: a bare `raise`, `raise e` (a handler `as e`),
  `raise ChainError('...') from e` or `from None` - a class of the program's own (a
  `ValueError`), which handlers name too; the runner compares the error that comes out
  (type and message) or the handler of an enclosing `try` that takes it.

A separate feature: it draws from the generator's random numbers only when it is asked
for, so the programs of the other sets (and their regression seeds) stay the same.
"""
from __future__ import annotations

FEATURE = "try_chain"
KINDS = ("graph_assert",)
HANDLERS = ["AssertionError", "ChainError"]
HELPERS = '''class ChainError(ValueError):
    pass


'''


def handlers(features) -> list:
    return HANDLERS if FEATURE in features else []


def kinds(gen, env) -> list:
    return list(KINDS) if FEATURE in gen.features else []


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    """Append one statement of `kind` (an assertion); it never always jumps."""
    lines.append(f"{pad}assert {gen.cond(env, 1)}, 'fuzz {gen.fresh('a')}'")
    return False


def end_handler(gen, pad: str, lines: list, named: bool) -> None:
    """Maybe end a handler (`as e` when `named`) with a re-raise or a chained raise."""
    if FEATURE not in gen.features or not gen.chance(0.35):
        return
    forms = ["raise", "raise ChainError('fuzz {m}') from None"]
    if named:
        forms += ["raise e", "raise ChainError('fuzz {m}') from e"]
    form = gen.r.choice(forms)
    lines.append(f"{pad}{form.format(m=gen.fresh('c'))}")
