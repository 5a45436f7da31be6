"""Every python block of README.md and docs/ runs, and the output it shows is what it
prints (conventions in tests/docs/snippets.py and docs/index.md)."""
from __future__ import annotations

import glob
import os
import warnings

import pytest

import autograph as ag
from tests.docs.snippets import blocks_of, run_page

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def _name(path: str) -> str:
    return os.path.relpath(path, ROOT)


@pytest.fixture
def _restore_global_switches():
    yield
    ag.run_functions_eagerly(False)
    ag.set_parallel(True)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_page_examples_run_and_show_what_they_print(page, tmp_path, _restore_global_switches):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        run_page(page, str(tmp_path), display=os.path.basename(page))


def test_every_page_with_python_is_checked():
    """The docs are not all prose: most pages run code, and the README's blocks run."""
    with_python = [p for p in PAGES
                   if any(b.lang == "python" for b in blocks_of(open(p).read()))]
    assert os.path.join(ROOT, "README.md") in with_python
    assert len(with_python) >= 8, [_name(p) for p in with_python]


def _page(tmp_path, text: str) -> str:
    path = tmp_path / "page.md"
    path.write_text(text)
    return str(path)


def test_runner_catches_a_wrong_arrow(tmp_path):
    page = _page(tmp_path, "```python\nx = 2\nx + 1  # -> 4\n```\n")
    with pytest.raises(AssertionError, match=r"page.md:3: shows `# -> 4` but gives `3`"):
        run_page(page, str(tmp_path))


def test_runner_catches_a_wrong_output_block(tmp_path):
    page = _page(tmp_path, "```python\nprint(1)\nprint(2)\n```\n\n```output\n1\n3\n```\n")
    with pytest.raises(AssertionError, match="output block differs"):
        run_page(page, str(tmp_path))


def test_runner_ellipsis_and_failures_point_at_the_markdown_line(tmp_path):
    ok = _page(tmp_path, "text\n\n```python\nfor i in range(4):\n    print(i)\n```\n"
                         "```output\n0\n...\n3\n```\n")
    assert run_page(ok, str(tmp_path)) == 1
    bad = _page(tmp_path, "# t\n\n```python\nimport numpy as np\nnp.zeros(2)[5]\n```\n")
    with pytest.raises(AssertionError, match=r"page.md:5: the example raised IndexError"):
        run_page(bad, str(tmp_path))


def test_runner_gives_autograph_the_source(tmp_path):
    """Decorated functions of a page convert: their source is found in the page's file,
    at the Markdown line numbers."""
    page = _page(tmp_path, "\n```python\nimport numpy as np\nimport autograph as ag\n\n"
                           "@ag.function\ndef f(x):\n    if x > 0:\n        x = -x\n"
                           "    return x\n\nf(np.float64(2.0))  # -> np.float64(-2.0)\n"
                           "f.tracing_count  # -> 1\n```\n")
    assert run_page(page, str(tmp_path)) == 1
