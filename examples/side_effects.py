"""Side effects: what runs while tracing, what runs on every call.

Shows:
- Python `print` runs only while the function is traced; `ag.print` is part of the
  graph and prints on every call, with the values;
- Python state the function writes (an outer list, a global, `self.x`) is written by
  every call, as Python does: values the graph computes arrive as NumPy values;
- `ag.Variable`: state created outside the Function, read and updated (`assign_add`)
  inside it on every call, in program order;
- `ag.run_functions_eagerly(True)`: run decorated functions as plain Python (every
  print runs), to check that graph and eager results agree;
- non-strict execution: an unused operation that would fail in eager NumPy is not run
  by the graph.

Run:  python examples/side_effects.py
"""
import numpy as np

import autograph as ag

y_true = np.array([1, 0, 4, 4, 7], np.int32)
y_pred = np.array([3, 6, 3, 0, 6], np.int32)


@ag.function
def get_mse(y_true, y_pred):
    print("Calculating MSE!")                   # Python: runs while tracing only
    ag.print("ag.print: the squared errors are", (y_true - y_pred) ** 2)  # every call
    sq_diff = (y_true - y_pred) ** 2
    return np.mean(sq_diff)


print("# Three calls: `print` once (tracing), `ag.print` three times")
for _ in range(3):
    error = get_mse(y_true, y_pred)
print("MSE:", error)

print("\n# Appending to an outer list happens on every call, as in Python")
seen = []


@ag.function
def record(x):
    seen.append(f"called for {x.dtype}")  # a Python value
    seen.append(x + 1)                    # a value the graph computes
    return x + 1


for v in (1.0, 2.0, 3.0):
    record(np.float32(v))
print("calls: 3, list entries:", seen)
assert len(seen) == 6 and seen[-1] == np.float32(4.0)

print("\n# Variables: created outside, updated inside, on every call")
counter = ag.Variable(np.int64(0), name="counter")
total = ag.Variable(np.zeros(3, np.float32), name="total")


@ag.function
def accumulate(x):
    counter.assign_add(1)
    total.assign_add(x)
    if np.sum(total.value) > 10:  # a condition on state: a graph conditional
        ag.print("total passed 10 after", counter.value, "calls")
    return total.value * 2


for step in range(4):
    accumulate(np.ones(3, np.float32) * (step + 1))
print("counter:", counter.numpy(), "total:", total.numpy(), "traces:", accumulate.tracing_count)
assert counter.numpy() == 4 and accumulate.tracing_count == 1

print("\n# run_functions_eagerly(True): plain Python, every print runs")
ag.run_functions_eagerly(True)
try:
    print("eager mode:", ag.functions_run_eagerly())
    for _ in range(3):
        eager_error = get_mse(y_true, y_pred)
finally:
    ag.run_functions_eagerly(False)  # don't forget to switch back
print("graph and eager agree:", eager_error == error)

print("\n# Non-strict execution: an unused failing op does not run in the graph")


def unused_take(x, index):
    np.take(x, index)  # unused; fails when index is out of bounds
    return x


x, index = np.array([0.0]), np.array([1])
try:
    unused_take(x, index)
except IndexError as e:
    print(f"eager: IndexError: {e}")
print("graph:", ag.function(unused_take)(x, index))
