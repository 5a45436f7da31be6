"""A saved function is one checked unit: the manifest ties its members together, the
trace keys must fit their graphs, and only regular files are read, with memory decided
before anything is inflated. Each case is refused with a LoadError naming the member and
the problem; the unaltered file loads and answers as the original function."""
from __future__ import annotations

import io
import json
import os
import shutil
import socket
import threading
import tracemalloc
import zipfile

import numpy as np
import pytest

import autograph as ag
from runtime.saved import LoadError
from tests.saved.tamper import members_of, read_agz, write_agz

X = np.arange(6.0)


def _scale(x):
    return x * np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) + 1.0


def _shift(x):
    return x - np.array([6.0, 5.0, 4.0, 3.0, 2.0, 1.0])


@pytest.fixture
def two_saves(tmp_path):
    """Two functions of the same signature, each saved as .agz and as a directory."""
    paths = {}
    for name, py in (("scale", _scale), ("shift", _shift)):
        fn = ag.function(py)
        fn(X)
        for form in (".agz", "_dir"):
            ag.save(fn, tmp_path / f"{name}{form}")
            paths[name + form] = tmp_path / f"{name}{form}"
    return paths


def _refuses(path, match):
    with pytest.raises(LoadError, match=match):
        ag.load(path)


@pytest.mark.parametrize("form", [".agz", "_dir"])
def test_both_forms_hold_three_members_and_load_as_the_original(two_saves, form):
    path = two_saves["scale" + form]
    names = sorted(members_of(path)) if form == ".agz" else sorted(os.listdir(path))
    assert names == ["arrays.npz", "graph.json", "manifest.json"]
    np.testing.assert_array_equal(ag.load(path)(X), _scale(X))


def test_an_edit_without_a_matching_manifest_is_refused(two_saves, tmp_path):
    members = members_of(two_saves["scale.agz"])
    edited = members["graph.json"].replace(b'"a0"', b'"a1"', 1)  # the one-digit edit
    assert edited != members["graph.json"]
    case = write_agz(tmp_path / "e.agz", raw=edited, npz=members["arrays.npz"],
                     manifest=members["manifest.json"])
    _refuses(case, "graph.json does not match the manifest")
    folder = two_saves["scale_dir"]
    (folder / "graph.json").write_bytes(edited)
    _refuses(folder, "graph.json does not match the manifest")


def test_members_of_two_saves_never_load_together(two_saves, tmp_path):
    scale, shift = members_of(two_saves["scale.agz"]), members_of(two_saves["shift.agz"])
    for manifest in (scale["manifest.json"], shift["manifest.json"]):
        case = write_agz(tmp_path / "mix.agz", raw=scale["graph.json"],
                         npz=shift["arrays.npz"], manifest=manifest)
        _refuses(case, "does not match the manifest|the manifest says")
    folder = two_saves["scale_dir"]
    shutil.copy(two_saves["shift_dir"] / "arrays.npz", folder / "arrays.npz")
    _refuses(folder, "arrays.npz does not match the manifest")


def test_members_not_in_the_manifest_are_refused(two_saves, tmp_path):
    m = members_of(two_saves["scale.agz"])
    for extra in ("../../evil.txt", "notes.txt"):
        case = write_agz(tmp_path / "x.agz", raw=m["graph.json"], npz=m["arrays.npz"],
                         manifest=m["manifest.json"], extra={extra: b"x"})
        _refuses(case, f"member '{extra}' is not in the manifest")
    (two_saves["scale_dir"] / "evil.txt").write_bytes(b"x")
    _refuses(two_saves["scale_dir"], "member 'evil.txt' is not in the manifest")


def test_a_file_without_a_manifest_says_it_predates_them(two_saves, tmp_path):
    m = members_of(two_saves["scale.agz"])
    case = write_agz(tmp_path / "old.agz", raw=m["graph.json"], npz=m["arrays.npz"],
                     manifest=False)
    _refuses(case, "before manifests")


@pytest.mark.parametrize("target", ["graph", "manifest"])
def test_duplicate_json_keys_are_refused(two_saves, tmp_path, target):
    m = members_of(two_saves["scale.agz"])
    if target == "graph":  # another constant, then this one: the last one would win
        raw = m["graph.json"].replace(b'{"ndarray":"a1"}', b'{"ndarray":"a2","ndarray":"a1"}', 1)
        assert raw != m["graph.json"]
        case = write_agz(tmp_path / "d.agz", raw=raw, npz=m["arrays.npz"])
    else:
        raw = m["manifest.json"].replace(b'"version":', b'"version":2,"version":', 1)
        case = write_agz(tmp_path / "d.agz", raw=m["graph.json"], npz=m["arrays.npz"],
                         manifest=raw)
    _refuses(case, "appears twice")


def _key_edit(path, tmp_path, edit):
    description, npz = read_agz(path)
    edit(description["concrete_functions"][0]["key"][0]["array"])
    return write_agz(tmp_path / "k.agz", description, npz)  # a manifest that matches


def test_a_trace_key_must_fit_its_graph(tmp_path):
    fn = ag.function(lambda x: x * 2.0)
    big = np.arange(1000.0)
    fn(big)
    ag.save(fn, tmp_path / "f.agz")
    for edit, problem in ((lambda a: a.update(shape=[None]), "float64\\[1000\\] but the key "
                                                              "accepts float64\\[None\\]"),
                          (lambda a: a.update(dtype="<f4"), "accepts float32"),
                          (lambda a: a.update(shape=[1000, 1]), "accepts float64\\[1000, 1\\]")):
        _refuses(_key_edit(tmp_path / "f.agz", tmp_path, edit), problem)
    np.testing.assert_array_equal(ag.load(tmp_path / "f.agz")(big), big * 2.0)


def test_a_key_more_specific_than_its_graph_loads(tmp_path):
    fn = ag.function(lambda x: x + 1.0, input_signature=[ag.TensorSpec((None,), np.float64)])
    fn(X)
    ag.save(fn, tmp_path / "f.agz")
    description, npz = read_agz(tmp_path / "f.agz")
    description["function"]["input_signature"] = None
    description["concrete_functions"][0]["key"][0]["array"]["shape"] = [6]
    loaded = ag.load(write_agz(tmp_path / "k.agz", description, npz))
    np.testing.assert_array_equal(loaded(X), X + 1.0)


def test_an_input_signature_must_match_its_trace(tmp_path):
    fn = ag.function(lambda x: x + 1.0, input_signature=[ag.TensorSpec((None,), np.float64)])
    fn(X)
    ag.save(fn, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    assert loaded.pretty_printed_concrete_signatures() == fn.pretty_printed_concrete_signatures()
    description, npz = read_agz(tmp_path / "f.agz")
    description["function"]["input_signature"][0]["dtype"] = "<f4"
    _refuses(write_agz(tmp_path / "s.agz", description, npz),
             "input_signature entry 0 .* does not match")


def test_object_and_void_dtypes_are_refused_in_arrays_and_values(two_saves, tmp_path):
    description, npz = read_agz(two_saves["scale.agz"])
    for dtype in ("|O", "|V8"):
        arrays = io.BytesIO()
        with zipfile.ZipFile(arrays, "w") as zf:
            zf.writestr("a0.npy", b"\x93NUMPY\x01\x00" + _header(dtype) + b"\0" * 8)
        _refuses(write_agz(tmp_path / "o.agz", description, arrays.getvalue()),
                 f"a0.npy: '\\{dtype}' is not an allowed dtype")
    node = next(n for n in description["concrete_functions"][0]["graph"]["nodes"] if n[1])
    node[1][-1] = [{"scalar": ["|V8", "00" * 8]}]  # [op, inputs, ...]: an immediate input
    _refuses(write_agz(tmp_path / "v.agz", description, npz), "not an allowed dtype")


def _header(dtype) -> bytes:
    text = (f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': (1,), }}").encode()
    text += b" " * (118 - len(text)) + b"\n"
    return len(text).to_bytes(2, "little") + text


# -- only regular files, bounded memory -------------------------------------------------

def _special_paths(tmp_path):
    fifo = tmp_path / "fifo.agz"
    os.mkfifo(fifo)
    zero, to_fifo = tmp_path / "zero.agz", tmp_path / "to_fifo.agz"
    zero.symlink_to("/dev/zero")
    to_fifo.symlink_to(fifo)
    sock = tmp_path / "s.agz"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    return {"a FIFO": fifo, "a device": zero, "a FIFO ": to_fifo, "a socket": sock}, server


def test_special_files_are_refused_without_blocking_or_reading(tmp_path):
    paths, server = _special_paths(tmp_path)
    outcome = {}

    def load_all():
        for kind, path in paths.items():
            try:
                ag.load(path)
            except LoadError as e:
                outcome[kind] = str(e)

    worker = threading.Thread(target=load_all, daemon=True)
    worker.start()
    worker.join(20)  # a FIFO opened for reading would block here forever
    server.close()
    assert not worker.is_alive(), "loading a special file blocked"
    for kind, message in outcome.items():
        assert f"is {kind.strip()}; a saved function is read from regular files only" in message
    assert len(outcome) == len(paths)


def test_directory_members_are_never_symlinks_or_fifos(two_saves):
    folder = two_saves["scale_dir"]
    (folder / "arrays.npz").unlink()
    (folder / "arrays.npz").symlink_to(two_saves["shift_dir"] / "arrays.npz")
    _refuses(folder, "arrays.npz: is a symbolic link")
    (folder / "arrays.npz").unlink()
    os.mkfifo(folder / "arrays.npz")
    _refuses(folder, "arrays.npz: is a FIFO")


def test_a_zip_bomb_is_refused_from_its_header_before_inflating(two_saves, tmp_path, monkeypatch):
    from runtime.saved import npy

    description, _ = read_agz(two_saves["scale.agz"])
    bomb = io.BytesIO()
    np.savez_compressed(bomb, a0=np.zeros(4 << 20))  # 32 MB of zeros in ~30 KB
    monkeypatch.setattr(npy, "MAX_ARRAY_BYTES", 1 << 20)
    case = write_agz(tmp_path / "bomb.agz", description, bomb.getvalue())
    tracemalloc.start()
    try:
        _refuses(case, "arrays larger than")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak


def test_a_header_that_disagrees_with_the_member_size_is_refused(two_saves, tmp_path):
    description, _ = read_agz(two_saves["scale.agz"])
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    data = buffer.getvalue().replace(b"'shape': (3,), }", b"'shape': (9,), }")
    arrays = io.BytesIO()
    with zipfile.ZipFile(arrays, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a0.npy", data)
    _refuses(write_agz(tmp_path / "h.agz", description, arrays.getvalue()),
             "header says float64\\[9\\] \\(72 bytes\\) but the member holds 24")


# -- writing ----------------------------------------------------------------------------

@pytest.mark.parametrize("form", [".agz", "_dir"])
def test_saving_over_a_save_leaves_no_temporary_files_and_loads_the_new_one(two_saves,
                                                                          tmp_path, form):
    fn = ag.function(_shift)
    fn(X)
    target = two_saves["scale" + form]
    ag.save(fn, target)
    listing = sorted(os.listdir(tmp_path if form == ".agz" else target))
    assert not [n for n in listing if n.endswith(".tmp")], listing
    np.testing.assert_array_equal(ag.load(target)(X), _shift(X))
    manifest = json.loads(members_of(target)["manifest.json"] if form == ".agz"
                          else (target / "manifest.json").read_bytes())
    assert sorted(manifest["members"]) == ["arrays.npz", "graph.json"]


@pytest.mark.parametrize("text, duplicated", [
    (b'{"a":1,"b":{"c":2}}', False),
    (b'{"a":1,"a":2}', True),
    (b'{"a": 1, "b": {"c": 2, "c": 3}}', True),
    (b'{"a":"x:y","b":[{"c":":"}]}', False),        # colons inside strings
    (b'{"a":"x:y","a":"z"}', True),
    (b'{"a\\":":1,"a\\":":2}', True),              # a key holding `":`
    (b'{"a" :1,"a" :2}', True),                      # space before the colon
])
def test_duplicate_keys_are_found_whatever_the_text_holds(text, duplicated):
    from runtime.saved.json_tools import parse_json

    if duplicated:
        with pytest.raises(LoadError, match="appears twice"):
            parse_json(text, "t")
    else:
        assert parse_json(text, "t") == json.loads(text)


def test_plain_nodes_decode_as_the_full_checks_do(two_saves, tmp_path, monkeypatch):
    """The decoder's fast path for plain nodes builds the same graphs as its full path,
    and whatever it refuses, the full path refuses with the place named."""
    from runtime.saved.decode import GraphDecoder

    @ag.function
    def f(x, n):
        y = np.sum(x[1:] * 2.0, axis=0, keepdims=True)
        if np.sum(y) > 0:
            y = np.maximum(y, x[:1]) + n
        return y, x.astype(np.float32)

    f(X, np.int64(2))
    ag.save(f, tmp_path / "f.agz")
    fast = ag.load(tmp_path / "f.agz")
    monkeypatch.setattr(GraphDecoder, "plain_node", lambda self, graph, n, scope: False)
    full = ag.load(tmp_path / "f.agz")
    for a, b in zip(fast.concrete_functions, full.concrete_functions):
        assert str(a.graph) == str(b.graph) and str(a.optimized_graph) == str(b.optimized_graph)
        assert a.python_code == b.python_code
    for x, y in zip(fast(X, np.int64(2)), f(X, np.int64(2))):
        np.testing.assert_array_equal(x, y)
        assert x.dtype == y.dtype
