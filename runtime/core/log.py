"""The `autograph` loggers: one per stage of the pipeline, children of "autograph".

    autograph.convert   DEBUG  each function converted from source (name, file:line, time)
    autograph.trace     INFO   each trace: when it starts, and its signature and time
    autograph.optimize  DEBUG  each run of the optimizer (time)
    autograph.compile   DEBUG  each generation of the executor's code (time);
                        INFO   each `jit_compile=True` lowering with numba (time)

`logging.getLogger("autograph").setLevel(logging.INFO)` (with a handler, e.g.
`logging.basicConfig()`) shows one line when a trace starts and one when it ends; DEBUG
adds the other stages. These stages run once per trace, never on a call that reuses a
trace, and `start` returns at once when its logger is disabled.
"""
from __future__ import annotations

import logging
import time
from logging import DEBUG, INFO  # noqa: F401  (callers write log.DEBUG / log.INFO)
from typing import Any

CONVERT = logging.getLogger("autograph.convert")
TRACE = logging.getLogger("autograph.trace")
OPTIMIZE = logging.getLogger("autograph.optimize")
COMPILE = logging.getLogger("autograph.compile")


def _args(args: tuple) -> tuple:
    # callables are described only when the record is emitted
    return tuple(a() if callable(a) else a for a in args)


def start(logger: logging.Logger, level: int, msg: str | None = None,
          *args: Any) -> float | None:
    """Log `msg` (if given) and return a start time for `done`; None when disabled."""
    if not logger.isEnabledFor(level):
        return None
    if msg is not None:
        logger.log(level, msg, *_args(args), stacklevel=2)
    return time.perf_counter()


def done(logger: logging.Logger, level: int, started: float | None, msg: str,
         *args: Any) -> None:
    """Log `msg` followed by the time since `started`, if `start` found the logger on."""
    if started is not None:
        ms = 1000 * (time.perf_counter() - started)
        logger.log(level, msg + " in %.1f ms", *_args(args), ms, stacklevel=2)
