"""The gast writer gives exactly the text `ast.unparse` gives of the tree's `ast` form,
and `all_nodes` / `child_nodes` yield the nodes `ast.walk` / `ast.iter_child_nodes`
yield, in their order."""
import ast
import glob
import os
import sysconfig

import gast
import pytest

import autograph
from autograph.pyct import gast_to_ast
from autograph.pyct.all_nodes import all_nodes, child_nodes
from autograph.pyct.ast_to_gast import ast_to_gast
from autograph.pyct.gast_unparse import unparse_gast

from tests.autograph.test_ast_to_gast import CASES

ROOT = os.path.dirname(os.path.dirname(autograph.__file__))
STDLIB = sysconfig.get_paths()["stdlib"]
FILES = sorted(glob.glob(os.path.join(ROOT, "autograph", "**", "*.py"), recursive=True) +
               glob.glob(os.path.join(ROOT, "tests", "autograph", "*.py")) +
               [os.path.join(STDLIB, name) for name in (
                   "ast.py", "typing.py", "argparse.py", "dataclasses.py", "inspect.py",
                   "enum.py", "functools.py", "pathlib.py", "tarfile.py", "string.py")])


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_same_text_as_ast_unparse(path):
    with open(path, encoding="utf-8") as f:
        _check(ast.parse(f.read()))


def test_same_text_on_every_construct():
    _check(ast.parse(CASES))


def test_nodes_the_converters_make_without_optional_fields():
    # gast nodes made by hand may lack a field whose `ast` class has a default
    def fn():
        return gast.FunctionDef(
            name="f", decorator_list=[], lineno=1,
            args=gast.arguments(
                args=[gast.Name(id="x", ctx=gast.Param(),
                                annotation=gast.Name(id="int", ctx=gast.Load()))],
                posonlyargs=[], vararg=gast.Name(id="a", ctx=gast.Param(), annotation=None),
                kwonlyargs=[], kw_defaults=[], defaults=[],
                kwarg=gast.Name(id="kw", ctx=gast.Param(), annotation=gast.Constant(value="s"))),
            body=[gast.Assign(targets=[gast.Name(id="y", ctx=gast.Store())],
                              value=gast.Constant(value=1), lineno=2)])
    assert unparse_gast(fn()) == ast.unparse(gast_to_ast.convert(fn()))


def _check(tree):
    g = ast_to_gast(tree)
    assert unparse_gast(g) == ast.unparse(gast_to_ast.convert(g))
    assert [id(n) for n in all_nodes(g)] == [id(n) for n in gast.walk(g)]
    assert [id(n) for n in all_nodes(tree)] == [id(n) for n in ast.walk(tree)]
    for n in all_nodes(g):
        assert [id(c) for c in child_nodes(n)] == [id(c) for c in gast.iter_child_nodes(n)]
