"""Fixtures for the whole suite."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _jit_cache_in_a_temporary_directory(tmp_path_factory):
    """Code compiled by jit_compile=True goes to a directory of this run, not the user's
    cache (~/.cache/autograph-numpy/jit)."""
    from runtime.jit import set_cache_dir

    set_cache_dir(tmp_path_factory.mktemp("jit_cache"))
    yield
    set_cache_dir(None)


def pytest_collection_modifyitems(config, items):
    """Mark the tests listed in tests/package/slow.py as `slow` (`-m "not slow"`)."""
    from tests.package.slow import mark_slow_tests

    mark_slow_tests(items)
