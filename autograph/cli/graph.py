"""`autograph graph`: import a file, trace one function, print its optimized graph.

Unlike `convert` and `show` this runs the file (as a module named after it, not as
`__main__`, so an `if __name__ == "__main__":` block does not run). Argument specs:

    float32[None,3]   a TensorSpec: dtype name, then the shape (None or ? = any size)
    int64[]           a scalar TensorSpec
    100, 2.5, True    a Python value (any Python literal), traced by value

Output formats: the text listing (`str(graph)`), Graphviz DOT (`graph.to_dot()`), or SVG
rendered by the Graphviz `dot` program.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import inspect
import os
import re
import shutil
import sys

import numpy as np

from autograph.api import function
from autograph.cli import diagnostics
from autograph.cli.convert import same_file, no_such_name, split_target
from autograph.cli.diagnostics import UsageError, UserError
from autograph.cli.files import write_output
from runtime import Function, TensorSpec
from runtime.core.picture import to_svg

_SPEC = re.compile(r"^\s*([A-Za-z_]\w*)\s*\[(.*)\]\s*$")
INSTALL_GRAPHVIZ = ("--format svg needs the Graphviz `dot` program, which is not installed: "
                    "install Graphviz (`apt-get install graphviz`, `brew install graphviz` or "
                    "`conda install graphviz`) or use --format dot")


def parse_arg(text: str):
    """An --arg value: `dtype[dims]` -> TensorSpec, else a Python literal.
    Raises argparse.ArgumentTypeError (a usage error) when malformed."""
    hint = "expected DTYPE[DIMS] such as float32[None,3] or int64[], or a Python literal"
    m = _SPEC.match(text)
    if m:
        try:
            dtype = np.dtype(m[1])
        except TypeError:
            raise argparse.ArgumentTypeError(
                f"malformed --arg {text!r}: unknown dtype {m[1]!r}") from None
        dims = []
        for d in (m[2].split(",") if m[2].strip() else []):
            d = d.strip()
            if d in ("None", "?"):
                dims.append(None)
            elif d.isdigit():
                dims.append(int(d))
            else:
                raise argparse.ArgumentTypeError(
                    f"malformed --arg {text!r}: dimension {d!r} is not a size or None ({hint})")
        return TensorSpec(tuple(dims), dtype)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise argparse.ArgumentTypeError(f"malformed --arg {text!r}: {hint}") from None


def _module_name(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem.isidentifier() and stem not in sys.modules:
        return stem
    return "__autograph_src__" + re.sub(r"\W", "_", stem)


def load_module(path: str):
    """Import the file at `path` (this runs it) as a module named after it."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file" if not os.path.exists(path)
                        else f"{path}: is not a file")
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except SystemExit as e:
        raise UserError(f"{path}: the module called sys.exit({e.code!r}) while being "
                        "imported") from None
    except Exception as e:  # noqa: BLE001 - any error of the user's module
        raise diagnostics.from_exception(e, f"while importing {path}") from None
    return module


def resolve(module, path: str, name: str):
    """The `ag.function` for `name` (a function, an ag.function, or an attribute path
    such as `Model.create` or `model.step`)."""
    obj, owner = module, None
    for i, part in enumerate(name.split(".")):
        if not hasattr(obj, part):
            raise no_such_name(path, ".".join(name.split(".")[:i + 1]),
                               _functions(module))
        owner, obj = obj, getattr(obj, part)
    if isinstance(obj, Function):
        return obj
    if inspect.isclass(owner) and inspect.isfunction(obj) and not isinstance(
            inspect.getattr_static(owner, name.rsplit(".", 1)[-1]), staticmethod):
        raise UserError(f"{path}: {name} is a method of the class {owner.__name__}: trace a "
                        "function, a @staticmethod, or the method of an instance the module "
                        "creates (e.g. model.step)")
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return function(obj)
    raise UserError(f"{path}: {name} is not a function (it is a {type(obj).__name__})")


def check_arg_count(fn, specs: list, name: str) -> None:
    """A UsageError with a hint unless `specs` has one --arg per positional parameter
    of `fn` that has no default (an input_signature gives them all)."""
    if getattr(fn, "input_signature", None) is not None:
        return
    try:
        params = list(inspect.signature(fn.python_function).parameters.values())
    except (TypeError, ValueError):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p.name for p in positional if p.default is p.empty]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    if len(specs) < len(required):
        missing = ", ".join(required[len(specs):])
        raise UsageError(
            f"{name} needs an --arg for each positional parameter without a default; "
            f"missing: {missing}. Pass one --arg SPEC per parameter, in order, e.g. "
            "--arg float32[None,3] for an array, --arg 100 for a Python value")
    if len(specs) > len(positional) and not varargs:
        raise UsageError(f"{name} takes {len(positional)} positional parameter(s) "
                         f"({', '.join(p.name for p in positional)}) but {len(specs)} "
                         "--arg were given")


def _functions(module) -> list[str]:
    return [k for k, v in vars(module).items()
            if (inspect.isfunction(v) or isinstance(v, Function))
            and getattr(v, "__module__", None) == module.__name__]


def run_graph(args) -> int:
    if args.format == "svg" and shutil.which("dot") is None:
        raise UserError(INSTALL_GRAPHVIZ)
    path, name = split_target(args.target)
    if args.output and same_file(path, args.output):
        raise UsageError(f"refusing to overwrite the input {path}: choose another -o")
    specs = args.arg or []
    # the module's own prints (while importing and tracing) go to stderr, so the
    # output stays a clean listing / DOT / SVG
    with contextlib.redirect_stdout(sys.stderr):
        module = load_module(path)
        fn = resolve(module, path, name)
        check_arg_count(fn, specs, name)
        try:
            cf = fn.get_concrete_function(*specs)
        except Exception as e:  # noqa: BLE001 - any error raised while tracing user code
            raise diagnostics.from_exception(e, f"while tracing {name}") from None
    graph = cf.optimized_graph
    if args.format == "text":
        text = str(graph) + "\n"
    elif args.format == "dot":
        text = graph.to_dot() + "\n"
    else:
        try:
            text = to_svg(graph)
        except Exception as e:  # noqa: BLE001 - dot failed
            raise UserError(f"Graphviz `dot` failed to render the graph: {e}") from None
        if text is None:
            raise UserError(INSTALL_GRAPHVIZ)
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
