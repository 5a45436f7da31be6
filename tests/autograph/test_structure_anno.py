"""Every AST annotation the compiler keeps is a named key of `autograph/pyct/anno.py`: no
other module spells an annotation key (a `"ag_..."` string, a `node.ag_...` attribute,
`getattr` / `setattr` with one), and every listed key is used."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import gast
import pytest

from autograph.pyct import anno

PACKAGE = Path(__file__).resolve().parents[2] / "autograph"
_KEY = re.compile(r"^_?ag_[a-z]")  # not `ag__` (the operators module's name)


def _sources():
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p != PACKAGE / "pyct" / "anno.py"]


def _annotation_spellings(path: Path) -> list:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                _KEY.match(node.value):
            out.append(f"{path.name}:{node.lineno}: string {node.value!r}")
        elif isinstance(node, ast.Attribute) and _KEY.match(node.attr):
            out.append(f"{path.name}:{node.lineno}: attribute .{node.attr}")
    return out


def test_no_annotation_key_is_spelled_outside_anno():
    bad = [s for p in _sources() for s in _annotation_spellings(p)]
    assert not bad, "use the keys of autograph/pyct/anno.py:\n" + "\n".join(bad)


def test_every_listed_key_is_used_and_listed_once():
    names = {k: v for k, v in vars(anno).items() if k.isupper() and isinstance(v, str)}
    assert set(names.values()) == anno.KEYS
    assert len(set(names.values())) == len(names)
    text = "\n".join(p.read_text() for p in _sources())
    unused = [k for k in names if f"anno.{k}" not in text]
    assert not unused, f"keys nobody uses: {unused}"


def test_a_missing_required_annotation_names_the_key():
    node = gast.parse("if x:\n    pass").body[0]
    with pytest.raises(AttributeError, match=anno.LIVE_OUT):
        anno.get(node, anno.LIVE_OUT)
    assert anno.get(node, anno.LIVE_OUT, frozenset()) == frozenset()
    anno.set_(node, anno.LIVE_OUT, frozenset({"y"}))
    assert anno.has(node, anno.LIVE_OUT) and anno.get(node, anno.LIVE_OUT) == {"y"}
    assert anno.pop(node, anno.LIVE_OUT) == {"y"} and not anno.has(node, anno.LIVE_OUT)
