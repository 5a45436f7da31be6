"""The Python-values copy of a compiled converted function: its statements as written.

Converted code mostly runs where no trace is being built on any thread (`autograph
convert`'s modules, `ag.to_graph`, a function called before or between traces). There
nothing is symbolic, so every question the converted code asks of its values has a known
answer: each dual-path `if` / `while` / `for` and `and` / `or` / `not` / conditional
expression takes its Python path, each fast path of `fast_paths.py` its inline path, each
`try` its Python form. Yet the statements still ask, at each iteration: a subscript read
pays a test of the tracing cell, an `if` a handler check, a `for` a temporary, a call
its call site. So a converted function asks once, where it starts, and then runs a copy
of its body with the answers taken in (`fast_tests.compile_tests` for the compiled
function, `impl/module_paths.py` for the module `autograph convert` writes, which tests
`ag__.tracing_anywhere` and puts the converted body in a nested function after the copy):

    def f(xs):                          def f(xs):
        <converted body>          =>        if not ag__tracing:       # no trace anywhere
                                                <the body, Python paths only>
                                            else:
                                                <converted body>

The copy is the converted body with the tracing cell read as False and folded
(`tracing and x` is False, `not tracing or x` True, ...), each dual-path statement or
expression replaced by its inline Python form (`dual_path.py`, `logical_expressions.dual`)
and each `try`'s graph switch by its Python form (the shapes it knows: `copy_forms.py`).
What remains is the user's statement: its test evaluated once, by Python's own jump, in
Python's order; each call calls the callee as written (`ag__.converted(f)` and a compiled
call site, `fast_paths`, answer `f` or its converted version, which mean the same on
values that cannot be symbolic). Nested functions,
lambdas, classes and generator expressions are left as converted (they may run later,
inside a trace); a function that is a generator or coroutine has no copy (its frame may
be resumed inside a trace). A trace started by a callee ends before the callee returns,
and a symbolic value never outlives its trace, so the answer holds for the whole frame.
`ag.to_code` shows the converted body alone.
"""
from __future__ import annotations

import gast

from autograph.converters.fast_paths import _AUGMENTED as AUGMENTED
from autograph.converters.fast_paths import TRACING_CELL, is_array_guard
from autograph.converters.copy_forms import (constant, dual_test, inline_expr, inline_for,
                                              inline_if, is_class_check, is_name,
                                              is_ops_call, is_stop, is_symbolic_check,
                                              nested, written_assert, written_chain,
                                              written_array, written_introspection,
                                              written_print, written_unbinding)
from autograph.pyct import anno, templates

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
           gast.GeneratorExp)


def python_copy(node, ctx, module: bool = False):
    """The Python-values copy of `node`'s converted body, for `install` to place once
    the body has its compiled form; None when it would not differ or `node` may be
    resumed inside a trace. `module`: a module `autograph convert` writes, where the
    test is `ag__.tracing_anywhere` (`impl/module_paths.py`); else the compiled
    function, whose tracing cells `fast_paths` made."""
    kinds = anno.get(node, anno.KINDS, None)  # (the source's node classes: None unknown)
    if not isinstance(node, gast.FunctionDef):
        return None
    body = node.body
    head = [s for s in body if isinstance(s, (gast.Global, gast.Nonlocal))]
    if (kinds is None or kinds & _DECLARATION_KINDS) and _declarations(body) > len(head) or \
            (kinds is None or kinds & _SUSPEND_KINDS) and _has(body, _SUSPENDS):
        # (a declaration inside a block, which would follow a use in the copy; or a
        # generator)
        return None
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
            and isinstance(body[0].value.value, str):
        head = body[:1] + head  # (the docstring stays the function's)
    ops = ctx.out.ops_name
    # (the names `fast_paths` gave its tracing cells: names of that prefix are the
    # compiler's, as `fast_tests` takes them too)
    cells = set() if module else {n for n in ctx.namer.used if n.startswith(TRACING_CELL)}
    folder = _Folder(ops, cells, module)
    plain = folder.block([s for s in body if not any(s is h for h in head)])
    if not folder.changed:
        return None
    return head, plain, sorted(cells)[0] if cells else f"{ops}.tracing_anywhere"


_SUSPEND_KINDS = frozenset({"Yield", "YieldFrom", "Await"})
_DECLARATION_KINDS = frozenset({"Global", "Nonlocal"})


def _declarations(body: list) -> int:
    """How many `global` / `nonlocal` statements the function's own scope has."""
    declarations = 0
    stack = list(body)
    while stack:
        s = stack.pop()
        t = type(s)
        if t in _SCOPE_TYPES:
            continue
        if t in _DECLARATIONS:
            declarations += 1
        d = s.__dict__
        for field in s._fields:
            v = d.get(field)
            if type(v) is list and v and isinstance(v[0], (gast.stmt, gast.excepthandler,
                                                             gast.match_case)):
                stack.extend(v)
    return declarations


def _has(body: list, types: frozenset) -> bool:
    """Whether the function's own scope has a node of one of `types`."""
    stack = list(body)
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        t = type(n)
        if t in types:
            return True
        if t in _SCOPE_TYPES:
            continue
        d = n.__dict__
        for field in n._fields:
            v = d.get(field)
            if type(v) is list:
                for item in v:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(v, _AST):
                push(v)
    return False


_AST = gast.AST
_SUSPENDS = frozenset({gast.Yield, gast.YieldFrom, gast.Await})
_DECLARATIONS = frozenset({gast.Global, gast.Nonlocal})
_SCOPE_TYPES = frozenset(_SCOPES)


def install(node, copy) -> None:
    """`node`'s body as `if not <tracing>: <copy> else: <its compiled body>`."""
    head, plain, tracing = copy
    traced = [s for s in node.body if not any(s is h for h in head)]
    node.body = head + templates.replace(
        f"if not {tracing}:\n    plain\nelse:\n    traced", origin=node,
        plain=plain or [gast.Pass()], traced=traced)
    anno.set_(node.body[-1], anno.COPY, True)


def without_copy(body: list) -> list:
    """A function body `install` gave a copy, with its compiled body alone in the copy's
    place (for code that runs only while a trace is being built)."""
    return [t for s in body for t in (s.orelse if anno.get(s, anno.COPY, False) else [s])]


class _Folder:
    """Folds a converted block into its Python-values form. Copy on write: a part with
    nothing to fold is the converted body's own node, shared (no pass changes a node in
    place once the copy is made, and what is shared holds no form the passes rewrite:
    user code, and nested scopes, which take the same compiled form in both places);
    every node with a folded part is new."""

    def __init__(self, ops: str, cells: set, module: bool):
        # (`module`: the copy stands in a frame that holds the user's variables alone, as
        # `autograph convert` writes it, where `locals()` and `eval` may run as written)
        self.ops, self.cells, self.changed, self.module = ops, cells, False, module

    # statements
    def block(self, stmts: list) -> list:
        out: list = []
        k = 0
        while k < len(stmts):
            s = stmts[k]
            following = stmts[k + 1] if k + 1 < len(stmts) else None
            if following is not None and self._evaluatesdual_test(s, following):
                out.extend(self._dual_if(following, s.value))
                k += 2
                continue
            if following is not None and self._feeds_loop(s, following):
                out.extend(self._dual_for(following, s.value))
                k += 2
                continue
            out.extend(self.stmt(s))
            k += 1
        return out

    def stmt(self, s) -> list:
        if isinstance(s, _SCOPES):
            return [s]
        if isinstance(s, gast.If):
            if anno.get(s, anno.TRY_SWITCH, False):
                self.changed = True
                return self.block(s.orelse)
            if dual_test(s.test, self.ops) is not None and inline_if(s) is not None:
                return self._dual_if(s, None)
            test = self.expr(s.test, test=True)
            if isinstance(test, gast.Constant) and test is not s.test:
                return self.block(s.body if test.value else s.orelse)
            body, orelse = self.block(s.body) or [gast.Pass()], self.block(s.orelse)
            if test is s.test and _same(body, s.body) and _same(orelse, s.orelse):
                return [s]
            return [_shallow(s, test=test, body=body, orelse=orelse)]
        if isinstance(s, (gast.Assign, gast.Expr)):
            unbound = written_unbinding(s, self.ops)
            if unbound is not None:
                self.changed = True
                return unbound
            store = self._item_store(s)
            if store is not None:
                return self.stmt(store)
            written = written_assert(s, self.ops)
            if written is not None:  # (its message is a closure no more)
                self.changed = True
                return self.stmt(written)
        if isinstance(s, gast.While):
            loop = self._dual_while(s)
            if loop is not None:
                return [loop]
        if isinstance(s, gast.With):
            tried = self._try_wrapper(s)
            if tried is not None:
                return tried
        fields = {}
        for field, value in _fields(s):
            if isinstance(value, list) and value and isinstance(value[0], gast.stmt):
                new = self.block(value) or [gast.Pass()]
                if not _same(new, value):
                    fields[field] = new
            elif isinstance(value, list):
                new = [self._part(v) for v in value]
                if not _same(new, value):
                    fields[field] = new
            elif isinstance(value, gast.AST):
                new = self._part(value)
                if new is not value:
                    fields[field] = new
        return [_shallow(s, **fields) if fields else s]

    def _part(self, v):
        """`v`, a part of a statement that is not a block, folded."""
        if isinstance(v, gast.expr):
            return self.expr(v, test=False)
        if isinstance(v, (gast.ExceptHandler, gast.match_case)):
            fields = {"body": self.block(v.body) or [gast.Pass()]}
            if isinstance(v, gast.match_case) and v.guard is not None:
                fields["guard"] = self.expr(v.guard, test=False)
            guard = getattr(v, "guard", None)
            if _same(fields["body"], v.body) and fields.get("guard", guard) is guard:
                return v
            return _shallow(v, **fields)
        if isinstance(v, gast.withitem):
            manager = self.expr(v.context_expr, test=False)
            if is_ops_call(manager, self.ops, "with_manager") and len(manager.args) == 1 \
                    and not manager.keywords:
                self.changed = True  # (the manager itself outside traces)
                manager = manager.args[0]
            return v if manager is v.context_expr else _shallow(v, context_expr=manager)
        return v

    def _item_store(self, s):
        """An item store of `slices` as written: outside traces `ag__.setitem` stores in
        place and returns its target, and a nested one's outer store is not made
        (`operators/variables.py`):

            x = ag__.setitem(x, i, v)                                   x[i] = v
            x = ag__.setitem(x, i, ag__.setitem(x[i], j, v, '+='),  =>   x[i][j] += v
                             nested=True)
            ag__.setitem_attr(obj, 'a', i, v)                           obj.a[i] = v
        """
        call = s.value
        if isinstance(s, gast.Expr):
            if not (is_ops_call(call, self.ops, "setitem_attr") and not call.keywords and
                    len(call.args) in (4, 5) and isinstance(call.args[1], gast.Constant)
                    and isinstance(call.args[1].value, str)):
                return None
            base = gast.Attribute(value=call.args[0], attr=call.args[1].value,
                                  ctx=gast.Load())
            return self._store(s, base, call.args[2:])
        if not (len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
                is_ops_call(call, self.ops, "setitem") and
                is_name(call.args[0] if call.args else None, s.targets[0].id)):
            return None
        while nested(call):
            call = call.args[2]
            if not is_ops_call(call, self.ops, "setitem"):
                return None
        if call.keywords:
            return None
        return self._store(s, call.args[0], call.args[1:])

    def _store(self, s, base, args: list):
        """`base[index] = value` / `base[index] op value` for `args` (index, value, op)."""
        if not (len(args) in (2, 3) and not any(isinstance(a, gast.Starred) for a in args)):
            return None
        op = args[2].value if len(args) == 3 and isinstance(args[2], gast.Constant) else None
        if len(args) == 3 and op not in AUGMENTED:
            return None
        self.changed = True
        target = gast.Subscript(value=base, slice=args[0], ctx=gast.Store())
        store = gast.AugAssign(target=target, op=AUGMENTED[op](), value=args[1]) if op \
            else gast.Assign(targets=[target], value=args[1], type_comment=None)
        return templates.copy_location(gast.copy_location(store, s), s)

    def _evaluatesdual_test(self, s, following) -> bool:
        """`cond = test` (generated) right before the dual-path `if` testing it."""
        return isinstance(s, gast.Assign) and anno.get(s, anno.DUAL, False) and \
            len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
            isinstance(following, gast.If) and \
            dual_test(following.test, self.ops) == s.targets[0].id and \
            inline_if(following) is not None

    def _dual_if(self, s, test):
        """The inline `if` of a dual-path one, testing `test` (None: the name it tests)."""
        self.changed = True
        inline = inline_if(s)
        return self.stmt(inline if test is None else _shallow(inline, test=test))

    def _dual_while(self, s):
        """`while (cond := test).__class__ is bool or not ag__.symbolic(cond): if not
        cond: break ... else: <functional>` as `while test: ...`."""
        t = s.test
        if not (isinstance(t, gast.BoolOp) and isinstance(t.op, gast.Or) and
                len(t.values) == 2 and is_class_check(t.values[0])):
            return None
        named = t.values[0].left.value
        if not (isinstance(named, gast.NamedExpr) and isinstance(named.target, gast.Name)):
            return None
        cond = named.target.id
        if not (is_symbolic_check(t.values[1], cond, self.ops) and s.body and
                is_stop(s.body[0], cond)):
            return None
        self.changed = True
        loop = gast.While(test=self.expr(named.value, test=True),
                          body=self.block(s.body[1:]) or [gast.Pass()], orelse=[])
        return gast.copy_location(loop, s)

    def _feeds_loop(self, s, following) -> bool:
        """`iterable = source` right before the dual-path `for` over it."""
        return isinstance(s, gast.Assign) and len(s.targets) == 1 and \
            isinstance(s.targets[0], gast.Name) and isinstance(following, gast.If) and \
            inline_for(following, s.targets[0].id, self.ops, self.cells) is not None

    def _dual_for(self, s, source):
        self.changed = True
        return self.stmt(_shallow(inline_for(s, None, self.ops, self.cells), iter=source))

    def _try_wrapper(self, s):
        """`with ag__.try_stmt(...) as t: try: with t.body(): body ...` (`control_flow.
        _guard_body`: no graph operations to watch outside traces) as the `try`."""
        if not (len(s.items) == 1 and is_ops_call(s.items[0].context_expr, self.ops,
                                                   "try_stmt") and len(s.body) == 1 and
                isinstance(s.body[0], gast.Try) and
                isinstance(s.items[0].optional_vars, gast.Name)):
            return None
        t, name = s.body[0], s.items[0].optional_vars.id
        inner = t.body[0] if len(t.body) == 1 else None
        if not (isinstance(inner, gast.With) and len(inner.items) == 1 and
                inner.items[0].optional_vars is None):
            return None
        call = inner.items[0].context_expr
        if not (isinstance(call, gast.Call) and not call.args and not call.keywords and
                isinstance(call.func, gast.Attribute) and call.func.attr == "body" and
                is_name(call.func.value, name)):
            return None
        self.changed = True
        return self.stmt(_shallow(t, body=inner.body))

    # expressions
    def expr(self, e, test: bool):
        """`e` folded (`e` itself when nothing in it folds); `test`: only its truth
        matters."""
        if isinstance(e, _SCOPES):
            return e
        written = anno.get(e, anno.AS_WRITTEN, None)
        if written is not None:  # (a compiled method call: `fast_paths`)
            self.changed = True
            return self.expr(written, test)
        if isinstance(e, gast.Name):
            if e.id in self.cells and isinstance(e.ctx, gast.Load):
                self.changed = True
                return constant(False, e)
            return e
        if isinstance(e, gast.Attribute) and e.attr == "tracing_anywhere" and \
                is_name(e.value, self.ops):
            self.changed = True
            return constant(False, e)
        if isinstance(e, gast.IfExp):
            inline = inline_expr(e, self.ops)
            if inline is not None:
                self.changed = True
                return self.expr(inline, test)
            if is_array_guard(e.test, self.ops) and is_ops_call(e.orelse, self.ops,
                                                                 "array_item"):
                self.changed = True  # (`slices`: an array's item read as written outside
                return self.expr(e.body, test)  # traces, as the compiled form reads it)
            cond = self.expr(e.test, test=True)
            if isinstance(cond, gast.Constant) and cond is not e.test:
                return self.expr(e.body if cond.value else e.orelse, test)
            body, orelse = self.expr(e.body, test), self.expr(e.orelse, test)
            if cond is e.test and body is e.body and orelse is e.orelse:
                return e
            return _shallow(e, test=cond, body=body, orelse=orelse)
        if isinstance(e, gast.BoolOp):
            return self._bool_op(e, test)
        if isinstance(e, gast.Call):  # (lazy arguments: closures no more)
            f = e.func
            written = None
            if f.__class__ is gast.Attribute:  # (one look at the name first: most calls
                shape = _WRITTEN.get(f.attr)   # are none of these)
                written = shape(e, self.ops) if shape is not None else None
            elif self.module and f.__class__ is gast.Call:
                written = written_introspection(e, self.ops)
            if written is not None:
                self.changed = True
                return self.expr(written, test)
        if isinstance(e, gast.Call):  # the callee as written: outside traces `converted`
            callee = _callee(e.func, self.ops)  # answers it or its converted version,
            if callee is not None:  # which means the same on Python values
                self.changed = True
                e = _shallow(e, func=callee)
            if is_ops_call(e, self.ops, "array_item") and len(e.args) == 2 and \
                    not e.keywords and not any(isinstance(a, gast.Starred) for a in e.args):
                self.changed = True  # (the item read as written: `slices`' `slice(a, b)`
                item = gast.Subscript(value=e.args[0], slice=e.args[1],  # key means `a:b`)
                                      ctx=gast.Load())
                return self.expr(gast.copy_location(item, e), test)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.Not):
            operand = self.expr(e.operand, test=True)
            if isinstance(operand, gast.Constant) and operand is not e.operand:
                return constant(not operand.value, e)
            return e if operand is e.operand else _shallow(e, operand=operand)
        return self._inside(e)

    def _inside(self, v):
        """`v` with the expressions in it folded (`v` itself when none folds)."""
        fields = {}
        for field, value in _fields(v):
            if isinstance(value, list):
                new = [self._inner(x) for x in value]
                if not _same(new, value):
                    fields[field] = new
            elif isinstance(value, gast.AST):
                new = self._inner(value)
                if new is not value:
                    fields[field] = new
        return _shallow(v, **fields) if fields else v

    def _inner(self, v):
        if isinstance(v, gast.expr):
            return self.expr(v, test=False)
        return self._inside(v) if isinstance(v, gast.AST) else v

    def _bool_op(self, e, test: bool):
        deciding = isinstance(e.op, gast.Or)  # the constant that decides the whole
        values = [self.expr(v, test=True if test else False) for v in e.values]
        # a leading constant decides or drops out; a trailing one only where truth matters
        # (a constant of the user's own is folded as Python would: it is never shared)
        while values and isinstance(values[0], gast.Constant) and \
                isinstance(values[0].value, bool):
            if values[0].value is deciding or len(values) == 1:
                return values[0]
            values.pop(0)
        while test and len(values) > 1 and isinstance(values[-1], gast.Constant) and \
                values[-1].value is (not deciding):
            values.pop()
        if len(values) == 1:
            return values[0]
        return e if _same(values, e.values) else _shallow(e, values=values)


_WRITTEN = {"print_text": written_print, "compare_chain": written_chain,
            "array_": written_array}


def _callee(func, ops: str):
    """The callee a call's `func` routes through `ag__.converted` or a compiled call site
    (`fast_paths`), as written; None for any other."""
    written = anno.get(func, anno.AS_WRITTEN, None)
    if written is not None:
        return written
    if is_ops_call(func, ops, "converted") and len(func.args) == 1 and \
            not func.keywords and not isinstance(func.args[0], gast.Starred):
        return func.args[0]
    return None


def _same(new: list, old: list) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def _shallow(node, **fields):
    """A new node of `node`'s class sharing its fields (and annotations), `fields` set."""
    new = node.__class__.__new__(node.__class__)
    new.__dict__.update(node.__dict__)
    new.__dict__.update(fields)
    return new


def _fields(node) -> list:
    d = node.__dict__
    return [(f, d.get(f)) for f in node._fields]
