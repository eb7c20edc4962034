"""Writes survive kill -9: a real `lamina` process is killed while it writes, and the target is
then the old good file or the complete new one, never a damaged one; no temporary file is
left where a later load would pick it up, and a leftover is removed by the next write. A write
keeps what open() would keep: a read-only file stays, a path ending in a slash names a folder, a
long legal name is written, the old file's mode stays, and an error names the target."""
from __future__ import annotations

import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import lamina
from lamina.files import TEMP_SUFFIX
from lamina.models.save import load_model
from tests.files.test_permissions import MODEL, lamina as lamina_command

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="kill -9, permissions and names as POSIX has them")

LAMINA = [sys.executable, "-m", "lamina"]

BIG_NET = 'net = input(300) |> dense(600, activation = "relu") |> dense(300) |> compile(seed = {seed})\n'


def start(program: str, cwd: pathlib.Path) -> subprocess.Popen:
    path = cwd / "prog.lam"
    path.write_text(program)
    return subprocess.Popen(LAMINA + [str(path)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def temp_files(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX))


def weights(path: pathlib.Path) -> list[np.ndarray]:
    return [np.array(p) for p in load_model(str(path)).optimizer.params]


def same_weights(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_killing_a_loop_of_re_saves_never_damages_the_model(tmp_path):
    """Two different models are saved in turn, over and over; whenever the process dies, the
    file holds one of them, whole."""
    rnd = random.Random(7)
    program = (BIG_NET.format(seed=1) + 'save_model(net, "a.npz")\n'
               + BIG_NET.replace("net", "other").format(seed=2) + 'save_model(other, "b.npz")\n'
               'save_model(net, "model.npz")\nprint("ready")\n'
               'for i = 1 to 1000000\n    save_model(other, "model.npz")\n    save_model(net, "model.npz")\nend for\n')
    for _ in range(3):
        proc = start(program, tmp_path)
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()
        time.sleep(rnd.uniform(0.2, 0.8))
        kill(proc)
        a, b, got = weights(tmp_path / "a.npz"), weights(tmp_path / "b.npz"), weights(tmp_path / "model.npz")
        assert same_weights(got, a) or same_weights(got, b)
        # a leftover of the killed process, if any, is hidden and ends .lamina-tmp
        assert all(n.startswith(".model.npz.") for n in temp_files(tmp_path))
    proc = start('net = input(2) |> dense(1) |> compile(seed = 3)\nsave_model(net, "model.npz")\n', tmp_path)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert temp_files(tmp_path) == []          # the next write cleaned up after the killed ones


# Run as the lamina command, this stops the first write into a temporary file after its first
# bytes, says so on stderr and waits to be killed: the files module holds no test hook.
PAUSED_LAMINA = """
import os, sys, time
from lamina import files
from lamina.cli import entry

made = {}
create_temp, fdopen = files._create_temp, os.fdopen


def create_and_note(folder_fd, name, mode):
    temp, fd = create_temp(folder_fd, name, mode)
    made[fd] = temp
    return temp, fd


class Paused:
    def __init__(self, f, name):
        self.f, self.name = f, name

    def write(self, data):
        n = self.f.write(data)
        if n:
            self.f.flush()
            print("lamina: paused writing", self.name, file=sys.stderr, flush=True)
            time.sleep(600)
        return n

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.f.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self.f, name)


def fdopen_paused(fd, *args, **kwargs):
    f = fdopen(fd, *args, **kwargs)
    return Paused(f, made.pop(fd)) if fd in made else f


files._create_temp, os.fdopen = create_and_note, fdopen_paused
entry()
"""


@pytest.fixture
def paused_write(tmp_path_factory):
    """paused_write(program, folder): run program until it has written part of its first
    temporary file, kill -9 it, and return that file's path."""
    script = tmp_path_factory.mktemp("paused") / "paused_lamina.py"
    script.write_text(PAUSED_LAMINA)
    started = []

    def run(program: str, folder: pathlib.Path) -> pathlib.Path:
        (folder / "prog.lam").write_text(program)
        proc = subprocess.Popen([sys.executable, str(script), str(folder / "prog.lam")], cwd=folder,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append(proc)
        line = proc.stderr.readline()
        assert line.startswith("lamina: paused writing "), line + proc.stderr.read()
        temp = folder / line.removeprefix("lamina: paused writing ").strip()
        assert temp.stat().st_size > 0 and temp.name.endswith(TEMP_SUFFIX)
        kill(proc)
        return temp

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


GOOD = {
    "model.npz": ('net = input(2) |> dense(3) |> dense(1) |> compile(seed = {seed})\n'
                  'save_model(net, "model.npz")\n'),
    "data.csv": 'write_csv({{x = [{seed}, 2, 3]}}, "data.csv")\n',
    "plot.png": 'plot([1, {seed}, 2])\nsavefig("plot.png")\n',
    "plot.svg": 'plot([1, {seed}, 2])\nsavefig("plot.svg")\n',
}


@pytest.mark.parametrize("target", list(GOOD))
def test_a_write_killed_halfway_leaves_the_old_file(tmp_path, target, paused_write):
    first = start(GOOD[target].format(seed=1), tmp_path)
    assert first.wait(timeout=60) == 0, first.stderr.read()
    old = (tmp_path / target).read_bytes()
    temp = paused_write(GOOD[target].format(seed=5), tmp_path)
    assert (tmp_path / target).read_bytes() == old           # untouched: the new bytes went elsewhere
    assert temp.name.startswith(f".{target}.")
    again = start(GOOD[target].format(seed=5), tmp_path)      # the next write completes and cleans up
    assert again.wait(timeout=60) == 0, again.stderr.read()
    assert not os.path.exists(temp) and temp_files(tmp_path) == []
    assert (tmp_path / target).read_bytes() != old
    if target == "model.npz":
        np.testing.assert_array_equal(load_model(str(tmp_path / target)).optimizer.params[0].shape, (2, 3))


def test_the_docs_build_writes_pages_atomically(tmp_path, monkeypatch):
    from lamina.docs import build
    monkeypatch.setattr(build, "all_pages", lambda: {"a.md": "new text\n", "b.png": b"\x89PNG"})
    (tmp_path / "a.md").write_text("old text\n")
    os.chmod(tmp_path / "a.md", 0o640)
    assert build.main(["build", str(tmp_path)]) == 0
    assert (tmp_path / "a.md").read_text() == "new text\n" and (tmp_path / "b.png").read_bytes() == b"\x89PNG"
    assert oct((tmp_path / "a.md").stat().st_mode & 0o777) == oct(0o640)    # the old file's permissions kept
    assert temp_files(tmp_path) == []


def test_a_failed_write_removes_its_temporary_file(tmp_path):
    from lamina.files import atomic_write
    (tmp_path / "t.txt").write_bytes(b"old")

    def half(f):
        f.write(b"partial")
        raise RuntimeError("the writer failed")
    with pytest.raises(RuntimeError):
        atomic_write(str(tmp_path / "t.txt"), half)
    assert (tmp_path / "t.txt").read_bytes() == b"old" and temp_files(tmp_path) == []


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    from lamina.files import atomic_write
    old = os.umask(0o022)
    try:
        atomic_write(str(tmp_path / "n.txt"), lambda f: f.write(b"x"))
    finally:
        os.umask(old)
    assert (tmp_path / "n.txt").stat().st_mode & 0o777 == 0o644


def test_pipes_and_devices_are_written_and_read_directly(tmp_path):
    r = subprocess.run(LAMINA + ["-e", 'write_csv({b = [2, 3]}, "/dev/stdout")\nprint(read_csv("/dev/stdin").a)'],
                       input="a\n1\n", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "b\n2\n3\n[1]\n"), r.stderr
    assert temp_files(tmp_path) == [] and temp_files(pathlib.Path("/dev")) == []


def test_a_symlinked_target_is_replaced_behind_its_link(tmp_path):
    from lamina.files import atomic_write
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "t.txt").write_bytes(b"old")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "t.txt")
    atomic_write(str(tmp_path / "link.txt"), lambda f: f.write(b"new"))
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real" / "t.txt").read_bytes() == b"new"
    with pytest.raises(IsADirectoryError):
        atomic_write(str(tmp_path / "real"), lambda f: f.write(b"x"))


def test_the_temporary_file_is_fsynced_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    # Without the first fsync a crash after the rename can leave an empty or partial file under
    # the target's name; without the second, the rename itself may be lost.
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(("fsync", os.fstat(fd).st_ino)), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda *a, **k: (calls.append(("replace",)), real_replace(*a, **k))[1])
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    from lamina.files import atomic_write, write_file, Permissions
    for write in (lambda: atomic_write(str(target), lambda f: f.write(b"new\n")),
                  lambda: write_file(str(target), "write_csv", lambda f: f.write(b"new\n"),
                                     Permissions.of(write=[str(tmp_path)]))):
        calls.clear()
        write()
        assert target.read_text() == "new\n"
        assert calls == [("fsync", target.stat().st_ino), ("replace",), ("fsync", tmp_path.stat().st_ino)]


def test_the_package_holds_no_test_hooks():
    # a hook left in the library (it once slept 600 s under LAMINA_TEST_WRITE_PAUSE) is a way to
    # hang a user's program; tests patch the process they start instead (PAUSED_LAMINA)
    package = pathlib.Path(lamina.__file__).parent
    found = [f"{p.relative_to(package)}: {word}" for p in sorted(package.rglob("*.py"))
             for word in ("LAMINA_TEST_", "sleep(") if word in p.read_text()]
    assert not found, found


def as_a_user(cwd: pathlib.Path, code: str) -> subprocess.CompletedProcess:
    """lamina -e CODE with an ordinary user's rights: as root, without the capabilities that let
    root write anything. (Not as user nobody: the interpreter may live where nobody cannot enter,
    as pyenv's does under /root; Python 3.11 then ran with the system's own libpython and
    library, Python 3.13 not at all.)"""
    drop = []
    if os.getuid() == 0:
        drop = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all"]
        if shutil.which("setpriv") is None or subprocess.run(drop + ["true"]).returncode != 0:
            pytest.skip("running as root without setpriv able to drop root's capabilities")
    return subprocess.run(drop + LAMINA + ["-e", code], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("code, message", [
    ('write_csv({a = [1, 2]}, "locked")', 'ValueError: write_csv cannot write "locked": Permission denied.'),
    (MODEL + 'save_model(net, "locked")', "ValueError: save_model could not write 'locked': Permission denied.")])
def test_a_read_only_file_is_not_replaced(tmp_path, code, message):
    # The rename replaced it, where open() and every other program refuse: the protected
    # file was lost.
    target = tmp_path / "locked"
    target.write_text("keep\n")
    target.chmod(0o444)
    r = as_a_user(tmp_path, code)
    assert (r.returncode, r.stderr.splitlines()[0]) == (1, message)
    assert target.read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["locked"]


def test_a_path_ending_in_a_slash_names_a_folder(tmp_path):
    # "out.csv/" used to write the file out.csv, where open("out.csv/", "w") is an error.
    r = lamina_command(tmp_path, "-e", 'write_csv({a = [1]}, "out.csv/")')
    assert r.returncode == 1
    assert r.stderr.startswith('ValueError: write_csv cannot write "out.csv/": Is a directory.')
    r = lamina_command(tmp_path, "-e", MODEL + 'save_model(net, "m.npz/")')
    assert r.returncode == 1
    assert r.stderr.startswith("ValueError: save_model could not write 'm.npz/': Is a directory.")
    assert list(tmp_path.iterdir()) == []


def test_a_long_file_name_is_written_and_its_leftovers_removed(tmp_path):
    # A name of 240 to 255 bytes is legal, but the temporary file's name (it adds up to 40)
    # was not: "File name too long".
    name = "ü" * 120 + ".csv"                # 244 bytes
    stale = tmp_path / f".{'ü' * 100}.{_dead_pid()}-0000{TEMP_SUFFIX}"     # its name, cut to 200 bytes
    stale.write_text("left by a killed run")
    r = lamina_command(tmp_path, "-e", f'write_csv({{a = [1, 2]}}, "{name}")\nprint(read_csv("{name}").a)')
    assert (r.returncode, r.stdout, r.stderr) == (0, "[1, 2]\n", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def _dead_pid() -> int:
    """A pid that no longer runs."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_a_replaced_file_keeps_a_mode_the_umask_would_cut(tmp_path):
    # 0o666 doubled as "a new file": a shared, group- and world-writable file became 0o644.
    target = tmp_path / "shared.csv"
    target.write_text("x\n")
    target.chmod(0o666)
    old = os.umask(0o022)
    try:
        r = lamina_command(tmp_path, "-e", 'write_csv({a = [1]}, "shared.csv")')
    finally:
        os.umask(old)
    assert (r.returncode, r.stderr) == (0, "")
    assert (target.read_text(), target.stat().st_mode & 0o7777) == ("a\n1\n", 0o666)


def test_a_failed_write_names_the_target_not_its_temporary_file(tmp_path):
    # `lamina docs build` into a folder it may not write said
    # "InternalError: PermissionError: ... '.abs.md.123-9f...lamina-tmp'".
    from lamina.files import atomic_write
    (tmp_path / "afile").write_text("x")
    target = str(tmp_path / "afile" / "t.csv")
    with pytest.raises(NotADirectoryError) as caught:
        atomic_write(target, lambda f: f.write(b"x"))
    assert (caught.value.filename, str(caught.value)) == (target, f"[Errno 20] Not a directory: '{target}'")
    missing = str(tmp_path / "no" / "t.csv")
    with pytest.raises(FileNotFoundError) as caught:
        atomic_write(missing, lambda f: f.write(b"x"))
    assert caught.value.filename == missing
