"""`import` review: a module runs under its importer's permissions, and a module path that is a
folder (or names no file at all) is said so."""
from __future__ import annotations

import subprocess
import sys

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


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
