"""`Function`: a Python function traced into graphs, one per input signature.

    call ─► bind args ─► cache key ─► hit: run the compiled graph
                                    └► miss (under a lock): trace ─► compile ─► cache

A `ConcreteFunction` (concrete.py) is one trace: its graph, the generated Python
executor and the key it serves. See `signature.py` for the key rules. A trace that
reads Python state (`self`, globals, closures) holds guards on it: when they no longer
hold, the Function uses another trace of the same key or traces again, reading the
places that changed as inputs (`state/python_state.py`).
"""
from __future__ import annotations

import collections
import functools
import inspect
import threading
import weakref
from operator import attrgetter

import numpy as np

from runtime.core.errors import GraphModeError
from runtime.frontend.binder import binder_for
from runtime.frontend.call_path import atom_kinds, make_entry
from runtime.frontend.pickling import reference_to
from runtime.frontend.signature import (
    TensorSpec, generalize, has_aliases, has_unknown_dims,
    key_fits, key_of, mark_aliases, weak_keys,
)
from runtime.state.after_error import NO_PYTHON, effects_before_failure, raised_by_python_code
from runtime.state.python_state import liftable_after_change
from runtime.frontend.concrete import ConcreteFunction
from runtime.frontend.modes import (  # noqa: F401  (re-exported: runtime.frontend.function's names)
    RetracingWarning, _run_eagerly, functions_run_eagerly, run_functions_eagerly,
)
from runtime.frontend.retracing import note_trace, warn_trace_limit
from runtime.frontend.trace import trace_signature
from runtime.frontend.trace_args import check_nested, method_offset


_ndarray = np.ndarray
_new_partial = functools.partial.__new__


# traces one Function keeps before new signatures run as plain Python (as
# torch.compile's cache_size_limit); `max_traces=None` on a Function lifts it
DEFAULT_MAX_TRACES = 8


class Function:
    """A polymorphic traced function (what `@ag.function` returns)."""

    has_python_code = True  # False for a loaded function: nothing to run again after an error
    # its own public attributes: any other one without a leading underscore was set by
    # the program (`f.last = y` inside `f`), searched for symbolic values after a trace
    __ag_own_attributes__ = frozenset({"python_function", "input_signature", "jit_compile",
                                       "max_traces", "optimize", "parallel", "tracing_count"})

    def __init__(self, python_function, input_signature=None, autograph: bool = True,
                 reduce_retracing: bool = False, converter=None, optimize: bool = True,
                 jit_compile: bool = False, parallel: bool = True,
                 max_traces: int | None = DEFAULT_MAX_TRACES):
        if max_traces is not None and (not isinstance(max_traces, int) or max_traces < 1):
            raise ValueError(f"max_traces must be a positive int or None, got {max_traces!r}")
        self.max_traces = max_traces  # traces kept; new signatures beyond it run eagerly
        self._limit_warned = False
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
        self._last = self._last_typed = None  # the call path's last parts and trace
        self._relaxed: list[ConcreteFunction] = []
        self._concrete: list[ConcreteFunction] = []
        self._lock = threading.RLock()
        self._watchers: dict = {}  # id(object keyed weakly) -> weakref with a callback
        self._calls = 0
        self._trace_calls: collections.deque = collections.deque(maxlen=5)
        self._warned = False
        self._dynamic: dict[str, bool] = {}  # state places read as inputs (python_state)
        self._written: set[str] = set()      # state places a trace wrote
        self._appended: set[str] = set()     # state lists a trace appended to
        self._helper_globals: dict = {}      # key -> (globals, names) helpers read
        self._static: set[str] = set()       # changed places a trace needs as Python values
        self._read_lists: set[str] = set()   # appended-to lists a trace also reads
        self._by_state: dict = {}            # key -> traces of it for other Python state
        self._state_changes: collections.deque = collections.deque(maxlen=5)
        self.tracing_count = 0
        self.input_signature = None
        self._binder = binder_for(python_function, self._sig)
        self._identity_parts: dict = {}  # id(object) -> its key part (`identity_part`)
        self._float_parts: dict = {}  # float -> its key part (the fast path's)
        self._spec_offset = 0  # 1 for a method: `self` is not in the input_signature
        self._specs = None  # per parameter: (key part, (dtype, shape)s that fit) or None
        if input_signature is not None:
            self.input_signature = list(input_signature)
            self._spec_offset = method_offset(self._params, len(self.input_signature))
            if len(self.input_signature) + self._spec_offset > self._nparams:
                raise TypeError(f"{self.__name__} takes {self._nparams} arguments but "
                                f"input_signature has {len(self.input_signature)} entries")
            if all(type(s) is TensorSpec for s in self.input_signature):
                specs = [None] * self._nparams
                for i, s in enumerate(self.input_signature):
                    specs[self._spec_offset + i] = ((s.dtype, s.shape), set())
                self._specs = specs
        self._entry_kinds = None  # set at the first trace (`call_path.atom_kinds`)
        self._entry = make_entry(self)

    # -- calling ----------------------------------------------------------------------
    # `f(...)` runs the call path generated for this Function (call_path.make_entry),
    # read here without a Python frame of its own
    __call__ = property(attrgetter("_entry"))

    def _call_nested(self, args):
        """A call (one argument per parameter) in eager mode, or inside another trace:
        the original function, or the converted one traced through (inlined)."""
        fn = self.python_function if _run_eagerly[0] else self._traceable()
        return self._call_canonical(fn, args)

    def _call_bound(self, args):
        """A call with one argument per parameter (bound by `_bind`), not eager."""
        if self.input_signature is not None:
            return self._call_with_signature(args)
        self._calls += 1
        leaves: list = []
        key = tuple([key_of(a, leaves) for a in args])
        if has_aliases(leaves):  # the same array passed twice: one graph input for both
            key, leaves = mark_aliases(key, leaves)
        return self._run_key(key, leaves, args, args)

    def _run_key(self, key, leaves, args, original):
        """Run the trace for `key` (tracing it if new); past the trace limit, the Python
        function on the `original` arguments."""
        cf = self._cache.get(key)
        if cf is None:
            try:
                cf = self._lookup_or_trace(key, args)
            except Exception as e:
                self._trace_failed(e, original)
                raise
            if cf is None:  # the trace limit is reached: this signature runs as Python
                return self._call_canonical(self.python_function, original)
        if cf.state is not None:
            return self._run_stateful(cf, key, leaves, args, original)
        return cf._run(leaves, args, original=original)

    def _run_stateful(self, cf, key, leaves, args, original=None):
        ins = cf.state.enter(args)
        if ins is None:
            try:
                cf, ins = self._retrace_for_state(cf, key, args)
            except Exception as e:
                self._trace_failed(e, args if original is None else original)
                raise
            if cf is None:  # the trace limit is reached: this call runs as Python
                return self._call_canonical(self.python_function, args)
        return cf._run(leaves, args, ins, original)

    def _trace_failed(self, error: Exception, args) -> None:
        """Tracing for a call with arguments `args` raised `error`: when Python raises it
        too, the writes the function makes before it are done, as in Python."""
        if raised_by_python_code(error):
            effects_before_failure(
                lambda: self._call_canonical(self.python_function, args), error,
                self.__name__, None if self.has_python_code else NO_PYTHON)

    def _retrace_for_state(self, cf, key, args):
        """The Python state a trace read changed: use another trace of this key whose
        guards hold, or trace again, reading the places that changed as inputs."""
        with self._lock:
            for other in self._by_state.get(key, ()):
                ins = other.state.enter(args) if other.state is not None else []
                if ins is not None:
                    self._cache[key] = other
                    self._last = self._last_typed = None
                    return other, ins
            if self._at_trace_limit():
                # (the changed places name themselves in the warning, given once: a
                # call past the limit runs as Python without evaluating each guard)
                if not self._limit_warned:
                    warn_trace_limit(self, ", ".join(
                        label for label, _ in cf.state.failing(args)))
                return None, None
            changed = cf.state.failing(args)
            lifted = []
            for _, expr in changed:
                try:
                    value = cf.state.value_at(expr, args)
                except Exception:  # the place is gone
                    continue
                if expr not in self._dynamic and expr not in self._static and \
                        liftable_after_change(value, expr in self._written):
                    self._dynamic[expr] = expr in self._written
                    lifted.append(expr)
            try:
                new = self._trace(key, args)
            except Exception:
                if not lifted:
                    raise
                # code that needs the changed values as Python values (np.asarray(lr),
                # a shape): they stay constants of each trace, guarded by value
                for expr in lifted:
                    del self._dynamic[expr]
                    self._static.add(expr)
                new = self._trace(key, args)
            if self.input_signature is not None:
                self._concrete.remove(new)
                self._concrete.insert(0, new)
            self._cache[key] = new
            self._last = self._last_typed = None
            self._state_changes.append(", ".join(label for label, _ in changed))
            note_trace(self, key)
            ins = new.state.enter(args) if new.state is not None else []
            if ins is None:
                raise RuntimeError(f"{self.__name__}: internal error: the Python state "
                                   "changed during the trace that just ended")
            return new, ins

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _new_partial(BoundFunction, self._entry, instance)

    def _bind(self, args, kwargs) -> tuple:
        """One value per parameter, bound by Python itself (`binder.make_binder`): a bad
        call raises Python's own TypeError, as calling the function would."""
        try:
            return self._binder(*args, **kwargs)
        except TypeError as e:
            raise e.with_traceback(None) from None

    def _signature_key(self, args) -> tuple:
        """(key, array leaves, checked args) for a call under input_signature: arguments
        with an entry are keyed by their spec (one trace for all of them), the others
        (`self`, Python values after the signature) by value, as without a signature."""
        first, specs = self._spec_offset, self.input_signature
        key, leaves, checked = [], [], list(args)
        for i, a in enumerate(args):
            if first <= i < first + len(specs):
                checked[i], part = check_nested(self.__name__, self._params[i],
                                                specs[i - first], a)
                key_of(checked[i], leaves)
                key.append(part)
            else:
                key.append(key_of(a, leaves))
        return tuple(key), leaves, tuple(checked)

    def _call_with_signature(self, args):
        key, leaves, checked = self._signature_key(args)
        if self._specs is not None:  # remember the (dtype, shape) of arrays that fit
            for a, spec in zip(args, self._specs):
                if spec is not None and type(a) is _ndarray and len(spec[1]) < 64:
                    spec[1].add((a.dtype, a.shape))
        return self._run_key(key, leaves, checked, args)

    # -- tracing ----------------------------------------------------------------------
    def _lookup_or_trace(self, key, args, limited: bool = True):
        """The trace serving `key`, traced now if needed; None when a new trace would
        pass `max_traces` (the caller runs the call eagerly)."""
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
            if limited and self._at_trace_limit():
                warn_trace_limit(self, "", key)
                return None
            cf = self._trace(trace_key, args)
            if any(has_unknown_dims(p) for p in trace_key):
                self._relaxed.append(cf)  # serves every call whose shapes fit
            self._cache[key] = cf
            self._watch(key)
            note_trace(self, key)
            if self.tracing_count == 1 and self._entry_kinds is None:
                # the first call passed a str / int / bool / None where no default is,
                # or arrays in *args / one option in **kwargs: the typical branch of the
                # call path serves such calls too (generated once more)
                self._entry_kinds = atom_kinds(self, key) or {}
                if self._entry_kinds:
                    self._entry = make_entry(self, self._entry_kinds)
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
            self._last = self._last_typed = None
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
        return trace_signature(self, key, args)

    def _at_trace_limit(self) -> bool:
        # every live trace counts, those kept per Python state too (`_by_state`)
        return self.max_traces is not None and len(self._concrete) >= self.max_traces

    # -- inspection -------------------------------------------------------------------
    def _signature_defaults(self) -> list:
        rest = list(self._sig.parameters.values())[
            self._spec_offset + len(self.input_signature):]
        return [() if p.kind is p.VAR_POSITIONAL else {} if p.kind is p.VAR_KEYWORD
                else p.default for p in rest]

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The trace for these arguments (arrays, NumPy values or TensorSpecs)."""
        if self.input_signature is not None:
            # the specs themselves stand for the arguments not given (`self` must be)
            first, specs = self._spec_offset, self.input_signature
            given = len(args)
            args = list(args) + list(specs[max(0, given - first):])
            if len(args) < self._nparams and not kwargs:
                args += self._signature_defaults()[max(0, given - first - len(specs)):]
            args = self._bind(tuple(args), kwargs)
            key, _, checked = self._signature_key(args)
            return self._lookup_or_trace(key, checked, limited=False)
        if kwargs or len(args) != self._nparams or not self._simple:
            args = self._bind(args, kwargs)
        leaves: list = []
        key = tuple([key_of(a, leaves) for a in args])
        if has_aliases(leaves):
            key, _ = mark_aliases(key, leaves)
        cf = self._cache.get(key)
        # asked for explicitly: traced even past max_traces
        return cf if cf is not None else self._lookup_or_trace(key, args, limited=False)

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
                          jit_compile=self.jit_compile, parallel=self.parallel,
                          max_traces=self.max_traces)
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        """Pickled by reference, as Python pickles functions: the module and qualified name
        of the decorated function, which must lead back to this very Function."""
        return reference_to(self, self.python_function)


class BoundFunction(functools.partial):
    """A Function accessed through an instance: `self` is the first argument. A
    `functools.partial` of the Function's call path, so calling it adds no frame."""

    __slots__ = ()

    def __new__(cls, function: Function, instance):
        return _new_partial(cls, function._entry, instance)

    @property
    def function(self) -> Function:
        return self.func.function

    @property
    def instance(self):
        return self.args[0]

    def get_concrete_function(self, *args, **kwargs):
        return self.function.get_concrete_function(self.instance, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.function, name)

    def __reduce__(self):
        return BoundFunction, (self.function, self.instance)

    def __repr__(self) -> str:
        return f"<bound {self.function!r} of {self.instance!r}>"


def function(fn=None, *, input_signature=None, autograph: bool = True,
             reduce_retracing: bool = False, optimize: bool = True, converter=None,
             jit_compile: bool = False, parallel: bool = True,
             max_traces: int | None = DEFAULT_MAX_TRACES):
    """Decorator: trace `fn` into graphs per input signature (without AST conversion).
    `parallel=False`: the generated code runs every node on the calling thread.
    `max_traces`: traces kept before new signatures run as plain Python (None: no limit)."""
    def wrap(f):
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, optimize=optimize, converter=converter,
                        jit_compile=jit_compile, parallel=parallel, max_traces=max_traces)

    return wrap(fn) if fn is not None else wrap


__all__ = ["Function", "ConcreteFunction", "BoundFunction", "TensorSpec", "RetracingWarning",
           "function", "run_functions_eagerly", "functions_run_eagerly", "GraphModeError"]
