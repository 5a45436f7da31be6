"""Fuzz seeds of the `try` feature sets (fuzz_try*.py) that once failed, and the
"try_chain" feature's programs: ag.function, jit_compile=True and ag.to_graph give eager
NumPy's outcome, errors included, or a documented refusal (more seeds: `python -m
tests.autograph.fuzz 0 1000 --features=graph_try,try_chain --graph`)."""
from __future__ import annotations

import re

import pytest

from tests.autograph import fuzz

# 459: an attribute a `with` manager writes in a symbolic branch inside an errstate
# region (LeakedTensorError); 1012, 1903, 572: a nested construct's refusal hidden by
# the enclosing `try` ("a limit of the compiler"); 905: the same, a list the refused
# construct left holding a stand-in not put back as before the region; 9371: the jump
# codes of a `try` in a branch Python never takes, inside a symbolic loop, refused as
# "first assigned inside this symbolic loop" (test_loop_unassigned_variables.py)
UNION = "graph_try,try_writes,try_labels,try_raises"
FIXED = [("graph_try,try_raises", 459), ("graph_try,try_writes", 1012),
         ("graph_try,try_writes", 1903), (UNION, 572), (UNION, 905),
         (UNION + ",try_chain", 9371)]


@pytest.mark.parametrize("features,seed", FIXED + [("graph_try,try_chain", s) for s in
                                                   (3, 9, 11, 16, 22, 44)])
def test_fuzz_seed(features, seed, tmp_path):
    features = frozenset(features.split(","))
    problem = fuzz.check(seed, tmp_path, graph=True, features=features, jit=seed % 2 == 1)
    assert problem is None, f"seed {seed}:\n{fuzz.generate(seed, features)}\n{problem}"


def test_try_chain_generates_assertions_reraises_and_chaining():
    features = frozenset({"graph_try", "try_chain"})
    text = "\n".join(fuzz.generate(s, features) for s in range(80))
    for pattern in (r"\n +assert .*, 'fuzz a\d+'\n", r"except .*:\n(.*\n)*? +raise\n",
                    r"except .* as e:\n(.*\n)*? +raise e\n",
                    r"raise ChainError\('fuzz c\d+'\) from e\n",
                    r"raise ChainError\('fuzz c\d+'\) from None\n", r"except ChainError",
                    r"except AssertionError"):
        assert re.search(pattern, text), pattern


def test_other_sets_do_not_get_the_chain_constructs():
    features = frozenset({"graph_try", "try_raises", "try_writes", "try_labels"})
    text = "\n".join(fuzz.generate(s, features) for s in range(80))
    assert "ChainError" not in text and "assert " not in text
