"""The runtime's layers depend one way, and no two files of the package import each other.

Layers, lowest first (each folder's `__init__` docstring says what it owns):

    core <- ops <- state <- control_flow <- autodiff <- transforms <- passes <- exec
         <- frontend
         <- jit, saved, onnx_export (side by side: none imports another)

A module may import its own layer and the layers below it, never one above - a
function-local import is still an import, so both kinds are read. Between files there
is no import cycle at all (within a layer neither). `runtime/__init__.py` is the
public facade: it imports from every layer, and nothing inside the package imports it.
The static reading covers `autograph/` too, whose layers have their own test
(tests/autograph/test_structure_layers.py): here, the file-level cycle check and the
count of function-local imports for both packages.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = [("core",), ("ops",), ("state",), ("control_flow",), ("autodiff",), ("transforms",),
          ("passes",),
          ("exec",), ("frontend",), ("jit", "saved", "onnx_export")]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
# what may be imported inside a function: the optional engines, loaded only when used
OPTIONAL_ENGINES = ("numba", "llvmlite", "onnx", "onnxruntime", "dask", "distributed")
# documented injection points: (module, what it imports inside a function) -> why
INJECTION_POINTS = {
    ("autograph.api", "autograph.impl.calls"):
        "the compiler loads on first use: importing autograph, or the operators alone as a "
        "module written by `autograph convert` does, must not load autograph.impl",
    ("autograph.impl.namespace", "autograph.api"):
        "a module written by `autograph convert` imports this, and must not load the "
        "operators (the runtime, NumPy) before converted code needs them",
    ("autograph.pyct.code_switch", "opcode"):
        "a module written by `autograph convert` imports this through the lean `ag__`; "
        "the opcode numbers of the Pythons tested are listed, another Python's are read "
        "from `opcode` (~0.5 ms, a third of the lean namespace's own import) only there",
}
MAX_FUNCTION_LOCAL_IMPORTS = 30


def _modules(root: Path = ROOT) -> dict:
    """dotted name -> (path, is_package) for every module of autograph/ and runtime/."""
    out = {}
    for package in ("autograph", "runtime"):
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


MODULES = _modules()


def _imports(name: str, modules: dict = MODULES) -> list:
    """(line, imported project module, inside a function?) for every import in `name`."""
    path, is_package = modules[name]
    tree = ast.parse(path.read_text(), str(path))
    local = {id(node) for fn in ast.walk(tree)
             if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
             for node in ast.walk(fn) if isinstance(node, (ast.Import, ast.ImportFrom))}
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            # `from pkg import sub` imports the submodule; `from pkg import name` the package
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
            targets = subs if len(subs) == len(node.names) else subs + [base]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in ("runtime", "autograph") or id(node) in local:
                out.append((node.lineno, target, id(node) in local))
    return out


def _layer(module: str):
    parts = module.split(".")
    return RANK.get(parts[1]) if parts[0] == "runtime" and len(parts) > 1 else None


def _upward(modules: dict) -> list:
    bad = []
    for name in modules:
        if not name.startswith("runtime.") or _layer(name) is None:
            continue
        for line, target, _ in _imports(name, modules):
            if target == "runtime":
                bad.append(f"{name}:{line}: imports the facade `runtime` (import the module)")
            elif target.startswith("runtime.") and _layer(target) is None:
                bad.append(f"{name}:{line}: imports {target}, outside every layer")
            elif target.startswith("runtime."):
                mine, theirs = _layer(name), _layer(target)
                side_by_side = mine == theirs and name.split(".")[1] != target.split(".")[1]
                if theirs > mine or side_by_side:
                    bad.append(f"{name}:{line}: imports {target} ({LAYERS[theirs]} is above "
                               f"{LAYERS[mine]})" if theirs > mine else
                               f"{name}:{line}: imports {target} (a sibling layer)")
    return bad


def _file_cycles(modules: dict) -> list:
    edges = {name: {t for _, t, _ in _imports(name, modules) if t in modules and t != name}
             for name in modules}
    return _cycles(edges)


def test_no_runtime_module_imports_a_higher_layer_or_the_facade():
    bad = _upward(MODULES)
    assert not bad, "\n".join(bad)


def _cycles(edges: dict) -> list:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_between_files():
    cycles = _file_cycles(MODULES)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_function_local_imports_are_few_and_only_of_optional_engines_or_injection_points():
    local = [(name, line, target) for name in MODULES
             for line, target, inside in _imports(name) if inside]
    bad = [f"{name}:{line}: imports {target} inside a function" for name, line, target in local
           if target.split(".")[0] not in OPTIONAL_ENGINES
           and (name, target) not in INJECTION_POINTS]
    assert not bad, "\n".join(bad)
    assert len(local) <= MAX_FUNCTION_LOCAL_IMPORTS, local


@pytest.mark.parametrize("folder", sorted(RANK))
def test_each_layer_says_what_it_owns_and_may_import(folder):
    doc = ast.get_docstring(ast.parse((ROOT / "runtime" / folder / "__init__.py").read_text()))
    assert doc and "may import" in doc.lower(), \
        f"runtime/{folder}/__init__.py: say what it owns and what it may import"


def test_the_top_of_runtime_holds_at_most_six_modules():
    assert len(list((ROOT / "runtime").glob("*.py"))) <= 6


def test_the_checks_see_upward_imports_cycles_and_hidden_imports(tmp_path):
    # a small tree with each fault: core reaching up into ops from inside a function, a
    # cycle between two ops files, an import of the facade and a hidden stdlib import
    files = {
        "runtime/__init__.py": "from runtime.ops import a\n",
        "runtime/core/__init__.py": "",
        "runtime/core/tensor.py": "def f():\n    from runtime.ops.a import g\n    import re\n",
        "runtime/ops/__init__.py": "",
        "runtime/ops/a.py": "from runtime.ops import b\n",
        "runtime/ops/b.py": "from runtime.ops.a import g\n",
        "runtime/ops/c.py": "\nfrom runtime import Tensor\n",
        "autograph/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    modules = _modules(tmp_path)
    upward = _upward(modules)
    assert any(line.startswith("runtime.core.tensor:2: imports runtime.ops.a") for line in upward)
    assert any("runtime.ops.c:2: imports the facade" in line for line in upward)
    assert _file_cycles(modules) == [["runtime.ops.a", "runtime.ops.b"]]
    hidden = [(t, inside) for _, t, inside in _imports("runtime.core.tensor", modules)]
    assert hidden == [("runtime.ops.a", True), ("re", True)]
