"""Argument parsing, dispatch and exit codes of the `autograph` command.

Exit codes: 0 success; 3 `convert` wrote its output but left some definitions as Python
(each reported as `file:line:col: note: ...`), or `show` printed one it leaves; 1 the input is wrong (a syntax error, an unsupported construct, a
missing file or name, an error raised by the traced code); 2 bad usage (unknown option,
malformed argument). Errors print on one line (or `file:line:col: message` with the
source line and a caret), never as a Python traceback; set AUTOGRAPH_TRACEBACK=1 to see
the traceback of an internal error.
"""
from __future__ import annotations

import argparse
import os
import sys
import textwrap
from importlib.metadata import version

from autograph.cli.convert import run_convert, run_show
from autograph.cli.diagnostics import UsageError, UserError
from autograph.cli.export import add_parsers as add_export_parsers, is_saved, run_show_saved
from autograph.cli.graph import parse_arg, run_graph

EXAMPLES_CONVERT = """\
examples:
  autograph convert model.py                 print the converted module
  autograph convert model.py -o model_ag.py  write it (atomically)
  autograph convert src/ -o build/src_ag/    convert every .py file under src/

exit status:
  0  converted and written
  3  written, but some definitions were left as Python (each noted on stderr as
     file:line:col: note: ...); --strict makes this an error instead
  1  the input is wrong: a syntax error, a missing file, a construct refused under
     --strict (file:line:col with the line and a caret); nothing is written
  2  bad usage: an unknown option, -o missing for a directory SRC
"""
EXAMPLES_SHOW = """\
examples:
  autograph show model.py::train_step
  autograph show model.py::Model.__call__
  autograph show step.agz        a saved function: its signatures and graphs

exit status:
  0  shown
  3  shown, but AutoGraph leaves it as Python (a generator, an async def: noted on
     stderr), as `autograph convert` reports it
  1  the input is wrong: no such file or name (the names that exist are listed), a
     syntax error, a construct that cannot be converted, a damaged saved file
  2  bad usage
"""
EXAMPLES_GRAPH = """\
argument specs (one --arg per positional parameter, in order):
  float32[None,3]   an array of dtype float32 and shape (any, 3)
  int64[]           an int64 scalar
  100               a Python value (any Python literal), traced by value

examples:
  autograph graph model.py::simple_relu --arg float32[]
  autograph graph model.py::power --arg int32[10,10] --arg 100 --format dot
  autograph graph model.py::simple_relu --arg float32[] --format svg -o relu.svg

exit status:
  0  printed (or written to -o)
  1  the input is wrong: no such file or name, the module raised while importing, or
     the function raised while tracing (shown at your file:line:col), Graphviz `dot`
     missing for --format svg
  2  bad usage: an unknown option, a malformed --arg, or not one --arg per positional
     parameter (the message names the missing ones)
set AUTOGRAPH_TRACEBACK=1 to see the Python traceback of an internal error.
"""


class _Parser(argparse.ArgumentParser):
    """Usage errors on one line, exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="autograph",
        description="Convert Python + NumPy functions with real control flow into code that "
                    "builds graphs, and look at the graphs.",
        epilog="exit status: 0 success, 3 converted (or shown) but some definitions left as "
               "Python (noted on stderr), 1 the input is wrong (syntax error, unsupported "
               "construct under --strict, missing file or name), 2 bad usage. Run `autograph COMMAND "
               "--help` for a command's options.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "convert", help="convert every function and method of a file (statically)",
        description=_wrap("Convert every function and method of SRC statically: the file is parsed, "
                    "never imported or run. The output is a module that imports what it needs "
                    "(autograph.operators as ag__) and, called with Python values, behaves "
                    "exactly like SRC; module-level code is kept as it is. A directory SRC "
                    "needs -o DIR and its .py files are converted into the same tree under "
                    "DIR. Outputs are written atomically: on any error nothing is written. "
                    "Generators, async defs and definitions that cannot be converted are left "
                    "as Python, each noted on stderr (file:line:col: note: ...), and the exit "
                    "status is then 3; --strict refuses them instead."),
        epilog=EXAMPLES_CONVERT, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("src", metavar="SRC", help="a Python file, or a directory of them")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="output file (default: stdout), or directory when SRC is one")
    p.add_argument("--strict", action="store_true",
                   help="refuse the file (exit status 1, nothing written) when a definition "
                        "would be left as Python: a generator, an async def, or a construct "
                        "that cannot be converted (default: leave it as it is, note it on "
                        "stderr and exit with status 3)")
    p.set_defaults(run=run_convert)

    p = sub.add_parser(
        "show", help="print the converted code of one function or method (statically)",
        description=_wrap("Print the converted code of one function or method of SRC, like "
                          "ag.to_code. SRC is parsed, never imported or run."),
        epilog=EXAMPLES_SHOW, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="SRC.py::NAME",
                   help="a file and a function (NAME) or method (Class.method) in it; or a "
                        "saved function (.agz file or directory): its signatures and graphs")
    p.set_defaults(run=lambda a: run_show_saved(a.target) if is_saved(a.target) else run_show(a))

    p = sub.add_parser(
        "graph", help="import a file, trace a function and print its optimized graph",
        description=_wrap("Import SRC (this RUNS the module's top-level code, as `import` would; "
                    "an `if __name__ == '__main__':` block does not run), trace NAME for the "
                    "given argument specs with ag.function, and print the optimized graph as "
                    "a text listing, Graphviz DOT, or SVG (rendered by the Graphviz `dot` "
                    "program, which must be installed). Output of the module itself goes to "
                    "stderr."),
        epilog=EXAMPLES_GRAPH, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="SRC.py::NAME",
                   help="a file and a function (NAME, or an attribute path such as model.step)")
    p.add_argument("--arg", action="append", type=parse_arg, metavar="SPEC",
                   help="the spec of the next positional argument (repeat per argument)")
    p.add_argument("--format", choices=("text", "dot", "svg"), default="text",
                   help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help="output file (default: stdout)")
    p.set_defaults(run=run_graph)
    add_export_parsers(sub, parse_arg)
    return parser


def _wrap(text: str) -> str:
    return textwrap.fill(text, 79)


def _version() -> str:
    try:
        return version("autograph-numpy")
    except Exception:  # noqa: BLE001 - not installed: a source checkout
        return "(source checkout)"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    prog = f"autograph {args.command}"
    try:
        return args.run(args)
    except UsageError as e:
        print(f"{prog}: error: {e} (see {prog} --help)", file=sys.stderr)
        return 2
    except UserError as e:
        text = e.format()
        print(text if e.filename and e.lineno else f"{prog}: error: {text}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `autograph convert x.py | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 - a bug of autograph, not of the input
        if os.environ.get("AUTOGRAPH_TRACEBACK"):
            raise
        print(f"{prog}: internal error: {type(e).__name__}: {e} (a bug in autograph; "
              "set AUTOGRAPH_TRACEBACK=1 to see the traceback)", file=sys.stderr)
        return 1
