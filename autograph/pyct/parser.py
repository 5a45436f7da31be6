"""Parsing user functions into gast trees that keep their origin (file, line, column).

The source of a function comes from its file through `linecache`, as `inspect` finds
it (cached per code object). Instead of dedenting, an indented source is
parsed inside an `if 1:` header so every node keeps the column it has in the user's
file; line numbers are shifted to the file's numbering. The result: every node of the
parsed tree carries the user's real `lineno` / `col_offset`, and the converted code is
compiled with the user's file name, so tracebacks and error messages show the user's
own lines.

Lambdas are found among the lambdas on their source line(s) by position (Python 3.11+
code positions) or, failing that, by matching compiled code.
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import linecache
import re
import sys
import threading
import types
from typing import NamedTuple

import gast

from autograph.errors import ConversionError
from autograph.pyct import anno
from autograph.pyct.ast_to_gast import ast_to_gast
from autograph.pyct.gast_unparse import unparse_gast
from autograph.pyct.all_nodes import all_nodes


class Source(NamedTuple):
    text: str          # the function's source lines (indentation kept)
    filename: str
    first_line: int    # line number of the first line of `text` in `filename`


_SOURCE_CACHE: dict = {}


def _no_source(fn, why: str) -> ConversionError:
    name = getattr(fn, "__qualname__", repr(fn))
    code = getattr(fn, "__code__", None)
    filename = code.co_filename if code else None
    lineno = code.co_firstlineno if code else None
    return ConversionError(
        f"cannot convert {name}: its source code is unavailable ({why}). AutoGraph needs "
        "the source of a function to convert it: define it in a .py file (not in exec'd "
        "code, a string or an interactive session), or run it unconverted with "
        "ag.function(..., autograph=False) / ag.do_not_convert.", filename, lineno)


def get_source(fn: types.FunctionType) -> Source:
    """The source of `fn` with its file and first line, cached per code object (and file
    name: code objects compare equal across files)."""
    code = fn.__code__
    key = (code, code.co_filename)
    cached = _SOURCE_CACHE.get(key)
    if cached is not None:
        return cached
    filename = code.co_filename
    if filename.startswith("<") and not linecache.getlines(filename):
        raise _no_source(fn, f"it was defined in {filename}")
    try:
        lines, first = _source_lines(code, getattr(fn, "__globals__", None))
    except (OSError, TypeError) as e:
        raise _no_source(fn, str(e)) from None
    src = Source("".join(lines), filename, max(first, 1))
    _SOURCE_CACHE[key] = src
    return src


# the line a code object's source starts on, as `inspect.findsource` finds it
_DEF_LINE = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def _source_lines(code: types.CodeType, module_globals) -> tuple[list[str], int]:
    """The lines of `code`'s definition and the number of the first, as
    `inspect.getsourcelines(code)` gives them, read from the file through `linecache`
    (`module_globals` finds a loader's source). The code object, not the function:
    inspect would follow `__wrapped__` (set by functools.wraps) to the wrapped
    function's source; and not `inspect` itself: for a code object it first looks for
    its module by scanning the absolute path of every module imported (a tenth of a
    second on a first conversion)."""
    linecache.checkcache(code.co_filename)  # a file edited since: its new lines
    lines = linecache.getlines(code.co_filename, module_globals)
    if not lines:
        raise OSError("could not get source code")
    lnum = code.co_firstlineno - 1
    while lnum > 0:
        if lnum >= len(lines):
            raise OSError("lineno is out of bounds")
        if _DEF_LINE.match(lines[lnum]):
            break
        lnum -= 1
    return inspect.getblock(lines[lnum:]), lnum + 1


def _parse_text(text: str, first_line: int) -> gast.Module:
    # Leading newlines give the nodes the file's line numbers without a pass over the
    # tree; an indented source is parsed inside `if 1:` so columns stay the file's.
    indented = text[:1] in (" ", "\t")
    if indented:
        tree = ast.parse("\n" * max(first_line - 2, 0) + "if 1:\n" + text)
        if first_line < 2:  # no room for the header line: shift back by one
            ast.increment_lineno(tree, -1)
        tree.body = tree.body[0].body
    else:
        tree = ast.parse("\n" * (first_line - 1) + text)
    depth = nesting_depth(tree)
    kinds: list = []
    with recursion_room(depth):
        module = ast_to_gast(tree, kinds)
    kinds = frozenset(kinds)  # (of the whole text: the function's own, or more)
    for node in module.body:
        anno.set_(node, anno.DEPTH, depth)
        anno.set_(node, anno.KINDS, kinds)
    return module


_LEAVES = frozenset({int, str, type(None), bool, float})  # (the most common field values)


def nesting_depth(tree) -> int:
    """How deeply the nodes of an `ast` tree nest (found without recursion, level by
    level, reading the nodes' fields directly: `ast.iter_child_nodes` made this walk
    cost more than parsing)."""
    depth, level = 0, [tree]
    while level:
        depth += 1
        below: list = []
        for node in level:
            for v in node.__dict__.values():
                t = type(v)
                if t in _LEAVES:
                    continue
                if t is list:
                    below.extend([c for c in v if isinstance(c, ast.AST)])
                elif isinstance(v, ast.AST):
                    below.append(v)
        level = below
    return depth


# Python frames the conversion (gast, the converters, unparse, compile) may use per level
# of nesting of the converted tree; a plain recursion limit would fail on an expression
# CPython itself compiles (a sum of ~1000 terms).
FRAMES_PER_LEVEL = 8
_ROOM_LOCK = threading.Lock()


@contextlib.contextmanager
def recursion_room(depth: int):
    """Make sure the recursion limit leaves room for converting a tree `depth` deep
    (raised for the duration of the block, then restored)."""
    needed = depth * FRAMES_PER_LEVEL + 200
    if needed < 300:  # the common case: nothing to do
        yield
        return
    frame, used = sys._getframe(), 0
    while frame is not None:
        used, frame = used + 1, frame.f_back
    with _ROOM_LOCK:
        old = sys.getrecursionlimit()
        new = max(old, used + needed)
        sys.setrecursionlimit(new)
    try:
        yield
    finally:
        with _ROOM_LOCK:
            if sys.getrecursionlimit() == new:
                sys.setrecursionlimit(old)


def parse_function(fn: types.FunctionType) -> tuple[gast.AST, Source]:
    """The gast FunctionDef (or Lambda) node of `fn`, with the user's lines and columns."""
    src = get_source(fn)
    try:
        module = _parse_text(src.text, src.first_line)
    except SyntaxError:
        if fn.__name__ != "<lambda>":
            raise _no_source(fn, "its source cannot be parsed on its own") from None
        module = None
    if fn.__name__ == "<lambda>":
        return _find_lambda(fn, src, module), src
    node = module.body[0]
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise _no_source(fn, "its source does not start with a def statement")
    return node, src


_FILE_TREES: dict = {}


def _file_tree(filename: str):
    """The whole file parsed with `ast` (cached), or None when it cannot be parsed."""
    lines = linecache.getlines(filename)
    key = (filename, len(lines), hash(lines[0]) if lines else 0)
    if key not in _FILE_TREES:
        try:
            _FILE_TREES[key] = ast.parse("".join(lines)) if lines else None
        except SyntaxError:
            _FILE_TREES[key] = None
    return _FILE_TREES[key]


def _find_lambda(fn, src: Source, module) -> gast.Lambda:
    code = fn.__code__
    tree = _file_tree(src.filename)
    if tree is None:
        if module is None:
            raise _no_source(fn, "the source line of the lambda cannot be parsed")
        tree = gast.gast_to_ast(module)
    args = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    candidates = [n for n in all_nodes(tree) if isinstance(n, ast.Lambda)
                  and n.lineno == code.co_firstlineno
                  and [a.arg for a in n.args.args + n.args.kwonlyargs] == args]
    if len(candidates) > 1:
        candidates = _match_lambda_positions(code, candidates) or \
            _match_lambda_code(code, candidates, src.filename)
    if len(candidates) != 1:
        raise ConversionError(
            "cannot tell which of several lambdas on this line is being converted; put "
            "the lambda on its own line or make it a def", src.filename, code.co_firstlineno)
    return gast.ast_to_gast(candidates[0])


def _match_lambda_positions(code, candidates):
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return []
    cols = [p[2] for p in positions() if p[0] == code.co_firstlineno and p[2] is not None
            and p[3] is not None and p[3] > p[2]]
    if not cols:
        return []
    first = min(cols)
    out = [n for n in candidates
           if n.body.col_offset <= first < (n.body.end_col_offset or 1 << 30)]
    out.sort(key=lambda n: n.body.col_offset, reverse=True)  # the innermost lambda
    return out[:1]


def _match_lambda_code(code, candidates, filename):
    out = []
    for n in candidates:
        expr = ast.Expression(body=n)
        ast.fix_missing_locations(expr)
        compiled = compile(expr, filename, "eval")
        inner = next((c for c in compiled.co_consts if isinstance(c, types.CodeType)), None)
        if inner is not None and inner.co_code == code.co_code and \
                inner.co_names == code.co_names:
            out.append(n)
    return out


def unparse(node) -> str:
    """Source text of a gast node (or list of nodes), without the blank lines that
    `ast.unparse` puts before nested definitions."""
    if isinstance(node, list):
        return "\n".join(unparse(n) for n in node)
    markers = _insert_note_markers(node)
    try:
        text = unparse_gast(node)
    finally:
        for block, marker, _ in markers:
            block.remove(marker)
    if markers:
        notes = {marker.value.id: note for _, marker, note in markers}
        text = _MARKER_LINE.sub(lambda m: m.group(1) + "# " + notes[m.group(2)], text)
    lines = text.split("\n")
    keep = [line for i, line in enumerate(lines)
            if line or i + 1 >= len(lines) or not _DEF_START.match(lines[i + 1])]
    return "\n".join(keep)


_MARKER_LINE = re.compile(r"^([ \t]*)(ag__note_\d+__)$", re.M)


def _insert_note_markers(node) -> list:
    """Put a marker statement before each statement with a note (`anno.NOTE`: a nested
    definition left as Python), which `unparse` turns into a comment; returns the
    (block, marker, note) triples to take out again."""
    out = []
    for block in _statement_lists(node):
        for s in list(block):
            note = anno.get(s, anno.NOTE, None) if isinstance(s, gast.AST) else None
            if note is not None:
                name = gast.Name(id=f"ag__note_{len(out)}__", ctx=gast.Load(),
                                 annotation=None, type_comment=None)
                marker = gast.copy_location(gast.Expr(value=name), s)
                gast.copy_location(name, s)
                block.insert(block.index(s), marker)
                out.append((block, marker, note))
    return out


def _statement_lists(node):
    """Every list of statements in `node` (bodies, else and finally blocks, the bodies of
    except handlers and match cases), found without visiting expressions: a walk over
    every node of each converted function was a tenth of the conversion time."""
    stack = [node]
    while stack:
        n = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(n, field, None)
            if type(block) is list:
                yield block
                stack.extend(s for s in block if isinstance(s, gast.AST))


_DEF_START = re.compile(r"\s*(def |class |async def |@)")
