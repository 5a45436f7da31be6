"""Where a saved function lives on disk: writing it as one checked unit, reading it back
with bounded time and memory.

A saved function is three members: `graph.json` (the description, UTF-8 JSON),
`arrays.npz` (a NumPy archive of compressed `.npy` files: constants and Variable values)
and `manifest.json`, which names the other two with their size and SHA-256 and is
written last. `ag.save(f, "f.agz")` writes them into one zip file (through a temporary
name, fsync, rename); any other path is a directory holding the three files (each
written the same way, the manifest removed first and written last), so a reader never
pairs one save's graph with another save's arrays.

Reading opens regular files only (`stat` first, `O_NONBLOCK`, `fstat` after opening:
never a FIFO, device or socket, or a symlink to one; members of a directory with
`O_NOFOLLOW`), checks the manifest's member list, sizes and hashes before parsing
anything, refuses duplicate JSON keys, and decides how much memory the arrays take from
their `.npy` headers before inflating a byte (json_tools.py parses, npy.py reads arrays).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tempfile
import zipfile

import numpy as np

from runtime.saved.format import (
    FORMAT, MAX_ARRAY_BYTES, MAX_JSON_BYTES, VERSION, LoadError, SaveError,
)
from runtime.saved.npy import MAX_RATIO, read_npz, read_stream
from runtime.saved.json_tools import parse_json

GRAPH_MEMBER = "graph.json"
ARRAYS_MEMBER = "arrays.npz"
MANIFEST_MEMBER = "manifest.json"
MEMBERS = (GRAPH_MEMBER, ARRAYS_MEMBER)
_MAX_MANIFEST_BYTES = 4096
# arrays.npz holds compressed .npy files; a stored npz is at most this much bigger
_MAX_NPZ_BYTES = MAX_ARRAY_BYTES + (64 << 20)
_MAX_FILE_BYTES = MAX_JSON_BYTES + _MAX_NPZ_BYTES + (1 << 20)


# -- writing ------------------------------------------------------------------------------

def write(path, description: dict, arrays: dict) -> None:
    """Write a saved function to `path` (`.agz`: one zip file; else a directory)."""
    members = {GRAPH_MEMBER: json.dumps(description, allow_nan=False,
                                        separators=(",", ":")).encode("utf-8")}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    members[ARRAYS_MEMBER] = buffer.getvalue()
    manifest = manifest_bytes(members)
    path = os.fspath(path)
    if path.endswith(".agz"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            zf.writestr(GRAPH_MEMBER, members[GRAPH_MEMBER], zipfile.ZIP_DEFLATED)
            # stored: the loader reads the .npy headers inside without inflating anything
            zf.writestr(ARRAYS_MEMBER, members[ARRAYS_MEMBER], zipfile.ZIP_STORED)
            zf.writestr(MANIFEST_MEMBER, manifest, zipfile.ZIP_DEFLATED)
        _write_atomically(path, buffer.getvalue())
        return
    if os.path.exists(path) and not os.path.isdir(path):
        raise SaveError(f"{path} exists and is not a directory: save to a new path, or to "
                        "a path ending in .agz for one file")
    os.makedirs(path, exist_ok=True)
    try:  # no reader may see the old manifest beside new members
        os.unlink(os.path.join(path, MANIFEST_MEMBER))
    except FileNotFoundError:
        pass
    for name, data in members.items():
        _write_atomically(os.path.join(path, name), data)
    _write_atomically(os.path.join(path, MANIFEST_MEMBER), manifest)
    _fsync_directory(path)


def manifest_bytes(members: dict[str, bytes]) -> bytes:
    """The manifest naming `members` with their sizes and SHA-256 digests."""
    manifest = {"format": FORMAT, "version": VERSION,
                "members": {name: {"size": len(data),
                                   "sha256": hashlib.sha256(data).hexdigest()}
                            for name, data in members.items()}}
    return json.dumps(manifest, separators=(",", ":")).encode("utf-8")


def output_mode(target: str) -> int:
    """The permission bits of an output written over `target`: those `target` has when it
    exists (a mode the user chose stays), else those `open()` gives a new file (0o666 less
    the umask). Every file ag.save and the `autograph` command write gets them, though
    each is written under a temporary name first (which `mkstemp` makes 0o600)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0o077)  # reading the umask means setting it: put it back at once
        os.umask(umask)
        return 0o666 & ~umask


def _write_atomically(target: str, data: bytes) -> None:
    directory, base = os.path.split(os.path.abspath(target))
    mode = output_mode(target)
    fd, temp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms without directory fds: the renames are still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- reading ------------------------------------------------------------------------------

def read(path) -> tuple[dict, dict]:
    """(description, arrays) of the saved function at `path` (or in `.agz` bytes);
    LoadError if it is malformed, altered, incomplete or not a regular file."""
    if isinstance(path, (bytes, bytearray)):  # the contents of a .agz file
        return _read_zip(bytes(path), "<saved function bytes>")
    path = os.fspath(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"no saved function at {path!r}") from None
    except OSError as e:
        raise LoadError(f"{path}: cannot be read ({e.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        return _read_directory(path)
    return _read_zip(read_regular_file(path, _MAX_FILE_BYTES, follow=True), path)


def read_regular_file(path: str, limit: int, follow: bool) -> bytes:
    """The bytes of `path`, which must be a regular file of at most `limit` bytes.

    Never blocks on a FIFO or reads a device: the type is checked before opening (and
    the file opened non-blocking, then checked again on the descriptor, in case it was
    swapped in between); `follow=False` also refuses a symlink."""
    try:
        before = os.stat(path, follow_symlinks=follow)
    except FileNotFoundError:
        raise LoadError(f"{path}: missing") from None
    except OSError as e:
        raise LoadError(f"{path}: cannot be read ({e.strerror})") from None
    _check_regular(path, before, follow)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise LoadError(f"{path}: cannot be opened ({e.strerror})") from None
    with os.fdopen(fd, "rb", buffering=0) as f:
        now = os.fstat(fd)
        _check_regular(path, now, follow)
        if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise LoadError(f"{path}: replaced while being opened")
        if now.st_size > limit:
            raise LoadError(f"{path}: {now.st_size} bytes, more than the {limit} it may hold")
        data = read_stream(f, now.st_size, f"{path}")
        if f.read(1):
            raise LoadError(f"{path}: grew while being read")
    return data


def _check_regular(path: str, info, follow: bool) -> None:
    if stat.S_ISREG(info.st_mode):
        return
    kind = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else
            "a FIFO" if stat.S_ISFIFO(info.st_mode) else
            "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
            "a socket" if stat.S_ISSOCK(info.st_mode) else
            "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file")
    raise LoadError(f"{path}: is {kind}; a saved function is read from regular files only")


def _read_directory(path: str) -> tuple[dict, dict]:
    try:
        names = sorted(os.listdir(path))
    except OSError as e:
        raise LoadError(f"{path}: cannot be listed ({e.strerror})") from None
    if MANIFEST_MEMBER not in names:
        raise _no_manifest(path, GRAPH_MEMBER in names)
    manifest = _manifest(read_regular_file(os.path.join(path, MANIFEST_MEMBER),
                                           _MAX_MANIFEST_BYTES, follow=False), path)
    _check_names(path, names)
    members = {}
    for name in MEMBERS:
        entry = manifest[name]
        member_path = os.path.join(path, name)
        data = read_regular_file(member_path, entry["size"], follow=False)
        _verify(path, name, data, entry)
        members[name] = data
    return _parse(path, members)


def _read_zip(data: bytes, path: str) -> tuple[dict, dict]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            names = [info.filename for info in infos]
            if len(set(names)) != len(names):
                raise LoadError(f"{path}: a member appears twice in the archive")
            found = {info.filename: info for info in infos}
            if MANIFEST_MEMBER not in found:
                raise _no_manifest(path, GRAPH_MEMBER in found)
            manifest = _manifest(_member(zf, found[MANIFEST_MEMBER], _MAX_MANIFEST_BYTES,
                                         path), path)
            _check_names(path, names)
            members = {}
            for name in MEMBERS:
                info, entry = found[name], manifest[name]
                if info.file_size != entry["size"]:
                    raise LoadError(f"{path}: member {name} holds {info.file_size} bytes, "
                                    f"the manifest says {entry['size']} (altered or mixed "
                                    "with another save)")
                member = _member(zf, info, entry["size"], path)
                _verify(path, name, member, entry)
                members[name] = member
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - BadZipFile, zlib.error, EOFError...
        raise LoadError(f"{path}: not a readable saved-function archive "
                        f"({type(e).__name__}: {str(e)[:200]})") from None
    return _parse(path, members)


def _member(zf: zipfile.ZipFile, info, limit: int, path: str) -> bytes:
    if info.file_size > limit:
        raise LoadError(f"{path}: member {info.filename!r} is larger than its {limit} "
                        "byte limit")
    if info.file_size > MAX_RATIO * info.compress_size + (1 << 20):
        raise LoadError(f"{path}: member {info.filename!r} claims {info.file_size} bytes "
                        f"from {info.compress_size} compressed ones (a corrupt or hostile "
                        "archive)")
    with zf.open(info) as f:
        return read_stream(f, info.file_size, f"{path}: member {info.filename}")


def _no_manifest(path: str, has_graph: bool) -> LoadError:
    if has_graph:
        return LoadError(f"{path}: has no {MANIFEST_MEMBER}: it was saved by an older "
                         "autograph-numpy (format version 1, before manifests) or its save "
                         "did not finish; save the function again")
    return LoadError(f"{path}: not a saved function (no {MANIFEST_MEMBER})")


def _check_names(path: str, names) -> None:
    for name in names:
        if name not in MEMBERS and name != MANIFEST_MEMBER:
            raise LoadError(f"{path}: member {str(name)[:80]!r} is not in the manifest "
                            f"(a saved function holds {GRAPH_MEMBER}, {ARRAYS_MEMBER} and "
                            f"{MANIFEST_MEMBER} only)")
    for name in MEMBERS:
        if name not in names:
            raise LoadError(f"{path}: member {name} is missing")


def _manifest(data: bytes, path: str) -> dict:
    m = parse_json(data, f"{path}: {MANIFEST_MEMBER}")
    where = f"{path}: {MANIFEST_MEMBER}"
    if set(m) != {"format", "version", "members"} or m["format"] != FORMAT:
        raise LoadError(f"{where}: not an autograph-numpy manifest")
    version = m["version"]
    if type(version) is not int or version < 2:
        raise LoadError(f"{where}: bad format version {str(version)[:20]!r}")
    if version > VERSION:
        raise LoadError(f"{where}: saved with format version {version}, newer than this "
                        f"autograph-numpy reads (version {VERSION}); upgrade autograph-numpy "
                        "to load it")
    members = m["members"]
    if type(members) is not dict or set(members) != set(MEMBERS):
        raise LoadError(f"{where}: must list exactly {GRAPH_MEMBER} and {ARRAYS_MEMBER}")
    limits = {GRAPH_MEMBER: MAX_JSON_BYTES, ARRAYS_MEMBER: _MAX_NPZ_BYTES}
    for name, entry in members.items():
        if type(entry) is not dict or set(entry) != {"size", "sha256"}:
            raise LoadError(f"{where}: the entry of {name} is malformed")
        size, digest = entry["size"], entry["sha256"]
        if type(size) is not int or not 0 <= size <= limits[name]:
            raise LoadError(f"{where}: the size of {name} is not an integer in "
                            f"[0, {limits[name]}]")
        if type(digest) is not str or len(digest) != 64 \
                or digest.strip("0123456789abcdef"):
            raise LoadError(f"{where}: the sha256 of {name} is not 64 hex digits")
    return members


def _verify(path: str, name: str, data: bytes, entry: dict) -> None:
    if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise LoadError(f"{path}: member {name} does not match the manifest's size and "
                        "sha256 (the file was altered, truncated, or mixed with another "
                        "save)")


def _parse(path: str, members: dict) -> tuple[dict, dict]:
    description = parse_json(members[GRAPH_MEMBER], GRAPH_MEMBER)
    return description, read_npz(members[ARRAYS_MEMBER])
