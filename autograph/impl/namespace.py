"""Makes `ag__`, the operators namespace converted code calls, a builtin.

A module written by `autograph convert` imports this (`__import__`, which binds no name)
instead of binding a global `ag__`: its functions then find `ag__` through the builtins,
as they find `len`. So the module has no global the user did not write (`vars(module)`,
`from module import *` and `dir()` show what Python shows), and a function remade from
its code with other globals (`types.FunctionType(f.__code__, {})`) still runs: Python
gives such a function the builtins of its caller.
"""
import builtins

import autograph.operators as _operators

builtins.ag__ = _operators
