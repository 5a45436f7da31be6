"""Pickling a Function by reference: what `Function.__reduce__` returns, and the lookup
that turns the reference back into the Function when unpickled (Python pickles plain
functions the same way: by module and qualified name, never by code)."""
from __future__ import annotations

import importlib
import pickle


def importable(module: str, qualname: str, strict: bool = True):
    """The object named `module.qualname` (what a pickled Function refers to)."""
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        if not strict:
            return None
        raise pickle.UnpicklingError(f"cannot find ag.Function {module}.{qualname}: {e}") from e
    return obj


def reference_to(function, python_function) -> tuple:
    """`(importable, (module, qualname))` for `function`, or a PicklingError saying why a
    reference cannot lead back to it (a local function, a name bound to something else)."""
    module = getattr(python_function, "__module__", None)
    qualname = getattr(python_function, "__qualname__", getattr(function, "__name__", "?"))
    if module is None or "<locals>" in qualname or \
            importable(module, qualname, strict=False) is not function:
        raise pickle.PicklingError(
            f"cannot pickle ag.Function {qualname!r}: it is pickled by reference (module "
            f"{module!r} and name {qualname!r}), and that name does not lead back to it. "
            "Decorate a function defined at the top level of a module (or a method of a "
            "top-level class) with @ag.function, or pickle the data instead of the "
            "function. copy.deepcopy works for any Function.")
    return importable, (module, qualname)
