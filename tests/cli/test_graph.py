"""`autograph graph SRC.py::NAME --arg SPEC ...`: import, trace, print the optimized graph."""
from __future__ import annotations

import re
import shutil
import textwrap

import pytest

from tests.cli.runner import assert_user_error, run_cli

SOURCE = textwrap.dedent('''\
    import numpy as np

    import autograph as ag


    def simple_relu(x):
        if np.greater(x, 0):
            return x
        else:
            return 0


    def power(x, y):
        result = np.eye(10, dtype=np.int32)
        for _ in range(y):
            result = np.matmul(x, result)
        return result


    @ag.function
    def triangle(n):
        total = 0
        while n > 0:
            total += n
            n -= 1
        return total


    def undefined_in_one_branch(x):
        if np.greater(x, 0):
            y = [x]  # (a list: an array or number the graph carries with a check)
        return y


    class Scaler:
        def __init__(self, k):
            self.k = k

        def scale(self, x):
            return x * self.k


    scaler = Scaler(3.0)

    if __name__ == "__main__":
        raise SystemExit("the main block must not run")
    ''')


@pytest.fixture
def src(write):
    return write("model.py", SOURCE)


def test_text_listing_of_simple_relu(src):
    result = run_cli("graph", f"{src}::simple_relu", "--arg", "float32[]")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("graph simple_relu(x: float32[]) {\n")
    assert "= greater(x, np.float32(0.0))" in out and "= cond(" in out
    assert "then: graph then(" in out and "else: graph else(" in out
    assert "# model.py:7" in out  # the user's line


def test_the_modules_own_output_goes_to_stderr(write):
    src = write("noisy.py", "print('importing')\n\ndef f(x):\n    print('tracing')\n"
                            "    return x + 1\n")
    result = run_cli("graph", f"{src}::f", "--arg", "float32[]")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("graph f(x: float32[])")
    assert "importing" not in result.stdout and "tracing" not in result.stdout
    assert result.stderr.split() == ["importing", "tracing"]


def test_python_values_and_shapes(src):
    result = run_cli("graph", f"{src}::power", "--arg", "int32[10,10]", "--arg", "3")
    assert result.returncode == 0, result.stderr
    # a Python loop bound: unrolled (x @ np.eye(10) was simplified away: 2 products left)
    assert result.stdout.count("= matmul(") == 2 and "matmul(x, x)" in result.stdout
    result = run_cli("graph", f"{src}::triangle", "--arg", "int64[]")
    assert result.returncode == 0, result.stderr
    assert "triangle(n: int64[])" in result.stdout and "while_loop(" in result.stdout


def test_a_method_of_a_module_level_instance(src):
    result = run_cli("graph", f"{src}::scaler.scale", "--arg", "float32[None,3]")
    assert result.returncode == 0, result.stderr
    assert "(x: float32[?,3])" in result.stdout and "multiply(" in result.stdout


def test_an_unbound_method_is_an_input_error(src):
    err = assert_user_error(run_cli("graph", f"{src}::Scaler.scale", "--arg", "float32[]"),
                            one_line=True)
    assert "method of the class Scaler" in err


def test_dot_output_has_both_branches_as_clusters(src):
    result = run_cli("graph", f"{src}::simple_relu", "--arg", "float32[]", "--format", "dot")
    assert result.returncode == 0, result.stderr
    dot = result.stdout
    assert dot.startswith("digraph G {")
    assert dot.count("subgraph cluster_") == 2
    assert 'label="cond: then"' in dot and 'label="cond: else"' in dot


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz `dot` is not installed (apt-get install graphviz)")
def test_svg_shows_the_conditional_as_a_cluster_with_both_branches(src, tmp_path):
    out = tmp_path / "relu.svg"
    result = run_cli("graph", f"{src}::simple_relu", "--arg", "float32[]", "--format", "svg",
                     "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    svg = out.read_text()
    assert "<svg" in svg and svg.rstrip().endswith("</svg>")
    clusters = re.findall(r'<g id="clust\d+" class="cluster">(.*?)</g>', svg, re.S)
    labels = sorted(re.search(r"<text[^>]*>([^<]*)</text>", c)[1] for c in clusters)
    assert labels == ["cond: else", "cond: then"]
    assert ">cond<" in svg and ">greater<" in svg
    # each branch cluster's box holds nodes of its own (the branch's input at least)
    node_texts = [(float(x), float(y)) for x, y in re.findall(
        r'<text[^>]*x="([-\d.]+)" y="([-\d.]+)"[^>]*font-size="10.00">', svg)]
    for c in clusters:
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?",
                                                re.search(r' (?:d|points)="([^"]*)"', c)[1])]
        xs, ys = numbers[0::2], numbers[1::2]
        inside = [(x, y) for x, y in node_texts
                  if min(xs) < x < max(xs) and min(ys) < y < max(ys)]
        assert inside, c


def test_svg_without_graphviz_says_how_to_install_it(src, tmp_path):
    empty = tmp_path / "empty_path"
    empty.mkdir()
    out = tmp_path / "relu.svg"
    result = run_cli("graph", f"{src}::simple_relu", "--arg", "float32[]", "--format", "svg",
                     "-o", out, env={"PATH": str(empty)})
    err = assert_user_error(result, one_line=True)
    assert "apt-get install graphviz" in err and "--format dot" in err
    assert not out.exists()


def test_output_file_is_written(src, tmp_path):
    out = tmp_path / "g.txt"
    result = run_cli("graph", f"{src}::scaler.scale", "--arg", "float32[3]", "-o", out)
    assert result.returncode == 0 and result.stdout == ""
    assert out.read_text().startswith("graph scale(x: float32[3])")


@pytest.mark.parametrize("spec", ["float32[None,", "floot32[3]", "float32[-1]", "float32[a]",
                                  "no_such_thing", "[1,"])
def test_a_malformed_arg_is_a_one_line_usage_error(src, spec):
    err = assert_user_error(run_cli("graph", f"{src}::simple_relu", "--arg", spec), code=2,
                            one_line=True)
    assert "malformed --arg" in err and repr(spec) in err


def test_an_unknown_name_is_a_one_line_error(src):
    err = assert_user_error(run_cli("graph", f"{src}::nope", "--arg", "float32[]"),
                            one_line=True)
    assert "'nope'" in err and "simple_relu" in err


def test_a_missing_file_is_a_one_line_error(tmp_path):
    err = assert_user_error(run_cli("graph", f"{tmp_path / 'gone.py'}::f"), one_line=True)
    assert "gone.py: no such file" in err


def test_an_error_while_tracing_points_at_the_user_line(src, tmp_path):
    result = run_cli("graph", "model.py::undefined_in_one_branch", "--arg", "float32[]",
                     cwd=tmp_path)
    err = assert_user_error(result)
    first, line, caret, see = err.splitlines()[-4:]
    assert first.startswith("model.py:30:5: 'y' is defined in the true branch")
    assert see.strip() == "see docs/errors.md#diagnostic for the cause and the fix"
    assert line.strip() == "if np.greater(x, 0):" and caret.strip() == "^"


def test_an_error_while_importing_points_at_the_user_line(write, tmp_path):
    write("broken.py", "import numpy as np\n\nSIZE = 1 // 0\n\ndef f(x):\n    return x\n")
    err = assert_user_error(run_cli("graph", "broken.py::f", "--arg", "float32[]",
                                    cwd=tmp_path))
    assert err.startswith("broken.py:3:8: ZeroDivisionError: integer division or modulo by zero")
    assert err.splitlines()[1].strip() == "SIZE = 1 // 0"


def test_wrong_number_of_args_is_bad_usage_with_a_hint(src):
    err = assert_user_error(run_cli("graph", f"{src}::power", "--arg", "int32[10,10]"), code=2)
    assert "missing: y" in err and "--arg SPEC" in err
