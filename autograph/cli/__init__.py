"""The `autograph` command line (also `python -m autograph`).

    autograph convert SRC.py [-o OUT.py]     convert a file (or a tree) statically
    autograph show SRC.py::NAME              print one function's converted code
    autograph graph SRC.py::NAME --arg ...   import SRC, trace NAME, print its graph

Modules: `main` (argument parsing, dispatch, exit codes), `convert` (the `convert` and
`show` commands, on top of `autograph.impl.static`), `graph` (the `graph` command),
`diagnostics` (user errors printed as `file:line:col: message` with the source line and a
caret) and `files` (reading sources, atomic writes). Exit codes: 0 success, 1 the input is
wrong (syntax error, unsupported construct, missing file or name), 2 bad usage.
"""
