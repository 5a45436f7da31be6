"""Programs showing the defect classes that running CPython's test modules and a large
body of algorithm code through `autograph convert` revealed (issue 21, external
measurements). Each runs as written, through `ag.to_graph` and from a module written by
`autograph convert`; test_fidelity_external21.py compares the outcomes.
"""
import sys


# -- a converted callee is called by its caller's frame (no wrapper frame between) --------
def _raises(n):
    raise ValueError(n)


def _callers_name():
    return sys._getframe(1).f_code.co_name


def traceback_has_the_frames_python_has(x):
    try:
        _raises(x)
    except ValueError as e:
        tb = e.__traceback__
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names[-1], len(names), _callers_name()


CASES = [
    (traceback_has_the_frames_python_has, (3,)),
]
