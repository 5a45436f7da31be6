"""Where each of the project's errors and warnings is explained: its entry in the index
of error messages, `docs/errors.md`.

`ANCHORS` maps each error and warning class users meet to the heading of its entry, by
the class's module and name (this layer cannot import the classes, which live in higher
layers); a subclass without its own entry uses its nearest base's. The one mapping
serves both forms of the link:

- an exception gets a PEP 678 note (`See docs/errors.md#...`) where it leaves the
  project: the error path of a Function's call (frontend/tracebacks.py) and
  `with_error_index` around the other public entry points (to_code, save, load,
  export_onnx); its message, `str(e)`, is unchanged;
- a warning ends its message with the link: its class derives from `IndexedWarning`.

tests/package/test_error_index.py checks that every public error class has an entry,
that each anchor is a heading of the page, and that a real trigger shows the link.
"""
from __future__ import annotations

import functools
from typing import Callable, TypeVar

PAGE = "docs/errors.md"

# "module.Class" -> anchor of its heading in docs/errors.md (MkDocs' slug of the heading)
ANCHORS: dict[str, str] = {
    "runtime.core.errors.GraphModeError": "graphmodeerror",
    "runtime.core.errors.TracingRecursionError": "tracingrecursionerror",
    "runtime.core.errors.StateArrayWrite": "statearraywrite",
    "runtime.core.errors.LeakedTensorError": "leakedtensorerror",
    "autograph.errors.ConversionError": "conversionerror",
    "autograph.errors.Diagnostic": "diagnostic",
    "runtime.control_flow.while_loop.LoopDtypeChange": "a-loop-variable-changes-dtype",
    "runtime.control_flow.while_loop.LoopRankChange": "a-loop-variable-changes-rank",
    "runtime.control_flow.lists.LoopListError": "a-list-a-loop-grows-holds-mixed-items",
    "runtime.saved.format.LoadError": "loaderror",
    "runtime.saved.format.SaveError": "saveerror",
    "runtime.onnx_export.context.OnnxExportError": "onnxexporterror",
    "runtime.frontend.modes.RetracingWarning": "retracingwarning",
    "runtime.jit.JitFallbackWarning": "jitfallbackwarning",
    "autograph.operators.rolling.LoopUnrollWarning": "loopunrollwarning",
    "runtime.transforms.batching.VmapFallbackWarning": "vmapfallbackwarning",
}

_NOTE_START = f"See {PAGE}#"


def anchor_of(cls: type) -> str | None:
    """The anchor of the entry for `cls` (or for its nearest base that has one)."""
    for c in cls.__mro__:
        anchor = ANCHORS.get(f"{c.__module__}.{c.__qualname__}")
        if anchor is not None:
            return anchor
    return None


def link(cls: type) -> str | None:
    """`docs/errors.md#anchor` for `cls`, or None when the project has no entry for it."""
    anchor = anchor_of(cls)
    return f"{PAGE}#{anchor}" if anchor is not None else None


def note_error_index(error: BaseException) -> None:
    """Add to `error` a note pointing at its entry, once; nothing for other errors."""
    where = link(type(error))
    notes = getattr(error, "__notes__", None) or ()
    if where is None or any(n.startswith(_NOTE_START) for n in notes if isinstance(n, str)):
        return
    note = f"{_NOTE_START}{where[len(PAGE) + 1:]} for the cause and the fix."
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:  # Python 3.10: kept for programs that read it, not printed in tracebacks
        error.__notes__ = [*notes, note]


F = TypeVar("F", bound=Callable)


def with_error_index(fn: F) -> F:
    """`fn`, a public entry point, with the index note added to the errors it raises."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            note_error_index(e)
            raise
    return call  # type: ignore[return-value]


class IndexedWarning(UserWarning):
    """A warning whose message ends with the link to its entry in the error index."""

    def __str__(self) -> str:
        text = super().__str__()
        where = link(type(self))
        return text if where is None or where in text else f"{text} (see {where})"
