"""`ConcreteFunction`: one trace of a Function - its graph, the optimized graph, the
generated Python executor that runs it, and what each call does around the executor:
copying written argument arrays back, filling changed list/dict arguments, and reading
and writing the Python state the trace reaches (`state.python_state.StatePlan`).

    cf = f.get_concrete_function(x)
    cf(x)  ->  guards hold? -> executor(*leaves, *state inputs) -> write-backs -> result
"""
from __future__ import annotations

import threading

import numpy as np

from runtime.core import log
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.exec.codegen import compile_graph, structure_expr
from runtime.exec.tape_calls import TapeCall
from runtime.frontend.engines import engine
from runtime.frontend.tracebacks import filter_traceback
from runtime.frontend.signature import (
    IdentityKey, describe_part, has_aliases, is_array_part, key_fits, key_of, mark_aliases,
)
from runtime.passes.pipeline import optimize as optimize_graph
from runtime.state.after_error import (effects_before_failure, raised_by_graph, replay_blocker,
                                       writes_on_error_paths)
from runtime.state.writeback import (DirectSpelling, apply_container_writes, cannot_raise,
                                     writing_back)


_EXECUTOR = frozenset({"_fn", "python_code", "_gen", "_filename"})
_GENERATING = threading.Lock()  # one generation of a lazy executor at a time


def _full_call(args) -> bool:
    return False


MISS = object()  # `run_with_state`: the guards of the Python state do not hold


def _direct_spelling(gen, source: str, filename: str, graph, out_tree, leaves: list,
                     finals: list) -> DirectSpelling | None:
    """What `writeback.direct_variant` rewrites of the executor writing into the
    argument arrays: its source and globals, its parameters, the expressions of its
    results and of the final values (`out_tree` holds the results, then the finals)."""
    if gen.tape_test is None or gen.return_index is None or \
            not all(isinstance(x, Tensor) and x in gen.names for x in finals):
        return None
    # (first: spelling a constant result adds a global)
    results = structure_expr(gen, out_tree[1][0], leaves[:len(leaves) - len(finals)])
    return DirectSpelling(
        source=source, filename=filename, names=dict(gen.globals),
        params=[gen.names[t] for t in graph.inputs], tape_test=gen.tape_test,
        return_index=gen.return_index, results=results, finals=[gen.names[x] for x in finals])


class ConcreteFunction:
    """One trace of a Function: a graph plus the compiled Python code that runs it.
    `lazy=True` generates that code on first use instead of now."""

    def __init__(self, name, graph, key, params, out_tree, out_leaves, owner=None,
                 optimize: bool = True, writeback: list = (), container_writes: tuple = ((), 0),
                 jit_compile: bool = False, parallel: bool = True, state=None,
                 lazy: bool = False):
        self.name = name
        self.graph = graph
        self.key = key
        self.params = params
        self._owner = owner
        self._out_leaves = out_leaves
        self.out_tree = out_tree  # the result structure (saved functions record it)
        self.pass_summary = None
        run_graph, run_leaves = graph, out_leaves
        # (position, name) of the arguments written into: their final values are the
        # graph's last outputs, copied into the caller's arrays after each call
        self.writeback = list(writeback)
        # list/dict arguments changed in place: templates of their final contents, and
        # how many graph outputs (after the written arrays) those templates read
        self._container_writes, n_values = container_writes
        self._n_values = n_values
        # Python state (python_state.StatePlan): guards, inputs read from places, and
        # the values written back into them (the graph's last outputs)
        self.state = state
        self.guard = None if state is None else state.check
        n_state = len(state.outputs) if state is not None else 0
        n_extra = len(writeback) + n_values + n_state
        finals = graph.outputs[len(graph.outputs) - n_extra:] if n_extra else []
        if optimize:
            started = log.start(log.OPTIMIZE, log.DEBUG)
            run_graph, _, self.pass_summary = optimize_graph(graph)
            log.done(log.OPTIMIZE, log.DEBUG, started, "optimized %s", name)
            outputs = iter(run_graph.outputs)
            run_leaves = [next(outputs) if isinstance(x, Tensor) else x for x in out_leaves]
            finals = list(outputs)
        self.optimized_graph = run_graph
        self.jit_code, self.jit_report = None, None
        if jit_compile:  # compilable regions become numba functions (runtime/jit registers)
            started = log.start(log.COMPILE, log.INFO)
            jit = engine("jit", "jit_compile=True")(run_graph, name)
            log.done(log.COMPILE, log.INFO, started, "jit-compiled %s", name)
            run_graph, self.jit_code, self.jit_report = jit.graph, jit.code, jit.report
            run_leaves, finals = [[jit.mapping.get(id(x), x) if isinstance(x, Tensor) else x
                                   for x in xs] for xs in (run_leaves, finals)]
        if n_extra:  # the results, then the final value of each argument written into
            out_tree, run_leaves = (tuple, [out_tree] + [None] * len(finals)), run_leaves + finals
        self._keep_rest = bool(self._container_writes) or (
            state is not None and state.apply is not None)
        # a trace reading places of Python state as inputs or writing into them: the
        # call path runs it with those inputs when its guards hold (`run_with_state`)
        self.stateful = self.run_with_state if owner is not None and state is not None \
            and (bool(state.lifted) or state.apply is not None) else None
        if self._keep_rest and self.stateful is None:
            # the executor's results need `_run` (list and dict arguments filled in, state
            # written back): the call path's direct call of `_fn` is never taken
            self.guard = _full_call
        if self.stateful is not None and not self._container_writes:
            # guards, lifted values, executor and write-back generated as one function
            self.stateful = state.call_path_run(self, self._keep_rest, MISS) or self.stateful
        # a call that raises leaves what Python leaves: the writes before the error done
        # (state/after_error.py); only traces that write into the caller's objects
        self._replays = owner is not None and bool(
            writeback or self._container_writes or (state is not None and state.apply)
            or writes_on_error_paths(graph))
        self._blocker = replay_blocker(graph, owner.has_python_code) if self._replays \
            else None
        # arguments and arrays of Python state written into, when no list or dict
        # argument is and nothing in the graph raises under NumPy's default errstate:
        # written directly (writeback.py)
        # (with `jit_compile=True`, when no region was compiled: a compiled region is
        # no ufunc, so `cannot_raise` is False for it)
        self._direct = bool(writeback) and not self._container_writes and \
            cannot_raise(run_graph)
        self._pending = (run_graph, out_tree, run_leaves, parallel, n_extra)
        if not lazy:
            self._generate()

    def _generate(self) -> None:
        """Generate and compile the executor (`_fn`, `python_code`, `_gen`, `_filename`)."""
        run_graph, out_tree, run_leaves, parallel, n_extra = self._pending
        started = log.start(log.COMPILE, log.DEBUG)
        on_tape = TapeCall(self.graph, out_tree, run_leaves)  # (a loaded function's
        # traced graph is set before its first call generates this)
        fn, self.python_code, self._gen, self._filename = compile_graph(
            run_graph, out_tree, run_leaves, self.name, parallel=parallel, on_tape=on_tape)
        log.done(log.COMPILE, log.DEBUG, started, "generated the executor of %s", self.name)
        if n_extra or self._keep_rest:
            direct = spelling = None
            if self._direct:
                finals = run_leaves[len(run_leaves) - n_extra:]
                owned = {k: final for (k, _), final in zip(self.writeback, finals)}
                direct, source, gen, filename = compile_graph(
                    run_graph, out_tree, run_leaves, self.name, parallel=parallel,
                    owned_inputs=owned, on_tape=on_tape)
                spelling = _direct_spelling(gen, source, filename, run_graph, out_tree,
                                            run_leaves, finals)
            fn = writing_back(fn, self.writeback, self.name, n_extra,
                              keep_rest=self._keep_rest, direct=direct,
                              n_leaves=len(run_graph.inputs), spelling=spelling)
        self._fn = fn  # last: another thread reads `_fn` without the lock
        del self._pending

    def __getattr__(self, name: str):
        # reached only for attributes not set: the executor of a `lazy` trace before its
        # first use (generating a saved graph of 100,000 nodes takes seconds, and a
        # loaded function may never run); once generated, these are plain attributes
        if name in _EXECUTOR:
            attributes = self.__dict__
            if "_pending" in attributes:
                with _GENERATING:
                    if "_pending" in attributes:
                        self._generate()
            if name in attributes:
                return attributes[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __call__(self, *args, **kwargs):
        if self._owner is not None:
            args = self._owner._bind(args, kwargs)
        elif kwargs:
            raise TypeError("keyword arguments need the Function's signature; call the Function")
        leaves = []
        key = tuple([key_of(a, leaves) for a in args])
        if has_aliases(leaves):
            key, leaves = mark_aliases(key, leaves)
        if len(key) != len(self.key) or not all(key_fits(k, p) for k, p in zip(key, self.key)):
            raise TypeError(f"{self.name}: arguments {self._describe(key)} do not match this "
                            f"concrete function's signature {self._describe(self.key)}.")
        try:
            return self._run(leaves, args)
        except Exception as e:  # the user's frames only
            filter_traceback(e)
            raise

    def run_with_state(self, leaves: list, args: tuple):
        """The call path's run of a stateful trace (`stateful`): the state inputs read
        from the places this trace reads, then `_run`; MISS when its guards do not hold
        (the Function's full path then finds or makes the trace that fits)."""
        ins = self.state.enter(args)
        if ins is None:
            return MISS
        self._owner._calls += 1
        return self._run(leaves, args, ins)

    def _run(self, leaves, args=None, ins=None, original=None):
        """Run the executor on `leaves` (and the state inputs `ins`); `args`: the call's
        arguments, one per parameter (`original`: as the caller passed them, when an
        input_signature converted them)."""
        state = self.state
        if state is not None and ins is None:
            ins = state.enter(args)
            if ins is None:
                changed = ", ".join(label for label, _ in state.failing(args))
                raise ValueError(
                    f"{self.name}: the Python state this trace read has changed ({changed}); "
                    "call the Function instead of this concrete function to trace again.")
        try:
            if self._keep_rest:
                run_leaves = leaves + ins if ins else leaves
                out, values = self._fn(*run_leaves)
                if self._container_writes:
                    apply_container_writes(self._container_writes, args, leaves,
                                           values[:self._n_values])
                if state is not None and state.apply is not None:
                    state.apply(args, leaves, ins, values[self._n_values:])
                return out
            if ins:
                return self._fn(*leaves, *ins)
            return self._fn(*leaves)
        except Exception as e:
            self._failed(e, args if original is None else original)
            raise

    def _failed(self, error: Exception, args) -> None:
        """The call with arguments `args` (one per parameter) raised `error`: point it at
        the user's line, and leave the caller's objects as Python would leave them."""
        self._annotate(error)
        if self._replays and args is not None and raised_by_graph(error, self._filename):
            owner = self._owner
            effects_before_failure(
                lambda: owner._call_canonical(owner.python_function, args), error,
                self.name, self._blocker)

    def _annotate(self, error: BaseException) -> None:
        tb, lineno = error.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._filename:
                lineno = tb.tb_lineno
            tb = tb.tb_next
        node = self._gen.line_origins.get(lineno)
        if node is None or node.origin is None:
            return
        line = self.python_code.splitlines()[lineno - 1].split("  #")[0].strip()
        note = (f"raised while running graph `{self.name}`, by `{line}`, recorded from "
                f"{node.origin.filename}:{node.origin.lineno} in {node.origin.function}")
        if hasattr(error, "add_note"):
            error.add_note(note)

    def _describe(self, key) -> str:
        return "(" + ", ".join(f"{p}: {describe_part(k)}" for p, k in zip(self.params, key)) + ")"

    def to_onnx(self, **options):
        """This trace as an `onnx.ModelProto` (opset 18; see runtime/onnx_export, which
        registers the exporter in frontend/engines.py)."""
        return engine("onnx", "ConcreteFunction.to_onnx()")(self, **options)

    @property
    def structured_input_signature(self):
        return self.key

    def pretty_printed_signature(self) -> str:
        described = [f"{t.dtype}{_fmt_shape(t.shape)}" if isinstance(t, Tensor) else
                     f"{np.asarray(t).dtype}{_fmt_shape(np.shape(t))}" for t in self._out_leaves]
        outs = ", ".join(described)
        args = []
        for p, k in zip(self.params, self.key):
            args.append(f"{p}: {describe_part(k)}" if is_array_part(k) else f"{p}={_py(k)}")
        return f"{self.name}({', '.join(args)}) -> {outs if len(described) == 1 else '(' + outs + ')'}"

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.pretty_printed_signature()}>"


def _py(part) -> str:
    t, v = part
    if isinstance(v, IdentityKey):
        return repr(v)
    if type(v) is tuple and (t in (tuple, list, dict) or hasattr(t, "_fields")):
        return describe_part(part)
    return repr(v)


__all__ = ["ConcreteFunction"]
