"""Reading Python sources (with their declared encoding) and writing outputs.

A source is read only if it is a regular file (never a FIFO or a device, which would block
or never end; a tree walk reports and skips them) and decoded as Python would (PEP 263: a
BOM or a `# coding: NAME` comment on line 1 or 2; a codec that is not a text encoding is
refused); a bad declaration or undecodable bytes are a `UserError` at the file's line.
CPython's own compiler then checks the source: what it refuses (a syntax error, nesting
too deep for it) is a `UserError` at `file:line:col`, never an internal error.
`-o` outputs keep the source's encoding (and its declaration); text sent to stdout is
UTF-8, so `utf8_source` rewrites a declaration that says otherwise.

`write_output` writes an output file. A regular file (or a new one) is replaced
atomically: the text goes to a temporary file next to it, moved into place with
`os.replace`, so a reader never sees a half-written file and an error leaves the old
output untouched. A symlink is followed (its target is replaced, the link stays), a FIFO
or a character device (`/dev/null`, `/dev/stdout`) is written through, never replaced;
anything else is refused. Every failure is a `UserError` "cannot write PATH: reason".
"""
from __future__ import annotations

import codecs
import io
import os
import re
import stat
import sys
import tempfile
import tokenize

from autograph.cli.diagnostics import UserError
from runtime.saved.container import output_mode

# PEP 263: the declaration, and the lines that may come before it on line 2
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)")
_FIX_ENCODING = ("declare the file's real encoding with a `# -*- coding: NAME -*-` "
                 "comment on line 1 or 2, or save the file as UTF-8")


def _declaration_line(raw: bytes) -> int | None:
    """The 1-based line of the encoding declaration of a source's bytes, if any."""
    lines = raw.splitlines(keepends=True)[:2]
    for i, line in enumerate(lines):
        if _CODING.match(line):
            return i + 1
        if not _BLANK_OR_COMMENT.match(line):
            return None
    return None


def _bad_encoding(path: str, raw: bytes, message: str, lineno: int,
                  col: int | None = None) -> UserError:
    lines = raw.removeprefix(codecs.BOM_UTF8).splitlines()
    text = lines[lineno - 1].decode("utf-8", "replace") if lineno <= len(lines) else None
    return UserError(f"cannot decode the file: {message}", path, lineno, col, line_text=text)


def read_source(path: str) -> tuple[str, str]:
    """(text, encoding) of a Python source file, decoded as Python decodes it (PEP 263);
    line ends are normalised to \\n, as `tokenize.open` does."""
    raw = _read_regular(path)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as e:
        line = _declaration_line(raw) or 1
        if e.msg.startswith("invalid or missing"):  # undecodable bytes, no declaration
            line = 1 if not _valid_utf8(raw.splitlines()[0]) else 2
            raise _bad_encoding(path, raw, f"the bytes are not UTF-8 and there is no "
                                f"encoding declaration: {_FIX_ENCODING}", line) from None
        if e.msg.startswith("encoding problem"):  # a BOM and a non-UTF-8 declaration
            raise _bad_encoding(path, raw, "the file starts with a UTF-8 byte order mark "
                                "but declares another encoding: remove one of them",
                                line) from None
        name = e.msg.rpartition(":")[2].strip()
        raise _bad_encoding(path, raw, f"unknown encoding {name!r} in the encoding "
                            f"declaration: name a codec Python knows (e.g. utf-8, "
                            f"latin-1, cp1252)", line) from None
    if not codecs.lookup(encoding)._is_text_encoding:  # rot13, hex...: CPython refuses
        raise _bad_encoding(path, raw, f"{encoding!r} is not a text encoding: "
                            f"{_FIX_ENCODING}", _declaration_line(raw) or 1)
    declared = _declaration_line(raw)
    if declared is not None and not _ascii_compatible(raw, declared, encoding):
        raise _bad_encoding(path, raw, f"{encoding!r} cannot be declared in the file: Python "
                            "reads the declaration itself as ASCII, and this encoding is "
                            f"not ASCII-compatible (CPython says 'encoding problem'): "
                            f"{_FIX_ENCODING}", declared)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        line_start = raw.rfind(b"\n", 0, e.start) + 1
        col = len(raw[line_start:e.start].decode(encoding, "replace")) + 1
        raise _bad_encoding(path, raw, f"byte 0x{raw[e.start]:02x} is not valid "
                            f"{_codec_name(encoding)}: {_FIX_ENCODING}", line, col) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    _compiles(raw, text, path)
    return text, encoding


def file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is ("a FIFO", "a device", ...)."""
    if stat.S_ISREG(mode):
        return None
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def _read_regular(path: str) -> bytes:
    """The bytes of `path`, a regular file: its type is checked before opening (a FIFO
    would block, `/dev/zero` never ends) and again on the open descriptor, which is
    opened non-blocking in case a FIFO was swapped in between."""
    try:
        kind = file_kind(os.stat(path).st_mode)
        if kind is not None:
            raise UserError(f"{path}: is {kind}; only regular files are read")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(fd)
            kind = file_kind(info.st_mode)
            if kind is not None:
                raise UserError(f"{path}: is {kind}; only regular files are read")
            return f.read(info.st_size)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read the file: {e.strerror or e}") from None


def _compiles(raw: bytes, text: str, path: str) -> None:
    """What CPython's own compiler refuses is a UserError at its line and column, before
    the converter sees it: a syntax error, or nesting too deep for the parser (CPython
    raises MemoryError or RecursionError there, which are not the converter's bugs)."""
    try:
        compile(raw, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        lines = text.split("\n")
        if not e.lineno:  # an encoding problem CPython found before any line
            raise _bad_encoding(path, raw, e.msg, _declaration_line(raw) or 1) from None
        line = lines[e.lineno - 1] if e.lineno <= len(lines) else e.text
        end = e.end_offset if getattr(e, "end_lineno", None) == e.lineno else None
        kind = "indentation error" if isinstance(e, IndentationError) else "syntax error"
        raise UserError(f"{kind}: {e.msg}", path, e.lineno, e.offset, end,
                        _shown(line)) from None
    except (RecursionError, MemoryError):
        lines = text.split("\n")
        lineno = max(range(len(lines)), key=lambda i: len(lines[i])) + 1
        raise UserError("nested too deeply for Python's compiler (CPython refuses this "
                        "file too): split the expression or statement into smaller ones",
                        path, lineno, 1, line_text=_shown(lines[lineno - 1])) from None
    except ValueError as e:  # null bytes
        raise UserError(f"syntax error: {e}", path, 1, 1) from None


def _shown(line: str | None) -> str | None:
    return line if line is None or len(line) <= 200 else line[:200] + " ..."


def _ascii_compatible(raw: bytes, declared: int, encoding: str) -> bool:
    """Whether the lines up to the declaration read the same in `encoding` as in ASCII
    (utf-16, utf-32 and EBCDIC code pages do not: CPython refuses them)."""
    head = b"".join(raw.splitlines(keepends=True)[:declared])
    try:
        return head.decode(encoding) == head.decode("latin-1")
    except (UnicodeDecodeError, LookupError):
        return False


def _valid_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _codec_name(encoding: str) -> str:
    return "UTF-8" if encoding.startswith("utf-8") else encoding


def utf8_source(text: str) -> str:
    """`text` with its encoding declaration (if any, on line 1 or 2) saying utf-8, for
    output encoded as UTF-8; the rest of the comment is kept."""
    head = text.split("\n", 2)
    for i, line in enumerate(head[:2]):
        raw = line.encode("utf-8")
        m = _CODING.match(raw)
        if m:
            name = m.group(1).decode("ascii")
            try:
                is_utf8 = codecs.lookup(name).name.startswith("utf-8")
            except LookupError:
                is_utf8 = False
            if not is_utf8:
                head[i] = (raw[:m.start(1)] + b"utf-8" + raw[m.end(1):]).decode("utf-8")
            break
        if not _BLANK_OR_COMMENT.match(raw):
            break
    return "\n".join(head)


def _cannot_write(path: str, reason) -> UserError:
    if isinstance(reason, OSError):
        reason = reason.strerror or str(reason)
    return UserError(f"cannot write {path}: {reason}")


def write_output(path: str, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to the output `path` (see the module docstring for what each kind of
    file gets); a UserError "cannot write PATH: reason" on failure."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as e:
        raise _cannot_write(path, f"the text cannot be encoded as {encoding}: {e}") from None
    try:
        st = os.stat(path)  # follows symlinks
    except FileNotFoundError:
        st = None  # a new file, or a symlink to a file yet to be created
    except OSError as e:
        raise _cannot_write(path, e) from None
    target = os.path.realpath(path) if os.path.islink(path) else path
    if st is None or stat.S_ISREG(st.st_mode):
        _atomic_write(path, target, data)
    elif stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
        _write_through(path, data)
    elif stat.S_ISDIR(st.st_mode):
        raise _cannot_write(path, "it is a directory")
    else:
        kind = "a block device" if stat.S_ISBLK(st.st_mode) else \
            "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file"
        raise _cannot_write(path, f"it is {kind}; give a regular file, a FIFO or a "
                                  f"character device")


def _write_through(path: str, data: bytes) -> None:
    """Write into an existing FIFO or character device (opening a FIFO waits for a
    reader, as a shell redirection does); O_CREAT is not given, so a node removed
    meanwhile is never replaced by a regular file."""
    try:
        fd = os.open(path, os.O_WRONLY)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except OSError as e:
        raise _cannot_write(path, e) from None


def _atomic_write(path: str, target: str, data: bytes) -> None:
    """Replace the regular file `target` (`path`, or the file its symlink points to)."""
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory):
        raise _cannot_write(path, f"the directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".",
                                   suffix=".tmp")
    except OSError as e:
        raise _cannot_write(path, e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, output_mode(target))
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # best-effort cleanup: the original error is what the user needs
        if isinstance(e, OSError):
            raise _cannot_write(path, e) from None
        raise


def python_files(root: str, exclude: str | None = None) -> list[str]:
    """Paths (relative to `root`) of the .py files under `root`, sorted; hidden
    directories, `__pycache__` and the directory `exclude` are skipped. A `.py` name
    that is not a regular file (a FIFO, a device, a symlink to one, a dangling symlink)
    is reported on stderr and skipped: reading it could block or never end."""
    out = []
    exclude = os.path.abspath(exclude) if exclude else None
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d != "__pycache__"
            and os.path.abspath(os.path.join(dirpath, d)) != exclude)
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                try:
                    kind = file_kind(os.stat(path).st_mode)
                except OSError as e:
                    kind = f"unreadable ({e.strerror})"
                if kind is not None:
                    print(f"{path}: skipped: it is {kind}, not a regular file",
                          file=sys.stderr)
                    continue
                out.append(os.path.relpath(path, root))
    return out
