"""The `autograph` loggers: one per stage of the pipeline, children of "autograph".

    autograph.convert   DEBUG  each function converted from source (name, file:line, time)
    autograph.trace     INFO   each trace: when it starts, and its signature and time
    autograph.optimize  DEBUG  each run of the optimizer (time)
    autograph.compile   DEBUG  each generation of the executor's code (time), each
                               `jit_compile=True` region compiled by numba (time);
                        INFO   each `jit_compile=True` lowering with numba (time)

`logging.getLogger("autograph").setLevel(logging.INFO)` (with a handler, e.g.
`logging.basicConfig()`) shows one line when a trace starts and one when it ends; DEBUG
adds the other stages. These stages run once per trace, never on a call that reuses a
trace.

Progress: with INFO on, a trace running longer than `PROGRESS_AFTER` seconds logs how
many nodes it has recorded so far, every `PROGRESS_EVERY` seconds (`trace_progress`);
a stage logged at DEBUG (optimizing, generating the executor) that took longer than
`PROGRESS_AFTER` is logged at INFO. `clock` is what they read (tests replace it).
"""
from __future__ import annotations

import contextlib
import logging
import time
from logging import DEBUG, INFO  # noqa: F401  (callers write log.DEBUG / log.INFO)
from typing import Any, Iterator

from runtime.core import tracing

CONVERT = logging.getLogger("autograph.convert")
TRACE = logging.getLogger("autograph.trace")
OPTIMIZE = logging.getLogger("autograph.optimize")
COMPILE = logging.getLogger("autograph.compile")

PROGRESS_AFTER = 5.0   # seconds a trace or stage runs before it is reported at INFO
PROGRESS_EVERY = 5.0   # seconds between two progress lines of one trace
_CHECK_EVERY = 64      # nodes between two looks at the clock while tracing
clock = time.perf_counter


def _args(args: tuple) -> tuple:
    # callables are described only when the record is emitted
    return tuple(a() if callable(a) else a for a in args)


def start(logger: logging.Logger, level: int, msg: str | None = None,
          *args: Any) -> float:
    """Log `msg` (if given and `level` is on) and return a start time for `done`."""
    if msg is not None and logger.isEnabledFor(level):
        logger.log(level, msg, *_args(args), stacklevel=2)
    return clock()


def done(logger: logging.Logger, level: int, started: float | None, msg: str,
         *args: Any) -> None:
    """Log `msg` followed by the time since `started` at `level`, or at INFO when
    `level` is off but the stage took longer than `PROGRESS_AFTER`."""
    if started is None:
        return
    elapsed = clock() - started
    if not logger.isEnabledFor(level):
        if level >= INFO or elapsed < PROGRESS_AFTER or not logger.isEnabledFor(INFO):
            return
        level = INFO
    logger.log(level, msg + " in %.1f ms", *_args(args), 1000 * elapsed, stacklevel=2)


class _TraceProgress:
    """Counts the nodes a trace records; logs them at INFO once the trace has run for
    PROGRESS_AFTER seconds, then every PROGRESS_EVERY seconds."""

    __slots__ = ("name", "nodes", "started", "next_report")

    def __init__(self, name: str):
        self.name, self.nodes = name, 0
        self.started = clock()
        self.next_report = self.started + PROGRESS_AFTER

    def __call__(self) -> None:
        self.nodes += 1
        if self.nodes % _CHECK_EVERY:
            return
        now = clock()
        if now >= self.next_report:
            TRACE.info("tracing %s: %d nodes so far, %.1f s", self.name, self.nodes,
                       now - self.started)
            self.next_report = now + PROGRESS_EVERY


@contextlib.contextmanager
def trace_progress(name: str) -> Iterator[None]:
    """Report the progress of the trace of `name` while in the block (INFO on only)."""
    if not TRACE.isEnabledFor(INFO):
        yield
        return
    previous = tracing._state.progress
    tracing._state.progress = _TraceProgress(name)
    try:
        yield
    finally:
        tracing._state.progress = previous
