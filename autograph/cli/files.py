"""Reading Python sources (with their declared encoding) and writing outputs atomically.

An output is written to a temporary file next to it and moved into place with
`os.replace`, so a reader never sees a half-written file and an error leaves an
existing output untouched.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import tokenize

from autograph.cli.diagnostics import UserError


def read_source(path: str) -> tuple[str, str]:
    """(text, encoding) of a Python source file (PEP 263 coding cookies honoured)."""
    try:
        with tokenize.open(path) as f:
            return f.read(), f.encoding
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied") from None
    except (SyntaxError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: cannot decode the file: {e}") from None


def atomic_write(path: str, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to `path` through a temporary file and `os.replace`."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UserError(f"cannot write {path}: the directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            f.write(text)
        if os.path.exists(path):
            shutil.copymode(path, tmp)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # best-effort cleanup: the original error is what the user needs
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
