"""Which attribute names a trace can have read, and which module globals its callees
named (`ReadNames`), recorded while the function is traced.

Python code reads an attribute through a name its code object holds: `self.lr` is a
`LOAD_ATTR lr`, `getattr(self, "lr")` a constant `"lr"`, `"{0.lr}".format(self)` a
constant that spells it. So every attribute the trace's Python code can have read is
named by the code objects that ran (`co_names`, and the identifiers in their string
constants). The guard of a trace (python_state.StatePlan) checks an object's
attributes under those names only: a model's optimizer, its gradients, a cache the
function never touches cost nothing per call.

    trace of forward(self, X):  ran forward, _fwd, ReLU.fn  -> names {parameters, act_fn, ...}
    guard:  self.parameters (and what it holds), self.act_fn ...; not self.optimizer

A name is not enough where code computes it: code naming `getattr`, `hasattr`, `vars`,
`dir`, `delattr`, `__dict__`, `__getattribute__`, `__getattr__`, `attrgetter` or
`methodcaller` (other than NumPy's own, which spell the names they read as constants)
makes every attribute guarded, as before (`names()` is None). The functions the trace
ran also name module globals (a helper's `W`): those are guarded too (`globals_named`).
Attributes read only by C code under names no Python code of the call spells are not
seen (docs/sharp_bits.md).

The recording is a `sys.settrace` function on the tracing thread that sees each Python
frame's start and nothing else; under a debugger or coverage (a trace function already
set) nothing is recorded (`complete` is False): every attribute and only the function's
own globals are guarded. The compiler converting a callee in the middle of a trace runs
`unrecorded()`: its parser's code (gast, ast, inspect) is not the program's, so its names
and globals are not guarded (a trace converting its helpers guarded gast's globals,
one converted earlier did not), and it runs at full speed (a trace function set puts
CPython 3.11 in its slower tracing mode for every frame).
"""
from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from typing import Iterator

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_OWN_DIRS = tuple(os.path.join(os.path.dirname(os.path.dirname(_HERE)), d) + os.sep
                  for d in ("runtime", "autograph"))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
# names of what reads attributes under a name computed at run time
_DYNAMIC_NAMES = frozenset({"getattr", "hasattr", "vars", "dir", "delattr", "__dict__",
                            "__getattribute__", "__getattr__", "attrgetter", "methodcaller"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NOT_STATE_MODULES = frozenset(sys.stdlib_module_names) | {"builtins", "numpy"}
_OWN_MODULES = ("runtime.", "autograph.")


def _own(filename: str) -> bool:
    return filename.startswith(_OWN_DIRS)


def _constant_names(consts, out: set) -> None:
    for c in consts:
        if type(c) is str:
            out.update(_IDENTIFIER.findall(c) if len(c) < 200 else ())
        elif type(c) in (tuple, frozenset):
            _constant_names(c, out)


class ReadNames:
    """A context manager recording the code objects that run inside it (this thread)."""

    def __init__(self, record: bool = True) -> None:
        self.codes: dict = {}      # code object -> its globals dict
        self.record = record       # False: nothing to record (no state is reached)
        self.complete = record     # False: nothing recorded
        self._installed = None

    def __enter__(self) -> "ReadNames":
        if not self.record or sys.gettrace() is not None:  # (a debugger's or coverage's
            # trace function is left alone)
            self.complete = False
            return self
        codes = self.codes

        def hook(frame, event, arg):  # (a "call" event per Python frame; no line events)
            codes[frame.f_code] = frame.f_globals  # (ours are left out afterwards)
        hook.records_reads = True  # (`unrecorded` tells it from a debugger's)
        sys.settrace(hook)
        self._installed = hook
        return self

    def __exit__(self, *exc) -> None:
        if self._installed:
            if sys.gettrace() is self._installed:  # (not a debugger the code started)
                sys.settrace(None)
            else:  # another trace function replaced ours: what ran after is unknown
                self.complete = False
            self._installed = None

    def names(self) -> set | None:
        """The attribute names the recorded code can have read, or None when any may
        have been (a computed name, or nothing recorded)."""
        if not self.complete:
            return None
        out: set = set()
        for code in self.codes:
            if _own(code.co_filename):
                continue
            names = code.co_names
            if not code.co_filename.startswith(_NUMPY_DIR) and not _DYNAMIC_NAMES.isdisjoint(names):
                return None  # (NumPy's own code spells the names it reads as constants)
            out.update(names)
            _constant_names(code.co_consts, out)
        return out

    def globals_named(self) -> list[tuple[dict, list[str]]]:
        """(globals dict, names) of the program's modules whose globals the recorded
        code names (not the standard library's, NumPy's or this package's)."""
        by_scope: dict = {}
        for code, scope in self.codes.items():
            if _own(code.co_filename):
                continue
            name = scope.get("__name__")
            module = sys.modules.get(name) if type(name) is str else None
            if module is None or getattr(module, "__dict__", None) is not scope:
                continue  # (a namespace made up for generated code, as namedtuple's)
            if name.partition(".")[0] in _NOT_STATE_MODULES or name.startswith(_OWN_MODULES):
                continue
            entry = by_scope.setdefault(id(scope), (scope, set()))
            entry[1].update(n for n in code.co_names if n in scope)
        return [(scope, sorted(names)) for scope, names in by_scope.values() if names]

    def release(self) -> None:
        self.codes = {}


@contextmanager
def unrecorded() -> Iterator[None]:
    """Run the block without recording what it runs (this thread): for the compiler's
    own work inside a trace, such as converting a callee. A debugger's or coverage's
    trace function is left in place."""
    hook = sys.gettrace()
    if hook is None or getattr(hook, "records_reads", False) is not True:
        yield
        return
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(hook)


__all__ = ["ReadNames", "unrecorded"]
