"""`autograph convert` never refuses a whole file for one definition: generators,
`async def`s (top-level or nested) and definitions with a construct that cannot be
converted are left as Python, each reported as `file:line:col: note: ...`; the exit
status is 3 when anything was left alone, 0 when everything converted, and `--strict`
refuses the file instead (status 1, nothing written). The converted module gives the
same results as the original."""
from __future__ import annotations

import asyncio
import textwrap

from tests.cli.runner import assert_user_error, import_path, run_cli

SOURCE = textwrap.dedent('''\
    import asyncio


    def countdown(n):
        while n > 0:
            yield n
            n -= 1


    async def double(v):
        await asyncio.sleep(0)
        return 2 * v


    def total(xs):
        def squares():
            for x in xs:
                yield x * x
        s = 0
        for v in squares():
            if v > 10:
                s += v
        return s


    def refused(n):
        while n > 0:
            ag.set_loop_options(5)
            n -= 1
        return n


    def plain(x):
        if x > 0:
            return x
        return -x
    ''')


def _line(text: str) -> int:
    return next(k for k, line in enumerate(SOURCE.splitlines(), 1) if text in line)


def test_left_alone_definitions_are_noted_and_the_rest_converted(tmp_path, write):
    src = write("mod.py", SOURCE)
    out = tmp_path / "mod_ag.py"
    result = run_cli("convert", src, "-o", out, cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines() == [
        f"mod.py:{_line('def countdown')}:1: note: `countdown` is a generator: left as Python "
        "(AutoGraph does not convert it)",
        f"mod.py:{_line('async def double')}:1: note: `double` is an async def (a coroutine): left as Python "
        "(AutoGraph does not convert it)",
        f"mod.py:{_line('def squares')}:5: note: `squares` is a generator: left as Python "
        "(AutoGraph does not convert it)",
        f"mod.py:{_line('ag.set_loop_options(5)')}:9: note: `refused` is left as Python: "
        "set_loop_options() takes "
        "keyword arguments only",
    ]
    text = out.read_text()
    assert "ag__.if_stmt(" in text and "ag__.for_stmt(" in text
    assert "# `squares` is a generator: left as Python" in text
    original, new = import_path(src), import_path(out)
    assert list(new.countdown(3)) == list(original.countdown(3))
    assert asyncio.run(new.double(4)) == asyncio.run(original.double(4))
    for xs in ([1, 2, 5], [], [4, 4]):
        assert new.total(xs) == original.total(xs)
    for x in (-2, 3):
        assert new.plain(x) == original.plain(x)


def test_strict_refuses_the_file(tmp_path, write):
    src = write("mod.py", SOURCE)
    out = tmp_path / "mod_ag.py"
    err = assert_user_error(run_cli("convert", src, "--strict", "-o", out, cwd=tmp_path))
    assert err.startswith("mod.py:4:1: cannot convert: `countdown` is a generator")
    assert not out.exists()


def test_everything_converted_is_status_0_without_notes(tmp_path, write):
    src = write("m.py", "def f(x):\n    while x > 1:\n        x //= 2\n    return x\n")
    result = run_cli("convert", src, "--strict", "-o", tmp_path / "o.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""


def test_a_directory_with_a_left_alone_definition_is_status_3(tmp_path, write):
    write("pkg/a.py", "def f(x):\n    return -x\n")
    write("pkg/b.py", SOURCE)
    result = run_cli("convert", tmp_path / "pkg", "-o", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert (tmp_path / "out" / "a.py").exists() and (tmp_path / "out" / "b.py").exists()
    assert sum("note:" in line for line in result.stderr.splitlines()) == 4
