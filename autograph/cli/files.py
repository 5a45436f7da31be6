"""Reading Python sources (with their declared encoding) and writing outputs.

A source is decoded as Python would (PEP 263: a BOM or a `# coding: NAME` comment on line
1 or 2); a bad declaration or undecodable bytes are a `UserError` at the file's line.
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
import shutil
import stat
import tempfile
import tokenize

from autograph.cli.diagnostics import UserError

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
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read the file: {e.strerror or e}") from None
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
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        line_start = raw.rfind(b"\n", 0, e.start) + 1
        col = len(raw[line_start:e.start].decode(encoding, "replace")) + 1
        raise _bad_encoding(path, raw, f"byte 0x{raw[e.start]:02x} is not valid "
                            f"{_codec_name(encoding)}: {_FIX_ENCODING}", line, col) from None
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


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
        if os.path.exists(target):
            shutil.copymode(target, tmp)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
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
    directories, `__pycache__` and the directory `exclude` are skipped."""
    out = []
    exclude = os.path.abspath(exclude) if exclude else None
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d != "__pycache__"
            and os.path.abspath(os.path.join(dirpath, d)) != exclude)
        for name in sorted(filenames):
            if name.endswith(".py"):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return out
