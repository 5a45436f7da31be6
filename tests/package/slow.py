"""Which tests are `slow` (the pytest marker registered in pyproject.toml).

`pytest -m "not slow"` is the quick subset a developer runs while working (under a
minute on an idle 2-core machine); CI runs everything. The list is kept here, in one
place, rather than as decorators spread over the suite: a whole module is slow when most
of its time goes into subprocesses, fuzzing, corpora, numba compiles, ONNX or Dask; a
single test is listed by node id (all its parameters) when it alone takes seconds in an
otherwise quick module.
Measured with `pytest --durations=0`; re-measure when the quick subset passes a minute
(4,438 of 9,475 tests in 43 s on 2 cores with a load of about 1.4, November 2026).
"""
from __future__ import annotations

import pytest

SLOW_MODULES = frozenset({
    # subprocesses: examples, the command line, the installed package
    "tests/test_examples.py",
    "tests/package/test_shadowing.py",
    "tests/cli/test_main.py",
    "tests/cli/test_convert.py",
    "tests/cli/test_show.py",
    "tests/cli/test_graph.py",
    "tests/cli/test_export.py",
    "tests/cli/test_fidelity_encoding.py",
    "tests/cli/test_fidelity_output.py",
    "tests/cli/test_hostile_input.py",
    "tests/cli/test_convert_left_alone.py",
    "tests/cli/test_convert_exceptions.py",
    # fuzzing and corpora
    "tests/autograph/test_fuzz.py",
    "tests/autograph/test_fuzz_random.py",
    "tests/autograph/test_fuzz_objects.py",
    "tests/autograph/test_corpus.py",
    "tests/autograph/test_corpus_optimized.py",
    "tests/autograph/test_fidelity_declared_state.py",
    "tests/autograph/test_static.py",
    "tests/saved/test_roundtrip_corpus.py",
    "tests/saved/test_roundtrip_programs.py",
    # optional engines: numba, ONNX, Dask, threads
    "tests/runtime/test_jit_ops.py",
    "tests/runtime/test_jit_programs.py",
    "tests/runtime/test_jit_element_loops.py",
    "tests/runtime/test_onnx_export.py",
    "tests/runtime/test_onnx_ops.py",
    "tests/runtime/test_onnx_edge_inputs.py",
    "tests/runtime/test_parallel_exec.py",
    "tests/runtime/test_chunked_regions.py",
    "tests/saved/test_dask.py",
    # bitwise sweeps over many dtypes and ops, and whole-tree source scans
    "tests/runtime/test_materialize.py",
    "tests/runtime/test_spelling.py",
    "tests/runtime/test_shape_rules_ufuncs.py",
    "tests/runtime/test_ops_ufuncs.py",
    "tests/runtime/test_vmap_ops.py",
    "tests/runtime/test_ops_fft.py",
    "tests/runtime/test_ops_cov_gaps.py",
    "tests/runtime/test_fidelity_passes.py",
    "tests/runtime/test_fidelity_reliability.py",
    "tests/runtime/test_gradient_linalg_fft.py",
    "tests/autograph/test_structure_layers.py",
    "tests/runtime/test_structure_layers.py",
    # the documentation site build
    "tests/docs/test_build.py",
})

SLOW_TESTS = frozenset({
    "tests/saved/test_loader_safety.py::test_random_corruptions_only_raise_load_error",
    "tests/autograph/test_fidelity_compiler.py::test_long_expressions_convert_like_cpython_compiles_them",
    # traces to Python's recursion limit
    "tests/autograph/test_fidelity_errors.py::test_recursion_on_a_symbolic_stopping_condition_says_to_write_a_loop",
    # every corpus loop, also under jit_compile
    "tests/autograph/test_loop_rolling.py::test_rolled_loops_match_python",
    "tests/autograph/test_fidelity_escapes.py::test_a_huge_object_graph_costs_a_bounded_search",
    "tests/runtime/test_ops.py::test_reduction_axes",
    "tests/runtime/test_passes.py::test_random_programs_optimized_equals_unoptimized",
    "tests/autograph/test_idioms_array_like_args.py::test_matches_numpy",
    "tests/autograph/test_loop_options.py::test_symbolic_while_is_bounded_wherever_the_call_sits",
})


def mark_slow_tests(items: list[pytest.Item]) -> None:
    """Add the `slow` marker to every collected test listed above."""
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if module in SLOW_MODULES or item.nodeid.split("[", 1)[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
