"""`import`: a module's top level runs once however the file is named, a module that imports
the program back is a circle, a module runs under its importer's permissions and a sandboxed
import is checked before anything is looked at (and even when another interpreter loaded
it), and a module path that is a folder (or names no file at all) is said so."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import pytest

from lamina.errors import LaminaError
from lamina import files
from lamina.files import Permissions
from lamina.interpreter import Interpreter
from lamina.lang import modules

LAMINA = [sys.executable, "-m", "lamina"]


def lamina(cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(LAMINA + list(args), cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_module_named_three_ways_runs_its_top_level_once(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers.lam").write_text('print("helpers ran")\nLR = 0.1\n')
    (tmp_path / "link.lam").symlink_to(tmp_path / "lib" / "helpers.lam")
    (tmp_path / "main.lam").write_text(
        'import "lib/helpers.lam" as by_path\nimport link\n'
        f'import "{tmp_path}/lib/helpers.lam" as absolute\n'
        "import helpers\nprint(by_path.LR, link.LR, absolute.LR, helpers.LR)\n")
    (tmp_path / "helpers.lam").symlink_to("lib/helpers.lam")      # by name, through a link
    r = lamina(tmp_path, "main.lam")
    assert (r.returncode, r.stdout) == (0, "helpers ran\n0.1 0.1 0.1 0.1\n"), r.stderr


def test_a_module_that_imports_the_program_back_is_a_circle(tmp_path):
    (tmp_path / "main.lam").write_text('print("main ran")\nimport helper\nprint("never")\n')
    (tmp_path / "helper.lam").write_text('print("helper ran")\nimport main\n')
    r = lamina(tmp_path, "main.lam")
    assert (r.returncode, r.stdout) == (1, "main ran\nhelper ran\n")
    assert r.stderr.startswith("ImportError: Circular import: main.lam imports helper.lam, which imports "
                               "main.lam. Modules cannot import each other in a circle"), r.stderr


@pytest.mark.parametrize("spec", ['"{outside}/there.lam"', '"{outside}/not_there.lam"',
                                  '"../outside/there.lam"', '"../outside/not_there.lam"'])
def test_a_sandboxed_import_outside_is_denied_whether_or_not_the_file_exists(tmp_path, spec):
    # It answered PermissionError when the file existed and ImportError when it did not: a
    # sandboxed program could tell which files exist anywhere.
    outside, work = tmp_path / "outside", tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    (outside / "there.lam").write_text('print("outside ran")\n')
    path = spec.format(outside=outside)
    r = lamina(work, "--sandbox", "-e", f"import {path} as m")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(f"PermissionError: import may not read {path}"), r.stderr


def test_a_restricted_import_passes_a_folder_it_may_not_read_for_one_it_may(tmp_path, monkeypatch):
    # The program's own folder comes first in the search; a denial there must not hide the
    # module in an allowed LAMINA_PATH folder (and no file is looked for in the denied one).
    prog, lib = tmp_path / "prog", tmp_path / "lib"
    prog.mkdir()
    lib.mkdir()
    (lib / "prep.lam").write_text("X = 1\n")
    (prog / "main.lam").write_text("import prep\nprint(prep.X)\n")
    monkeypatch.setenv("LAMINA_PATH", str(lib))
    r = lamina(prog, f"--allow-read={lib}", "main.lam")
    assert (r.returncode, r.stdout) == (0, "1\n"), r.stderr
    r = lamina(prog, f"--allow-read={lib}", "-e", "import absent")     # found nowhere: the denial
    assert r.returncode == 1 and r.stderr.startswith('PermissionError: import may not read "absent.lam"'), r.stderr


def test_a_module_loaded_unrestricted_is_checked_again_for_a_sandboxed_importer(tmp_path, monkeypatch):
    # The module cache is per process: it handed the module to the sandboxed interpreter unchecked.
    monkeypatch.setattr(modules, "MODULES", {})
    outside, work = tmp_path / "outside", tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    (outside / "secrets.lam").write_text("KEY = 42\n")
    code = f'import "{outside}/secrets.lam" as s\nprint(s.KEY)'
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter(str(work)).run(code, "<free>")
    assert out.getvalue() == "42\n" and str(outside / "secrets.lam") in modules.MODULES
    sandboxed = Interpreter(str(work), Permissions.of(read=[str(work)], write=[str(work)], sandbox=True))
    with pytest.raises(LaminaError) as e, contextlib.redirect_stdout(out):
        sandboxed.run(code, "<sandboxed>")
    assert e.value.kind == "PermissionError"
    assert e.value.message.startswith(f'import may not read "{outside}/secrets.lam"'), e.value.message
    assert out.getvalue() == "42\n"


def run_in(interp: Interpreter, code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(code, "<test>")
    return out.getvalue().splitlines()


def open_descriptors() -> int | None:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None


def test_a_restricted_import_walks_the_module_path_once(tmp_path, monkeypatch):
    # It walked it three times: the check before looking, the check of a loaded module, the open.
    monkeypatch.setattr(modules, "MODULES", {})
    (tmp_path / "helpers.lam").write_text('print("helpers ran")\nX = 2\n')
    walked, walk = [], files.walk
    monkeypatch.setattr(files, "walk", lambda path: walked.append(path) or walk(path))
    interp = Interpreter(str(tmp_path), Permissions.of(read=[str(tmp_path)]))
    before = open_descriptors()
    assert run_in(interp, "import helpers\nprint(helpers.X)") == ["helpers ran", "2"]
    assert walked == [str(tmp_path / "helpers.lam")]
    assert run_in(interp, "import helpers\nprint(helpers.X + 1)") == ["3"]      # loaded: checked, not read
    assert walked == [str(tmp_path / "helpers.lam")] * 2
    assert open_descriptors() == before


def test_a_module_path_that_cannot_be_looked_at_cannot_be_read(tmp_path):
    # A name too long on the way is no denial (files.walk), and not a missing file either.
    far = f"{tmp_path}/{'n' * 300}/m.lam"
    for permissions in (Permissions(), Permissions.of(read=[str(tmp_path)])):
        with pytest.raises(LaminaError) as e:
            Interpreter(str(tmp_path), permissions).run(f'import "{far}" as m', "<test>")
        assert (e.value.kind, e.value.message) == ("ImportError", f"Cannot read the module {far}: File name too long.")


def test_a_module_s_parallel_map_keeps_the_sandbox(tmp_path):
    # A module's own Interpreter took every permission, so parallel_map called inside a module
    # ran its items unrestricted: a sandboxed program read a file outside its folder.
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n42\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "reader.lam").write_text(
        "function one(i)\n"
        f'    return read_csv("{secret}").a[0]\n'
        "end function\n"
        "function all()\n"
        "    return parallel_map(one, [1, 2])\n"
        "end function\n")
    (work / "main.lam").write_text("import reader\nprint(reader.all())\n")
    r = subprocess.run([sys.executable, "-m", "lamina", "--sandbox", "main.lam"], cwd=work,
                       capture_output=True, text=True, timeout=120)
    assert r.stdout == ""
    assert r.returncode == 1
    assert r.stderr.startswith(f'PermissionError: read_csv may not read "{secret}": this run may read only '
                               f"under {work} (--sandbox)"), r.stderr
    assert "--> reader.lam:2:12" in r.stderr


def import_error(folder, code: str) -> str:
    with pytest.raises(LaminaError) as info:
        Interpreter(str(folder)).run(code, "<test>")
    assert info.value.kind == "ImportError"
    return info.value.message


def test_a_folder_named_like_the_module_is_said_so(tmp_path, monkeypatch):
    monkeypatch.delenv("LAMINA_PATH", raising=False)
    (tmp_path / "prep.lam").mkdir()
    folder = str(tmp_path / "prep.lam")
    assert import_error(tmp_path, "import prep") == (
        f"No module 'prep': there is no file prep.lam in {tmp_path} (LAMINA_PATH is not set); {folder} is a folder.")
    assert import_error(tmp_path, 'import "prep.lam" as p') == (
        f'No module "prep.lam": there is no file prep.lam in {tmp_path} (LAMINA_PATH is not set); {folder} is a folder.')


def test_an_import_path_without_a_file_name(tmp_path):
    # It looked for "" (and "lib/" for the folder lib): "there is no  in ...".
    (tmp_path / "lib").mkdir()
    message = 'an import path names a file, such as "lib/prep.lam".'
    assert import_error(tmp_path, 'import "" as m') == 'No module "": ' + message
    assert import_error(tmp_path, 'import "lib/" as m') == 'No module "lib/": ' + message
