"""Errors and warnings link to their entry in the error index, docs/errors.md.

Each class of `runtime.core.error_index.ANCHORS` is raised (or warned) here by a real
user-level trigger: an exception leaves with a note naming `docs/errors.md#anchor` and
its message unchanged; a warning's message ends with the link. Every anchor is a heading
of the page, slugged as MkDocs does (the `toc` extension of Python-Markdown, which MkDocs
uses), and every error or warning class the project defines has an entry or is listed
below as one users never see.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
import traceback
import warnings

import markdown  # MkDocs' own Markdown (the docs extra, in dev: CI runs these tests)
import numpy as np
import pytest

import autograph as ag
import runtime
from runtime.core.error_index import ANCHORS, PAGE, anchor_of, link

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# classes users never meet, with the reason
INTERNAL = {
    "autograph.cli.diagnostics.UsageError": "the CLI prints it and exits 2",
    "autograph.cli.diagnostics.UserError": "the CLI prints it and exits 1",
    "runtime.control_flow.lists.LoopCarryError": "a base class: its subclasses have entries",
    "runtime.core.error_index.IndexedWarning": "a base class: its subclasses have entries",
    "runtime.control_flow.learn_types.UntypedLoopVariable":
        "the loop operators raise it to users as a Diagnostic",
    "runtime.control_flow.try_state.ConversionRefusal": "turned into a ConversionError",
    "runtime.control_flow.try_op.Caught": "the caught exception inside a traced handler",
    "runtime.core.verify.VerificationError": "a bug in a pass, checked by the test suite",
    "runtime.state.append_log.AppendLogRead": "a signal between tracing and the cache",
}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _project_classes() -> dict[str, type]:
    """Every exception and warning class defined in `autograph/` and `runtime/`."""
    for package in (ag, runtime):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".__main__" not in info.name:
                importlib.import_module(info.name)
    found = {}
    pending = [BaseException]
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        module = cls.__module__.split(".")[0]
        if module in ("autograph", "runtime") and not cls.__name__.startswith("_"):
            found[_name(cls)] = cls
    return found


def _anchors_of_page() -> set[str]:
    md = markdown.Markdown(extensions=["toc", "fenced_code", "tables"])
    with open(os.path.join(ROOT, PAGE), encoding="utf-8") as f:
        md.convert(f.read())
    anchors: set[str] = set()
    pending = list(md.toc_tokens)
    while pending:
        token = pending.pop()
        anchors.add(token["id"])
        pending += token["children"]
    return anchors


def test_every_project_error_class_has_an_entry_or_is_internal():
    classes = _project_classes()
    missing = [n for n, c in classes.items() if n not in INTERNAL and anchor_of(c) is None]
    assert missing == []
    assert set(INTERNAL) <= set(classes), "an INTERNAL name no longer exists"
    assert set(ANCHORS) <= set(classes), "an ANCHORS key names no class"


def test_every_public_error_and_warning_name_has_its_own_entry():
    public = [getattr(ag, n) for n in ag.__all__]
    errors = [c for c in public if isinstance(c, type) and issubclass(c, BaseException)]
    assert len(errors) >= 7
    assert [c.__name__ for c in errors if _name(c) not in ANCHORS] == []


def test_every_anchor_is_a_heading_of_the_page():
    headings = _anchors_of_page()
    assert sorted(set(ANCHORS.values()) - headings) == []


# -- real triggers, one per class of ANCHORS ----------------------------------------------

def _graph_mode_error():
    @ag.function(autograph=False)
    def relu(x):
        return x if x > 0 else 0 * x
    relu(np.float32(1))


def _tracing_recursion_error():
    @ag.function
    def factorial(n):
        if n <= 1:
            return np.int64(1)
        return n * factorial(n - 1)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)  # tracing recurses until the limit (seconds at 1000)
    try:
        factorial(np.int64(3))
    finally:
        sys.setrecursionlimit(limit)


def _state_array_write():
    totals = np.zeros(2)
    ag.vmap(lambda row: np.add(totals, row, out=totals))(np.ones((3, 2)))


def _leaked_tensor_error():
    later = []

    @ag.function
    def remember(x):
        later.append(lambda: x * 2)  # a closure over the symbolic `x` outlives the trace
        return x

    remember(np.ones(2))
    later[0]()


def _conversion_error():
    def numbers(x):
        yield x
    ag.to_code(numbers)


def _diagnostic():
    @ag.function
    def sign_name(x):
        if x > 0:
            name = "positive"
        return name  # noqa: F821
    sign_name(np.float64(1.0))


def _loop_dtype_change():
    @ag.function
    def half_steps(n):
        i, s = np.int64(0), np.float64(0)
        while i < n:
            s = (s + 0.5).astype(np.int32)
            i += 1
        return s
    half_steps(np.int64(3))


def _loop_rank_change():
    @ag.function
    def nest(x, n):
        i = np.int64(0)
        while i < n:
            x = x[None]
            i += 1
        return x
    nest(np.zeros(1), np.int64(2))


def _loop_list_error():
    @ag.function
    def pairs(n):
        out, i = [], np.int64(0)
        while i < n:
            out.append([i, i])
            i += 1
        return out
    pairs(np.int64(3))


def _load_error(tmp_path):
    path = tmp_path / "notes.agf"
    path.write_text("not a saved function")
    ag.load(path)


def _save_error(tmp_path):
    ag.save(lambda x: 2 * x, tmp_path / "double.agf")


def _onnx_export_error():
    @ag.function
    def singular_values(m):
        return np.linalg.svd(m)[1]
    ag.export_onnx(singular_values, None, ag.TensorSpec((2, 2), np.float64))


def _retracing_warning():
    f = ag.function(lambda x, k: x * k)
    for k in range(6):
        f(np.ones(2), float(k))


def _jit_fallback_warning():  # (numba: in the dev extra, so CI runs it)
    def squash(x):
        return np.sum(np.tanh(x))
    ag.function(squash, jit_compile=True)(np.linspace(0.0, 1.0, 10009))


def _loop_unroll_warning():
    @ag.function
    def grow(x):
        for i in range(120):
            x = np.append(x, i)
        return x
    grow(np.zeros(1))


def _vmap_fallback_warning():
    ag.vmap(lambda m: np.linalg.svd(m)[1])(np.ones((3, 2, 2)))


TRIGGERS = {
    "runtime.core.errors.GraphModeError": _graph_mode_error,
    "runtime.core.errors.TracingRecursionError": _tracing_recursion_error,
    "runtime.core.errors.StateArrayWrite": _state_array_write,
    "runtime.core.errors.LeakedTensorError": _leaked_tensor_error,
    "autograph.errors.ConversionError": _conversion_error,
    "autograph.errors.Diagnostic": _diagnostic,
    "runtime.control_flow.while_loop.LoopDtypeChange": _loop_dtype_change,
    "runtime.control_flow.while_loop.LoopRankChange": _loop_rank_change,
    "runtime.control_flow.lists.LoopListError": _loop_list_error,
    "runtime.saved.format.LoadError": _load_error,
    "runtime.saved.format.SaveError": _save_error,
    "runtime.onnx_export.context.OnnxExportError": _onnx_export_error,
    "runtime.frontend.modes.RetracingWarning": _retracing_warning,
    "runtime.jit.JitFallbackWarning": _jit_fallback_warning,
    "autograph.operators.rolling.LoopUnrollWarning": _loop_unroll_warning,
    "runtime.transforms.batching.VmapFallbackWarning": _vmap_fallback_warning,
}


def test_every_class_of_the_index_has_a_trigger_here():
    assert sorted(TRIGGERS) == sorted(ANCHORS)


def _run(trigger, tmp_path):
    return trigger(tmp_path) if trigger.__code__.co_argcount else trigger()


@pytest.mark.parametrize("name", sorted(TRIGGERS))
def test_a_real_trigger_links_to_the_entry(name, tmp_path):
    cls = _project_classes()[name]
    where = f"{PAGE}#{ANCHORS[name]}"
    assert link(cls) == where
    if issubclass(cls, Warning):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            _run(TRIGGERS[name], tmp_path)
        found = [w for w in seen if w.category is cls]
        assert found, f"no {cls.__name__} was warned"
        assert all(str(w.message).endswith(f"(see {where})") for w in found)
        return
    with pytest.raises(cls) as info:
        _run(TRIGGERS[name], tmp_path)
    assert type(info.value) is cls
    notes = [n for n in getattr(info.value, "__notes__", []) if PAGE in n]
    assert notes == [f"See {where} for the cause and the fix."]
    assert PAGE not in str(info.value)  # the message itself is unchanged
    shown = "".join(traceback.format_exception(info.value))
    assert where in shown


def test_the_note_is_added_once_with_filtering_off_and_through_nested_functions():
    @ag.function(autograph=False)
    def inner(x):
        return x if x > 0 else -x

    @ag.function
    def outer(x):
        return inner(x) * 2

    ag.set_traceback_filtering(False)
    try:
        with pytest.raises(ag.GraphModeError) as info:
            outer(np.float64(1.0))
    finally:
        ag.set_traceback_filtering(True)
    assert [n for n in info.value.__notes__ if PAGE in n] == \
        [f"See {PAGE}#graphmodeerror for the cause and the fix."]


def test_errors_that_are_not_the_projects_get_no_note():
    @ag.function
    def check(x):
        if x.shape[0] == 0:
            raise ValueError("empty")
        return x

    with pytest.raises(ValueError) as info:
        check(np.zeros(0))
    with pytest.raises(ValueError) as eager:
        check.python_function(np.zeros(0))
    assert str(info.value) == str(eager.value)
    assert not any(PAGE in n for n in getattr(info.value, "__notes__", []))


@pytest.mark.parametrize("name", ["runtime.core.errors.GraphModeError",
                                  "autograph.errors.ConversionError"])
def test_the_command_line_prints_the_link_last(name, tmp_path):
    from autograph.cli import diagnostics

    with pytest.raises(Exception) as info:
        _run(TRIGGERS[name], tmp_path)
    shown = diagnostics.from_exception(info.value, "while tracing").format()
    assert shown.splitlines()[-1] == \
        f"    see {PAGE}#{ANCHORS[name]} for the cause and the fix"
    assert shown.count(PAGE) == 1


def test_the_command_line_prints_no_link_for_other_errors():
    from autograph.cli import diagnostics

    assert PAGE not in diagnostics.from_exception(ValueError("bad value")).format()
