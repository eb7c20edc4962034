"""Review 3 of atomic writes: a read-only file is not replaced, a path ending in a slash is
not written without it, and a long (legal) file name can be written."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from lamina.files import TEMP_SUFFIX
from tests.files.test_permissions import LAMINA, MODEL, lamina

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and names")


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
    r = lamina(tmp_path, "-e", 'write_csv({a = [1]}, "out.csv/")')
    assert r.returncode == 1
    assert r.stderr.startswith('ValueError: write_csv cannot write "out.csv/": Is a directory.')
    r = lamina(tmp_path, "-e", MODEL + 'save_model(net, "m.npz/")')
    assert r.returncode == 1
    assert r.stderr.startswith("ValueError: save_model could not write 'm.npz/': Is a directory.")
    assert list(tmp_path.iterdir()) == []


def test_a_long_file_name_is_written_and_its_leftovers_removed(tmp_path):
    # A name of 240 to 255 bytes is legal, but the temporary file's name (it adds up to 40)
    # was not: "File name too long".
    name = "ü" * 120 + ".csv"                # 244 bytes
    stale = tmp_path / f".{'ü' * 100}.{_dead_pid()}-0000{TEMP_SUFFIX}"     # its name, cut to 200 bytes
    stale.write_text("left by a killed run")
    r = lamina(tmp_path, "-e", f'write_csv({{a = [1, 2]}}, "{name}")\nprint(read_csv("{name}").a)')
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
        r = lamina(tmp_path, "-e", 'write_csv({a = [1]}, "shared.csv")')
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
