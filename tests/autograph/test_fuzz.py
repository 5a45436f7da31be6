"""Differential fuzzing of the compiler on fixed seeds (generator and runner: fuzz.py).

Each seed is a random valid function run as the original Python, converted
(`ag.to_graph`) on Python values, and as `ag.function` on NumPy scalars (symbolic
conditions). More seeds: `python -m tests.autograph.fuzz START COUNT`; a failing seed
shrinks with `fuzz.reduce(seed, directory)`. Bugs found this way are corpus cases.
"""
from __future__ import annotations

import ast

import numpy as np
import pytest

from tests.autograph import fuzz

SEEDS = range(150)


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_seed(seed, tmp_path):
    with np.errstate(all="ignore"):
        problem = fuzz.check(seed, tmp_path)
    assert problem is None, f"seed {seed}:\n{fuzz.generate(seed)}\n{problem}"


def test_generator_is_deterministic_and_varied():
    sources = [fuzz.generate(s) for s in range(40)]
    assert sources == [fuzz.generate(s) for s in range(40)]
    text = "\n".join(sources)
    for construct in (ast.While, ast.For, ast.Break, ast.Continue, ast.AugAssign, ast.IfExp,
                      ast.BoolOp, ast.Return):
        assert any(isinstance(n, construct) for n in ast.walk(ast.parse(text))), construct
    assert "elif" in text and "for e" in text and "in range(n)" in text
