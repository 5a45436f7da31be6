"""The fast ast -> gast translation builds exactly the tree gast's own builds."""
import ast
import glob
import os

import gast
import pytest

import autograph
from autograph.pyct.ast_to_gast import ast_to_gast

ROOT = os.path.dirname(os.path.dirname(autograph.__file__))
FILES = sorted(glob.glob(os.path.join(ROOT, "autograph", "**", "*.py"), recursive=True) +
               glob.glob(os.path.join(ROOT, "tests", "autograph", "*.py")))

CASES = '''
def g(a, /, b: int = 1, *c, d, e=2, **f) -> int:
    """doc"""
    try:
        x = [i async for i in y] if b else {k: v for k, v in z}
    except (E, F) as err:
        raise ValueError(f"{err!r:>{b}}") from None
    except E:
        pass
    match a:
        case [1, *rest] if rest: return rest
        case {"k": v, **kw}: return kw
        case C(x=1) | None: return ...
    with open(p) as fh, q: del fh[1:2, ::3]
    global G
    lambda *, k=b'x', j=1j: (yield)
class K(B, metaclass=M):
    async def m(self):
        await self.x
        async with a as b:
            pass
'''


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_same_tree_as_gast(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    _check(tree)


def test_same_tree_as_gast_on_every_construct():
    _check(ast.parse(CASES))


def _check(tree):
    expected, got = gast.ast_to_gast(tree), ast_to_gast(tree)
    assert gast.dump(got, include_attributes=True) == \
        gast.dump(expected, include_attributes=True)
    assert [type(n) for n in gast.walk(got)] == [type(n) for n in gast.walk(expected)]
