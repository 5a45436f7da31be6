"""The compiler's layers depend one way: pyct <- operators <- converters <- impl.

Importing a lower layer alone (in a fresh interpreter) must not load a higher one, and
no module of a layer imports a higher layer anywhere - a function-local import that
dodges an import cycle is still the cycle. The operators get the compiler's
`converted` injected (`autograph.impl.calls` does it when imported), and converted
code that runs before the compiler was imported still converts what it calls.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["autograph.pyct", "autograph.operators", "autograph.converters", "autograph.impl"]


def _loaded_after_import(module: str) -> list:
    code = textwrap.dedent(f"""
        import importlib, json, pkgutil, sys
        pkg = importlib.import_module({module!r})
        for m in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module({module!r} + "." + m.name)
        print(json.dumps(sorted(sys.modules)))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""}, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("k", range(len(LAYERS)))
def test_importing_a_layer_loads_no_higher_layer(k):
    loaded = _loaded_after_import(LAYERS[k])
    assert LAYERS[k] in loaded
    for higher in LAYERS[k + 1:]:
        pulled = [m for m in loaded if m == higher or m.startswith(higher + ".")]
        assert not pulled, f"importing {LAYERS[k]} loaded {pulled}"


def _imports(path: Path) -> list:
    """(line, imported module) for every import in the file, function-local ones too."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
            # `from autograph import impl` names a subpackage
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


@pytest.mark.parametrize("k", range(len(LAYERS) - 1))
def test_no_module_of_a_layer_imports_a_higher_one(k):
    package = ROOT / Path(*LAYERS[k].split("."))
    bad = []
    for path in sorted(package.glob("*.py")):
        for line, name in _imports(path):
            for higher in LAYERS[k + 1:]:
                if name == higher or name.startswith(higher + "."):
                    bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
    assert not bad, "\n".join(bad)


def test_converted_code_run_before_the_compiler_still_converts_its_callees(tmp_path):
    # what a module written by `autograph convert` does: it installs the lean `ag__`
    # (nothing of the compiler), and the runtime traces it alone; the callee is plain user code, so `ag__.converted` must convert it (its `if` on a
    # symbolic value then traces as a graph branch)
    (tmp_path / "helper.py").write_text(textwrap.dedent("""
        def relu(x):
            if x > 0:
                return x
            return 0.0 * x
    """))
    code = textwrap.dedent("""
        import sys
        import numpy as np
        __import__("autograph.impl.namespace")
        import helper
        from runtime import Function
        assert "autograph.impl.api" not in sys.modules
        f = Function(lambda x: ag__.converted(helper.relu)(x), autograph=False)
        print(f(np.float64(2.0)), f(np.float64(-3.0)), "autograph.impl.api" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={"PYTHONPATH": f"{ROOT}:{tmp_path}", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(helper_relu(2.0)), str(helper_relu(-3.0)), "True"]


def helper_relu(x):
    import numpy as np

    x = np.float64(x)
    if x > 0:
        return x
    return 0.0 * x
