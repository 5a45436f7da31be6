"""Warnings about a Function that keeps tracing: the RetracingWarning after several
traces in few calls, and the one at its trace limit (`max_traces`); each names the
arguments and the Python state that changed."""
from __future__ import annotations

import warnings

from runtime.core.errors import user_stacklevel
from runtime.frontend.modes import RetracingWarning


def note_trace(function, key) -> None:
    """Count a trace of Function `function`; warn once when it keeps tracing."""
    function._trace_calls.append(function._calls)
    if (function._warned or len(function._trace_calls) < 5
            or function._calls - function._trace_calls[0] >= 10):
        return
    function._warned = True
    changed = _changing_arguments(function)
    state = "; ".join(dict.fromkeys(c for c in function._state_changes if c))
    warnings.warn(
        f"{function.__name__} was traced {len(function._trace_calls)} times within the last 10 calls"
        f"{'; arguments that changed: ' + changed if changed else ''}"
        f"{'; Python state that changed: ' + state if state else ''}. Tracing is "
        "expensive: Python values (ints, floats, strings) are part of the cache key, so pass "
        "changing numbers as NumPy arrays; for arrays whose shapes change, use "
        "input_signature with None dimensions or reduce_retracing=True.",
        RetracingWarning, stacklevel=user_stacklevel())


def warn_trace_limit(function, state: str, key=None) -> None:
    """Warn once that Function `function` reached its trace limit, naming what changed."""
    if function._limit_warned:
        return
    function._limit_warned = True
    changed = _changing_arguments(function, key)
    state = "; ".join(dict.fromkeys(c for c in [*function._state_changes, state] if c))
    warnings.warn(
        f"{function.__name__} reached its limit of {function.max_traces} traces"
        f"{'; arguments that changed: ' + changed if changed else ''}"
        f"{'; Python state that changed: ' + state if state else ''}. The traces made so "
        "far keep serving their signatures; calls with a new signature now run as plain "
        "Python (eagerly, slower). Pass changing numbers as NumPy arrays, or raise the "
        "limit with max_traces=N (None: no limit).",
        RetracingWarning, stacklevel=user_stacklevel())


def _changing_arguments(function, new_key=None) -> str:
    """The parameters whose part of the key differs among the last traces."""
    keys = [cf.key for cf in function._concrete[-5:]]
    if new_key is not None:
        keys.append(new_key)
    names = [p for i, p in enumerate(function._params)
             if len({repr(k[i]) for k in keys if i < len(k)}) > 1]
    return ", ".join(repr(n) for n in names)
