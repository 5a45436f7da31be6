"""`autograph export ... -o X.agz|DIR` and `autograph show SAVED`: the written file loads
(in this process) and computes what the traced function computes; show prints the
signatures and listings; errors are one line with exit codes 1 / 2."""
from __future__ import annotations

import textwrap

import numpy as np

import autograph as ag
from tests.cli.runner import assert_user_error, import_path, run_cli

MODEL = textwrap.dedent("""
    import numpy as np
    import autograph as ag

    w = ag.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 8, name="w")

    @ag.function
    def step(x):
        y = x @ w
        if np.sum(y) > 0:
            y = y * 2
        return np.tanh(y)

    print("imported")
""")


def _model(tmp_path):
    src = tmp_path / "model.py"
    src.write_text(MODEL)
    return src


def test_export_native_file_and_directory_load_and_agree(tmp_path):
    src = _model(tmp_path)
    module = import_path(src)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    for out in (tmp_path / "step.agz", tmp_path / "step_dir"):
        result = run_cli("export", f"{src}::step", "--arg", "float32[None,4]", "-o", out)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "" and "imported" in result.stderr
        loaded = ag.load(out)
        np.testing.assert_array_equal(loaded(x), module.step(x))
        assert [v.name for v in loaded.variables] == ["w"]


def test_show_saved_prints_signatures_variables_and_listing(tmp_path):
    src = _model(tmp_path)
    out = tmp_path / "step.agz"
    assert run_cli("export", f"{src}::step", "--arg", "float32[None,4]", "-o", out).returncode == 0
    result = run_cli("show", out)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "step(x: float32[?,4]) -> float32[?,2]"
    assert "variables: w float32[4,2]" in lines
    assert any("read_variable(var=w)" in line and "model.py:9" in line for line in lines)
    assert any(line.strip().startswith("then: graph then(") for line in lines)


def test_show_saved_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.agz"
    bad.write_bytes(b"not a zip at all")
    result = run_cli("show", bad)
    assert_user_error(result, 1)
    assert "not a readable saved-function archive" in result.stderr
    assert_user_error(run_cli("show", tmp_path / "missing.agz"), 1)


def test_export_usage_errors(tmp_path):
    src = _model(tmp_path)
    result = run_cli("export", f"{src}::step", "--arg", "float32[None,4]", "-o",
                     tmp_path / "x.unknown")
    assert_user_error(result, 2)
    assert "unknown output format '.unknown'" in result.stderr
    assert_user_error(run_cli("export", f"{src}::nothing", "--arg", "float32[3]", "-o",
                              tmp_path / "x.agz"), 1)
    assert not (tmp_path / "x.agz").exists()


def test_export_onnx_runs_in_onnxruntime_like_the_function(tmp_path):
    import onnxruntime as ort

    src = _model(tmp_path)
    module = import_path(src)
    out = tmp_path / "step.onnx"
    result = run_cli("export", f"{src}::step", "--arg", "float32[None,4]", "-o", out)
    assert result.returncode == 0, result.stderr
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    for rows in (1, 3):
        x = np.linspace(-1, 1, 4 * rows, dtype=np.float32).reshape(rows, 4)
        (got,) = session.run(["output_0"], {"x": x})
        np.testing.assert_allclose(got, module.step(x), rtol=2e-5)
        assert got.dtype == np.float32


def test_export_onnx_refusal_is_one_line(tmp_path):
    src = tmp_path / "printing.py"
    src.write_text(textwrap.dedent("""
        import numpy as np
        import autograph as ag

        @ag.function
        def loud(x):
            ag.print(x)
            return x + 1
    """))
    out = tmp_path / "loud.onnx"
    result = run_cli("export", f"{src}::loud", "--arg", "float32[3]", "-o", out)
    assert_user_error(result, 1)
    assert "cannot export to ONNX" in result.stderr and "print" in result.stderr
    assert not out.exists() and not list(tmp_path.glob("*.onnx"))
