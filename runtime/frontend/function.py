"""`Function`: a Python function traced into graphs, one per input signature.

    call ─► bind args ─► cache key ─► hit: run the compiled graph
                                    └► miss (under a lock): trace ─► compile ─► cache

A `ConcreteFunction` is one trace: its graph, the generated Python executor and the
key it serves. See `signature.py` for the key rules.
"""
from __future__ import annotations

import collections
import inspect
import threading
import warnings
import weakref

import numpy as np

from runtime.core import tracing
from runtime.state import views
from runtime.exec.codegen import compile_graph
from runtime.core.errors import GraphModeError, user_stacklevel
from runtime.frontend.engines import engine
from runtime.frontend.pickling import reference_to
from runtime.state.random_watch import RandomWatch, warn_if_drawn
from runtime.core.graph import Graph
from runtime.passes.pipeline import optimize as optimize_graph
from runtime.frontend.signature import (
    IdentityKey, TensorSpec, describe_part, generalize, has_aliases, has_unknown_dims,
    is_array_part, key_fits, key_of, mark_aliases, weak_keys,
)
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.state.escapes import escape_error, escaped, roots_of
from runtime.state.writeback import (
    apply_container_writes, container_writes, snapshot_containers, writing_back,
)
from runtime.frontend.trace_args import (
    _check_against_spec, _placeholders, _same_python_value, _substitute,
)
from runtime.state.variables import Variable


_ndarray, _generic = np.ndarray, np.generic


class RetracingWarning(UserWarning):
    """A Function keeps tracing new graphs; each trace costs far more than a call."""


_run_eagerly = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every decorated function as plain Python (for debugging)."""
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_eagerly[0]


class ConcreteFunction:
    """One trace of a Function: a graph plus the compiled Python code that runs it."""

    def __init__(self, name, graph, key, params, out_tree, out_leaves, owner=None,
                 optimize: bool = True, writeback: list = (), container_writes: tuple = ((), 0),
                 jit_compile: bool = False, parallel: bool = True):
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
        n_extra = len(writeback) + n_values
        finals = graph.outputs[len(graph.outputs) - n_extra:] if n_extra else []
        if optimize:
            run_graph, _, self.pass_summary = optimize_graph(graph)
            outputs = iter(run_graph.outputs)
            run_leaves = [next(outputs) if isinstance(x, Tensor) else x for x in out_leaves]
            finals = list(outputs)
        self.optimized_graph = run_graph
        self.jit_code, self.jit_report = None, None
        if jit_compile:  # compilable regions become numba functions (runtime/jit registers)
            jit = engine("jit", "jit_compile=True")(run_graph, name)
            run_graph, self.jit_code, self.jit_report = jit.graph, jit.code, jit.report
            run_leaves, finals = [[jit.mapping.get(id(x), x) if isinstance(x, Tensor) else x
                                   for x in xs] for xs in (run_leaves, finals)]
        if n_extra:  # the results, then the final value of each argument written into
            out_tree, run_leaves = (tuple, [out_tree] + [None] * len(finals)), run_leaves + finals
        self._fn, self.python_code, self._gen, self._filename = compile_graph(
            run_graph, out_tree, run_leaves, name, parallel=parallel)
        if n_extra or self._container_writes:
            self._fn = writing_back(self._fn, writeback, name, n_extra,
                                    keep_rest=bool(self._container_writes))

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
        return self._run(leaves, args)

    def _run(self, leaves, args=None):
        try:
            if self._container_writes:
                out, values = self._fn(*leaves)
                apply_container_writes(self._container_writes, args, leaves, values)
                return out
            return self._fn(*leaves)
        except Exception as e:
            self._annotate(e)
            raise

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


class Function:
    """A polymorphic traced function (what `@ag.function` returns)."""

    def __init__(self, python_function, input_signature=None, autograph: bool = True,
                 reduce_retracing: bool = False, converter=None, optimize: bool = True,
                 jit_compile: bool = False, parallel: bool = True):
        self.python_function = python_function
        self.parallel = parallel  # expensive independent nodes may run concurrently
        self.__name__ = getattr(python_function, "__name__", "function")
        self.__doc__ = getattr(python_function, "__doc__", None)
        self.__wrapped__ = python_function
        self._autograph = autograph
        self._converter = converter
        self._converted = None
        self._reduce_retracing = reduce_retracing
        self.optimize = optimize
        self.jit_compile = jit_compile
        self._sig = inspect.signature(python_function)
        self._params = list(self._sig.parameters)
        self._simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                           for p in self._sig.parameters.values())
        self._nparams = len(self._params)
        self._cache: dict = {}
        self._relaxed: list[ConcreteFunction] = []
        self._concrete: list[ConcreteFunction] = []
        self._lock = threading.RLock()
        self._watchers: dict = {}  # id(object keyed weakly) -> weakref with a callback
        self._calls = 0
        self._trace_calls: collections.deque = collections.deque(maxlen=5)
        self._warned = False
        self.tracing_count = 0
        self.input_signature = None
        self._fast = self._simple and input_signature is None
        if input_signature is not None:
            self.input_signature = list(input_signature)
            if len(self.input_signature) > self._nparams:
                raise TypeError(f"{self.__name__} takes {self._nparams} arguments but "
                                f"input_signature has {len(self.input_signature)} entries")
            rest = list(self._sig.parameters.values())[len(self.input_signature):]
            missing = [p.name for p in rest if p.default is p.empty
                       and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if missing:
                raise TypeError(f"{self.__name__}: input_signature has no entry for "
                                f"{', '.join(map(repr, missing))}; give one TensorSpec per "
                                "argument (arguments after the signature must have defaults).")

    # -- calling ----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        # Fast path: positional NumPy arrays/scalars only, not tracing, not eager.
        if not kwargs and self._fast and len(args) == self._nparams \
                and tracing._state.graph is None and not _run_eagerly[0]:
            key, leaves = [], []
            for a in args:
                t = type(a)
                if t is _ndarray or isinstance(a, _generic):
                    key.append((a.dtype, a.shape))
                    leaves.append(a)
                elif t is int or t is bool or t is str:
                    key.append((t, a))  # as in signature.key_of
                else:
                    break
            else:
                # the same array passed twice has its own trace (`has_aliases`)
                cf = self._cache.get(tuple(key)) if len(leaves) < 2 or (
                    leaves[0] is not leaves[1] if len(leaves) == 2
                    else not has_aliases(leaves)) else None
                if cf is not None:
                    self._calls += 1
                    try:
                        return cf._fn(*leaves)
                    except Exception as e:
                        cf._annotate(e)
                        raise
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        if _run_eagerly[0] or tracing.in_graph_mode():
            # eager mode runs the original; inside another trace, trace through (inline)
            fn = self.python_function if _run_eagerly[0] else self._traceable()
            return fn(*args, **kwargs)
        if kwargs or len(args) != self._nparams or not self._simple:
            args = self._bind(args, kwargs)
        if self.input_signature is not None:
            return self._call_with_signature(args)
        self._calls += 1
        leaves: list = []
        key = tuple([key_of(a, leaves) for a in args])
        if has_aliases(leaves):  # the same array passed twice: one graph input for both
            key, leaves = mark_aliases(key, leaves)
        cf = self._cache.get(key)
        if cf is None:
            cf = self._lookup_or_trace(key, args)
        return cf._run(leaves, args)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return BoundFunction(self, instance)

    def _bind(self, args, kwargs) -> tuple:
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        out = []
        for name, p in self._sig.parameters.items():
            v = bound.arguments[name]
            if p.kind is p.VAR_POSITIONAL:
                out.append(tuple(v))
            elif p.kind is p.VAR_KEYWORD:
                out.append(dict(v))
            else:
                out.append(v)
        return tuple(out)

    def _call_with_signature(self, args):
        specs = self.input_signature
        for name, value, default in zip(self._params[len(specs):], args[len(specs):],
                                        self._signature_defaults()):
            if value is not default and not _same_python_value(value, default):
                raise TypeError(
                    f"{self.__name__}(): argument {name!r} is not in the input_signature, so it "
                    f"keeps its default {default!r} (got {value!r}). Add a TensorSpec for it, "
                    "or drop input_signature to trace per value.")
        leaves = []
        for name, spec, a in zip(self._params, specs, args):
            leaves.append(_check_against_spec(self.__name__, name, spec, a))
        if not self._concrete:
            self.get_concrete_function()
        return self._concrete[0]._run(leaves, args)

    # -- tracing ----------------------------------------------------------------------
    def _lookup_or_trace(self, key, args):
        with self._lock:
            cf = self._cache.get(key)
            if cf is not None:
                return cf
            for relaxed in self._relaxed:
                if all(key_fits(k, p) for k, p in zip(key, relaxed.key)):
                    self._cache[key] = relaxed
                    return relaxed
            trace_key = key
            if self._reduce_retracing and self._concrete:
                for previous in reversed(self._concrete):
                    general = tuple(generalize(k, p) for k, p in zip(key, previous.key))
                    if all(g is not None for g in general):
                        trace_key = general
                        break
            cf = self._trace(trace_key, args)
            if any(has_unknown_dims(p) for p in trace_key):
                self._relaxed.append(cf)  # serves every call whose shapes fit
            self._cache[key] = cf
            self._watch(key)
            self._note_trace(key)
            return cf

    def _watch(self, key) -> None:
        """Drop the traces keyed on an object (`self`, a function...) when it dies, as
        tf.function does, instead of keeping it alive through the cache."""
        for k in weak_keys(key, []):
            obj = k.ref()
            if obj is None or k.ident in self._watchers:
                continue
            owner = weakref.ref(self)

            def dead(_, ident=k.ident):
                function = owner()
                if function is not None:
                    function._forget(ident)
            self._watchers[k.ident] = weakref.ref(obj, dead)

    def _forget(self, ident: int) -> None:
        def keyed_on(key) -> bool:
            return any(k.ident == ident for k in weak_keys(key, []))
        with self._lock:
            # rebound, not mutated: a lookup iterating the old ones in this thread (the
            # object may die during a call) is not disturbed
            self._cache = {k: cf for k, cf in self._cache.items()
                           if not keyed_on(k) and not keyed_on(cf.key)}
            self._concrete = [cf for cf in self._concrete if not keyed_on(cf.key)]
            self._relaxed = [cf for cf in self._relaxed if not keyed_on(cf.key)]
            self._watchers.pop(ident, None)

    def _call_canonical(self, fn, args):
        """Call fn with one value per parameter (the form cache keys are made from)."""
        if self._simple:
            return fn(*args)
        positional, keywords = [], {}
        for (name, p), v in zip(self._sig.parameters.items(), args):
            if p.kind is p.VAR_POSITIONAL:
                positional.extend(v)
            elif p.kind is p.VAR_KEYWORD:
                keywords.update(v)
            elif p.kind is p.KEYWORD_ONLY:
                keywords[name] = v
            else:
                positional.append(v)
        return fn(*positional, **keywords)

    def _traceable(self):
        if not self._autograph or self._converter is None:
            return self.python_function
        if self._converted is None:
            self._converted = self._converter(self.python_function)
        return self._converted

    def _trace(self, key, args) -> ConcreteFunction:
        fn = self._traceable()
        graph = Graph(self.__name__)
        placeholders = iter(_placeholders(graph, self._params, key))
        traced_args = [_substitute(a, k, placeholders) for a, k in zip(args, key)]
        containers = snapshot_containers(traced_args)
        watch = RandomWatch(self.python_function)
        with tracing.graph_context(graph):
            out = self._call_canonical(fn, traced_args)
            out_leaves, out_tree = flatten(out)
            out_leaves = [x.read_value() if isinstance(x, Variable) else views.resolve(x)
                          for x in out_leaves]
            out_leaves = [graph.capture(x) if isinstance(x, Tensor) else x for x in out_leaves]
            # argument arrays the function wrote into: the executor writes them back
            written = views.written_inputs(graph.inputs)
            # list/dict arguments changed in place: every call updates the caller's
            writes, values = container_writes(containers, graph.inputs, graph.capture)
        warn_if_drawn(watch, graph, self.__name__)
        found = escaped(graph, roots_of(self.python_function, self._params, args))
        if found:
            raise escape_error(self.__name__, found)
        graph.outputs = ([x for x in out_leaves if isinstance(x, Tensor)] +
                         [v for _, v in written] + values)
        graph.verify()
        cf = ConcreteFunction(self.__name__, graph, key, self._params, out_tree, out_leaves,
                              owner=self, optimize=self.optimize, parallel=self.parallel,
                              writeback=[(k, graph.inputs[k].name) for k, _ in written],
                              container_writes=(writes, len(values)),
                              jit_compile=self.jit_compile)
        self._concrete.append(cf)
        self.tracing_count += 1
        return cf

    def _note_trace(self, key) -> None:
        self._trace_calls.append(self._calls)
        if (self._warned or len(self._trace_calls) < 5
                or self._calls - self._trace_calls[0] >= 10):
            return
        self._warned = True
        changed = self._changing_arguments()
        warnings.warn(
            f"{self.__name__} was traced {len(self._trace_calls)} times within the last 10 calls"
            f"{'; arguments that changed: ' + changed if changed else ''}. Tracing is "
            "expensive: Python values (ints, floats, strings) are part of the cache key, so pass "
            "changing numbers as NumPy arrays; for arrays whose shapes change, use "
            "input_signature with None dimensions or reduce_retracing=True.",
            RetracingWarning, stacklevel=user_stacklevel())

    def _changing_arguments(self) -> str:
        keys = [cf.key for cf in self._concrete[-5:]]
        names = [p for i, p in enumerate(self._params)
                 if len({repr(k[i]) for k in keys if i < len(k)}) > 1]
        return ", ".join(repr(n) for n in names)

    # -- inspection -------------------------------------------------------------------
    def _signature_defaults(self) -> list:
        rest = list(self._sig.parameters.values())[len(self.input_signature):]
        return [() if p.kind is p.VAR_POSITIONAL else {} if p.kind is p.VAR_KEYWORD
                else p.default for p in rest]

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The trace for these arguments (arrays, NumPy values or TensorSpecs)."""
        if self.input_signature is not None:
            with self._lock:
                if not self._concrete:
                    traced = tuple(self.input_signature) + tuple(self._signature_defaults())
                    key = tuple(key_of(s, []) for s in traced)
                    self._trace(key, traced)
            return self._concrete[0]
        if kwargs or len(args) != self._nparams or not self._simple:
            args = self._bind(args, kwargs)
        leaves: list = []
        key = tuple([key_of(a, leaves) for a in args])
        if has_aliases(leaves):
            key, _ = mark_aliases(key, leaves)
        cf = self._cache.get(key)
        return cf if cf is not None else self._lookup_or_trace(key, args)

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(cf.pretty_printed_signature() for cf in self._concrete)

    @property
    def concrete_functions(self) -> list[ConcreteFunction]:
        return list(self._concrete)

    def __repr__(self) -> str:
        return f"<ag.Function {self.__name__}: {self.tracing_count} traces>"

    # -- copying and pickling -----------------------------------------------------------
    def __deepcopy__(self, memo) -> "Function":
        """A Function of the same Python function and options, with its own (empty) trace
        cache: traces hold locks and compiled code, and a copy retraces on first use."""
        copied = Function(self.python_function, input_signature=self.input_signature,
                          autograph=self._autograph, reduce_retracing=self._reduce_retracing,
                          converter=self._converter, optimize=self.optimize,
                          jit_compile=self.jit_compile, parallel=self.parallel)
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        """Pickled by reference, as Python pickles functions: the module and qualified name
        of the decorated function, which must lead back to this very Function."""
        return reference_to(self, self.python_function)


class BoundFunction:
    """A Function accessed through an instance: `self` is the first argument."""

    __slots__ = ("function", "instance")

    def __init__(self, function: Function, instance):
        self.function = function
        self.instance = instance

    def __call__(self, *args, **kwargs):
        return self.function(self.instance, *args, **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return self.function.get_concrete_function(self.instance, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.function, name)


def function(fn=None, *, input_signature=None, autograph: bool = True,
             reduce_retracing: bool = False, optimize: bool = True, converter=None,
             jit_compile: bool = False, parallel: bool = True):
    """Decorator: trace `fn` into graphs per input signature (without AST conversion).
    `parallel=False`: the generated code runs every node on the calling thread."""
    def wrap(f):
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, optimize=optimize, converter=converter,
                        jit_compile=jit_compile, parallel=parallel)

    return wrap(fn) if fn is not None else wrap


__all__ = ["Function", "ConcreteFunction", "BoundFunction", "TensorSpec", "RetracingWarning",
           "function", "run_functions_eagerly", "functions_run_eagerly", "GraphModeError"]
