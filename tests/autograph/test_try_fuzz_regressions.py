"""Programs the fuzzer (tests/autograph/fuzz_try.py) found wrong, reduced: each runs
eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph` and the output of
`autograph convert`, on inputs taking different paths, and the outcome (value with dtype,
shape and kind, or the exception), what `ag.print` printed and what the arguments hold
afterwards must equal eager NumPy's."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.autograph.test_try_graph_writes import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def return_in_a_nested_finally(n, xs):
    # the outer `try` starts its value to return with the structure of the inner one's
    # (a pair), and the inner `try`'s jump code and value stay local to the outer body
    log = 0
    try:
        try:
            log = log + 1
        finally:
            for e in xs:
                if e < xs[n]:
                    return e, log  # noqa: B012 - the construct under test
        log = log + 1
    except LookupError:
        log = 7
    return xs[0], log


XS = np.array([-1.0, -2.0, -2.0, 3.0])
CASES = [
    ("return_in_a_nested_finally", (np.int64(n), XS)) for n in (1, 3, 7)
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    import importlib.util

    from autograph.impl.static import convert_module_source

    with open(__file__) as f:
        text = convert_module_source(f.read(), __file__)
    path = tmp_path_factory.mktemp("converted") / "converted_try_fuzz_regressions.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("converted_try_fuzz_regressions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_reduced_fuzz_program(name, args, mode, capsys, converted):
    fn = globals()[name]
    with np.errstate(divide="raise", over="ignore", invalid="ignore", under="ignore"):
        want = outcome(fn, _copies(args), capsys)
        if mode == "convert":
            run = ag.function(getattr(converted, name))
        elif mode == "to_graph":
            run = ag.to_graph(fn)
        else:
            run = ag.function(fn, jit_compile=mode == "jit")
        assert_same_outcome(outcome(run, _copies(args), capsys), want)
        if mode == "function":  # a second call runs the graph only
            assert_same_outcome(outcome(run, _copies(args), capsys), want)


def test_the_graph_form_is_used():
    for name in {n for n, _ in CASES}:
        assert "try_graph(" in ag.to_code(globals()[name]), name
