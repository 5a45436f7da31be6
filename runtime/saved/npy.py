"""Reading the arrays of a saved function (`arrays.npz`) with memory decided in advance.

Each member's `.npy` header is read first (a few hundred bytes, inflated on their own)
and matched by a strict pattern of its own (no `literal_eval`, no pickle: object,
void and structured dtypes are refused). The header fixes the array's byte count,
which must equal the member's declared size; the sum over all members is checked
against the format's limit, and no member may claim more than `MAX_RATIO` times its
compressed size. Only then is anything inflated, straight into an array of exactly the
checked size.
"""
from __future__ import annotations

import io
import re
import zipfile

import numpy as np

from runtime.saved.format import MAX_ARRAY_BYTES, MAX_ARRAYS, MAX_RANK, LoadError, parse_dtype

ARRAYS_MEMBER = "arrays.npz"
MAX_RATIO = 1100  # deflate cannot expand more than ~1032:1
_CHUNK = 1 << 20
_MAX_HEADER = 4096
_NAME = re.compile(r"[av]\d{1,9}\.npy")
_HEADER = re.compile(rb"\{'descr': '([^']{1,16})', 'fortran_order': (True|False), "
                     rb"'shape': \(((?:\d{1,19}, ?)*(?:\d{1,19})?)\), \} *\n")


def read_stream(f, size: int, where: str) -> bytes:
    """Exactly `size` bytes from `f`, in bounded reads (one big read would allocate its
    whole request before the data proves to exist)."""
    chunks, got = [], 0
    while got < size:
        chunk = f.read(min(_CHUNK, size - got))
        if not chunk:
            raise LoadError(f"{where}: truncated ({got} of {size} bytes)")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_exactly(f, n: int, where: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise LoadError(f"{where}: truncated .npy header")
    return data


def read_header(f, name: str) -> tuple[np.dtype, tuple, bool, int]:
    """(dtype, shape, fortran, header bytes) from the start of a `.npy` stream."""
    prefix = _read_exactly(f, 8, name)
    if prefix[:6] != b"\x93NUMPY":
        raise LoadError(f"{name}: not a .npy file")
    major = prefix[6]
    if major == 1:
        width = 2
    elif major in (2, 3):
        width = 4
    else:
        raise LoadError(f"{name}: unknown .npy version {major}")
    size = int.from_bytes(_read_exactly(f, width, name), "little")
    if size > _MAX_HEADER:
        raise LoadError(f"{name}: malformed .npy header")
    m = _HEADER.fullmatch(_read_exactly(f, size, name))
    if m is None:
        raise LoadError(f"{name}: malformed .npy header")
    dtype = parse_dtype(m.group(1).decode("ascii"), name)
    shape = tuple(int(d) for d in m.group(3).split(b",") if d.strip())
    if len(shape) > MAX_RANK:
        raise LoadError(f"{name}: rank {len(shape)} is over the limit")
    return dtype, shape, m.group(2) == b"True", 8 + width + size


def read_npz(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an `.npz` archive, checked: names, count, dtypes, sizes; read-only."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            plans = _plan(zf)
            return {name[:-4]: _inflate(zf, info, plan) for name, info, plan in plans}
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - BadZipFile, zlib.error, EOFError...
        raise LoadError(f"{ARRAYS_MEMBER}: not a readable NumPy archive "
                        f"({type(e).__name__}: {str(e)[:200]})") from None


def _plan(zf: zipfile.ZipFile) -> list:
    """Every member checked from its header, before any body is inflated."""
    infos = zf.infolist()
    if len(infos) > MAX_ARRAYS:
        raise LoadError(f"{ARRAYS_MEMBER}: too many members ({len(infos)})")
    seen, plans, total = set(), [], 0
    for info in infos:
        name = info.filename
        if not _NAME.fullmatch(name) or name in seen:
            raise LoadError(f"{ARRAYS_MEMBER}: unexpected member {name[:80]!r}")
        seen.add(name)
        if info.file_size > MAX_RATIO * info.compress_size + (1 << 20):
            raise LoadError(f"{ARRAYS_MEMBER}: member {name!r} claims {info.file_size} bytes "
                            f"from {info.compress_size} compressed ones (a corrupt or hostile "
                            "archive)")
        with zf.open(info) as f:
            dtype, shape, fortran, header = read_header(f, name)
        count = 1
        for d in shape:
            count *= d
        nbytes = count * dtype.itemsize
        if header + nbytes != info.file_size:
            raise LoadError(f"{name}: the header says {dtype}{list(shape)} ({nbytes} bytes) "
                            f"but the member holds {info.file_size - header}")
        total += nbytes
        if total > MAX_ARRAY_BYTES:
            raise LoadError(f"{ARRAYS_MEMBER}: arrays larger than {MAX_ARRAY_BYTES} bytes "
                            "in all")
        plans.append((name, info, (dtype, shape, fortran, header, count)))
    return plans


def _inflate(zf: zipfile.ZipFile, info, plan) -> np.ndarray:
    dtype, shape, fortran, header, count = plan
    flat = np.empty(count, dtype)
    with zf.open(info) as f:
        _read_exactly(f, header, info.filename)
        if flat.nbytes:
            view = memoryview(flat.view(np.uint8))
            got = 0
            while got < flat.nbytes:
                n = f.readinto(view[got:got + _CHUNK])
                if not n:
                    raise LoadError(f"{info.filename}: truncated")
                got += n
        if f.read(1):
            raise LoadError(f"{info.filename}: longer than its header says")
    array = flat.reshape(shape, order="F" if fortran else "C")
    array.flags.writeable = False
    return array
