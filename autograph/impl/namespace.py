"""Makes `ag__`, the namespace converted code calls, a builtin.

A module written by `autograph convert` imports this (`__import__`, which binds no name)
instead of binding a global `ag__`: its functions then find `ag__` through the builtins,
as they find `len`. So the module has no global the user did not write (`vars(module)`,
`from module import *` and `dir()` show what Python shows), and a function remade from
its code with other globals (`types.FunctionType(f.__code__, {})`) still runs: Python
gives such a function the builtins of its caller.

Importing it loads nothing heavy: until something needs the operators (a trace, or an
attribute only they have), `ag__` is the lean namespace (`pyct/lean_namespace.py`, which
states when it is swapped for the operators and why that is safe across threads).
"""
from autograph.pyct import lean_namespace


def _load_operators() -> None:
    # the operators (whose import rebinds `ag__`: lean_namespace.adopt) and the compiler's
    # loader, which `autograph.api` registers: converted code that meets a symbolic value
    # converts its callees
    import autograph.api  # noqa: F401


lean_namespace.set_loader(_load_operators)
lean_namespace.install()
