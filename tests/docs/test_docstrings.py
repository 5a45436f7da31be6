"""Every public name of `autograph` has a full docstring, the text the API reference page
(docs/api.md, rendered by mkdocstrings) shows: a summary line; `Args:` naming each
parameter; `Returns:` for a function that returns a value; `Raises:` for what can fail;
and an `Example:` whose python blocks run, with the output they show checked (the
conventions of tests/docs/snippets.py: `# -> text` and `output` blocks)."""
from __future__ import annotations

import inspect
import os
import re
import warnings

import pytest

import autograph as ag
from tests.docs.snippets import blocks_of, run_page

# the getters and switches, which take any value: nothing can fail
NOTHING_RAISES = {"functions_run_eagerly", "parallel_enabled", "run_functions_eagerly",
                  "set_parallel", "do_not_convert", "set_traceback_filtering",
                  "traceback_filtering"}


def _public(name: str):
    obj = getattr(ag, name)
    if inspect.ismodule(obj):  # ag.dask: its one entry point
        return obj.map_blocks
    return obj


def _is_exception(obj) -> bool:
    return inspect.isclass(obj) and issubclass(obj, (BaseException, Warning))


def _sections(doc: str) -> dict:
    """{section title: its text} of a Google-style docstring."""
    found, title = {}, None
    for line in doc.split("\n"):
        m = re.match(r"^(Args|Returns|Raises|Example|Yields|Attributes|Note):\s*$", line)
        if m:
            title = m[1]
            found[title] = ""
        elif title is not None:
            found[title] += line + "\n"
    return found


@pytest.mark.parametrize("name", ag.__all__)
def test_docstring_has_every_section(name):
    obj = _public(name)
    doc = inspect.getdoc(obj) or ""
    summary = doc.split("\n\n", 1)[0]  # the first paragraph
    assert len(summary) > 20 and summary.endswith("."), f"ag.{name}: no summary sentence"
    sections = _sections(doc)
    assert "Example" in sections, f"ag.{name}: no Example section"
    assert any(b.lang == "python" for b in blocks_of(sections["Example"])), \
        f"ag.{name}: the Example has no python block"
    if _is_exception(obj):
        return
    params = [p for p in inspect.signature(obj).parameters.values() if p.name != "self"]
    if params:
        args = sections.get("Args", "")
        for p in params:
            star = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
            assert re.search(rf"^\s*{re.escape(star + p.name)}\b", args, re.M), \
                f"ag.{name}: parameter {star}{p.name} is not described under Args"
    if not inspect.isclass(obj):
        returns = inspect.signature(obj).return_annotation
        if returns not in (None, "None"):
            assert sections.get("Returns", "").strip(), f"ag.{name}: no Returns section"
    if name not in NOTHING_RAISES:
        assert sections.get("Raises", "").strip(), f"ag.{name}: no Raises section"


@pytest.mark.parametrize("name", ag.__all__)
def test_docstring_examples_run_and_show_what_they_print(name, tmp_path):
    doc = inspect.getdoc(_public(name))
    page = tmp_path / f"ag_{name}.md"
    page.write_text(doc, encoding="utf-8")
    run = os.path.join(tmp_path, "run")
    os.makedirs(run)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            assert run_page(str(page), run, display=f"ag.{name} docstring") >= 1
    finally:
        ag.run_functions_eagerly(False)
        ag.set_parallel(True)
