"""`load(path)`: a saved function back as a callable, without the Python that made it.

The result is a `LoadedFunction`: a `Function` whose traces are the saved ones, so it
matches arguments, checks input signatures and reports mismatches exactly as the
original did; arguments that need a new trace raise a TypeError listing the saved
signatures (there is no Python code to trace). Its executors are generated from the
loaded graphs by the runtime's own code generator, each on its first call; nothing from
the file is evaluated.
"""
from __future__ import annotations

import gc
import inspect
import os

import numpy as np

from runtime.core.error_index import with_error_index
from runtime.frontend.function import ConcreteFunction, Function
from runtime.saved.container import read
from runtime.saved.decode import GraphDecoder, obj, origin_table, seq
from runtime.saved.format import (
    FORMAT, MAX_FUNCTIONS, VERSION, Decoder, LoadError, check_int, check_shape, check_text,
    parse_dtype,
)
from runtime.frontend.signature import (
    FloatKey, IdentityKey, TensorSpec, describe_part, has_unknown_dims, is_array_part,
)
from runtime.core.structure import LEAF
from runtime.core.tensor import Tensor
from runtime.state.variables import Variable


class LoadedFunction(Function):
    """A Function restored by `load`: its saved traces, and no Python code."""

    variables: tuple = ()
    has_python_code = False

    def _only(self) -> ConcreteFunction:
        if len(self._concrete) != 1:
            raise ValueError(f"{self.__name__} was saved with {len(self._concrete)} traces; "
                             "pick one: loaded.concrete_functions[i].graph (see "
                             "loaded.pretty_printed_concrete_signatures())")
        return self._concrete[0]

    @property
    def graph(self):
        return self._only().graph

    @property
    def optimized_graph(self):
        return self._only().optimized_graph

    @property
    def python_code(self) -> str:
        return self._only().python_code

    def __repr__(self) -> str:
        return f"<ag.LoadedFunction {self.__name__}: {len(self._concrete)} saved traces>"


@with_error_index
def load(path: str | os.PathLike | bytes) -> LoadedFunction:
    """The function saved at `path` by `ag.save`, ready to call without its Python code.

    Loading never executes anything from the file: graphs are rebuilt from their JSON
    description, arrays are read with `allow_pickle=False`.

    Args:
        path: the `.agz` file or directory `ag.save` wrote, or the bytes of a `.agz` file.

    Returns:
        A callable with the saved traces' signatures; a call that fits none of them
            raises. It has `.concrete_functions` and `.graph` of each.

    Raises:
        ag.LoadError: the file is malformed, truncated, altered, too large, or from a
            newer format version; the message says which and where.
        OSError: the file cannot be read.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function(input_signature=[ag.TensorSpec((None,), np.float64)])
        def norm(x):
            return np.sqrt(np.sum(x * x))

        norm(np.array([1.0]))  # -> np.float64(1.0)
        ag.save(norm, "norm.agz")
        ag.load("norm.agz")(np.array([3.0, 4.0]))  # -> np.float64(5.0)
        ```
    """
    collecting = gc.isenabled()
    # a load makes millions of objects and no garbage: the cyclic collector would walk
    # them all again and again (more than half the time of a large load)
    gc.disable()
    try:
        description, arrays = read(path)
        label = "<saved function bytes>" if isinstance(path, (bytes, bytearray)) \
            else os.fspath(path)
        try:
            return _build(description, arrays)
        except LoadError as e:
            raise LoadError(f"{label}: {e}") from None
        except RecursionError:
            raise LoadError(f"{label}: nested too deeply") from None
    finally:
        if collecting:
            gc.enable()


def _build(d: dict, arrays: dict) -> LoadedFunction:
    if d.get("format") != FORMAT:
        raise LoadError(f"not a saved autograph-numpy function (format {str(d.get('format'))[:60]!r})")
    version = d.get("version")
    if type(version) is not int or version < 1:
        raise LoadError(f"bad format version {str(version)[:20]!r}")
    if version > VERSION:
        raise LoadError(f"saved with format version {version}, newer than this autograph-numpy "
                        f"reads (version {VERSION}); upgrade autograph-numpy to load it")
    if version < VERSION:
        raise LoadError(f"saved with format version {version}, which this autograph-numpy "
                        f"no longer reads (it reads version {VERSION}, whose graphs are "
                        "compact lists); save the function again")
    d = obj(d, "file", ("format", "version", "function", "concrete_functions", "variables",
                        "origins"))
    variables = []
    for k, v in enumerate(seq(d["variables"], "variables", 100_000)):
        v = obj(v, f"variable {k}", ("name", "array"))
        name = check_text(v["name"], f"variable {k}: name")
        if v["array"] != f"v{k}" or v["array"] not in arrays:
            raise LoadError(f"variable {k}: its value is not in the archive")
        variables.append(Variable(arrays[v["array"]], name=name))
    values = Decoder({k: a for k, a in arrays.items() if k.startswith("a")}, variables)
    fn = _function(obj(d["function"], "function", ("name", "parameters", "input_signature")))
    fn.variables = tuple(variables)
    cfs = seq(d["concrete_functions"], "concrete_functions", MAX_FUNCTIONS)
    if not cfs:
        raise LoadError("the file holds no traces")
    graphs = GraphDecoder(values, origin_table(d["origins"]))
    for k, c in enumerate(cfs):
        cf = _concrete(fn, c, values, graphs, f"trace {k}")
        fn._concrete.append(cf)
        fn._cache[cf.key] = cf
        if any(has_unknown_dims(p) for p in cf.key):
            fn._relaxed.append(cf)
    if fn.input_signature is not None:
        _check_input_signature(fn)
    fn.tracing_count = len(fn._concrete)
    return fn


def _check_input_signature(fn: LoadedFunction) -> None:
    """A function with an input_signature has one trace, keyed exactly by its specs."""
    if len(fn._concrete) != 1:
        raise LoadError(f"the function has an input_signature but {len(fn._concrete)} traces")
    key = fn._concrete[0].key
    for k, spec in enumerate(fn.input_signature):
        part = key[k]
        if not is_array_part(part) or part[0] != spec.dtype or tuple(part[1]) != spec.shape:
            raise LoadError(f"input_signature entry {k} ({spec}) does not match the trace's "
                            f"key for {fn._params[k]} ({describe_part(part)})")


def _array_parts(part, out: list) -> list:
    """The array parts of a key part, in the order the trace made graph inputs of them."""
    if is_array_part(part):
        out.append(part)
    elif part[0] in (tuple, list) and type(part[1]) is tuple:
        for p in part[1]:
            _array_parts(p, out)
    elif part[0] is dict and type(part[1]) is tuple:
        for _, p in part[1]:
            _array_parts(p, out)
    return out


def _check_key(key: tuple, graph, where: str) -> None:
    """Every argument the key accepts fits the graph's inputs: same count, dtype and rank,
    and a dimension the graph fixes is fixed to the same size by the key (a key with an
    unknown dimension over a graph of a known one would run on the wrong shape)."""
    parts = []
    for p in key:
        _array_parts(p, parts)
    if len(parts) != len(graph.inputs):
        raise LoadError(f"{where}: the key passes {len(parts)} arrays but the graph has "
                        f"{len(graph.inputs)} inputs")
    for k, ((dtype, shape), t) in enumerate(zip(parts, graph.inputs)):
        if np.dtype(t.dtype) != dtype or len(t.shape) != len(shape) or any(
                g is not None and g != d for g, d in zip(t.shape, shape)):
            raise LoadError(f"{where}: input {k} ({t.name}) of the graph is "
                            f"{np.dtype(t.dtype)}{list(t.shape)} but the key accepts "
                            f"{dtype}{list(shape)}")


_KINDS = {k.name: k for k in (inspect.Parameter.POSITIONAL_ONLY,
                              inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
                              inspect.Parameter.VAR_KEYWORD)}


def _function(info: dict) -> LoadedFunction:
    name = check_text(info["name"], "function name", 200)
    params = []
    decoder = Decoder({}, [])
    for k, p in enumerate(seq(info["parameters"], "parameters", 10_000)):
        p = obj(p, f"parameter {k}", ("name", "kind"), ("default",))
        kind = _KINDS.get(p["kind"]) if type(p["kind"]) is str else None
        pname = p["name"]
        if kind is None or type(pname) is not str or not pname.isidentifier() or len(pname) > 200:
            raise LoadError(f"parameter {k} is malformed")
        default = decoder.value(p["default"], f"default of {pname}") if "default" in p \
            else inspect.Parameter.empty
        try:
            params.append(inspect.Parameter(pname, kind, default=default))
        except ValueError as e:
            raise LoadError(f"parameter {k}: {e}") from None
    try:
        signature = inspect.Signature(params)
    except ValueError as e:
        raise LoadError(f"parameters: {e}") from None
    specs = info["input_signature"]
    if specs is not None:
        specs = [TensorSpec(check_shape(obj(s, "input_signature", ("shape", "dtype"))["shape"],
                                        "input_signature"),
                            parse_dtype(s["dtype"], "input_signature"))
                 for s in seq(specs, "input_signature", len(params))]
    holder: list = []

    def saved_only(*args, **kwargs):
        fn = holder[0]
        raise TypeError(
            f"{fn.__name__}() was loaded from a saved graph and has no Python code to trace "
            "these arguments; it was saved for:\n  "
            + fn.pretty_printed_concrete_signatures().replace("\n\n", "\n  ")
            + "\nCall it with matching arguments, or save the function after calling it with "
            "these.")

    saved_only.__name__ = name
    saved_only.__qualname__ = name
    saved_only.__signature__ = signature
    try:
        fn = LoadedFunction(saved_only, input_signature=specs, autograph=False, optimize=False)
    except TypeError as e:
        raise LoadError(f"function: {e}") from None
    holder.append(fn)
    return fn


def _concrete(fn: LoadedFunction, c, values: Decoder, graphs: GraphDecoder, where: str):
    c = obj(c, where, ("key", "results", "writeback", "graph", "optimized_graph"))
    key = tuple(_key_part(p, values, f"{where}: key", 0)
                for p in seq(c["key"], f"{where}: key", 10_000))
    if len(key) != len(fn._params):
        raise LoadError(f"{where}: the key has {len(key)} parts for {len(fn._params)} parameters")
    results = obj(c["results"], f"{where}: results", ("tree", "leaves"))
    tree = _tree(results["tree"], values, f"{where}: results", 0)
    leaves = seq(results["leaves"], f"{where}: results")
    if _count_leaves(tree) != len(leaves):
        raise LoadError(f"{where}: the result structure does not match its leaves")
    writeback = []
    for w in seq(c["writeback"], f"{where}: writeback", 10_000):
        if type(w) is not list or len(w) != 2:
            raise LoadError(f"{where}: writeback entry malformed")
        writeback.append((check_int(w[0], f"{where}: writeback", 0, 10_000),
                          check_text(w[1], f"{where}: writeback")))
    graphs.names = set()
    graph = graphs.graph(c["graph"], f"{where}/graph")
    graphs.names = set()
    optimized = graphs.graph(c["optimized_graph"], f"{where}/optimized_graph")
    for label, g in (("graph", graph), ("optimized_graph", optimized)):
        _check_key(key, g, f"{where}/{label}")
    out_leaves = {}
    for label, g in (("graph", graph), ("optimized_graph", optimized)):
        out_leaves[label] = _leaves(leaves, g, writeback, values, f"{where}/{label}")
    # no `verify()`: the decoder checked each of its invariants as it built the graphs
    # (names defined once, earlier in the same graph; control flow by its op's check)
    for k, _ in writeback:
        if k >= len(optimized.inputs):
            raise LoadError(f"{where}: writes back into input {k}, which does not exist")
    # the executor is generated on first use: a graph of 100,000 nodes takes seconds to
    # lower and compile, and a loaded function may be inspected, exported or shipped
    # without running here (every check that decides whether the file loads is above)
    cf = ConcreteFunction(fn.__name__, optimized, key, fn._params, tree,
                          out_leaves["optimized_graph"], owner=fn, optimize=False,
                          writeback=writeback, lazy=True)
    cf.graph = graph
    # the result leaves as values of `cf.graph`, as a traced function holds them (saving
    # again marks a leaf the optimizer folded into an array as a graph output still)
    cf._out_leaves = out_leaves["graph"]
    return cf


_OUTPUTS = (Tensor, np.ndarray, np.generic)


def _leaves(leaves, graph, writeback, values: Decoder, where: str) -> list:
    outputs = iter(graph.outputs)
    out = []
    for k, leaf in enumerate(leaves):
        if type(leaf) is dict and "output" in leaf:
            obj(leaf, f"{where}: result {k}", ("output",))
            x = next(outputs, None)
            if not isinstance(x, _OUTPUTS):  # (an array: the optimizer folded the result)
                raise LoadError(f"{where}: result {k} has no graph output")
            out.append(x)
        else:
            out.append(values.value(obj(leaf, f"{where}: result {k}", ("value",))["value"],
                                    f"{where}: result {k}"))
    rest = list(outputs)
    if len(rest) != len(writeback) or not all(isinstance(x, _OUTPUTS) for x in rest):
        raise LoadError(f"{where}: the graph has {len(rest)} outputs beyond the results, "
                        f"for {len(writeback)} written arguments")
    return out


def _count_leaves(tree) -> int:
    if tree is LEAF:
        return 1
    return sum(_count_leaves(t) for t in tree[-1])


def _tree(t, values: Decoder, where: str, depth: int):
    if depth > 64:
        raise LoadError(f"{where}: nested too deeply")
    if t is None:
        return LEAF
    t = obj(t, where, (), ("tuple", "list", "dict"))
    if len(t) != 1:
        raise LoadError(f"{where}: malformed structure")
    (kind, body), = t.items()
    if kind == "dict":
        body = obj(body, where, ("keys", "items"))
        keys = tuple(values.value(k, where) for k in seq(body["keys"], where))
        items = tuple(_tree(x, values, where, depth + 1) for x in seq(body["items"], where))
        try:
            if len(keys) != len(items) or len(set(keys)) != len(keys):
                raise LoadError(f"{where}: malformed dict")
        except TypeError:
            raise LoadError(f"{where}: unhashable dict key") from None
        return (dict, keys, items)
    return ({"tuple": tuple, "list": list}[kind],
            tuple(_tree(x, values, where, depth + 1) for x in seq(body, where)))


def _key_part(p, values: Decoder, where: str, depth: int):
    if depth > 64:
        raise LoadError(f"{where}: nested too deeply")
    p = obj(p, where, (), ("array", "tuple", "list", "dict", "variable", "python"))
    if len(p) != 1:
        raise LoadError(f"{where}: malformed key part")
    (kind, body), = p.items()
    if kind == "array":
        body = obj(body, where, ("dtype", "shape"))
        return (parse_dtype(body["dtype"], where), check_shape(body["shape"], where))
    if kind in ("tuple", "list"):
        return ({"tuple": tuple, "list": list}[kind],
                tuple(_key_part(x, values, where, depth + 1) for x in seq(body, where)))
    if kind == "dict":
        items = []
        for pair in seq(body, where):
            if type(pair) is not list or len(pair) != 2:
                raise LoadError(f"{where}: malformed dict key part")
            items.append((values.value(pair[0], where), _key_part(pair[1], values, where,
                                                                    depth + 1)))
        return (dict, tuple(items))
    if kind == "variable":
        v = values.value({"variable": body}, where)
        return (Variable, IdentityKey(v))
    v = values.value(body, where)
    if type(v) in (float, complex):
        return (type(v), FloatKey(v))
    if type(v) not in (int, bool, str, bytes, type(None)):
        raise LoadError(f"{where}: an argument value must be a Python scalar")
    return (type(v), v)


__all__ = ["load", "LoadedFunction", "LoadError"]
