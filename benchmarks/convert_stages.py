"""Where `autograph convert` spends its time: CPU seconds per stage, against `compile`.

Converts the inputs of `bench_convert.py` in this process with each stage's function
wrapped in a timer (exclusive times: a stage called inside another is subtracted from
the outer one; a recursive stage is counted once). The wrappers cost a little time of
their own, which shows in the last row with the collector's and the loop's own time.

    python benchmarks/convert_stages.py [MEGABYTES] [small|big|both]
"""
from __future__ import annotations

import sys
import time
from collections import Counter

from bench_convert import source

from autograph.converters import (break_statements, closures, control_flow, return_statements,
                                  scoping, try_statements)
from autograph.impl import context, module_paths, static
from autograph.pyct import dataflow, transformer

# (module, function name, stage): the pipeline's steps, in order
STAGES = [
    (static, "compile", "check: compile(input)"),
    (static.parser, "nesting_depth", "nesting depth"),
    (static, "definitions", "find definitions, bindings"),
    (static, "_Bindings", "find definitions, bindings"),
    (static, "ast_to_gast", "ast -> gast (one function at a time)"),
    (static, "convert_function_node", "pipeline: the rest"),
    (scoping, "transform", "scoping"),
    (try_statements, "transform", "try statements"),
    (context.Scope, "of", "scope names"),
    (transformer, "apply", "expression / target converters"),
    (return_statements, "transform", "returns"),
    (break_statements, "transform", "break / continue"),
    (return_statements, "restructure", "returns"),
    (closures, "captured_names", "captured names"),
    (dataflow, "analyze", "dataflow analysis"),
    (control_flow, "convert_block", "control flow (if / while / for)"),
    (closures, "share_cells", "closures"),
    (static, "add_fast_paths", "fast paths: routed calls"),
    (module_paths, "compile_subscript_stores", "fast paths: item stores"),
    (module_paths, "python_copy", "Python-values copy"),
    (module_paths, "install_beside", "Python-values copy"),
    (static.parser, "unparse", "unparse (writing the text)"),
    (static, "_indent", "indent, splice"),
]


class Timers:
    def __init__(self):
        self.totals: Counter = Counter()
        self.stack: list = []

    def wrap(self, owner, name: str, label: str) -> None:
        fn = getattr(owner, name)
        stack, totals = self.stack, self.totals

        def timed(*args, **kwargs):
            if stack and stack[-1][0] == label:  # (recursion: counted once)
                return fn(*args, **kwargs)
            start = time.process_time()
            stack.append([label, 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                _, inner = stack.pop()
                spent = time.process_time() - start
                totals[label] += spent - inner
                if stack:
                    stack[-1][1] += spent
        setattr(owner, name, classmethod(lambda cls, *a, **k: timed(*a, **k))
                if isinstance(owner, type) and isinstance(vars(owner).get(name), classmethod)
                else timed)


def main(megabytes: float, kinds: list[str]) -> None:
    # `static` reads `compile` and `ast.parse` through names of its own, so they can be timed
    static.compile = compile
    static.ast = type("ast", (), {k: getattr(static.ast, k) for k in dir(static.ast)
                                  if not k.startswith("__")})
    timers = Timers()
    timers.wrap(static.ast, "parse", "ast.parse(input)")
    for owner, name, label in STAGES:
        timers.wrap(owner, name, label)
    for kind in kinds:
        text = source(int(megabytes * 1e6), kind)
        start = time.process_time()
        compile(text, "input.py", "exec")
        c = time.process_time() - start
        timers.totals.clear()
        start = time.process_time()
        out = static.convert_module_source(text, "input.py", [], False)
        v = time.process_time() - start
        print(f"{megabytes:g} MB, {kind} functions: compile {c:.2f} s, convert {v:.2f} s "
              f"({v / c:.1f}x), output {len(out) / 1e6:.2f} MB")
        rows = [(label, timers.totals[label]) for label in
                dict.fromkeys(["ast.parse(input)"] + [label for _, _, label in STAGES])]
        rows.append(("(the rest: loop, collector, timers)", v - sum(timers.totals.values())))
        for label, t in rows:
            print(f"  {label:40} {t:7.2f} s {t / c:6.1f}x compile {100 * t / v:5.1f}%")


if __name__ == "__main__":
    kind = sys.argv[2] if len(sys.argv) > 2 else "both"
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0,
         ["small", "big"] if kind == "both" else [kind])
