"""Functional control flow: `cond`, `while_loop` and the graph lists they carry.

With a Python predicate / condition these run as plain Python. With a symbolic one,
each function is traced into a child graph and one `cond` / `while_loop` node is added;
the executor turns it back into a real `if` / `while` statement.

- `cond.py`: `cond` and how two branches' outputs merge (dtype, shape).
- `while_loop.py`: `while_loop`, hand-over from a Python loop to a graph loop, and
  tracing the body until its types are known.
- `learn_types.py`: the one place that learns types by tracing: the dtype a Python
  number loop variable takes, dimensions an iteration changes, and the type of a "no
  value yet" placeholder (a loop variable first assigned inside, a return value not set
  on one path), and which Python lists a loop grows (carried as graph lists). Callers
  only name the values for messages.
- `lists.py`: graph lists (`list_new` / `list_append` / `list_stack`) for values a
  symbolic loop accumulates.
- `common.py`: what the two share (tracing a child graph, captures, value checks).
- `hooks.py`: the hooks on the COND / WHILE_LOOP records that passes, graph lists, the
  buffer plan, the verifier and the loader call (data flow through subgraphs, which inputs are evaluated
  once, the taken branch, structure check), so none of them names these ops. The
  executor's hooks live with the executor, which attaches them when it loads: `run` in
  `runtime/exec/interpreter.py`, `emit` (code generation) in
  `runtime/exec/control_emit.py`.

May import core/, ops/ and state/ (and this folder); never autodiff/, passes/, exec/ or
anything above them.
"""
from runtime.control_flow.cond import COND, cond
from runtime.control_flow.while_loop import WHILE_LOOP, while_loop
from runtime.control_flow import hooks as _hooks  # noqa: F401 - attaches the op hooks

__all__ = ["COND", "WHILE_LOOP", "cond", "while_loop"]
