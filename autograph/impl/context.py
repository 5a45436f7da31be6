"""The state of one conversion, in three explicit parts (`Context` holds them):

- `FunctionInfo` (immutable): the function being converted - its source and file, its
  qualified name, the free and global names it can see, the options (`recursive`);
- `Scope` (immutable, one per function node - the converted function, then each nested
  `def`): what the converters need to know about the names of the function whose body
  they rewrite (parameters, the names it binds, `global` / `nonlocal` declarations, the
  locals of the defs around it, the variables closures capture). The pipeline builds a
  new one where the facts change (`Scope.of`) and sets `Context.scope`; converters only
  read it;
- `Outputs` (named, mutable): what converters record for later passes and for the
  caller - the calls to list for `to_code`, the lists appended to in loops, the
  assumptions about globals the code relies on, the attribute stand-ins of the control
  flow, the operators module's name in the generated code.
"""
from __future__ import annotations

import builtins
import dataclasses
import types
from dataclasses import dataclass, field
from typing import Any, Mapping

import gast

from autograph.converters import call_trees
from autograph.pyct import activity, anno, blocks
from autograph.pyct.naming import IDENTIFIER, Namer

MISSING = call_trees._MISSING  # a name conversion cannot resolve (decided at run time)
BUILTIN = object()  # in `Outputs.assumed`: the name is not a global (it is the builtin)


@dataclass(frozen=True, eq=False)
class FunctionInfo:
    """The function being converted (`fn` is None for `autograph convert`, which works
    from the file's text)."""

    filename: str
    source: str
    recursive: bool = True          # option: calls go through `ag__.converted`
    qualname: str = ""              # (private names are mangled with the class name)
    fn: Any = None
    freevars: frozenset = frozenset()    # the function's closure variables
    # their current values (to_code only)
    closure: Mapping = field(default_factory=lambda: types.MappingProxyType({}))
    globals: Mapping = field(default_factory=dict)  # the module dict it runs in
    # the source may contain `:=` (cheap text test: only then does finding the names a
    # function binds walk every expression)
    walrus: bool = True

    @classmethod
    def of(cls, fn, filename: str, source: str, recursive: bool) -> FunctionInfo:
        code = getattr(fn, "__code__", None)
        closure = {}
        if code is not None:
            for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:
                    pass  # an empty cell (not assigned yet): nothing to resolve
        return cls(filename=filename, source=source, recursive=recursive,
                   qualname=getattr(fn, "__qualname__", ""), fn=fn,
                   freevars=frozenset(code.co_freevars) if code is not None else frozenset(),
                   closure=types.MappingProxyType(closure),
                   globals=getattr(fn, "__globals__", {}),
                   walrus=":=" in source or not source)


@dataclass(frozen=True)
class Scope:
    """The names of the function node whose body the converters rewrite."""

    params: frozenset = frozenset()
    # names the function binds (not `x` of `x[i] = v` on a global or closure container)
    local: frozenset = frozenset()
    local_defs: frozenset = frozenset()      # its nested `def`s
    global_names: frozenset = frozenset()
    nonlocal_names: frozenset = frozenset()
    self_names: frozenset = frozenset({"self", "cls"})
    enclosing: frozenset = frozenset()       # locals of the defs around a nested def
    captured: frozenset = frozenset()        # locals closures capture (and declared names)
    # what calls in its blocks may rebind (`nonlocal` in nested defs): a
    # `converters/nonlocal_writes.Rebound`, or None
    rebound_by_calls: Any = None

    @property
    def declared(self) -> frozenset:
        return self.global_names | self.nonlocal_names

    @classmethod
    def of(cls, fn_node, walrus: bool, enclosing: frozenset = frozenset()) -> Scope:
        """The scope of a FunctionDef or Lambda node as it is now (its names are found
        from the tree: the jump converters add flags, so it is built again after them)."""
        params = frozenset(a.id for a in _params(fn_node.args))
        args = fn_node.args.args
        self_names = frozenset({"self", "cls"} | ({args[0].id} if args else set()))
        if not isinstance(fn_node, gast.FunctionDef):
            return cls(params=params, local=params, self_names=self_names,
                       enclosing=enclosing)
        glob, nonloc = activity.declared(fn_node)
        return cls(params=params, local=frozenset(activity.bound_names(fn_node, walrus)),
                   local_defs=frozenset(s.name for s in nested_defs(fn_node)),
                   global_names=frozenset(glob), nonlocal_names=frozenset(nonloc),
                   self_names=self_names, enclosing=enclosing,
                   rebound_by_calls=anno.get(fn_node, anno.REBOUND_BY_CALLS, None))

    def with_captured(self, captured) -> Scope:
        return dataclasses.replace(self, captured=frozenset(captured))


@dataclass
class Outputs:
    """What the converters record, by name (writer -> reader)."""

    ops_name: str = "ag__"   # scope rewrites -> every generated `ag__.` (a fresh name when
                             # the user's function uses `ag__` itself), the loader
    assumed: dict = field(default_factory=dict)   # Context.lookup -> the compiled-code
                                                  # cache: global name -> module / BUILTIN
    callees: list = field(default_factory=list)   # call_trees -> to_code (callees listed)
    list_names: set = field(default_factory=set)  # lists -> call_trees (`np.stack(xs)`)
    composite: dict = field(default_factory=dict)  # control flow: `self.x` -> stand-in
    always_live: set = field(default_factory=set)  # control flow: stand-ins are state
    left_alone: list = field(default_factory=list)  # left_alone -> `autograph convert`
                                                    # notes: nested defs kept as Python


class Context:
    """One conversion: the function (`info`), the scope being rewritten (`scope`), what
    the converters record (`out`), and the name generator shared by all of them."""

    def __init__(self, info: FunctionInfo, namer: Namer | None = None):
        self.info = info
        self.namer = namer if namer is not None else \
            Namer(set(IDENTIFIER.findall(info.source)) | {"ag__"})
        self.scope = Scope()
        self.out = Outputs()
        self._first_seen: dict | None = None

    def first_seen(self, name: str) -> int:
        """Where `name` first occurs in the source (orders generated parameter lists)."""
        source = self.info.source
        if self._first_seen is None:
            seen: dict = {}
            for m in IDENTIFIER.finditer(source):
                seen.setdefault(m.group(), m.start())
            self._first_seen = seen
        pos = self._first_seen.get(name)
        if pos is None:
            pos = source.find(name)
        return pos if pos >= 0 else len(source)

    def lookup(self, name: str):
        """What a free name of the function refers to, when the converted code may rely on
        it (`call_trees`): a module bound to a global (`np`) or a builtin no global
        shadows. Everything else - closure variables, other globals, names of enclosing
        scopes - may differ between functions sharing this code object or change later,
        so it is MISSING and decided at run time. The assumptions are recorded in
        `out.assumed`, which the compiled-code cache checks before reusing the code."""
        if name in self.info.freevars or name in self.scope.enclosing:
            return MISSING
        globals_ = self.info.globals
        if name in globals_:
            value = globals_[name]
            if not isinstance(value, types.ModuleType):
                return MISSING
            self.out.assumed[name] = value
            return value
        value = getattr(builtins, name, MISSING)
        if value is not MISSING:
            self.out.assumed[name] = BUILTIN
        return value

    def current_value(self, name: str):
        """What `name` refers to in this function right now (closure, global, builtin):
        for listing the functions it calls (`to_code`), never for generating code."""
        if name in self.info.closure:
            return self.info.closure[name]
        if name in self.info.globals:
            return self.info.globals[name]
        return getattr(builtins, name, MISSING)


def assumptions_hold(assumed: dict, globals_: dict) -> bool:
    """Whether code converted under `assumed` is right for a function with `globals_`."""
    for name, value in assumed.items():
        if value is BUILTIN:
            if name in globals_:
                return False
        elif globals_.get(name, MISSING) is not value:
            return False
    return True


def nested_defs(node) -> list:
    return [n for n in blocks.statements(node.body) if isinstance(n, gast.FunctionDef)]


def _params(args) -> list:
    out = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    out += [a for a in (args.vararg, args.kwarg) if a is not None]
    return out
