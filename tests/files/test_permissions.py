"""--allow-read, --allow-write and --sandbox, through the real `lamina` command: real files
inside and outside the allowed folders, symlinks and `..` that try to leave them, every
builtin that touches files, and permissions that stay with their own Interpreter."""
from __future__ import annotations

import contextlib
import errno
import io
import os
import pathlib
import subprocess
import sys
import threading
import tomllib

import pytest

from lamina.errors import LaminaError
from lamina.files import Permissions, check_read, check_write, current, open_read, write_file
from lamina.interpreter import Interpreter

LAMINA = [sys.executable, "-m", "lamina"]
MODEL = 'net = input(2) |> dense(1) |> compile(seed = 1)\n'


def lamina(cwd: pathlib.Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(LAMINA + list(args), cwd=cwd, capture_output=True, text=True, timeout=120,
                          input=stdin)


@pytest.fixture
def tree(tmp_path):
    """work/ (the current folder) with data/, out/ and links out of them; secret/ beside work/."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "s.csv").write_text("k\n42\n")
    work = tmp_path / "work"
    for d in ("data", "out"):
        (work / d).mkdir(parents=True)
    (work / "data" / "d.csv").write_text("x\n1\n2\n")
    (work / "here.csv").write_text("y\n7\n")
    (work / "out" / "escape").symlink_to(secret)                  # a folder link out of out/
    (work / "out" / "s.csv").symlink_to(secret / "s.csv")         # a file link out of out/
    (work / "data" / "s.csv").symlink_to(secret / "s.csv")
    return work, secret


def denied(r: subprocess.CompletedProcess, who: str, mode: str, path: str, allow: str,
           resolved: str | None = None) -> None:
    """The run failed with a PermissionError naming the path (and what it resolves to) and the
    flag that would allow it."""
    assert r.returncode == 1, r.stderr
    first = r.stderr.splitlines()[0]
    shown = f'"{path}"' + (f" (resolved: {resolved})" if resolved else "")
    assert first.startswith(f"PermissionError: {who} may not {mode} {shown}: "), first
    assert first.endswith(f"run lamina with --allow-{mode}={allow} to allow it."), first
    assert "Traceback" not in r.stderr


def test_by_default_everything_is_allowed(tree):
    work, secret = tree
    r = lamina(work, "-e", f'print(read_csv("{secret}/s.csv").k)\nwrite_csv({{a = [1]}}, "{secret}/new.csv")')
    assert (r.returncode, r.stdout) == (0, "[42]\n"), r.stderr
    assert (secret / "new.csv").read_text() == "a\n1\n"


def test_sandbox_reads_and_writes_only_under_the_current_folder(tree):
    work, secret = tree
    inside = lamina(work, "--sandbox", "-e", 't = read_csv("data/d.csv")\nwrite_csv(t, "out/t.csv")\n'
                    'print(read_csv("out/t.csv").x, read_csv("./data/../here.csv").y)')
    assert (inside.returncode, inside.stdout) == (0, "[1, 2] [7]\n"), inside.stderr
    denied(lamina(work, "--sandbox", "-e", f't = read_csv("{secret}/s.csv")'), "read_csv", "read",
           f"{secret}/s.csv", str(secret))
    denied(lamina(work, "--sandbox", "-e", 't = read_csv("../secret/s.csv")'), "read_csv", "read",
           "../secret/s.csv", str(secret), f"{secret}/s.csv")
    denied(lamina(work, "--sandbox", "-e", 'write_csv({a = [1]}, "../secret/s.csv")'), "write_csv", "write",
           "../secret/s.csv", str(secret), f"{secret}/s.csv")
    assert (secret / "s.csv").read_text() == "k\n42\n"
    r = lamina(work, "--sandbox", "-e", 't = read_csv("/etc/passwd")')
    assert "this run may read only under " + str(work) + " (--sandbox)" in r.stderr


def test_symlinks_and_dotdot_cannot_leave_an_allowed_folder(tree):
    work, secret = tree
    flags = ["--allow-read=data", "--allow-write=out"]
    for path in ("out/../here.csv", "out/escape/s.csv", "out/s.csv", "out/escape/new.csv"):
        r = lamina(work, *flags, "-e", f'write_csv({{a = [1]}}, "{path}")')
        resolved = os.path.realpath(work / path)
        denied(r, "write_csv", "write", path, os.path.dirname(resolved), resolved)
    assert (secret / "s.csv").read_text() == "k\n42\n" and not (secret / "new.csv").exists()
    assert (work / "here.csv").read_text() == "y\n7\n"
    r = lamina(work, *flags, "-e", 't = read_csv("data/s.csv")')
    denied(r, "read_csv", "read", "data/s.csv", str(secret), f"{secret}/s.csv")
    ok = lamina(work, *flags, "-e", 'write_csv(read_csv("data/d.csv"), "out/d.csv")\nprint("ok")')
    assert (ok.returncode, ok.stdout) == (0, "ok\n"), ok.stderr
    assert (work / "out" / "d.csv").read_text() == "x\n1\n2\n"


def test_a_kind_of_access_no_flag_grants_is_denied(tree):
    work, _ = tree
    r = lamina(work, "--allow-write=out", "-e", 't = read_csv("out/x.csv")')
    denied(r, "read_csv", "read", "out/x.csv", f"{work}/out", f"{work}/out/x.csv")
    assert "this run may read no files" in r.stderr
    r = lamina(work, "--allow-read=data", "-e", 'write_csv({a = [1]}, "data/x.csv")')
    denied(r, "write_csv", "write", "data/x.csv", f"{work}/data", f"{work}/data/x.csv")
    assert not (work / "data" / "x.csv").exists()


def test_a_flag_can_name_single_files_and_repeat(tree):
    work, secret = tree
    r = lamina(work, f"--allow-read=data/d.csv,{secret}/s.csv", "--allow-read=here.csv", "-e",
               'print(read_csv("data/d.csv").x, read_csv("here.csv").y)\n'
               f'print(read_csv("{secret}/s.csv").k)\nprint(read_csv("data/s.csv").k)')
    assert r.stdout == "[1, 2] [7]\n[42]\n[42]\n" and r.returncode == 0, r.stderr   # data/s.csv is secret/s.csv
    r = lamina(work, "--allow-read=data/d.csv", "-e", 't = read_csv("data/dd.csv")')
    assert r.returncode == 1 and r.stderr.startswith("PermissionError: read_csv may not read \"data/dd.csv\"")


def test_a_sibling_folder_sharing_a_prefix_is_outside(tree):
    # data2 starts with "data": a check by string prefix would let --allow-read=data read it.
    work, _ = tree
    (work / "data2").mkdir()
    (work / "data2" / "secret.csv").write_text("k\n42\n")
    r = lamina(work, "--allow-read=data", "--allow-write=data", "-e", 't = read_csv("data2/secret.csv")')
    denied(r, "read_csv", "read", "data2/secret.csv", f"{work}/data2", f"{work}/data2/secret.csv")
    r = lamina(work, "--allow-read=data", "--allow-write=data", "-e", 'write_csv({a = [1]}, "data2/new.csv")')
    denied(r, "write_csv", "write", "data2/new.csv", f"{work}/data2", f"{work}/data2/new.csv")
    assert sorted(p.name for p in (work / "data2").iterdir()) == ["secret.csv"]


PROGRAMS = {
    "read_csv": ('t = read_csv("{p}.csv")', "read"),
    "write_csv": ('write_csv({{a = [1]}}, "{p}.csv")', "write"),
    "savefig": ('plot([1, 2])\nsavefig("{p}.png")', "write"),
    "save_model": (MODEL + 'save_model(net, "{p}.npz")', "write"),
    "load_model": ('net = load_model("{p}.npz")', "read"),
}


@pytest.mark.parametrize("who", list(PROGRAMS))
def test_every_builtin_that_touches_files_is_checked(tree, who):
    work, secret = tree
    code, mode = PROGRAMS[who]
    setup = lamina(work, "-e", MODEL + f'save_model(net, "{secret}/m.npz")\nsave_model(net, "data/m.npz")\n'
                   f'write_csv({{a = [1]}}, "{secret}/m.csv")\nwrite_csv({{a = [1]}}, "data/m.csv")')
    assert setup.returncode == 0, setup.stderr
    before = sorted(p.name for p in secret.iterdir())
    outside = lamina(work, "--sandbox", "-e", code.format(p=f"{secret}/m"))
    ext = ".csv" if "csv" in who else ".png" if who == "savefig" else ".npz"
    denied(outside, who, mode, f"{secret}/m{ext}", str(secret))
    assert sorted(p.name for p in secret.iterdir()) == before
    inside = lamina(work, "--sandbox", "-e", code.format(p="data/m") + '\nprint("done")')
    assert (inside.returncode, inside.stdout) == (0, "done\n"), inside.stderr


def test_the_repl_and_a_program_file_take_the_flags(tree):
    work, secret = tree
    r = lamina(work, "--sandbox", stdin=f'print(read_csv("here.csv").y)\nt = read_csv("{secret}/s.csv")\n')
    assert r.stdout == "[7]\n" and r.stderr.startswith("PermissionError: read_csv may not read"), r.stderr
    prog = secret / "prog.lam"            # the program itself may live anywhere: lamina reads it, not the program
    prog.write_text(f'print(read_csv("here.csv").y)\nprint(read_csv("{secret}/s.csv").k)\n')
    r = lamina(work, "--sandbox", str(prog))
    assert r.stdout == "[7]\n" and r.returncode == 1 and "PermissionError" in r.stderr


def test_bad_flags_exit_2(tree):
    work, _ = tree
    for flags in (["--allow-read="], ["--allow-write=out,"], ["--allow-read"]):
        r = lamina(work, *flags, "-e", "print(1)")
        assert r.returncode == 2 and r.stdout == "", (flags, r.stderr)
    assert "--allow-read needs folders" in lamina(work, "--allow-read=", "-e", "1").stderr
    helped = lamina(work, "--help")
    assert helped.returncode == 0 and "--sandbox" in helped.stdout and "--allow-write DIR,..." in helped.stdout


def run_in(interp: Interpreter, code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(code, "<test>")
    return out.getvalue().splitlines()


def test_permissions_belong_to_their_interpreter(tree):
    work, secret = tree
    code = f'print(read_csv("{secret}/s.csv").k)'
    sandboxed = Interpreter(permissions=Permissions.of(read=[str(work)], write=[str(work)]))
    free = Interpreter()
    for _ in range(2):       # interleaved: neither leaks into the other, nor into the process
        with pytest.raises(LaminaError) as e:
            run_in(sandboxed, code)
        assert e.value.kind == "PermissionError"
        assert run_in(free, code) == ["[42]"]
        assert current() == Permissions()
    results = {}

    def in_thread(name, interp):
        try:
            interp.run(f'k = read_csv("{secret}/s.csv").k', "<thread>")
            results[name] = list(interp.get("k"))
        except LaminaError as err:
            results[name] = err.kind
    threads = [threading.Thread(target=in_thread, args=(n, i)) for n, i in (("s", sandboxed), ("f", free))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"s": "PermissionError", "f": [42.0]}


def test_the_check_is_a_function_a_later_feature_can_call(tree):
    work, secret = tree
    perms = Permissions.of(read=[str(work / "data")])
    assert check_read(str(work / "data" / "d.csv"), "import", perms) == str(work / "data" / "d.csv")
    with pytest.raises(LaminaError) as e:
        check_read(str(work / "data" / "s.csv"), "import", perms)     # a link out of data/
    assert e.value.kind == "PermissionError" and e.value.message.startswith(
        f'import may not read "{work}/data/s.csv" (resolved: {secret}/s.csv)')
    with pytest.raises(LaminaError, match="may write no files"):
        check_write(str(work / "data" / "new.csv"), "import", perms)
    assert check_write("/anywhere/at/all", "save") == "/anywhere/at/all"    # outside any run: allowed


def test_a_path_with_a_nul_character_is_a_value_error():
    with pytest.raises(LaminaError) as e:
        check_read("a\0b.csv", "read_csv")
    assert (e.value.kind, e.value.message) == ("ValueError", "read_csv's path holds a NUL character, which no "
                                                             "file's name has.")


@pytest.mark.parametrize("program", ['save_model(input(1) |> dense(1) |> compile(seed = 1), "")',
                                     'load_model("")', 'read_csv("")', 'write_csv(table({a = [1.0]}), "")'])
def test_an_empty_path_says_so(program, run):
    # Not "Is a directory" or "no file ''": every reader and writer checks its path here.
    who = program.split("(")[0]
    with pytest.raises(LaminaError) as e:
        run(program)
    assert (e.value.kind, e.value.message) == ("ValueError", f"{who}'s path is empty; it needs the name of a file.")


def test_a_folder_that_cannot_be_looked_at_is_an_os_error_not_a_denial(tmp_path):
    # A name longer than any file's (ENAMETOOLONG) on the way is not the run's permissions
    # speaking: the open says so as open() would, and nothing is opened.
    perms = Permissions.of(read=[str(tmp_path)], write=[str(tmp_path)])
    path = f"{tmp_path}/{'n' * 300}/d.csv"
    for attempt in (lambda: open_read(path, "read_csv", perms),
                    lambda: write_file(path, "write_csv", lambda f: f.write(b"x"), perms)):
        with pytest.raises(OSError) as e:
            attempt()
        assert (e.value.errno, e.value.filename) == (errno.ENAMETOOLONG, path)
    check_read(path, "read_csv", perms)          # no verdict to give: the open reports it
    check_write(path, "write_csv", perms)
    assert sorted(tmp_path.iterdir()) == []


@pytest.mark.parametrize("code, message", [
    ('net = load_model("{p}.npz")', "load_model cannot read '{p}.npz': File name too long."),
    (MODEL + 'save_model(net, "{p}.npz")', "save_model could not write '{p}.npz': File name too long."),
])
def test_a_builtin_says_it_cannot_read_or_write_a_path_that_cannot_be_looked_at(tmp_path, code, message):
    far = f"{tmp_path}/{'n' * 300}/m"
    sandboxed = Interpreter(permissions=Permissions.of(read=[str(tmp_path)], write=[str(tmp_path)]))
    with pytest.raises(LaminaError) as e:
        run_in(sandboxed, code.format(p=far))
    assert (e.value.kind, e.value.message) == ("ValueError", message.format(p=far))


def test_a_loop_of_links_on_the_way_is_denied(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    perms = Permissions.of(read=[str(tmp_path)])
    with pytest.raises(LaminaError) as e:
        open_read(f"{tmp_path}/a/d.csv", "read_csv", perms)
    assert (e.value.kind, e.value.message) == (
        "PermissionError", f'read_csv may not read "{tmp_path}/a/d.csv": {tmp_path}/a cannot be followed '
        "(Too many levels of symbolic links), so where the path leads cannot be checked.")


def test_the_package_says_it_needs_posix():
    # files.py uses O_DIRECTORY, O_NOFOLLOW and dir_fd at import: it cannot load on Windows,
    # and the package's classifiers and README say so rather than a failed import
    import lamina.files
    assert os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd
    assert lamina.files.FOLDER_FLAGS & os.O_DIRECTORY and lamina.files.FOLDER_FLAGS & os.O_NOFOLLOW
    root = pathlib.Path(__file__).parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert "Operating System :: POSIX" in project["classifiers"]
    assert not [c for c in project["classifiers"] if "Windows" in c]
    assert "Lamina runs on Linux and macOS (POSIX only" in (root / "README.md").read_text()
