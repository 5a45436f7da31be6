"""Converted functions that run one code while a trace is being built on any thread and
another, cheaper one otherwise: the registry that switches their `__code__` when that
changes. Standard library only, so that a module written by `autograph convert` uses it
without loading the runtime (`lean_namespace.py`).

Two kinds of function take part, each pairing its codes where it is made:

- `ag.to_graph`'s functions (`impl/counting.py`): the counted code and its plain twin,
  both compiled from the converted tree;
- every top-level function and method `autograph convert` writes (`written`): its code
  starts with the question `if not ag__.tracing_anywhere:`, then the body as written
  (the Python copy), then the converted body in a nested function
  (`impl/module_paths.py`). Its plain code is the same code entered past the question:
  the question's first instruction becomes a jump to the copy (`answered`). Everything
  else - constants, names, free variables, the line table, the exception table - is the
  code's own, so tracebacks, `inspect` and `to_code` see the same function, and on
  Python values the call costs what the original's does (a recursive Fibonacci paid
  a fifth of its time for the question).

`runtime.core.tracing` calls `switch` (through `BUILDING_CHANGED`, once `hook` put it
there) when the first graph starts being built on any thread and when the last one is
done. A call already running keeps its code: a plain code that runs on while another
thread starts tracing sees only Python values (a thread that is not tracing holds no
symbolic value), and a traced code asks the question as it always did. A function whose
code is copied by a decorator (`types.FunctionType(f.__code__, ...)`) keeps the code it
copied: outside traces that is the plain code, which cannot take symbolic values
(docs/sharp_bits.md). Functions nested in converted functions keep the question: they
are made at each call of the function around them, and registering each would cost
more than the question does.
"""
from __future__ import annotations

import _thread
import sys
import types
from _weakref import ref as _weak_ref  # (`weakref` and `threading`: ~1 ms to import)

from autograph.pyct.generated_codes import CONVERTED_CODES

_TRACING_MODULE = "runtime.core.tracing"
_PROLOGUE = frozenset({"RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP"})
_IF_TRUE = frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_TRUE"})
# the opcodes `answered` reads, for the Pythons whose numbers are known here (checked
# against `opcode.opmap` by tests/cli/test_convert_code_switch.py); another one reads
# them from `opcode`, ~0.5 ms to import (a third of the lean `ag__`'s own import)
KNOWN_OPCODES = {(3, 11): {"CACHE": 0, "NOP": 9, "LOAD_ATTR": 106, "JUMP_FORWARD": 110,
                           "POP_JUMP_FORWARD_IF_TRUE": 115, "LOAD_GLOBAL": 116,
                           "MAKE_CELL": 135, "COPY_FREE_VARS": 149, "RESUME": 151}}

# id(fn) -> (weak reference to fn, its traced code, its plain code): the functions alive
# (a dict: read in one pass when the tracing state changes)
_FUNCTIONS: dict = {}
_LOCK = _thread.allocate_lock()
_TRACED_NOW = [False]  # which code the functions run now (set by `switch`)


def adopt(fn: types.FunctionType, traced: types.CodeType, plain: types.CodeType) -> None:
    """Give `fn` (made with its `traced` code) the code that fits now, and switch it with
    every other from then on (`traced` and `plain` have the same free variables)."""
    key = id(fn)
    with _LOCK:
        _FUNCTIONS[key] = (_weak_ref(fn, lambda _, key=key: _FUNCTIONS.pop(key, None)),
                           traced, plain)
        if not _TRACED_NOW[0]:
            fn.__code__ = plain


def written(fn, register) -> None:
    """Pair the codes of a function `autograph convert` wrote (`register`: how its codes
    are recorded as generated, `generated_codes.register_codes`)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    register(code)
    if type(fn) is not types.FunctionType:
        return
    plain = answered(code)
    if plain is not None:
        # (its nested codes are `code`'s own, registered just now: only itself is new)
        CONVERTED_CODES[id(plain)] = plain
        adopt(fn, code, plain)


def answered(code: types.CodeType) -> types.CodeType | None:
    """`code` entered past its first statement, `if not <ops>.tracing_anywhere:`, as if
    the answer were yes; None when it does not start so (its question stays). (Read from
    the raw instructions, two bytes each, with their inline caches: `dis` takes ~40 us a
    function, most of a converted module's import.)"""
    op = _opcodes()
    raw = code.co_code
    at, end = 0, len(raw)
    while at < end and raw[at] in op.prologue:
        at += 2
    question = []  # (opcode, argument, offset) of each, then the copy's first offset
    while at < end and len(question) < 3:
        if raw[at] != op.to_bool:  # (3.13: between the load and the jump)
            question.append((raw[at], raw[at + 1], at))
        at += 2
        while at < end and raw[at] == op.cache:  # (its inline caches)
            at += 2
    if len(question) != 3 or at >= end:
        return None
    (load, module, start), (attr, name, _), (jump, _, _) = question
    if not (load == op.load_global and attr == op.load_attr and jump in op.if_true and
            op.name_of(code, name, op.attr_shift) == "tracing_anywhere" and
            str(op.name_of(code, module, op.global_shift)).startswith("ag__")):
        return None  # (not the question `module_paths.py` writes: the operators are
        # `ag__` or, in a function that names something `ag__`, another name from it)
    delta = (at - (start + 2)) // 2  # (in code units, from the next one)
    if not 0 <= delta < 256:
        return None
    plain = bytearray(raw)
    plain[start:start + 2] = bytes((op.jump_forward, delta))
    return code.replace(co_code=bytes(plain))


class _Opcodes:
    """The opcodes `answered` reads, for the running Python."""

    def __init__(self):
        known = KNOWN_OPCODES.get(sys.version_info[:2])
        if known is None:  # (a Python whose numbers are not listed: ~0.5 ms, only then)
            import opcode
            known = opcode.opmap
        get = known.get
        self.prologue = {get(n) for n in _PROLOGUE} - {None}
        self.cache, self.to_bool = get("CACHE", -1), get("TO_BOOL", -1)
        self.load_global, self.load_attr = get("LOAD_GLOBAL"), get("LOAD_ATTR")
        self.if_true = {get(n) for n in _IF_TRUE} - {None}
        self.jump_forward = get("JUMP_FORWARD")

        # (a LOAD_GLOBAL's argument holds a flag in its low bit from 3.11 on, a
        # LOAD_ATTR's from 3.12 on)
        self.global_shift = int(sys.version_info >= (3, 11))
        self.attr_shift = int(sys.version_info >= (3, 12))

    @staticmethod
    def name_of(code: types.CodeType, arg: int, shift: int):
        """The name an instruction's one-byte argument names."""
        names = code.co_names
        index = arg >> shift
        return names[index] if index < len(names) else None


_OPCODES: list = []


def _opcodes() -> _Opcodes:
    if not _OPCODES:
        _OPCODES.append(_Opcodes())
    return _OPCODES[0]


def switch() -> None:
    """Every function here runs its traced code while a graph is being built on any
    thread and its plain code otherwise (called when that changes: under the lock, the
    last caller sees the last change)."""
    tracing = sys.modules.get(_TRACING_MODULE)
    with _LOCK:
        traced = bool(tracing is not None and tracing.building)
        if traced != _TRACED_NOW[0]:
            _TRACED_NOW[0] = traced
            for ref, traced_code, plain in list(_FUNCTIONS.values()):
                fn = ref()
                if fn is not None:
                    if traced:
                        if fn.__code__ is plain:
                            fn.__code__ = traced_code
                    elif fn.__code__ is traced_code:
                        fn.__code__ = plain


def hook(changed: list) -> None:
    """Have `switch` called whenever the tracing state changes (`changed`: the runtime's
    `BUILDING_CHANGED`), and once now."""
    if switch not in changed:
        changed.append(switch)
    switch()
