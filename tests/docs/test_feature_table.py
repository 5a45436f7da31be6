"""The README's comparison table is generated from docs/features.toml and every row of
ours is backed by tests that exist (tests/docs/feature_table.py renders it)."""
from __future__ import annotations

import ast
import os

import pytest

from tests.docs.feature_table import PEERS, README, ROOT, render, rows, section

ROWS = rows()


def test_readme_table_is_the_rendered_data_file():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    start, end = section(text)
    assert text[start:end].strip() == render(ROWS), (
        "README.md's feature table differs from docs/features.toml: run "
        "`python -m tests.docs.feature_table --write`")


def _test_functions(path: str) -> set[str]:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test_")}


@pytest.mark.parametrize("row", ROWS, ids=[r["feature"] for r in ROWS])
def test_every_row_of_ours_cites_existing_tests(row):
    assert row["ours"].strip() and row["tests"], f"{row['feature']!r}: cite the tests that show it"
    for test in row["tests"]:
        path, sep, name = test.partition("::")
        assert sep and path.startswith("tests/") and path.endswith(".py"), test
        assert os.path.isfile(os.path.join(ROOT, path)), f"{test}: no such file"
        assert name in _test_functions(path), f"{test}: no such test function"


@pytest.mark.parametrize("row", ROWS, ids=[r["feature"] for r in ROWS])
def test_every_peer_cell_is_filled(row):
    for key, title in PEERS:
        assert row[key].strip(), f"{row['feature']!r}: say what {title} does"
