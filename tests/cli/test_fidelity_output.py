"""Where `-o` writes: regular files are replaced atomically; a symlink is followed (its
target is replaced, the link stays); a FIFO or a character device is written through and
stays what it was; anything else, and every unwritable output, is a clean
"cannot write PATH: reason" (exit 1), never an internal error.
"""
from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
import threading

import pytest

from tests.cli.runner import assert_user_error, import_path, run_cli

SOURCE = ("def f(x):\n"
          "    if x > 0:\n"
          "        return x * 2\n"
          "    return -x\n")


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    return path


@pytest.fixture
def expected(src, tmp_path):
    """The bytes `-o` writes into a new regular file."""
    out = tmp_path / "reference_out.py"
    assert run_cli("convert", src, "-o", out).returncode == 0
    module = import_path(out)
    assert [module.f(3), module.f(-2)] == [6, 2]
    return out.read_bytes()


def test_a_fifo_is_written_through(src, tmp_path, expected):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []

    def reader():
        with open(fifo, "rb") as f:
            received.append(f.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    result = run_cli("convert", src, "-o", fifo, timeout=60)
    thread.join(30)
    assert result.returncode == 0, result.stderr
    assert received == [expected]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_dev_null_stays_a_device(src):
    before = os.stat(os.devnull)
    assert stat.S_ISCHR(before.st_mode)
    result = run_cli("convert", src, "-o", os.devnull)
    assert result.returncode == 0, result.stderr
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino


def test_a_symlink_to_a_file_replaces_the_target_and_keeps_the_link(src, tmp_path, expected):
    target = tmp_path / "real_out.py"
    target.write_text("old = 1\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link_out.py"
    link.symlink_to(target.name)
    result = run_cli("convert", src, "-o", link)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_bytes() == expected
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    module = import_path(link)
    assert [module.f(5), module.f(-1)] == [10, 1]


def test_a_dangling_symlink_creates_its_target(src, tmp_path, expected):
    link = tmp_path / "link_out.py"
    link.symlink_to("made_by_convert.py")
    result = run_cli("convert", src, "-o", link)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert (tmp_path / "made_by_convert.py").read_bytes() == expected


def test_a_symlink_to_dev_null_writes_through(src, tmp_path):
    link = tmp_path / "null_link"
    link.symlink_to(os.devnull)
    result = run_cli("convert", src, "-o", link)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_socket_is_refused(src):
    directory = tempfile.mkdtemp(prefix="ag")  # short: AF_UNIX paths are limited
    path = os.path.join(directory, "s")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(path)
        err = assert_user_error(run_cli("convert", src, "-o", path), 1, one_line=True)
        assert f"cannot write {path}: it is a socket" in err
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        sock.close()
        shutil.rmtree(directory)


def test_a_block_device_is_refused_and_kept(src, tmp_path):
    node = tmp_path / "blk"
    try:
        os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    except (PermissionError, OSError):
        pytest.skip("cannot create a block device node here (not root)")
    err = assert_user_error(run_cli("convert", src, "-o", node), 1, one_line=True)
    assert f"cannot write {node}: it is a block device" in err
    assert stat.S_ISBLK(os.lstat(node).st_mode)


def test_a_read_only_directory(src, tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    os.chmod(directory, 0o555)
    try:
        if os.access(directory, os.W_OK):
            pytest.skip("running as root: permissions do not stop writes")
        out = directory / "out.py"
        err = assert_user_error(run_cli("convert", src, "-o", out), 1, one_line=True)
        assert f"cannot write {out}: Permission denied" in err
        assert list(directory.iterdir()) == []
    finally:
        os.chmod(directory, 0o755)


def test_a_directory_the_kernel_refuses(src):
    # the same error path as a read-only directory, even as root: sysfs refuses new files
    if not os.path.isdir("/sys") or _can_create("/sys"):
        pytest.skip("no /sys that refuses new files here")
    err = assert_user_error(run_cli("convert", src, "-o", "/sys/ag_out.py"), 1, one_line=True)
    assert "cannot write /sys/ag_out.py: " in err and "internal error" not in err


def _can_create(directory: str) -> bool:
    try:
        fd, path = tempfile.mkstemp(dir=directory)
    except OSError:
        return False
    os.close(fd)
    os.unlink(path)
    return True


def test_a_missing_parent_directory(src, tmp_path):
    out = tmp_path / "no" / "such" / "out.py"
    err = assert_user_error(run_cli("convert", src, "-o", out), 1, one_line=True)
    assert f"cannot write {out}: the directory {out.parent} does not exist" in err
    assert not (tmp_path / "no").exists()


def test_a_parent_that_is_a_file(src, tmp_path):
    (tmp_path / "plain").write_text("x")
    out = tmp_path / "plain" / "out.py"
    err = assert_user_error(run_cli("convert", src, "-o", out), 1, one_line=True)
    assert f"cannot write {out}: " in err and "internal error" not in err


def test_a_tree_into_an_unwritable_place(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "sub" / "m.py").write_text(SOURCE)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "sub").write_text("a file where a directory must go")
    err = assert_user_error(run_cli("convert", pkg, "-o", tmp_path / "out"), 1, one_line=True)
    assert "cannot write " in err and "internal error" not in err


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "relative"])
def test_the_output_is_the_input(src, tmp_path, how):
    out = {"same path": src, "symlink": tmp_path / "alias.py",
           "hard link": tmp_path / "hard.py", "relative": "m.py"}[how]
    if how == "symlink":
        out.symlink_to(src.name)
    elif how == "hard link":
        os.link(src, out)
    err = assert_user_error(run_cli("convert", src, "-o", out, cwd=tmp_path), 2)
    assert "refusing to overwrite the input" in err
    assert src.read_text() == SOURCE


def test_graph_output_onto_dev_null(src):
    before = os.stat(os.devnull)
    result = run_cli("graph", f"{src}::f", "--arg", "float32[]", "-o", os.devnull)
    assert result.returncode == 0, result.stderr
    assert os.stat(os.devnull).st_ino == before.st_ino
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("how", ["same path", "symlink"])
def test_graph_output_is_the_input(src, tmp_path, how):
    out = src if how == "same path" else tmp_path / "alias.py"
    if how == "symlink":
        out.symlink_to(src.name)
    result = run_cli("graph", f"{src}::f", "--arg", "float32[]", "-o", out)
    assert "refusing to overwrite the input" in assert_user_error(result, 2)
    assert src.read_text() == SOURCE
