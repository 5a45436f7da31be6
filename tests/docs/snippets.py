"""Run the Python examples of a Markdown page and check what they show.

The conventions (documented for writers in docs/index.md, "About the examples"):

- Every fenced block tagged `python` runs. The blocks of one page run in order in one
  module namespace, as a reader would type them; a page starts from a fresh module.
- The blocks are written to one file, `<page>.py`, each at the line numbers it has in the
  Markdown file, so `inspect.getsource` (which AutoGraph needs) works and a failure points
  at the Markdown line.
- A line ending in `# -> TEXT` is checked: if the statement printed something, the
  printed text must equal TEXT; otherwise the statement is an expression and its `repr`
  must equal TEXT.
- A fenced block tagged `output` right after a python block (blank lines between are
  allowed) is the exact standard output of that python block. A line holding only `...`
  stands for any number of lines. The temporary directory is removed from printed paths,
  so a message reads `tutorial.py:12: ...`.

Illustrations that are not runnable Python (listings, pseudo-code, shell) use another tag
(`text`, `bash`).
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import sys
import types
from dataclasses import dataclass

FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<info>[^`\s]*)[^`]*$")
ARROW = re.compile(r"#\s*->\s?(?P<text>.*?)\s*$")


@dataclass
class Block:
    lang: str
    first_line: int  # 1-based line of the first code line in the Markdown file
    code: str
    output: Block | None = None


def blocks_of(text: str) -> list[Block]:
    """Fenced blocks of a Markdown text (indented fences of list items too), with each
    `output` block attached to the python block before it."""
    lines = text.split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = len(m.group("indent")), m.group("info")
        body, j = [], i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        found.append(Block(lang, i + 2, "\n".join(body) + "\n"))
        i = j + 1
    result: list[Block] = []
    for block in found:
        if block.lang == "output":
            if not result or result[-1].lang != "python" or result[-1].output is not None:
                raise AssertionError(f"line {block.first_line - 1}: an `output` block must "
                                     "follow a python block")
            result[-1].output = block
        else:
            result.append(block)
    return result


def _output_pattern(expected: str) -> re.Pattern:
    parts = []
    for line in expected.rstrip("\n").split("\n"):
        parts.append(r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line.rstrip()) + r"\n")
    return re.compile("".join(parts) + r"\Z")


def _normalise(text: str, tmpdir: str) -> str:
    text = text.replace(os.path.join(tmpdir, "pages") + os.sep, "").replace(tmpdir + os.sep, "")
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n") + "\n"


def run_page(md_path: str, tmpdir: str, display: str | None = None) -> int:
    """Run every python block of `md_path` with `tmpdir` as the working directory; raise
    AssertionError naming the Markdown line on a failure. Returns the number of blocks run."""
    with open(md_path, encoding="utf-8") as f:
        text = f.read()
    display = display or os.path.basename(md_path)
    blocks = [b for b in blocks_of(text) if b.lang == "python"]
    stem = re.sub(r"\W", "_", os.path.splitext(display)[0])
    # a folder of its own, off sys.path: docs/onnx.md must not shadow the onnx package
    src_dir = os.path.join(tmpdir, "pages")
    os.makedirs(src_dir, exist_ok=True)
    src_path = os.path.join(src_dir, stem + ".py")
    n_lines = text.count("\n") + 2
    file_lines = [""] * n_lines
    for b in blocks:
        for k, line in enumerate(b.code.rstrip("\n").split("\n")):
            file_lines[b.first_line - 1 + k] = line
    with open(src_path, "w", encoding="utf-8") as f:
        f.write("\n".join(file_lines) + "\n")

    name = "docs_page_" + stem  # not the page's own name: docs/onnx.md is not `onnx`
    module = types.ModuleType(name)
    module.__file__ = src_path
    old_cwd, old_module = os.getcwd(), sys.modules.get(name)
    sys.modules[name] = module
    os.chdir(tmpdir)
    try:
        for b in blocks:
            _run_block(b, module, src_path, display, tmpdir)
    finally:
        os.chdir(old_cwd)
        if old_module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old_module
    return len(blocks)


def _run_block(b: Block, module: types.ModuleType, src_path: str, display: str,
               tmpdir: str) -> None:
    tree = ast.parse(b.code)
    ast.increment_lineno(tree, b.first_line - 1)
    code_lines = b.code.split("\n")
    block_out = io.StringIO()
    for stmt in tree.body:
        last = code_lines[stmt.end_lineno - b.first_line]
        arrow = ARROW.search(last)
        is_expr = isinstance(stmt, ast.Expr)
        out = io.StringIO()
        where = f"{display}:{stmt.lineno}"
        try:
            with contextlib.redirect_stdout(out):
                if is_expr and arrow:
                    value = eval(compile(ast.Expression(stmt.value), src_path, "eval"),
                                 module.__dict__)
                else:
                    exec(compile(ast.Module([stmt], []), src_path, "exec"), module.__dict__)
        except Exception as e:
            raise AssertionError(f"{where}: the example raised {type(e).__name__}: {e}\n"
                                 f"printed before it:\n{block_out.getvalue()}{out.getvalue()}"
                                 ) from e
        printed = out.getvalue()
        block_out.write(printed)
        if arrow:
            want = arrow.group("text")
            got = (_normalise(printed, tmpdir).strip() if printed
                   else repr(value) if is_expr else None)
            if got is None:
                raise AssertionError(f"{where}: `# ->` on a statement that prints nothing "
                                     "and is not an expression")
            if got != want:
                raise AssertionError(f"{where}: shows `# -> {want}` but gives `{got}`")
    if b.output is not None:
        got = _normalise(block_out.getvalue(), tmpdir)
        if not _output_pattern(_normalise(b.output.code, tmpdir)).match(got):
            raise AssertionError(
                f"{display}:{b.output.first_line}: the output block differs from what the "
                f"python block above it printed:\n--- printed ---\n{got}--- shown ---\n"
                f"{b.output.code}")
