"""ONNX export verified in onnxruntime against the graph executor (tests/onnx_harness.py).

Runs the compiler corpus (tests/autograph/corpus.py), the control-flow programs of
tests/runtime/test_gradient_programs*.py (their graph versions), the seed examples and the
training step's forward pass; plus the export contract: Variables as inputs/outputs,
unknown dims as symbolic dims, `If`/`Loop`, clear errors naming the op and the user's line.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import autograph as ag  # noqa: E402
import runtime  # noqa: E402
from runtime.onnx_export import OnnxExportError, export_onnx  # noqa: E402
from tests.autograph.corpus import CASES  # noqa: E402
from tests.onnx_harness import Tally, check_export  # noqa: E402

# Graph ops that cannot be exported, and why (the test asserts nothing else is refused).
UNEXPORTABLE = {"op list_new", "op check", "op assert", "op print", "op save_state",
                "op python state"}


def _np_args(case, args):
    py = [a.item() if isinstance(a, np.generic) else a for a in args]
    return [py[i] if i in case.static else a for i, a in enumerate(args)]


@pytest.mark.parametrize("case", [c for c in CASES if c.graph], ids=lambda c: c.name)
def test_corpus_function_in_onnxruntime(case):
    f = ag.function(case.fn)
    for args in case.arg_sets:
        args = _np_args(case, args)
        cf = f.get_concrete_function(*args)
        try:
            check_export(cf, args)
        except OnnxExportError as e:
            message = str(e)
            assert any(f"op '{r[3:]}'" in message for r in UNEXPORTABLE), message
            assert "corpus.py:" in message, f"the error does not name the user's line: {message}"
            if "'check'" in message or "'assert'" in message:
                # on valid inputs the graph without its checks gives the same values
                check_export(cf, args, assertions="drop")


def test_corpus_tally():
    """Most of the corpus exports; the rest is refused only for the known reasons."""
    tally = Tally()
    for case in (c for c in CASES if c.graph):
        f = ag.function(case.fn)
        args = _np_args(case, case.arg_sets[0])
        tally.run(case.name, f.get_concrete_function(*args), args)
    print(tally.summary())
    assert set(tally.refused) <= UNEXPORTABLE, tally.summary()
    assert tally.exported >= 0.9 * (tally.exported + sum(tally.refused.values()))


def _gradient_programs():
    from tests.runtime import test_gradient_programs, test_gradient_programs_nested

    for module in (test_gradient_programs, test_gradient_programs_nested):
        for name, (_, graph, points) in module.programs.table.items():
            for k, point in enumerate(points):
                yield pytest.param(graph, point, id=f"{name}-{k}")


@pytest.mark.parametrize("graph, point", list(_gradient_programs()))
def test_control_flow_program_in_onnxruntime(graph, point):
    f = ag.function(graph, autograph=False)
    cf = f.get_concrete_function(*point)
    try:
        check_export(cf, list(point))
    except OnnxExportError as e:
        assert any(f"op '{r[3:]}'" in str(e) for r in UNEXPORTABLE), str(e)


def _example(module_name):
    import importlib
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2] / "examples")
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module(module_name)


def test_seed_examples_in_onnxruntime(capsys):
    cf_module = _example("control_flow")
    quick = _example("quickstart")
    tracing = _example("tracing")
    side = _example("side_effects")
    x = np.array([1.5, -2.0, 0.5, 4.0], np.float32)
    cases = [
        (quick.simple_relu, (np.float32(-3.0),)), (quick.simple_relu, (np.float32(2.0),)),
        (cf_module.sign, (np.float32(-2.5),)), (cf_module.collatz_steps, (np.int64(27),)),
        (cf_module.sum_until_negative, (np.array([1.0, 2.0, -1.0, 4.0], np.float32),)),
        (cf_module.first_above, (np.array([1.0, 5.0, 3.0]), np.float64(2.0))),
        (cf_module.running_max, (np.array([1.0, 5.0, 3.0, 7.0]),)),
        (cf_module.clip_norm, (np.array([3.0, 4.0]), np.float64(1.0))),
        (tracing.my_relu, (x,)), (tracing.total, (x,)), (tracing.mean_square, (x,)),
        (side.get_mse, (x, x[::-1].copy())),
    ]
    tally = Tally()
    for fn, args in cases:
        f = fn if isinstance(fn, runtime.Function) else ag.function(fn)
        tally.run(f.__name__, f.get_concrete_function(*args), list(args))
    print(tally.summary())
    assert set(tally.refused) <= {"op print"}, tally.summary()  # get_mse calls ag.print
    assert tally.exported == len(cases) - 1


def test_training_forward_pass_in_onnxruntime():
    train = _example("train_mlp")
    x, y = train.make_data(64)
    model = train.MLP()

    @ag.function
    def forward(x, y):
        return train.cross_entropy(model(x), y), model(x)

    check_export(forward.get_concrete_function(x, y), [x, y])


def test_variables_are_inputs_with_initializers_and_assigned_ones_are_outputs():
    import onnx

    w = ag.Variable(np.array([1.0, 2.0], np.float32), name="w")
    steps = ag.Variable(np.int64(0), name="steps")

    @ag.function
    def step(x, n):
        i = 0
        while i < n:
            if np.sum(w) > 10:
                w.assign(w * 0.5)
            else:
                w.assign_add(x)
            steps.assign_add(1)
            i += 1
        return w.value * 2

    args = [np.array([3.0, 1.0], np.float32), np.int64(4)]
    model = export_onnx(step, None, *args)
    inputs = [i.name for i in model.graph.input]
    assert inputs == ["x", "n", "w", "steps"]
    assert {t.name for t in model.graph.initializer} >= {"w", "steps"}
    assert [o.name for o in model.graph.output] == ["output_0", "w.new", "steps.new"]
    assert {n.op_type for n in model.graph.node} >= {"Loop"}
    onnx.checker.check_model(model, full_check=True)
    check_export(step.get_concrete_function(*args), args)
    check_export(step.get_concrete_function(*args), args)  # from the updated values


def test_unknown_dims_become_symbolic_dims_and_any_size_runs(tmp_path):
    import onnx

    @ag.function(input_signature=[ag.TensorSpec((None, 3), np.float32)])
    def f(x):
        s = np.sum(x, axis=1)
        return s[s > 0] * 2, np.mean(x, axis=0), x[1:, ::-1].reshape(-1)

    path = tmp_path / "f.onnx"
    export_onnx(f, path)
    model = onnx.load(str(path))
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and dims[1].dim_value == 3
    cf = f.get_concrete_function()
    for n in (1, 4, 7):
        check_export(cf, [np.linspace(-1, 1, n * 3, dtype=np.float32).reshape(n, 3)])


def test_cond_and_while_become_if_and_loop():
    @ag.function
    def f(x, n):
        while n > 0:
            x = x * 2 if np.sum(x) < 100 else x - 1
            n -= 1
        return x

    model = export_onnx(f, None, np.ones(3), np.int64(5))
    loop = [n for n in model.graph.node if n.op_type == "Loop"]
    assert len(loop) == 1
    body = loop[0].attribute[0].g
    assert "If" in {n.op_type for n in body.node}


def test_op_without_onnx_form_names_op_and_user_line():
    @ag.function
    def f(x):
        ag.print("x is", x)
        return x + 1

    with pytest.raises(OnnxExportError) as info:
        export_onnx(f, None, np.ones(2))
    message = str(info.value)
    assert "'print'" in message and "test_onnx_export.py:" in message
    assert "Remove the ag.print" in message


def test_float64_without_kernel_is_refused_clearly():
    @ag.function
    def f(x):
        return np.arctan(x)

    with pytest.raises(OnnxExportError, match="no float64 kernel for Atan"):
        export_onnx(f, None, np.ones(2))
    check_export(f.get_concrete_function(np.ones(2, np.float32)), [np.ones(2, np.float32)])


def test_several_traces_need_a_choice():
    f = ag.function(lambda x: x + 1)
    f(np.ones(2))
    f(np.ones(3, np.int32))
    with pytest.raises(TypeError, match="has 2 traces"):
        export_onnx(f, None)
    assert export_onnx(f, None, np.ones(3, np.int32)).graph.input[0].name == "x"


def test_missing_onnx_says_what_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_onnx(name, *args, **kwargs):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    f = ag.function(lambda x: x + 1)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[onnx\]"'):
        export_onnx(f, None, np.ones(2))


def test_concrete_function_to_onnx_method():
    f = ag.function(lambda x: np.maximum(x, np.float32(0.5)))
    cf = f.get_concrete_function(np.ones(2, np.float32))
    model = cf.to_onnx()
    assert model.opset_import[0].version >= 18
