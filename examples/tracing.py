"""Tracing: one Function, several graphs (polymorphism), and when a Function retraces.

Shows:
- polymorphism: every new input signature (dtype, shape) traces a new graph, a
  matching one reuses its graph; `tracing_count` and `pretty_printed_concrete_signatures()`
  list the traces;
- Python arguments are part of the signature by value: a new value retraces (pass
  arrays, not Python numbers, for values that change from call to call);
- `input_signature`: exactly one trace, and incompatible inputs are rejected;
- `reduce_retracing=True`: a dimension that changes is relaxed to `None` (one trace
  for all lengths instead of one per length);
- the `RetracingWarning` raised when a Function keeps retracing.

Run:  python examples/tracing.py
"""
import warnings

import numpy as np

import autograph as ag


@ag.function
def my_relu(x):
    print("  (tracing my_relu for", getattr(x, "shape", x), ")")  # runs only while tracing
    return np.maximum(np.float32(0.0), x)


print("# Polymorphism: one Function, one graph per input signature")
print(my_relu(np.float32(5.5)))
print(my_relu(np.array([1.0, -1.0], np.float32)))
print(my_relu(np.array([[3.0, -3.0]], np.float32)))
print("# Matching signatures reuse their graph (no tracing message):")
print(my_relu(np.float32(-2.5)))
print(my_relu(np.array([-1.0, 1.0], np.float32)))
print("tracing_count:", my_relu.tracing_count)
print(my_relu.pretty_printed_concrete_signatures())
assert my_relu.tracing_count == 3

print("\n# A Python argument is traced by value: each new value is a new graph")


@ag.function
def scale(x, times):
    print("  (tracing scale with times =", times, ")")
    for _ in range(times):  # a Python loop bound: unrolled while tracing
        x = x * 2
    return x


x = np.ones(3, np.float32)
print(scale(x, 2), scale(x, 3), scale(x, 2))
print("tracing_count:", scale.tracing_count)  # 2: times=2 and times=3
assert scale.tracing_count == 2

print("\n# input_signature: exactly one trace; other inputs are rejected")


@ag.function(input_signature=[ag.TensorSpec((None,), np.float32)])
def total(v):
    return np.sum(v * v)


print(total(np.arange(3, dtype=np.float32)), total(np.arange(10, dtype=np.float32)))
print("tracing_count:", total.tracing_count)
try:
    total(np.ones((2, 2), np.float32))
except (TypeError, ValueError) as e:
    print(f"rejected: {type(e).__name__}: {e}")

print("\n# reduce_retracing=True: a changing dimension becomes None")


@ag.function(reduce_retracing=True)
def mean_square(v):
    return np.mean(v * v)


for n in (2, 3, 4, 5, 6):
    mean_square(np.ones(n, np.float32))
print("tracing_count:", mean_square.tracing_count)
print(mean_square.pretty_printed_concrete_signatures())
assert mean_square.tracing_count <= 2

print("\n# Retracing on every call is slow: AutoGraph warns")


@ag.function
def add_one(v):
    return v + 1


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for n in range(1, 8):
        add_one(np.ones(n, np.float32))  # a new shape every call
for w in caught:
    if issubclass(w.category, ag.RetracingWarning):
        print(f"RetracingWarning: {w.message}")
print("tracing_count:", add_one.tracing_count)
