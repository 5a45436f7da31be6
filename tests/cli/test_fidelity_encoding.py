"""Source encodings through `autograph convert` and `autograph show`.

A source in any PEP 263 encoding converts to text that says the same thing: `-o` files keep
the source's encoding and declaration; stdout is UTF-8 and its declaration (if any) says
utf-8. Every output is imported and compared with the original module on the same inputs.
A bad declaration or undecodable bytes are a clean error at the file's line (exit 1).
"""
from __future__ import annotations

import codecs
import re

import pytest

from tests.cli.runner import assert_user_error, import_path, run_cli

BODY = (
    "def f(x):\n"
    "    s = 'été € ß'\n"
    "    if x > 0:\n"
    "        return s + ' ok'\n"
    "    return s.upper()  # commentaire: déjà\n"
    "\n"
    "\n"
    "def g(n):\n"
    "    acc = ''\n"
    "    for i in range(n):\n"
    "        acc += 'é'\n"
    "    return acc\n"
)
INPUTS = [("f", 1), ("f", -1), ("g", 0), ("g", 3)]

CASES = {  # name -> (file bytes, the encoding an -o output is written in)
    "latin1": (b"# -*- coding: latin-1 -*-\n" + BODY.replace(" \u20ac", "").encode("latin-1"),
               "latin-1"),
    "cp1252": (b"# coding: cp1252\n" + BODY.encode("cp1252"), "cp1252"),
    "vim_line2": (b"#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-15 :\n"
                  + BODY.encode("iso-8859-15"), "iso-8859-15"),
    "utf8_bom": (codecs.BOM_UTF8 + BODY.encode("utf-8"), "utf-8-sig"),
    "utf8_bom_declared": (codecs.BOM_UTF8 + b"# coding: utf-8\n" + BODY.encode("utf-8"),
                          "utf-8-sig"),
    "utf8_plain": (BODY.encode("utf-8"), "utf-8"),
}


def _outputs(module):
    return [getattr(module, name)(arg) for name, arg in INPUTS]


@pytest.mark.parametrize("case", sorted(CASES))
def test_stdout_and_o_outputs_keep_the_text(tmp_path, case):
    raw, encoding = CASES[case]
    src = tmp_path / "src_mod.py"
    src.write_bytes(raw)
    expected = _outputs(import_path(src))
    original_text = raw.decode(encoding)

    result = run_cli("convert", src, "-o", tmp_path / "out_o.py")
    assert result.returncode == 0, result.stderr
    o_bytes = (tmp_path / "out_o.py").read_bytes()
    o_text = o_bytes.decode(encoding)  # the -o file is in the source's encoding
    assert o_bytes.startswith(codecs.BOM_UTF8) == raw.startswith(codecs.BOM_UTF8)
    assert _outputs(import_path(tmp_path / "out_o.py")) == expected

    # stdout: UTF-8 bytes (captured as bytes, whatever the test's locale)
    result = run_cli("convert", src, env={"PYTHONIOENCODING": "latin-1"}, text=False)
    assert result.returncode == 0, result.stderr
    (tmp_path / "out_stdout.py").write_bytes(result.stdout)
    stdout_text = result.stdout.decode("utf-8")
    assert _outputs(import_path(tmp_path / "out_stdout.py")) == expected

    # the two outputs say the same thing; only a declaration naming another codec differs
    o_lines, s_lines = o_text.splitlines(), stdout_text.splitlines()
    assert len(o_lines) == len(s_lines)
    differing = [(a, b) for a, b in zip(o_lines, s_lines) if a != b]
    if encoding.startswith("utf-8"):
        assert differing == []
    else:
        assert len(differing) == 1 and "coding" in differing[0][0]
        assert differing[0][1] == re.sub(r"(coding[:=]\s*)[-\w.]+", r"\1utf-8",
                                         differing[0][0])
    for word in ("été", "ß"):  # (comments inside functions do not survive conversion)
        assert word in stdout_text and word in o_text and word in original_text


@pytest.mark.parametrize("case", sorted(CASES))
def test_show_prints_the_text(tmp_path, case):
    raw, encoding = CASES[case]
    src = tmp_path / "src_mod.py"
    src.write_bytes(raw)
    result = run_cli("show", f"{src}::f", env={"PYTHONIOENCODING": "utf-8"})
    assert result.returncode == 0, result.stderr
    literal = [line for line in raw.decode(encoding).splitlines() if "s = " in line][0]
    assert literal.strip() in result.stdout
    shown = _exec_shown(result.stdout)
    assert [shown(1), shown(-1)] == [import_path(src).f(1), import_path(src).f(-1)]


def _exec_shown(code: str):
    import autograph.operators

    namespace = {"ag__": autograph.operators}
    exec(compile(code, "shown.py", "exec"), namespace)  # noqa: S102 - our own output
    return namespace["f"]


def test_show_escapes_what_the_terminal_cannot_print(tmp_path):
    src = tmp_path / "m.py"
    src.write_bytes(CASES["cp1252"][0])
    result = run_cli("show", f"{src}::f", env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    assert _exec_shown(result.stdout)(1) == import_path(src).f(1)


def test_a_tree_of_mixed_encodings(tmp_path):
    src = tmp_path / "pkg"
    src.mkdir()
    for name in ("latin1", "utf8_bom", "cp1252"):
        (src / f"m_{name}.py").write_bytes(CASES[name][0])
    result = run_cli("convert", src, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    for name in ("latin1", "utf8_bom", "cp1252"):
        assert _outputs(import_path(tmp_path / "out" / f"m_{name}.py")) == \
            _outputs(import_path(src / f"m_{name}.py"))


BAD = {  # name -> (bytes, line, column, words the message must contain)
    "unknown_codec": (b"# coding: klingon\ndef f(x):\n    return x\n", 1, 1,
                      ["unknown encoding 'klingon'", "coding"]),
    "bom_and_latin1": (codecs.BOM_UTF8 + b"# coding: latin-1\ndef f(x):\n    return x\n",
                       1, 1, ["byte order mark", "declares another encoding"]),
    "latin1_bytes_undeclared": (b"def f(x):\n    return '\xe9t\xe9'\n", 2, 13,
                                ["not valid UTF-8", "coding"]),
    "latin1_bytes_undeclared_first_line": (b"# caf\xe9\ndef f(x):\n    return x\n", 1, 1,
                                           ["not UTF-8", "encoding declaration"]),
    "declared_utf8_wrong_bytes": (b"# coding: utf-8\n\ndef f(x):\n    return '\xe9'\n", 4, 13,
                                  ["byte 0xe9 is not valid UTF-8", "coding"]),
    "declared_ascii": (b"# coding: ascii\ndef f(x):\n    return '\xc3\xa9'\n", 3, 13,
                       ["byte 0xc3 is not valid ascii"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["convert", "convert-o", "show"])
def test_a_bad_encoding_is_a_clean_error_at_its_line(tmp_path, case, command):
    raw, line, col, words = BAD[case]
    src = tmp_path / "bad.py"
    src.write_bytes(raw)
    out = tmp_path / "out.py"
    if command == "convert":
        result = run_cli("convert", src, cwd=tmp_path)
    elif command == "convert-o":
        result = run_cli("convert", src, "-o", out, cwd=tmp_path)
    else:
        result = run_cli("show", f"{src}::f", cwd=tmp_path)
    err = assert_user_error(result, 1)
    assert err.startswith(f"bad.py:{line}:{col}: cannot decode the file: "), err
    for word in words:
        assert word in err, err
    assert not out.exists()


def test_a_tree_with_one_bad_file_writes_nothing(tmp_path):
    src = tmp_path / "pkg"
    src.mkdir()
    (src / "good.py").write_bytes(CASES["latin1"][0])
    (src / "bad.py").write_bytes(BAD["unknown_codec"][0])
    result = run_cli("convert", src, "-o", tmp_path / "out")
    err = assert_user_error(result, 1)
    assert "bad.py:1:1: cannot decode the file" in err
    assert not (tmp_path / "out").exists()
