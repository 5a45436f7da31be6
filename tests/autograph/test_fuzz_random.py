"""The compiler fuzzer with random draws from seeded generators (feature "random" of
fuzz_features.py) on the symbolic path: the original Python, the converted code on Python
values and ag.function on NumPy values (and with jit_compile=True) draw the same numbers,
and leave the generators in the same state. More seeds:
`python -m tests.autograph.fuzz 0 10000 --features=random --graph`."""
from __future__ import annotations

import numpy as np
import pytest

from tests.autograph import fuzz

FEATURES = frozenset({"random"})


@pytest.mark.parametrize("seed", range(150))
def test_fuzz_seed_with_random_draws(seed, tmp_path):
    with np.errstate(all="ignore"):
        problem = fuzz.check(seed, tmp_path, graph=True, features=FEATURES)
    assert problem is None, f"seed {seed}:\n{fuzz.generate(seed, FEATURES)}\n{problem}"


@pytest.mark.parametrize("seed", range(0, 150, 10))
def test_fuzz_seed_with_random_draws_and_jit_compile(seed, tmp_path):
    with np.errstate(all="ignore"):
        problem = fuzz.check(seed, tmp_path, graph=True, features=FEATURES, jit=True)
    assert problem is None, f"seed {seed}:\n{fuzz.generate(seed, FEATURES)}\n{problem}"
