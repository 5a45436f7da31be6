"""Side effects: what runs while tracing, what runs on every call.

Shows:
- Python `print` (and appending to an outer list) runs only while the function is
  traced; `ag.print` is part of the graph and prints on every call, with the values;
  storing a value the graph computes in an outer list is an error, naming the place;
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

print("\n# Appending to an outer list also happens only while tracing")
seen = []


@ag.function
def record(x):
    seen.append(f"traced for {x.dtype}")  # a Python side effect (a Python value)
    return x + 1


for v in (1.0, 2.0, 3.0):
    record(np.float32(v))
print("calls: 3, list entries:", seen)

# Storing a value the graph computes in Python state is an error at the end of the trace:
# the list would keep a dead symbolic value, never updated by later calls
leaks = []


@ag.function
def leak(x):
    leaks.append(x + 1)
    return x


try:
    leak(np.float32(1.0))
except ValueError as refused:
    print("storing a graph value:", str(refused).splitlines()[1].strip().split(",")[0])

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
