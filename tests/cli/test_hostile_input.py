"""Odd and hostile inputs to `autograph convert`: special files in a tree are reported and
skipped (never read: a FIFO would block, /dev/zero never ends); sources CPython's own
compiler refuses give `file:line:col` and exit 1, never an internal error; and a source
is accepted exactly when CPython compiles its bytes (PEP 263 encodings included)."""
from __future__ import annotations

import os
import re

import pytest

from tests.cli.runner import assert_user_error, import_path, run_cli


def test_a_tree_skips_special_files_and_converts_the_rest(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "good.py").write_text("def f(x):\n    if x > 0:\n        x = -x\n    return x\n")
    os.mkfifo(src / "pipe.py")
    (src / "zero.py").symlink_to("/dev/zero")
    (src / "dangling.py").symlink_to(tmp_path / "missing.py")
    result = run_cli("convert", src, "-o", out, timeout=60)
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(out)) == ["good.py"]
    for name, kind in (("pipe.py", "a FIFO"), ("zero.py", "a device"),
                       ("dangling.py", "unreadable")):
        assert re.search(rf"{name}: skipped: it is {kind}", result.stderr), result.stderr
    original = import_path(src / "good.py")
    converted = import_path(out / "good.py")
    assert [converted.f(v) for v in (-2, 3)] == [original.f(v) for v in (-2, 3)]


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_special_file_named_directly_is_a_user_error(tmp_path, kind):
    path = tmp_path / "x.py"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    err = assert_user_error(run_cli("convert", path, timeout=60), one_line=True)
    assert "only regular files are read" in err


def _refused_by_cpython(data: bytes) -> bool:
    try:
        compile(data, "case.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


HOSTILE = {
    "rot13": b"# coding: rot13\nx = 1\n",
    "hex codec": b"# -*- coding: hex -*-\nx = 1\n",
    "utf-16 declared": b"# coding: utf-16\nx = 12\n",
    "utf-32 declared": b"# coding: utf-32\nx = 1\n",
    "EBCDIC declared": b"# coding: cp037\nx = 1\n",
    "unary minus x100000": b"y = " + b"-" * 100_000 + b"1\n",
    "sum of 50000 terms": b"y = " + b" + ".join([b"1"] * 50_000) + b"\n",
    "parentheses x300": b"y = " + b"(" * 300 + b"1" + b")" * 300 + b"\n",
    "null byte": b"x = 1\0\n",
    "return outside a function": b"return 1\n",
    "bad syntax on line 3": b"x = 1\ny = 2\nif x >:\n    pass\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_what_cpython_refuses_is_a_located_user_error(tmp_path, name):
    data = HOSTILE[name]
    assert _refused_by_cpython(data)
    path = tmp_path / "case.py"
    path.write_bytes(data)
    result = run_cli("convert", path, timeout=120)
    err = assert_user_error(result)
    assert "internal error" not in err
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: ", err), err


ENCODED = [
    ("utf-8", "x = 'é'\n".encode()),
    ("latin-1", "# coding: latin-1\nx = 'é'\n".encode("latin-1")),
    ("cp1252 on line 2", "#!/usr/bin/env python\n# -*- coding: cp1252 -*-\nx = '€'\n"
     .encode("cp1252")),
    ("koi8-r", "# coding: koi8-r\nx = 'ж'\n".encode("koi8-r")),
    ("utf-8 with BOM", b"\xef\xbb\xbfx = 1\n"),
    ("BOM and latin-1", b"\xef\xbb\xbf# coding: latin-1\nx = 1\n"),
    ("latin-1 bytes undeclared", "x = 'é'\n".encode("latin-1")),
    ("unknown codec", b"# coding: no-such-codec\nx = 1\n"),
    ("declaration on line 3", "\n\n# coding: latin-1\nx = 'é'\n".encode("latin-1")),
    ("utf-16 with BOM", "x = 1\n".encode("utf-16")),
]


@pytest.mark.parametrize("name,data", ENCODED, ids=[n for n, _ in ENCODED])
def test_a_source_converts_exactly_when_cpython_compiles_it(tmp_path, name, data):
    path = tmp_path / "case.py"
    path.write_bytes(data)
    result = run_cli("convert", path, "-o", tmp_path / "out.py", timeout=60)
    if _refused_by_cpython(data):
        err = assert_user_error(result)
        assert "internal error" not in err and re.match(r".*case\.py:\d+:\d+: ", err), err
    else:
        assert result.returncode == 0, result.stderr
        namespace: dict = {}
        exec(compile(data, "case.py", "exec"), namespace)
        assert import_path(tmp_path / "out.py").x == namespace["x"]
