"""Converted code means what Python means, for the defect classes found by running
CPython 3.11's own test modules and TheAlgorithms/Python through `autograph convert`
(issue 21, external measurements): each case of external21_cases.py runs as written,
through `ag.to_graph` and from the module `autograph convert` writes, with the same
outcome (value, or exception type and text).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import autograph as ag
from autograph.impl.static import convert_module_source
from tests.autograph import external21_cases as cases

CASES_FILE = Path(cases.__file__)


@pytest.fixture(scope="module")
def static_module(tmp_path_factory):
    out = tmp_path_factory.mktemp("external21") / "external21_cases_converted.py"
    out.write_text(convert_module_source(CASES_FILE.read_text(), str(CASES_FILE)))
    spec = importlib.util.spec_from_file_location("external21_cases_converted", out)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def _outcome(fn, args):
    try:
        return "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - compared as type and message
        return "raised", type(e).__name__, str(e)


@pytest.mark.parametrize("fn, args", cases.CASES,
                         ids=[f"{f.__qualname__}{a}" for f, a in cases.CASES])
def test_converted_code_means_what_python_means(fn, args, static_module):
    expected = _outcome(fn, args)
    assert _outcome(ag.to_graph(fn), args) == expected
    converted = static_module
    for part in fn.__qualname__.split("."):  # a method: through its class
        converted = getattr(converted, part)
    assert _outcome(converted, args) == expected
