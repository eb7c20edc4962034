"""The modules a document imports, as the language server sees them.

A module is found as `import` finds it (lang/modules.py: the importing file's folder, then
LAMINA_PATH), then read from disk and parsed, never run. Its names are its top-level
definitions that do not start with `_`, which is what the running module's fields are. A
module's reading is kept until its file changes (its modification time and size), so
completing `h.` on every keystroke parses the file once.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from ..errors import LaminaError, Source
from ..lang.modules import resolve


@dataclass
class ModuleInfo:
    path: str                            # the module's file, as `import` names it in messages
    source: Source | None = None         # None: the file could not be read
    names: dict = field(default_factory=dict)   # public name -> its analysis.Definition
    error: LaminaError | None = None     # why its names are unknown (unreadable, a syntax error)

    @property
    def name(self) -> str:
        return os.path.splitext(os.path.basename(self.path))[0]


# real path -> ((mtime, size), its ModuleInfo)
_READ: dict[str, tuple[tuple, ModuleInfo]] = {}


def find(spec: str, is_path: bool, directory: str | None) -> str:
    """The module's file, or a LaminaError (ImportError) in the words the run would use."""
    return resolve(spec, is_path, directory)


def read(path: str, definitions: Callable[[Source], dict]) -> ModuleInfo:
    """The module at `path`; `definitions(source)` gives a parsed file's top-level definitions
    (raising its LaminaError when it does not parse)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError as exc:
        return ModuleInfo(path, error=LaminaError("ImportError", f"Cannot read the module {path}: "
                                                  f"{exc.strerror or exc}."))
    stamp = (st.st_mtime_ns, st.st_size)
    known = _READ.get(real)
    if known is not None and known[0] == stamp:
        return known[1]
    info = _read(path, definitions)
    _READ[real] = (stamp, info)
    return info


def _read(path: str, definitions: Callable[[Source], dict]) -> ModuleInfo:
    try:
        with open(path, encoding="utf-8-sig") as f:
            source = Source(path, f.read())
    except OSError as exc:
        return ModuleInfo(path, error=LaminaError("ImportError", f"Cannot read the module {path}: "
                                                  f"{exc.strerror or exc}."))
    except UnicodeDecodeError:
        return ModuleInfo(path, error=LaminaError("ImportError", f"The module {path} is not UTF-8 text."))
    try:
        found = definitions(source)
    except LaminaError as err:
        return ModuleInfo(path, source, error=err)
    return ModuleInfo(path, source, {n: d for n, d in found.items() if not n.startswith("_")})
