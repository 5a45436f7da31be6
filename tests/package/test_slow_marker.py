"""The `slow` marker: registered, applied to what tests/package/slow.py lists, and every
listed name still exists (a renamed test file would silently fall into the quick subset)."""
from __future__ import annotations

import os

import pytest

from tests.package.slow import SLOW_MODULES, SLOW_TESTS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_listed_modules_exist():
    missing = [m for m in SLOW_MODULES | {t.split("::")[0] for t in SLOW_TESTS}
               if not os.path.isfile(os.path.join(ROOT, m))]
    assert not missing


def test_marker_is_registered(pytestconfig):
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))


def test_listed_single_tests_exist():
    for nodeid in SLOW_TESTS:
        path, name = nodeid.split("::", 1)
        with open(os.path.join(ROOT, path)) as f:
            assert f"def {name.split('[')[0]}(" in f.read(), nodeid


@pytest.mark.parametrize("listed", [True, False])
def test_items_get_the_marker(request, listed):
    from tests.package.slow import mark_slow_tests

    class Item:
        def __init__(self, nodeid):
            self.nodeid, self.markers = nodeid, []

        def add_marker(self, marker):
            self.markers.append(marker.name)

    nodeid = (sorted(SLOW_MODULES)[0] + "::test_x" if listed
              else "tests/runtime/test_ops.py::test_x")
    item = Item(nodeid)
    mark_slow_tests([item])
    assert item.markers == (["slow"] if listed else [])
