"""The saved-graph format: its name and version, the loader's limits, the one error type
(`LoadError`), and the exact JSON encoding of the values graphs hold as attributes and
immediates (docs/saved_format.md documents all of it).

Every value has one encoding, and decoding accepts only that encoding: JSON `null`,
booleans, integers and strings stand for themselves, a finite float is a JSON number,
and everything else is a one-key object naming its kind (`{"tuple": [...]}`,
`{"dtype": "<f4"}`, `{"ndarray": "a3"}`, ...). Arrays live in the `.npz` next to the
JSON and are referred to by name. Nothing in a file is ever evaluated, imported or
unpickled: dtypes come from a fixed allow-list, types from a fixed table.
"""
from __future__ import annotations

import builtins
import functools
import math
import re
from typing import Any

import numpy as np

from runtime.ops.indexing import Slot
from runtime.state.variables import Variable

FORMAT = "autograph-numpy.saved-function"
# 2: manifest.json with each member's size and sha256; 3: graphs' user names; 4: nodes and
# values as lists, references by number, origins in one table (a third of the parsing)
VERSION = 4

# Limits that keep a hostile file from costing unbounded time or memory.
MAX_JSON_BYTES = 64 << 20        # the graph description
MAX_ARRAY_BYTES = 1 << 30        # all arrays together (uncompressed)
MAX_ARRAYS = 100_000
MAX_NODES = 1_000_000            # nodes of every graph of every concrete function
MAX_FUNCTIONS = 10_000           # concrete functions in one file
MAX_GRAPH_DEPTH = 64             # subgraphs inside subgraphs
MAX_VALUE_DEPTH = 32             # tuples inside tuples (attributes, keys, result trees)
MAX_RANK = 32
MAX_NAME = 1_000                 # characters of a name, file name or message... per string
MAX_TEXT = 1 << 20


class LoadError(ValueError):
    """A saved graph cannot be loaded: the file is malformed, truncated, tampered with,
    too large, or from a newer format version. The message says which and where.

    A subclass of ValueError.

    Example:
        ```python
        import autograph as ag

        try:
            ag.load(b"not a saved function")
        except ag.LoadError as e:
            print(type(e).__name__)  # -> LoadError
        ```
    """


class SaveError(TypeError):
    """A function cannot be saved: it holds a value the format cannot represent.

    Also raised for a Function that has not been traced yet. A subclass of TypeError.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def f(x):
            return x + 1

        try:
            ag.save(f, "f.agz")  # never called: no trace to save
        except ag.SaveError as e:
            print(type(e).__name__)  # -> SaveError
        ```
    """


_DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f(2|4|8|16)|c(8|16|32)|[US]\d{1,6})")
_TYPES = {"int": int, "float": float, "bool": bool, "complex": complex, "str": str,
          "bytes": bytes, "NoneType": type(None)}
_TYPE_NAMES = {v: k for k, v in _TYPES.items()}


@functools.cache
def exception_table() -> dict:
    """name -> class, the exception classes a saved graph may name (nothing else is ever
    looked up): Python's built-in ones by their name, NumPy's by their qualified name
    (`numpy.linalg.LinAlgError`), as the modules that define them export them."""
    table = {name: v for name, v in vars(builtins).items()
             if isinstance(v, type) and issubclass(v, BaseException)}
    modules = [("numpy", np), ("numpy.linalg", np.linalg)]
    if hasattr(np, "exceptions"):
        modules.append(("numpy.exceptions", np.exceptions))
    for prefix, module in modules:
        for name in dir(module):
            v = getattr(module, name, None)
            if isinstance(v, type) and issubclass(v, BaseException) and \
                    v.__module__.split(".")[0] == "numpy":
                table.setdefault(f"{prefix}.{name}", v)
    return table


@functools.cache
def _exception_names() -> dict:
    names: dict = {}
    for name, v in exception_table().items():
        names.setdefault(v, name)  # (the first: builtins, then the shortest module path)
    return names


def exception_name(error: type) -> str | None:
    """The name a saved graph gives the exception class `error` (None: it cannot)."""
    return _exception_names().get(error)


def dtype_text(dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype.kind == "O":
        return "|O"
    text = dtype.str
    if not _DTYPE.fullmatch(text):
        raise SaveError(f"dtype {dtype} cannot be saved (only bool, integer, float, complex "
                        "and string dtypes can)")
    return text


def parse_dtype(text, where: str, allow_object: bool = False) -> np.dtype:
    """A dtype from its `.str` text, only from the allow-list (never NumPy's full parser
    on arbitrary text: no object or structured dtypes from a file)."""
    if allow_object and text == "|O":
        return np.dtype(object)
    if type(text) is not str or not _DTYPE.fullmatch(text):
        raise LoadError(f"{where}: {text!r} is not an allowed dtype")
    return np.dtype(text)


def check_text(value, where: str, limit: int = MAX_NAME) -> str:
    """A string from the file that ends up in generated code comments or names: printable
    (no line breaks or control characters) and of bounded length."""
    if type(value) is not str:
        raise LoadError(f"{where}: expected a string, found {_kind(value)}")
    if len(value) > limit or not value.isprintable():
        raise LoadError(f"{where}: the string is too long or has unprintable characters")
    return value


def check_int(value, where: str, low: int = 0, high: int = 2**62) -> int:
    if type(value) is not int or not low <= value <= high:
        raise LoadError(f"{where}: expected an integer in [{low}, {high}], found "
                        f"{_kind(value) if type(value) is not int else value}")
    return value


def check_shape(value, where: str, allow_unknown: bool = True) -> tuple:
    if type(value) is not list or len(value) > MAX_RANK:
        raise LoadError(f"{where}: a shape must be a list of at most {MAX_RANK} dimensions")
    for d in value:
        if d is None and allow_unknown:
            continue
        check_int(d, f"{where} (a dimension)")
    return tuple(value)


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null",
            bool: "a boolean", int: "an integer", float: "a number"}.get(type(value), "?")


class Encoder:
    """Encodes attribute values; arrays go to `arrays` (name -> array), Variables to
    `variables` (the file's Variable table, by identity)."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self._array_ids: dict[int, str] = {}
        self.variables: list = []
        self.origins: list = []  # [file, line, function], each once; nodes hold the index
        self._origin_ids: dict[tuple, int] = {}

    def origin(self, origin) -> int | None:
        """The index of `origin` (a `runtime.core.errors.Origin` or None) in `origins`."""
        if origin is None:
            return None
        entry = (str(origin.filename), int(origin.lineno), str(origin.function))
        k = self._origin_ids.get(entry)
        if k is None:
            k = self._origin_ids[entry] = len(self.origins)
            self.origins.append(list(entry))
        return k

    def array(self, a: np.ndarray) -> str:
        name = self._array_ids.get(id(a))
        if name is None:
            dtype_text(a.dtype)
            name = f"a{len(self.arrays)}"
            self.arrays[name] = a
            self._array_ids[id(a)] = name
        return name

    def variable(self, v) -> int:
        for i, known in enumerate(self.variables):
            if known is v:
                return i
        self.variables.append(v)
        return len(self.variables) - 1

    def value(self, v, what: str, depth: int = 0) -> Any:
        if depth > MAX_VALUE_DEPTH:
            raise SaveError(f"{what}: value nested too deeply to save")
        t = type(v)
        if v is None or t is bool or t is str or t is int:
            return v
        if t is float:
            return v if math.isfinite(v) else {"float": repr(v)}
        if t is complex:
            return {"complex": [self.value(v.real, what), self.value(v.imag, what)]}
        if t is tuple or t is list:
            return {t.__name__: [self.value(x, what, depth + 1) for x in v]}
        if t is slice:
            return {"slice": [self.value(p, what, depth + 1) for p in (v.start, v.stop, v.step)]}
        if v is Ellipsis:
            return {"ellipsis": None}
        if t is bytes:
            return {"bytes": v.hex()}
        if isinstance(v, np.dtype):
            return {"dtype": dtype_text(v)}
        if isinstance(v, np.generic):
            return {"scalar": [dtype_text(v.dtype), v.tobytes().hex()]}
        if isinstance(v, np.ndarray):
            return {"ndarray": self.array(v)}
        if isinstance(v, type) and issubclass(v, np.generic):
            return {"scalar_type": dtype_text(v)}
        if v in _TYPE_NAMES:
            return {"python_type": _TYPE_NAMES[v]}
        if isinstance(v, type) and issubclass(v, BaseException):
            name = exception_name(v)
            if name is not None:
                return {"exception": name}
            raise SaveError(
                f"{what}: the exception class {v.__module__}.{v.__qualname__} cannot be "
                "saved: loading a saved graph never runs code from the file, so it can only "
                "name Python's built-in and NumPy's exception classes. Catch or raise one of "
                "those in the function (e.g. a built-in class such as ValueError, or a "
                "subclass check outside the graph), or do not save this function")
        if t is Slot:
            return {"slot": v.k}
        if isinstance(v, Variable):
            return {"variable": self.variable(v)}
        raise SaveError(f"{what}: a value of type {t.__name__} ({v!r:.60}) cannot be saved; "
                        "saved graphs hold numbers, strings, tuples, slices, dtypes, arrays "
                        "and Variables")


class Decoder:
    """Decodes values encoded by `Encoder`, refusing anything else."""

    def __init__(self, arrays: dict, variables: list):
        self.arrays = arrays
        self.variables = variables

    def value(self, v, where: str, depth: int = 0) -> Any:
        if depth > MAX_VALUE_DEPTH:
            raise LoadError(f"{where}: value nested too deeply")
        t = type(v)
        if v is None or t is bool or t is str or t is int or t is float:
            if t is str and len(v) > MAX_TEXT:
                raise LoadError(f"{where}: string too long")
            return v
        if t is not dict or len(v) != 1:
            raise LoadError(f"{where}: {_kind(v)} is not an encoded value")
        (tag, body), = v.items()
        if tag == "float":
            if body not in ("nan", "inf", "-inf"):
                raise LoadError(f"{where}: bad float {body!r}")
            return float(body)
        if tag == "complex":
            parts = self._list(body, where, 2)
            re_, im = (self.value(p, where, depth + 1) for p in parts)
            if type(re_) is not float or type(im) is not float:
                raise LoadError(f"{where}: complex parts must be floats")
            return complex(re_, im)
        if tag == "exception":
            error = exception_table().get(body) if type(body) is str else None
            if error is None:
                raise LoadError(f"{where}: {str(body)[:80]!r} is not a built-in or NumPy "
                                "exception class")
            return error
        if tag in ("tuple", "list"):
            items = [self.value(x, where, depth + 1) for x in self._list(body, where)]
            return tuple(items) if tag == "tuple" else items
        if tag == "slice":
            parts = [self.value(p, where, depth + 1) for p in self._list(body, where, 3)]
            for p in parts:
                if not (p is None or type(p) is int or type(p) is Slot
                        or isinstance(p, np.integer)):
                    raise LoadError(f"{where}: slice bounds must be integers or None")
            return slice(*parts)
        if tag == "ellipsis":
            if body is not None:
                raise LoadError(f"{where}: bad ellipsis")
            return Ellipsis
        if tag == "bytes":
            if type(body) is not str or len(body) > MAX_TEXT:
                raise LoadError(f"{where}: bad bytes")
            try:
                return bytes.fromhex(body)
            except ValueError:
                raise LoadError(f"{where}: bad bytes") from None
        if tag == "dtype":
            return parse_dtype(body, where)
        if tag == "scalar":
            dtype_s, data = self._list(body, where, 2)
            dtype = parse_dtype(dtype_s, where)
            if type(data) is not str or len(data) != 2 * dtype.itemsize:
                raise LoadError(f"{where}: scalar bytes do not match dtype {dtype}")
            try:
                raw = bytes.fromhex(data)
            except ValueError:
                raise LoadError(f"{where}: bad scalar bytes") from None
            return np.frombuffer(raw, dtype)[0]
        if tag == "ndarray":
            if type(body) is not str or body not in self.arrays:
                raise LoadError(f"{where}: array {body!r} is not in the archive")
            return self.arrays[body]
        if tag == "scalar_type":
            return parse_dtype(body, where).type
        if tag == "python_type":
            if body not in _TYPES:
                raise LoadError(f"{where}: unknown type {body!r}")
            return _TYPES[body]
        if tag == "slot":
            return Slot(check_int(body, where, 0, 1 << 20))
        if tag == "variable":
            k = check_int(body, where, 0, len(self.variables) - 1) if self.variables else -1
            if k < 0:
                raise LoadError(f"{where}: refers to a Variable but the file has none")
            return self.variables[k]
        raise LoadError(f"{where}: unknown value kind {tag!r}")

    @staticmethod
    def _list(body, where: str, n: int | None = None) -> list:
        if type(body) is not list or (n is not None and len(body) != n):
            raise LoadError(f"{where}: expected a list" + (f" of {n} items" if n else ""))
        return body
