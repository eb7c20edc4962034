"""A sandboxed program cannot leave its folders through symlinks that the check could not see:
a real tree deeper than PATH_MAX with a link at its end (os.path.realpath gives up past 4,096
bytes and stops following links, while the open follows them), and a real second process that
swaps a link while the program reads and writes through it. Each ends in a Lamina
PermissionError with nothing read or written outside."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from tests.files.test_permissions import MODEL, lamina

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs as POSIX has them")

LONG = 250          # bytes in each folder's name: nine of them make 2,259 bytes of path


def nine_folders(fd: int, letter: str) -> int:
    """Nine nested folders of 250-byte names made under the folder fd; the innermost, open."""
    for _ in range(9):
        os.mkdir(letter * LONG, dir_fd=fd)
        inner = os.open(letter * LONG, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    return fd


def deep_tree(work: pathlib.Path, outside: pathlib.Path) -> str:
    """work/short -> nine folders, whose last holds next -> nine more, whose last holds
    out -> outside: `short/next/out` is short, but resolves to over 4,096 bytes. Made through
    folder descriptors, since no path that long can be passed to the system."""
    first = nine_folders(os.open(work, os.O_RDONLY | os.O_DIRECTORY), "a")
    os.symlink("/".join(["a" * LONG] * 9), work / "short")
    os.symlink("/".join(["b" * LONG] * 9), "next", dir_fd=first)
    last = nine_folders(first, "b")
    os.symlink(str(outside), "out", dir_fd=last)
    os.close(last)
    assert len(os.path.realpath(work / "short/next/out/s.csv")) > 4096
    return "short/next/out"


@pytest.fixture
def deep(tmp_path):
    secret, work = tmp_path / "secret", tmp_path / "work"
    secret.mkdir()
    work.mkdir()
    (secret / "s.csv").write_text("k\n42\n")
    (secret / "mod.lam").write_text('print("the module outside ran")\n')
    assert lamina(secret, "-e", MODEL + 'save_model(net, "m.npz")').returncode == 0
    return work, secret, deep_tree(work, secret)


def denied(r: subprocess.CompletedProcess, who: str, mode: str, path: str) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stderr.startswith(f'PermissionError: {who} may not {mode} "{path}"'), r.stderr
    assert "this run may " + mode + " only under" in r.stderr.splitlines()[0]
    assert "InternalError" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("who, code, mode, name", [
    ("read_csv", 'print(read_csv("{p}/s.csv").k)', "read", "s.csv"),
    ("load_model", 'print(load_model("{p}/m.npz"))', "read", "m.npz"),
    ("import", 'import "{p}/mod.lam" as m', "read", "mod.lam"),
    ("write_csv", 'write_csv({{a = [1]}}, "{p}/new.csv")', "write", "new.csv"),
    ("save_model", MODEL + 'save_model(net, "{p}/new.npz")', "write", "new.npz"),
    ("savefig", 'plot([1, 2])\nsavefig("{p}/new.png")', "write", "new.png"),
])
def test_a_link_past_path_max_is_followed_before_the_check(deep, who, code, mode, name):
    work, secret, far = deep
    before = {p.name: p.read_bytes() for p in secret.iterdir()}
    r = lamina(work, "--sandbox", "-e", code.format(p=far))
    denied(r, who, mode, f"{far}/{name}")
    assert r.stdout == ""
    assert {p.name: p.read_bytes() for p in secret.iterdir()} == before


def test_a_pipe_outside_past_path_max_is_not_written(deep):
    work, secret, far = deep
    os.mkfifo(secret / "pipe")
    reader = os.open(secret / "pipe", os.O_RDONLY | os.O_NONBLOCK)   # so that a writer's open would not wait
    try:
        r = lamina(work, "--sandbox", "-e", f'write_csv({{a = [1]}}, "{far}/pipe")')
        denied(r, "write_csv", "write", f"{far}/pipe")
        assert os.read(reader, 100) == b""         # no writer came: nothing in it
    finally:
        os.close(reader)


def test_a_deep_folder_inside_is_read_and_written(deep):
    # Past 4,096 bytes the path is still resolved, one folder at a time: inside, it works.
    work, _, _ = deep
    r = lamina(work, "--sandbox", "-e", 'write_csv({a = [3]}, "short/next/t.csv")\n'
               'print(read_csv("short/next/t.csv").a)')
    assert (r.returncode, r.stdout) == (0, "[3]\n"), r.stderr


SWAPPER = """
import os, sys, time
link, targets = sys.argv[1], sys.argv[2:]
deadline, temp = time.monotonic() + 30, link + ".swap"
for n in range(300_000):               # bounded in count and in time: it stops by itself
    if time.monotonic() > deadline:
        break
    os.symlink(targets[n % 2], temp)
    os.replace(temp, link)              # the link always exists, pointing in, then out
    if n == 1:
        print("swapping", flush=True)
"""


def race(work: pathlib.Path, link: pathlib.Path, inside: str, outside: str, program: str):
    """Run the sandboxed program while a second process swaps `link` between inside and outside."""
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(link), inside, outside],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout.readline() == "swapping\n"
        return lamina(work, "--sandbox", "-e", program)
    finally:
        swapper.kill()
        swapper.wait(timeout=30)


def denying_loop(call: str) -> str:
    """A program that calls `call` 3,000 times, carrying on past each PermissionError (so
    every call is a chance to escape), and ends in the last one; any other error ends it."""
    return ("last = none\nfor i = 1 to 3000\n    try\n        " + call + "\n    catch err\n"
            '        if err.kind != "PermissionError"\n            error(err)\n        end if\n'
            "        last = err\n    end try\nend for\nerror(last)\n")


@pytest.fixture
def racing(tmp_path):
    secret, work = tmp_path / "secret", tmp_path / "work"
    for folder in (secret, work / "real", work / "data"):
        folder.mkdir(parents=True)
    (secret / "s.csv").write_text("k\n42\n")
    (work / "real" / "s.csv").write_text("k\n7\n")
    return work, secret


def test_a_folder_link_swapped_while_writing_never_writes_outside(racing):
    work, secret = racing
    program = denying_loop('write_csv({a = [i]}, "data/link/new.csv")')
    r = race(work, work / "data" / "link", str(work / "real"), str(secret), program)
    denied(r, "write_csv", "write", "data/link/new.csv")
    assert sorted(p.name for p in secret.iterdir()) == ["s.csv"]
    assert (secret / "s.csv").read_text() == "k\n42\n"
    assert (work / "real" / "new.csv").exists()        # the writes inside went through


def test_a_file_link_swapped_while_reading_never_reads_outside(racing):
    work, secret = racing
    program = denying_loop('print(read_csv("data/s.csv").k)')
    r = race(work, work / "data" / "s.csv", str(work / "real" / "s.csv"), str(secret / "s.csv"), program)
    denied(r, "read_csv", "read", "data/s.csv")
    assert set(r.stdout.split()) == {"[7]"}


def test_a_file_link_swapped_while_writing_never_writes_outside(racing):
    work, secret = racing
    program = denying_loop('write_csv({a = [i]}, "data/s.csv")')
    r = race(work, work / "data" / "s.csv", str(work / "real" / "s.csv"), str(secret / "s.csv"), program)
    denied(r, "write_csv", "write", "data/s.csv")
    assert (secret / "s.csv").read_text() == "k\n42\n"
    assert sorted(p.name for p in secret.iterdir()) == ["s.csv"]
