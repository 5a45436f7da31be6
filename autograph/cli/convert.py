"""`autograph convert` and `autograph show`: static conversion, the input is never run.

Both read the source text and hand it to `autograph.impl.static`, which parses it and
runs every function through the converter pipeline. `convert` writes the whole converted
module (stdout, a file, or a mirrored tree for a directory); nothing is written unless
every file converts. A definition that stays Python (a generator, an `async def`, a
construct that cannot be converted) does not stop its file: it is reported as
`file:line:col: note: ...` and the exit code is 3 (`--strict`: an error, exit code 1).
`show` prints one function or method.
"""
from __future__ import annotations

import os
import sys

from autograph.cli import diagnostics
from autograph.cli.diagnostics import UsageError, UserError
from autograph.cli.files import python_files, read_source, utf8_source, write_output
from autograph.errors import ConversionError
from autograph.impl.static import Module, convert_module_source, source_lines


LEFT_ALONE = 3  # exit code: converted and written, but some definitions left as Python


def _convert_text(path: str, strict: bool = False) -> tuple[str, str, bool]:
    """(converted text, encoding, whether anything was left as Python) of one file, or
    UserError. Each definition left as Python is reported on stderr as
    `file:line:col: note: ...` (with `strict` the first one is the error instead)."""
    text, encoding = read_source(path)
    lines = source_lines(text)
    notes: list = []
    try:
        out = convert_module_source(text, path, notes, strict)
        for note in notes:
            line = lines[note.lineno - 1] if 0 < note.lineno <= len(lines) else ""
            col = diagnostics.char_col(line, note.col) if note.col is not None else \
                len(line) - len(line.lstrip()) + 1
            print(f"{diagnostics.display_path(path)}:{note.lineno}:{col}: note: "
                  f"{note.message}", file=sys.stderr)
        return out, encoding, bool(notes)
    except SyntaxError as e:
        raise diagnostics.from_syntax_error(e, lines) from None
    except ConversionError as e:
        raise diagnostics.from_conversion_error(e, lines) from None


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def run_convert(args) -> int:
    src, out = args.src, args.output
    if os.path.isdir(src):
        return _convert_tree(src, out, getattr(args, "strict", False))
    if not os.path.exists(src):
        raise UserError(f"{src}: no such file or directory")
    if out is not None and os.path.isdir(out):
        out = os.path.join(out, os.path.basename(src))
    if out is not None and same_file(src, out):
        raise UsageError(f"refusing to overwrite the input {src}: choose another -o")
    text, encoding, left_alone = _convert_text(src, getattr(args, "strict", False))
    if out is None:  # UTF-8, whatever the source's encoding: the declaration says so
        _write_stdout(utf8_source(text).encode("utf-8"))
    else:
        write_output(out, text, encoding)
    return LEFT_ALONE if left_alone else 0


def _write_stdout(data: bytes) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (an embedding program's)
        sys.stdout.write(data.decode("utf-8"))
    else:
        buffer.write(data)
        buffer.flush()


def _convert_tree(src: str, out: str | None, strict: bool = False) -> int:
    if out is None:
        raise UsageError(f"{src} is a directory: give an output directory with -o DIR")
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"{src} is a directory but -o {out} is not a directory")
    if same_file(src, out):
        raise UsageError(f"refusing to overwrite the input directory {src}: choose another -o")
    results, errors = [], []
    for rel in python_files(src, exclude=out):
        try:
            results.append((rel, *_convert_text(os.path.join(src, rel), strict)))
        except UserError as e:
            errors.append(e)
    if errors:  # nothing is written unless every file converts
        for e in errors[:-1]:
            print(e.format(), file=sys.stderr)
        raise errors[-1]
    for rel, text, encoding, _ in results:
        target = os.path.join(out, rel)
        try:
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot write {target}: {e.strerror or e}") from None
        write_output(target, text, encoding)
    print(f"converted {len(results)} file(s) from {src} into {out}", file=sys.stderr)
    return LEFT_ALONE if any(r[3] for r in results) else 0


def split_target(target: str) -> tuple[str, str]:
    """'path.py::Name.attr' -> ('path.py', 'Name.attr'); UsageError when malformed."""
    path, sep, name = target.rpartition("::")
    if not sep or not path or not name:
        raise UsageError(f"expected SRC.py::NAME (e.g. demo.py::my_function or "
                         f"demo.py::Model.step), got {target!r}")
    if not all(part.isidentifier() for part in name.split(".")):
        raise UsageError(f"{name!r} is not a function name: expected NAME or Class.method")
    return path, name


def no_such_name(path: str, name: str, available: list[str]) -> UserError:
    shown = ", ".join(available[:12]) + (", ..." if len(available) > 12 else "")
    where = f" (it defines: {shown})" if available else " (it defines no functions)"
    return UserError(f"{path}: no function or method named {name!r}{where}")


def run_show(args) -> int:
    path, name = split_target(args.target)
    text, _ = read_source(path)
    lines = source_lines(text)
    try:
        module = Module(text, path)
        d = module.find(name)
        if d is None:
            raise no_such_name(path, name, [x.qualname for x in module.definitions])
        if d.skip:
            print(f"# {name} is {d.skip}: AutoGraph leaves it as it is", file=sys.stderr)
        code = module.function_code(name)
    except SyntaxError as e:
        raise diagnostics.from_syntax_error(e, lines) from None
    except ConversionError as e:
        raise diagnostics.from_conversion_error(e, lines) from None
    # shown in the terminal's encoding; what it cannot show is escaped, not an error
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    sys.stdout.write(code + "\n")
    sys.stdout.flush()
    return 3 if d.skip else 0  # as `convert`: shown, but left as Python
