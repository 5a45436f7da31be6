"""`autograph convert` on functions with `try` / `except ... as e` / `finally`, `with`
blocks and jumps inside them: the converted module gives the same results and runs its
handlers, `finally` blocks and `__exit__` methods in the same order as the original."""
from __future__ import annotations

import textwrap

from tests.cli.runner import import_path, run_cli

SOURCE = textwrap.dedent('''\
    import contextlib

    LOG = []


    @contextlib.contextmanager
    def logged(tag):
        LOG.append(("enter", tag))
        try:
            yield tag
        finally:
            LOG.append(("exit", tag))


    def handler_names(xs):
        out = []
        for x in xs:
            try:
                out.append(10 // x)
            except ZeroDivisionError as e:
                out.append(str(e))
        return out


    def jumps(xs):
        total = 0
        for x in xs:
            with logged(x):
                try:
                    if x < 0:
                        break
                    if x == 0:
                        continue
                    if x > 50:
                        return -1
                    total += x
                finally:
                    LOG.append(("finally", x))
            total *= 2
        return total
    ''')


def test_converted_try_and_with_match_the_original(tmp_path, write):
    src = write("exc.py", SOURCE)
    out = tmp_path / "exc_ag.py"
    result = run_cli("convert", src, "--strict", "-o", out, cwd=tmp_path)
    # `logged` is a generator: --strict refuses it; without --strict it is noted
    assert result.returncode == 1 and "`logged` is a generator" in result.stderr
    result = run_cli("convert", src, "-o", out, cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    original, new = import_path(src), import_path(out)
    assert "ag__.for_stmt(" in out.read_text()
    for xs in ([1, 0, 2], [0, 5, -1, 7], [3, 99, 4], [], [2, 0, 0, 3]):
        assert new.handler_names(list(xs)) == original.handler_names(list(xs))
        original.LOG.clear()
        new.LOG.clear()
        assert new.jumps(list(xs)) == original.jumps(list(xs))
        assert new.LOG == original.LOG
