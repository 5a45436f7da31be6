"""Reading and rewriting saved `.agz` files in tests: an edited description or archive,
written back with a manifest that matches it (so the edit reaches the loader's deeper
checks) or without one / with the original one (so it must fail at the manifest)."""
from __future__ import annotations

import json
import zipfile

from runtime.saved.container import manifest_bytes


def read_agz(path) -> tuple[dict, bytes]:
    """(description, arrays.npz bytes) of a saved `.agz`."""
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("graph.json")), zf.read("arrays.npz")


def members_of(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def write_agz(path, description=None, npz: bytes = b"", raw: bytes | None = None,
              manifest: bytes | None | bool = True, extra: dict | None = None):
    """Write an `.agz`: `raw` JSON bytes (else `description` dumped) and `npz`; the
    manifest is recomputed (`True`), given as bytes, or left out (`False`)."""
    members = {"graph.json": raw if raw is not None else json.dumps(description).encode(),
               "arrays.npz": npz}
    if manifest is True:
        manifest = manifest_bytes(members)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if manifest is not False:
            zf.writestr("manifest.json", manifest)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return path
