"""Where a saved function lives on disk, and reading it back with bounded memory.

A saved function is two members: `graph.json` (the description, UTF-8 JSON) and
`arrays.npz` (a standard NumPy archive of `.npy` files: constants and Variable values).
`ag.save(f, "f.agz")` writes them into one zip file; any other path is a directory
holding the two files. Reading checks every size before it reads, parses `.npy`
headers with a strict pattern of its own (no `literal_eval`, no pickle: object and
structured dtypes are refused), and checks each array's byte count against its header.
"""
from __future__ import annotations

import io
import json
import os
import re
import zipfile

import numpy as np

from runtime.saved.format import (
    MAX_ARRAY_BYTES, MAX_ARRAYS, MAX_JSON_BYTES, MAX_RANK, LoadError, parse_dtype,
)

GRAPH_MEMBER = "graph.json"
_MAX_RATIO = 1100
ARRAYS_MEMBER = "arrays.npz"


def write(path, description: dict, arrays: dict) -> None:
    """Write a saved function to `path` (`.agz`: one zip file; else a directory)."""
    text = json.dumps(description, allow_nan=False, separators=(",", ":")).encode("utf-8")
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path = os.fspath(path)
    if path.endswith(".agz"):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(GRAPH_MEMBER, text)
            zf.writestr(ARRAYS_MEMBER, buffer.getvalue())
        return
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, GRAPH_MEMBER), "wb") as f:
        f.write(text)
    with open(os.path.join(path, ARRAYS_MEMBER), "wb") as f:
        f.write(buffer.getvalue())


def read(path) -> tuple[dict, dict]:
    """(description, arrays) of the saved function at `path` (or in `.agz` bytes);
    LoadError if malformed."""
    if isinstance(path, (bytes, bytearray)):  # the contents of a .agz file
        text, npz = _read_zip(io.BytesIO(path), "<saved function bytes>")
        return _parse_json(text), read_npz(npz)
    path = os.fspath(path)
    if os.path.isdir(path):
        text = _read_file(os.path.join(path, GRAPH_MEMBER), MAX_JSON_BYTES)
        npz = _read_file(os.path.join(path, ARRAYS_MEMBER), MAX_ARRAY_BYTES + (64 << 20))
    elif os.path.exists(path):
        text, npz = _read_zip(path, path)
    else:
        raise FileNotFoundError(f"no saved function at {path!r}")
    return _parse_json(text), read_npz(npz)


def _read_file(path: str, limit: int) -> bytes:
    if not os.path.isfile(path):
        raise LoadError(f"{path}: missing (a saved-function directory holds {GRAPH_MEMBER} "
                        f"and {ARRAYS_MEMBER})")
    if os.path.getsize(path) > limit:
        raise LoadError(f"{path}: larger than the {limit} byte limit")
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise LoadError(f"{path}: larger than the {limit} byte limit")
    return data


def _members(zf: zipfile.ZipFile, what: str, limit: int) -> dict:
    infos = zf.infolist()
    if len(infos) > MAX_ARRAYS + 2:
        raise LoadError(f"{what}: too many members ({len(infos)})")
    seen: dict = {}
    for info in infos:
        if info.filename in seen:
            raise LoadError(f"{what}: member {info.filename!r} appears twice")
        if info.file_size > limit:
            raise LoadError(f"{what}: member {info.filename!r} is larger than the {limit} "
                            "byte limit")
        if info.file_size > _MAX_RATIO * info.compress_size + (1 << 20):
            # deflate cannot expand more than ~1032:1: memory stays proportional to the file
            raise LoadError(f"{what}: member {info.filename!r} claims {info.file_size} bytes "
                            f"from {info.compress_size} compressed ones (a corrupt or hostile "
                            "archive)")
        seen[info.filename] = info
    return seen


def _read_member(zf: zipfile.ZipFile, info, limit: int) -> bytes:
    chunks, size = [], 0
    with zf.open(info) as f:  # never more than the declared (and checked) size, in
        while size <= limit:  # small reads: one big read allocates its whole request
            chunk = f.read(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    data = b"".join(chunks)
    if len(data) != info.file_size:
        raise LoadError(f"member {info.filename!r} is truncated")
    return data


def _read_zip(source, path: str) -> tuple[bytes, bytes]:
    try:
        with zipfile.ZipFile(source) as zf:
            members = _members(zf, path, MAX_ARRAY_BYTES + (64 << 20))
            for name in (GRAPH_MEMBER, ARRAYS_MEMBER):
                if name not in members:
                    raise LoadError(f"{path}: not a saved function (no {name} inside)")
            if members[GRAPH_MEMBER].file_size > MAX_JSON_BYTES:
                raise LoadError(f"{path}: {GRAPH_MEMBER} is larger than {MAX_JSON_BYTES} bytes")
            text = _read_member(zf, members[GRAPH_MEMBER], MAX_JSON_BYTES)
            npz = _read_member(zf, members[ARRAYS_MEMBER], MAX_ARRAY_BYTES + (64 << 20))
    except LoadError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError,
            RuntimeError, NotImplementedError) as e:  # zlib.error is an Exception subclass
        raise LoadError(f"{path}: not a readable saved-function archive "
                        f"({type(e).__name__}: {e})") from None
    except Exception as e:  # noqa: BLE001 - zlib.error and friends: still a bad archive
        raise LoadError(f"{path}: not a readable saved-function archive "
                        f"({type(e).__name__}: {e})") from None
    return text, npz


def _reject_constant(name):
    raise LoadError(f"{GRAPH_MEMBER}: {name} is not valid JSON")


def _parse_json(data: bytes) -> dict:
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except LoadError:
        raise
    except RecursionError:
        raise LoadError(f"{GRAPH_MEMBER}: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise LoadError(f"{GRAPH_MEMBER}: not valid JSON ({e})") from None
    if type(value) is not dict:
        raise LoadError(f"{GRAPH_MEMBER}: the top level must be a JSON object")
    return value


_HEADER = re.compile(rb"\{'descr': '([^']{1,16})', 'fortran_order': (True|False), "
                     rb"'shape': \(((?:\d{1,19}, ?)*(?:\d{1,19})?)\), \} *\n")


def read_npz(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an `.npz` archive, checked: names, count, dtypes, sizes."""
    arrays: dict[str, np.ndarray] = {}
    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for name, info in _members(zf, ARRAYS_MEMBER, MAX_ARRAY_BYTES).items():
                if not re.fullmatch(r"[av]\d{1,9}\.npy", name):
                    raise LoadError(f"{ARRAYS_MEMBER}: unexpected member {name!r}")
                total += info.file_size
                if total > MAX_ARRAY_BYTES:
                    raise LoadError(f"{ARRAYS_MEMBER}: arrays larger than {MAX_ARRAY_BYTES} "
                                    "bytes in all")
                arrays[name[:-4]] = parse_npy(_read_member(zf, info, MAX_ARRAY_BYTES), name)
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - BadZipFile, zlib.error, EOFError...
        raise LoadError(f"{ARRAYS_MEMBER}: not a readable NumPy archive ({e})") from None
    return arrays


def parse_npy(data: bytes, name: str) -> np.ndarray:
    """One `.npy` file (format 1.0 or 2.0) into a read-only array."""
    if data[:6] != b"\x93NUMPY" or len(data) < 10:
        raise LoadError(f"{name}: not a .npy file")
    major = data[6]
    if major == 1:
        size, start = int.from_bytes(data[8:10], "little"), 10
    elif major in (2, 3):
        size, start = int.from_bytes(data[8:12], "little"), 12
    else:
        raise LoadError(f"{name}: unknown .npy version {major}")
    header = data[start:start + size]
    m = _HEADER.fullmatch(header) if len(header) == size and size <= 4096 else None
    if m is None:
        raise LoadError(f"{name}: malformed .npy header")
    dtype = parse_dtype(m.group(1).decode("ascii"), name)
    shape = tuple(int(d) for d in m.group(3).split(b",") if d.strip())
    if len(shape) > MAX_RANK:
        raise LoadError(f"{name}: rank {len(shape)} is over the limit")
    body = data[start + size:]
    count = 1
    for d in shape:
        count *= d
    if count * dtype.itemsize != len(body):
        raise LoadError(f"{name}: the header says {dtype}{list(shape)} "
                        f"({count * dtype.itemsize} bytes) but the file holds {len(body)}")
    order = "F" if m.group(2) == b"True" else "C"
    array = np.frombuffer(body, dtype).reshape(shape, order=order).copy(order="K")
    array.flags.writeable = False
    return array
