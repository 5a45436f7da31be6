"""Running a graph: the code-generating executor and the reference interpreter.

- `codegen.py`: turns an optimized graph into one Python function of NumPy calls
  (what `ConcreteFunction.python_code` shows) — the executor every call uses.
- `buffer_plan.py`: which results may be written into a dead input's buffer (`out=`).
- `spelling.py`: `np.dot` or `np.matmul` for a 2-D float matmul (bitwise eager, by size).
- `schedule.py`: the thread pool, the cost model, and which nodes run on it.
- `chunks.py`: runs of elementwise ops over large arrays, in slices across the cores.
- `liveness.py`: which nodes a graph's outputs and effects need.
- `interpreter.py`: runs a graph node by node; the reference semantics the tests
  compare the generated code against.
"""
