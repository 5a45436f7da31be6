"""Running a graph: the code-generating executor and the reference interpreter.

- `codegen.py`: turns an optimized graph into one Python function of NumPy calls
  (what `ConcreteFunction.python_code` shows) — the executor every call uses.
- `control_emit.py`: how the code generator spells `cond` and `while_loop` (real `if`
  and `while` statements): the `emit` hooks of their op records.
- `buffer_plan.py`: which results may be written into a dead input's buffer (`out=`).
- `quiet_groups.py`: one floating-point silencing around a run of vmap's quiet ops.
- `spelling.py`: `np.dot` or `np.matmul` for a 2-D float matmul (bitwise eager, by size).
- `schedule.py`: the thread pool, the cost model, and which nodes run on it.
- `chunks.py`: runs of elementwise ops over large arrays, in slices across the cores.
- `interpreter.py`: runs a graph node by node; the reference semantics the tests
  compare the generated code against, with the `run` hooks of `cond` and `while_loop`.

Which nodes a graph's outputs and effects need is `runtime/core/liveness.py`.

May import core/, ops/, state/, control_flow/, autodiff/ and passes/ (and this folder);
never frontend/, jit/, saved/ or onnx_export/.
"""
# The executor's hooks on the COND / WHILE_LOOP records (`emit`, `run`) are attached when
# their modules load; every import of the executor (e.g. `runtime.exec.codegen`) runs
# this file first, so a graph with control flow can always be compiled or interpreted.
from runtime.exec import control_emit as _control_emit, interpreter as _interpreter  # noqa: F401
