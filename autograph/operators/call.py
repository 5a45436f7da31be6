"""`converted_call`: how converted code calls functions it could not resolve statically.

    ag__.converted_call(f, x, k=2)

converts `f` first when it is user code (recursively, cached per function) and calls
everything else (NumPy, builtins, the standard library, already converted code,
`ag.do_not_convert` functions) as is. The decision lives in `autograph.impl.api`.
"""
from __future__ import annotations


def converted_call(f, *args, **kwargs):
    from autograph.impl.api import converted_call as impl

    return impl(f, *args, **kwargs)
