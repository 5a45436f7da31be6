"""Quickstart: decorate a NumPy function, call it, and look at what it became.

Shows: @ag.function, a data-dependent `if` converted to a graph conditional, the
converted source (ag.to_code), the traced graph listing and the generated executor.
"""
import numpy as np

import autograph as ag


@ag.function
def simple_relu(x):
    if np.greater(x, 0):
        return x
    else:
        return np.zeros_like(x)


print(simple_relu(np.float32(3.0)), simple_relu(np.float32(-2.0)))

print("\n# Converted source (ag.to_code):")
print(ag.to_code(simple_relu))

cf = simple_relu.get_concrete_function(np.float32(1.0))
print("# Traced graph:")
print(cf.graph)
print("\n# Generated executor (cf.python_code):")
print(cf.python_code)
print("# Signatures:", simple_relu.pretty_printed_concrete_signatures())
