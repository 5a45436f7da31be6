"""`autograph export` and `autograph show SAVED`: functions as portable files.

    autograph export model.py::step --arg float32[None,32] -o step.agz   # or -o DIR
    autograph show step.agz

`export` imports SRC (running its top-level code, as `autograph graph` does), traces NAME
for the --arg specs and writes the trace in the format OUT names: `FORMATS` maps an
output suffix to a writer (a directory, or a path without a suffix, is the native
format too). A new format is one more entry. `show` on a saved function prints its
signatures, Variables and graph listings; loading it runs nothing from the file.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile

from autograph.cli import diagnostics
from autograph.cli.convert import split_target
from autograph.cli.diagnostics import UsageError, UserError
from autograph.cli.graph import check_arg_count, load_module, resolve
from runtime.onnx_export import OnnxExportError, export_onnx
from runtime.saved import LoadError, SaveError, load, save
from runtime.saved.container import output_mode

EXAMPLES_EXPORT = """\
examples:
  autograph export model.py::step --arg float32[None,32] -o step.agz
  autograph export model.py::step --arg float32[None,32] -o step_saved/
  autograph export model.py::step --arg float32[None,32] -o step.onnx
  autograph show step.agz          print the saved signatures and graphs

exit status:
  0  written
  1  the input is wrong: no such file or name, the module raised while importing, the
     function raised while tracing (shown at your file:line:col), the trace cannot be
     saved or exported (the message says why), the onnx extra is not installed
  2  bad usage: an unknown option, a malformed --arg, or not one --arg per positional
     parameter (the message names the missing ones)
"""


def _write_native(cf, output: str) -> None:
    """The native saved format (ag.save): a `.agz` file, written atomically, or a directory."""
    if not output.endswith(".agz"):
        save(cf, output)
        return
    folder = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(suffix=".agz", dir=folder)
    os.close(fd)
    try:
        mode = output_mode(output)
        save(cf, tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, output)
    except BaseException:
        os.unlink(tmp)
        raise


def _write_onnx(cf, output: str) -> None:
    """An ONNX model (ag.export_onnx; the onnx extra), written atomically."""
    folder = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=folder)
    os.close(fd)
    try:
        mode = output_mode(output)
        export_onnx(cf, tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, output)
    except (OnnxExportError, ImportError) as e:
        os.unlink(tmp)
        raise UserError(f"cannot export to ONNX: {e}") from None
    except BaseException:
        os.unlink(tmp)
        raise


# output suffix -> (writer, description); "" is a directory (or a path with no suffix)
FORMATS = {".agz": (_write_native, "the native saved format (ag.load reads it)"),
           ".onnx": (_write_onnx, "an ONNX model (opset 18; needs the onnx extra)"),
           "": (_write_native, "the native saved format, as a directory")}


def writer_for(output: str):
    suffix = "" if output.endswith(("/", os.sep)) or os.path.isdir(output) \
        else os.path.splitext(output)[1]
    if suffix not in FORMATS:
        known = ", ".join(s for s in FORMATS if s) + " or a directory"
        raise UsageError(f"-o {output}: unknown output format {suffix!r} (use {known})")
    return FORMATS[suffix][0]


def add_parsers(sub, parse_arg) -> None:
    p = sub.add_parser(
        "export", help="import a file, trace a function and write it as a portable file",
        description=("Import SRC (this RUNS the module's top-level code, as `import` would), "
                     "trace NAME for the given argument specs and write the trace to OUT, in "
                     "the format its suffix names: .agz (or a directory) for the native saved "
                     "format that ag.load and `autograph show` read, .onnx for an ONNX model "
                     "(opset 18; needs the onnx extra: pip install 'autograph-numpy[onnx]'). "
                     "Files are written atomically, with the mode a new file gets from your "
                     "umask (an existing file keeps its mode)."),
        epilog=EXAMPLES_EXPORT, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="SRC.py::NAME",
                   help="a file and a function (NAME, or an attribute path such as model.step)")
    p.add_argument("--arg", action="append", type=parse_arg, metavar="SPEC",
                   help="the spec of the next positional argument, e.g. float32[None,3] "
                        "or 100 (repeat once per positional parameter without a default)")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="the file to write: NAME.agz (native), NAME.onnx (ONNX), or a "
                        "directory (native, one file per member)")
    p.set_defaults(run=run_export)


def run_export(args) -> int:
    write = writer_for(args.output)
    path, name = split_target(args.target)
    with contextlib.redirect_stdout(sys.stderr):  # the module's prints stay off stdout
        module = load_module(path)
        fn = resolve(module, path, name)
        check_arg_count(fn, args.arg or [], name)
        try:
            cf = fn.get_concrete_function(*(args.arg or []))
        except Exception as e:  # noqa: BLE001 - any error raised while tracing user code
            raise diagnostics.from_exception(e, f"while tracing {name}") from None
    try:
        write(cf, args.output)
    except SaveError as e:
        raise UserError(f"{args.target}: cannot export: {e}") from None
    except OSError as e:
        raise UserError(f"-o {args.output}: {e.strerror or e}") from None
    print(f"wrote {args.output}: {cf.pretty_printed_signature()}", file=sys.stderr)
    return 0


def is_saved(target: str) -> bool:
    """Whether `autograph show TARGET` means a saved function rather than SRC.py::NAME."""
    if "::" in target:
        return False
    return target.endswith(".agz") or os.path.isfile(os.path.join(target, "graph.json"))


def run_show_saved(target: str) -> int:
    try:
        fn = load(target)
    except FileNotFoundError:
        raise UserError(f"{target}: no such file") from None
    except LoadError as e:
        raise UserError(str(e)) from None
    out = [fn.pretty_printed_concrete_signatures()]
    if fn.variables:
        out.append("variables: " + ", ".join(
            f"{v.name} {v.dtype}[{','.join(map(str, v.shape))}]" for v in fn.variables))
    for cf in fn.concrete_functions:
        out.append(f"# {cf.pretty_printed_signature()}\n{cf.optimized_graph}")
    sys.stdout.write("\n\n".join(out) + "\n")
    sys.stdout.flush()
    return 0
