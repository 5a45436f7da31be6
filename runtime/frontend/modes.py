"""The process-wide switch of Functions (`run_functions_eagerly`) and the warning a
Function gives when it keeps tracing (`RetracingWarning`), with their user documentation.
`function.py` reads `_run_eagerly[0]` on every call."""
from __future__ import annotations

from runtime.core.error_index import IndexedWarning


class RetracingWarning(IndexedWarning):
    """A Function keeps tracing new graphs; each trace costs far more than a call.

    Warned once per Function: when it has traced 5 times within its last 10 calls (the
    message names the arguments that changed), and when it reaches `max_traces`. Python
    numbers are part of the cache key by value: pass numbers that change as NumPy arrays,
    and use `input_signature` or `reduce_retracing=True` for shapes that change.

    Example:
        ```python
        import warnings
        import numpy as np
        import autograph as ag

        @ag.function
        def scale(x, factor):
            return x * factor

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for k in range(6):
                scale(np.ones(2), float(k))  # a new Python float: a new trace
        scale.tracing_count  # -> 6
        [w.category.__name__ for w in caught]  # -> ['RetracingWarning']
        ```
    """


_run_eagerly = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every decorated function as plain Python, for debugging (process-wide).

    With True, calling an `ag.function` calls the original Python function on the same
    arguments: `print`, breakpoints and exceptions behave as in plain Python, and nothing
    is traced. False (the default) restores graphs.

    Args:
        run_eagerly: True to run as Python, False to trace and run graphs (any value is
            taken by its truth).

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def double(x):
            print("running as Python")
            return x * 2

        ag.run_functions_eagerly(True)
        y = double(np.float32(2))  # -> running as Python
        y  # -> np.float32(4.0)
        double.tracing_count  # -> 0
        ag.run_functions_eagerly(False)
        ```
    """
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether decorated functions run as plain Python (`ag.run_functions_eagerly`).

    Returns:
        True when `ag.run_functions_eagerly(True)` is in effect.

    Example:
        ```python
        import autograph as ag

        ag.functions_run_eagerly()  # -> False
        ```
    """
    return _run_eagerly[0]
