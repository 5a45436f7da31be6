"""The documentation site builds with warnings as errors, and its API reference covers
every public name of `autograph`. MkDocs is in the `dev` extra, so this never skips."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import autograph as ag

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# `ag.save`/`ag.load` are documented at their definitions: `runtime.saved` also has
# modules of those names, which the reference generator would show instead.
DOCUMENTED_AT = {"save": "runtime.saved.save.save", "load": "runtime.saved.load.load"}


def test_docs_build_strict(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
         os.path.join(ROOT, "mkdocs.yml"), "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ag.__all__:
        assert re.search(rf'id="[\w.]*\b{re.escape(name)}"', api), f"ag.{name} not rendered"


def test_api_page_lists_every_public_name():
    with open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8") as f:
        entries = set(re.findall(r"^::: (\S+)$", f.read(), flags=re.M))
    wanted = {DOCUMENTED_AT.get(name, f"autograph.{name}") for name in ag.__all__}
    assert wanted <= entries, sorted(wanted - entries)
    assert entries <= wanted, f"not public in autograph.__all__: {sorted(entries - wanted)}"


def test_every_page_is_in_the_navigation():
    with open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8") as f:
        nav = set(re.findall(r":\s*(\S+\.md)\s*$", f.read(), flags=re.M))
    docs = os.path.join(ROOT, "docs")
    pages = {os.path.relpath(os.path.join(d, n), docs).replace(os.sep, "/")
             for d, _, names in os.walk(docs) for n in names if n.endswith(".md")}
    assert pages == nav, (sorted(pages - nav), sorted(nav - pages))
