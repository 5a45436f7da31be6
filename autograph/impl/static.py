"""Static conversion of a whole module's source: what `autograph convert` and `show` use.

The file is parsed, never imported or run. Every function and method (at the top level,
in classes, under top-level `if` / `try` / `with`) goes through the same pipeline as a
conversion at run time (`conversion.convert_function_node`). The one thing a run-time
conversion looks up in live objects - whether a called name is a module or a builtin
(`Context.lookup`, used by `call_trees`) - is decided here from the module's own
bindings instead:

- `import numpy as np`, `from os import path`: the module when it is already loaded in
  this process (nothing new is imported), so `np.sum(x)` stays a direct call exactly as
  in `ag.to_code`;
- anything else bound at module level (functions, classes, variables, `from math import
  sqrt`, modules not loaded, `import *`): the call goes through `ag__.converted`,
  which decides when it runs (a run-time conversion does the same: such names may be
  rebound);
- names the module never binds: builtins (`len(xs)` -> `ag__.converted(len)(xs)`, which
  looks `len` up when it runs).

The converted definitions are spliced into the original text in place of the original ones,
so module-level code, comments and formatting outside functions are kept as they are. Each
converted `def` gets `@ag__.autograph_artifact` as its innermost decorator (so the runtime
runs it as is instead of converting it again) and `__import__("autograph.impl.namespace")`,
which makes `ag__` a builtin rather than a global of the module (`impl/namespace.py`), is
inserted after the module docstring and `__future__` imports. Functions the runtime would
not convert either are left untouched: generators, `async def`, `@ag.do_not_convert` and
`@ag.function(..., autograph=False)`. One definition never stops the others: a generator
or `async def` (top-level or nested) or a definition with a construct that cannot be
converted is left as Python and noted (`Module.notes`; an error with `strict`).
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import gc
import io
import sys
import tokenize
import types
from typing import NamedTuple

from autograph.converters import call_trees
from autograph.errors import ConversionError
from autograph.impl.api import _explicit_super
from autograph.impl.context import Context, FunctionInfo
from autograph.impl.conversion import convert_function_node
from autograph.impl.module_paths import add_fast_paths
from autograph.pyct import anno, parser
from autograph.pyct.ast_to_gast import ast_to_gast
from autograph.pyct.blocks import child_blocks
from autograph.pyct.all_nodes import all_nodes, child_nodes

_MISSING = call_trees._MISSING   # "not known statically": the call is decided at run time
IMPORT_LINE = "import autograph.operators as ag__"  # (only for another name of it)
# `ag__` itself reaches the module's functions as a builtin: no global of the module
INSTALL_LINE = '__import__("autograph.impl.namespace")  # `ag__` (the operators) as a builtin\n'
ARTIFACT = "ag__.autograph_artifact"


class Definition(NamedTuple):
    qualname: str            # "f", "Model.step", "Outer.Inner.method"
    node: ast.AST            # the `ast` FunctionDef / AsyncFunctionDef (converted to gast
                             # only while it is converted: see `Module`)
    is_method: bool
    skip: str | None         # why it is left as is (None: it is converted)


# -- finding definitions -------------------------------------------------------------------
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def definitions(tree: ast.Module, may_yield: bool = True) -> list[Definition]:
    """Every function and method of an `ast` module, in source order (`may_yield`
    False: the source has no `yield`, so no definition is a generator)."""
    out: list[Definition] = []

    def visit(stmts, prefix: str, in_class: bool) -> None:
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(Definition(prefix + s.name, s, in_class, _skip_reason(s, may_yield)))
            elif isinstance(s, ast.ClassDef):
                visit(s.body, f"{prefix}{s.name}.", True)
            else:
                for block in child_blocks(s):
                    visit(block, prefix, in_class)

    visit(tree.body, "", False)
    return out


def _final_name(expr) -> str | None:
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else None


def _skip_reason(node, may_yield: bool = True) -> str | None:
    """Why the runtime would never convert this function, or None (the reasons of
    `left_alone.reason`, read from the `ast` node)."""
    for d in node.decorator_list:
        name = _final_name(d)
        if name == "do_not_convert":
            return "marked do_not_convert"
        if name == "function" and isinstance(d, ast.Call) and any(
                k.arg == "autograph" and isinstance(k.value, ast.Constant) and
                k.value.value is False for k in d.keywords):
            return "decorated with autograph=False"
    yields = may_yield and _own_yield(node)
    if isinstance(node, ast.AsyncFunctionDef):
        return "an async generator" if yields else "an async def (a coroutine)"
    return "a generator" if yields else None


def _own_yield(node) -> bool:
    """`yield` / `yield from` in the function's own body (not in nested scopes)."""
    stack = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(n, _SCOPES):
            stack.extend(child_nodes(n))
    return False


_LANGUAGE_SKIPS = ("a generator", "an async generator", "an async def (a coroutine)")


class Note(NamedTuple):
    """A definition `autograph convert` left as Python: 1-based line, 0-based column."""
    lineno: int
    col: int | None
    message: str


# -- what module-level names refer to --------------------------------------------------------
class _Bindings:
    """The module's top-level bindings, resolved without importing anything new."""

    def __init__(self, tree: ast.Module, may_declare_global: bool = True):
        self.kinds: dict[str, list] = {}
        self.star = False
        self._scan(tree.body)
        if not may_declare_global:
            return
        for n in all_nodes(tree):  # `global x` in a function: x is (re)bound at run time
            if isinstance(n, ast.Global):
                for name in n.names:
                    self.kinds.setdefault(name, []).append(None)

    def _bind(self, name: str, kind) -> None:
        self.kinds.setdefault(name, []).append(kind)

    def _scan(self, stmts) -> None:
        for s in stmts:
            if isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        self._bind(a.asname, ("module", a.name))
                    else:
                        top = a.name.split(".")[0]
                        self._bind(top, ("module", top))
            elif isinstance(s, ast.ImportFrom):
                for a in s.names:
                    if a.name == "*":
                        self.star = True
                    else:
                        kind = ("from", s.module, a.name) if not s.level else None
                        self._bind(a.asname or a.name, kind)
            elif isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                self._bind(s.name, None)
            else:
                # the statement's own targets and expressions; its blocks recursively
                for field, value in ast.iter_fields(s):
                    if field not in _BLOCK_FIELDS:
                        for part in value if isinstance(value, list) else [value]:
                            if isinstance(part, ast.AST):
                                self._scan_expression(part)
                for h in getattr(s, "handlers", None) or ():
                    if h.name:
                        self._bind(h.name, None)
                for case in getattr(s, "cases", None) or ():
                    self._scan_expression(case.pattern)
                for block in child_blocks(s):
                    self._scan(block)

    def _scan_expression(self, node) -> None:
        for n in all_nodes(node):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                self._bind(n.id, None)
            elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                self._bind(n.name, None)
            elif isinstance(n, ast.MatchMapping) and n.rest:
                self._bind(n.rest, None)

    def lookup(self, name: str):
        kinds = self.kinds.get(name)
        if kinds is None:
            return _MISSING if self.star else getattr(builtins, name, _MISSING)
        if len(kinds) != 1 or kinds[0] is None:
            return _MISSING
        kind = kinds[0]
        module = sys.modules.get(kind[1])
        if module is None:
            return _MISSING
        if kind[0] == "module":
            return module
        try:
            value = getattr(module, kind[2])
            return value if isinstance(value, types.ModuleType) else _MISSING
        except Exception:  # noqa: BLE001 - a lazy attribute that fails: unknown
            return _MISSING


class StaticContext(Context):
    """A conversion context whose name lookups come from the module's text."""

    def __init__(self, bindings: _Bindings, filename: str, source: str, qualname: str):
        super().__init__(FunctionInfo(filename=filename, source=source, qualname=qualname,
                                      walrus=":=" in source or not source))
        self.bindings = bindings

    def lookup(self, name: str):
        if name in self.scope.enclosing:  # a local of the def around a nested def
            return _MISSING
        return self.bindings.lookup(name)


# -- converting -----------------------------------------------------------------------------
class Module:
    """A module's source, parsed once; converts all or one of its functions."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        # compile (never run) first: it reports every syntax error, including the ones
        # the parser lets through ('return' outside function, misplaced nonlocal, ...)
        compile(text, filename, "exec", dont_inherit=True)
        with collector_paused():
            self.tree = ast.parse(text, filename)
            self.depth = parser.nesting_depth(self.tree)
            # (cheap tests on the text spare two walks over the whole tree)
            self.definitions = definitions(self.tree, may_yield="yield" in text)
            self.bindings = _Bindings(self.tree, may_declare_global="global" in text)
        self.lines = source_lines(text)
        self.aliases: set = set()  # other names of the operators module (`Outputs.ops_name`)
        self.notes: list[Note] = []  # definitions left as Python by `converted`, why

    def find(self, qualname: str) -> Definition | None:
        """The definition named `qualname` (the last one, as Python would bind it)."""
        found = [d for d in self.definitions if d.qualname == qualname]
        return found[-1] if found else None

    def _convert(self, d: Definition, fast: bool = False):
        """(converted gast node, its original return annotation); `fast`: with the fast
        paths of the module it writes (`module_paths.py`). Only this definition
        is made a gast tree, and nothing keeps it: the memory a conversion holds is
        the module's `ast` tree and one function's gast tree at a time."""
        kinds: list = []
        with parser.recursion_room(self.depth):
            node = ast_to_gast(d.node, kinds)
        anno.set_(node, anno.KINDS, frozenset(kinds))
        first = min([node.lineno] + [x.lineno for x in node.decorator_list])
        source = "".join(self.lines[first - 1:node.end_lineno])
        # (the qualified name: private names are mangled with the class name)
        ctx = StaticContext(self.bindings, self.filename, source, d.qualname)
        returns = node.returns
        try:
            with parser.recursion_room(self.depth):
                convert_function_node(node, ctx)
        except (ConversionError, SyntaxError):
            raise
        except Exception as e:  # a converter bug: say which function triggered it
            raise RuntimeError(f"{self.filename}:{node.lineno}: converting {d.qualname} "
                               f"failed: {type(e).__name__}: {e}") from e
        self.notes.extend(Note(n.lineno, n.col, n.text()) for n in ctx.out.left_alone)
        if d.is_method:
            # super() may move into generated nested functions
            _explicit_super(node, generated=ctx.namer.generated)
        if ctx.out.ops_name != "ag__":  # the function uses `ag__` itself
            self.aliases.add(ctx.out.ops_name)
        if fast:
            with parser.recursion_room(self.depth):  # (the Python-values copy recurses)
                add_fast_paths(node, ctx)
        return node, returns

    def function_code(self, qualname: str) -> str:
        """The converted code of one function or method (like `ag.to_code`)."""
        d = self.find(qualname)
        if d is None:
            raise KeyError(qualname)
        with collector_paused(), parser.recursion_room(self.depth):
            if d.skip:
                return parser.unparse(d.node)
            node, _ = self._convert(d)
            return parser.unparse(node)

    def converted(self, strict: bool = False) -> str:
        """The whole module with every convertible function converted. A generator, an
        `async def` (at any depth) or a definition that cannot be converted is left as
        Python with a note in `self.notes`; with `strict` it is a ConversionError."""
        self.notes = []
        with collector_paused():
            # (for the whole loop, not each definition: a collection between two of them
            # walks the module's whole tree, and a definition's tree is freed by reference
            # counts as soon as the next one replaces it)
            edits = self._converted_definitions(strict)
        if strict and self.notes:
            note = self.notes[0]
            raise ConversionError(note.message + "; --strict refuses it", self.filename,
                                  note.lineno, note.col)
        self.notes.sort(key=lambda n: (n.lineno, n.col or 0))
        if not edits:
            return self.text
        out = list(self.lines)
        for first, last, text in sorted(edits, reverse=True):
            out[first - 1:last] = [text]
        at = self._import_line()
        header = ("# Converted by `autograph convert`: control flow calls the `ag__` "
                  "operators.\n" + INSTALL_LINE +
                  "".join(f"{IMPORT_LINE[:-4]}{alias}\n" for alias in sorted(self.aliases)))
        if at > 0 and not out[at - 1].endswith(("\n", "\r")):
            header = "\n" + header
        if at < len(out) and out[at].strip():
            header += "\n"
        out.insert(at, header)
        return "".join(out)

    def _converted_definitions(self, strict: bool) -> list:
        """(first line, last line, new text) of each converted definition, 1-based
        inclusive; notes the ones left as Python."""
        edits = []
        for d in self.definitions:
            if d.skip:
                if d.skip in _LANGUAGE_SKIPS:
                    self._left_alone(d.node, f"`{d.qualname}` is {d.skip}: left as Python "
                                             "(AutoGraph does not convert it)", strict)
                continue
            first, last = d.node.lineno, d.node.end_lineno
            try:
                node, returns = self._convert(d, fast=True)
            except ConversionError as e:
                if strict:
                    raise
                self.notes.append(Note(e.lineno or first, e.col,
                                       f"`{d.qualname}` is left as Python: {e.message}"))
                continue
            node.returns = returns
            line = self.lines[first - 1]
            indent = line[:len(line) - len(line.lstrip())]
            # (the text is not compiled again to check it: that cost more than six
            # times compiling the input, and the suite compiles every converter's output)
            with parser.recursion_room(self.depth):
                text = f"@{ARTIFACT}\n" + parser.unparse(node) + "\n"
                del node, returns  # (the next definition's tree replaces this one)
            edits.append((first, last, _indent(text, indent)))
        return edits

    def _left_alone(self, node, message: str, strict: bool) -> None:
        if strict:
            raise ConversionError(message + "; --strict refuses it", self.filename,
                                  node.lineno, node.col_offset)
        self.notes.append(Note(node.lineno, node.col_offset, message))

    def _import_line(self) -> int:
        """Index in `lines` where the ag__ import goes: after the docstring and the
        `__future__` imports, else before the first statement (after leading comments)."""
        body = self.tree.body
        after = None
        for i, s in enumerate(body):
            docstring = i == 0 and isinstance(s, ast.Expr) and \
                isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
            if docstring or (isinstance(s, ast.ImportFrom) and s.module == "__future__"):
                after = s.end_lineno
            else:
                break
        if after is not None:
            return after
        if not body:
            return len(self.lines)
        first = body[0]
        decorators = getattr(first, "decorator_list", [])
        return min([first.lineno] + [d.lineno for d in decorators]) - 1


@contextlib.contextmanager
def collector_paused():
    """Pause the cyclic garbage collector for one step (parsing the module, converting
    one definition). A step makes hundreds of thousands of objects and little garbage,
    and a collection during it walks the module's whole tree again (a third of the
    conversion time). The step's garbage is collected once the collector runs again,
    before the next step has made its own."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def source_lines(text: str) -> list[str]:
    """The lines of a source as Python numbers them, line ends kept: only LF, CRLF and CR
    end a line (`str.splitlines` also splits at form feeds and other separators)."""
    return io.StringIO(text, newline="").readlines()


def _indent(text: str, indent: str) -> str:
    """Indent every line of `text` except lines inside multi-line string literals."""
    if not indent:
        return text
    inside: set = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] != tok.end[0]:
                inside.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass  # generated code always tokenizes; if not, indent every line (no strings to keep)
    lines = source_lines(text)
    return "".join(line if i + 1 in inside or not line.strip() else indent + line
                   for i, line in enumerate(lines))


def convert_module_source(text: str, filename: str, notes: list | None = None,
                          strict: bool = False) -> str:
    """Convert every function and method of a module's source statically; the
    definitions left as Python are appended to `notes` (a list of `Note`).

    Raises SyntaxError (the input does not compile), or with `strict` ConversionError (a
    definition is left as Python)."""
    module = Module(text, filename)
    out = module.converted(strict)
    if notes is not None:
        notes.extend(module.notes)
    return out


def convert_function_source(text: str, filename: str, qualname: str) -> str:
    """The converted code of one function or method (`Class.method`) of a module's source.
    Raises KeyError when there is no such definition."""
    return Module(text, filename).function_code(qualname)


__all__ = ["Module", "Definition", "Note", "definitions", "convert_module_source",
           "convert_function_source", "source_lines", "IMPORT_LINE"]
