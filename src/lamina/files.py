"""Files a program touches: the permission check every file access goes through, and
writes that a crash cannot half-finish.

Permissions. A run's `Permissions` say under which folders (or single files) it may read
and write; None means anything (the default, so plain `lamina prog.lam` is unchanged).
`lamina --allow-read=DIR,... --allow-write=DIR,...` and `--sandbox` make one; the
Interpreter holds it, and while that Interpreter compiles or runs it is the *current* one
(a context variable, so two interpreters in one process, or in two threads, never see each
other's). A builtin calls `check_read(path, who)` or `check_write(path, who)` before it
opens a file; they check the path resolved (absolute, every symlink and `..` followed) and
return it, or raise a PermissionError naming the path and the flag that would allow it.
The builtin then opens the path as given (/dev/stdin resolves to a pipe's name that cannot
be opened; a program has no way to swap a symlink between the check and the open). Code
that runs outside an Interpreter's compile or run, such as a future `import` resolving a
module, passes the permissions itself: `check_read(path, "import", interp.permissions)`.

Atomic writes. `atomic_write(path, write)` writes to a temporary file in the target's
folder, flushes and fsyncs it, renames it over the target with `os.replace` (atomic on
POSIX and Windows) and fsyncs the folder, so a crash at any moment leaves either the old
file or the complete new one. A symlink is followed (its target is replaced); a target that
exists and is not a regular file (/dev/stdout, a named pipe) is written directly. A target
the user may not write (a read-only file) is refused, as open() refuses it, though a rename
could replace it; a path ending in a slash names a folder. The
temporary file is `.NAME.PID-RANDOM.lamina-tmp` (hidden, and no loader reads that ending);
it is removed when the write fails, and one left by a process that was killed is removed
by the next write of the same target.
"""
from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator

from .errors import LaminaError
from .fields import Frozen

TEMP_SUFFIX = ".lamina-tmp"


def expand_home(path: str) -> str:
    """The path with a leading `~` or `~user` replaced by that home folder, as the shell, R and
    MATLAB read a path a program names (`read_csv("~/data/d.csv")`); every builtin that takes a
    path reads it through here before checking or opening it."""
    return os.path.expanduser(path)


def resolve(path: str) -> str:
    """The absolute path with every symlink and `..` resolved (the file need not exist)."""
    return os.path.realpath(os.path.abspath(path))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


class Permissions(Frozen):
    """Resolved folders (or files) a run may read and write under; None: anything."""

    def __init__(self, read: tuple[str, ...] | None = None, write: tuple[str, ...] | None = None,
                 sandbox: bool = False):
        self.read, self.write = read, write
        self.sandbox = sandbox          # made by --sandbox (for messages)

    @classmethod
    def of(cls, read: Iterable[str] | None = None, write: Iterable[str] | None = None,
           sandbox: bool = False) -> Permissions:
        """From the folders as given (relative to the working directory). With sandbox, the
        working directory is added to both lists; a list not given allows nothing once any
        permission is asked for (as Deno does), and everything when none is."""
        if read is None and write is None and not sandbox:
            return cls()
        here = [os.getcwd()] if sandbox else []
        return cls(tuple(dict.fromkeys(resolve(p) for p in [*here, *(read or [])])),
                   tuple(dict.fromkeys(resolve(p) for p in [*here, *(write or [])])), sandbox)

    def allows(self, mode: str, resolved: str) -> bool:
        roots = self.read if mode == "read" else self.write
        return roots is None or any(_inside(resolved, root) for root in roots)


EVERYTHING = Permissions()
_CURRENT: contextvars.ContextVar[Permissions] = contextvars.ContextVar("lamina_permissions",
                                                                        default=EVERYTHING)


def current() -> Permissions:
    """The permissions of the program running now (everything outside any Interpreter)."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(permissions: Permissions) -> Iterator[None]:
    """Make `permissions` the current ones for the duration (the Interpreter wraps runs in it)."""
    token = _CURRENT.set(permissions)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def check_read(path: str, who: str, permissions: Permissions | None = None) -> str:
    """The resolved path, if the run may read it; else a PermissionError."""
    return _check("read", path, who, permissions)


def check_write(path: str, who: str, permissions: Permissions | None = None) -> str:
    """The resolved path, if the run may write it; else a PermissionError."""
    return _check("write", path, who, permissions)


def _check(mode: str, path: str, who: str, permissions: Permissions | None) -> str:
    perms = current() if permissions is None else permissions
    if "\0" in path:
        raise LaminaError("ValueError", f"{who}'s path holds a NUL character, which no file's name has.")
    if not path:
        raise LaminaError("ValueError", f"{who}'s path is empty; it needs the name of a file.")
    resolved = resolve(path)
    if perms.allows(mode, resolved):
        return resolved
    roots = perms.read if mode == "read" else perms.write
    shown = f'"{path}"' if resolved == path else f'"{path}" (resolved: {resolved})'
    if roots:
        limit = f"this run may {mode} only under {', '.join(roots)}"
    else:
        limit = f"this run may {mode} no files"
    if perms.sandbox:
        limit += " (--sandbox)"
    folder = resolved if os.path.isdir(resolved) else os.path.dirname(resolved)
    raise LaminaError("PermissionError", f"{who} may not {mode} {shown}: {limit}; run lamina "
                      f"with --allow-{mode}={folder} to allow it.")


def atomic_write(path: str, write: Callable) -> None:
    """Call write(f) on a temporary file (binary) in path's folder, then put it in place of path.

    OSError is left to the caller, after the temporary file is removed, naming path (not the
    temporary file, which the user never asked for)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:                 # no such file (or folder on the way: the write below says so)
        mode = None
    if (mode is not None and stat.S_ISDIR(mode)) or path.endswith((os.sep, os.altsep or os.sep)):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)   # as open() says
    if mode is not None and not os.access(path, os.W_OK):   # a read-only file stays so, as open() keeps it
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as f:     # a device or a pipe: nothing to replace
            write(f)
        return
    given, path = path, resolve(path)
    folder, name = os.path.split(path)
    folder = folder or "."
    _remove_stale(folder, name)
    try:
        temp, fd = _create_temp(folder, name, None if mode is None else stat.S_IMODE(mode))
    except OSError as exc:      # a folder that is missing or may not be written
        exc.filename = given
        raise
    try:
        with os.fdopen(fd, "wb") as f:
            write(_Paused(f, temp) if os.environ.get("LAMINA_TEST_WRITE_PAUSE") else f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            exc.filename, exc.filename2 = given, None
        raise
    _fsync_folder(folder)


def _create_temp(folder: str, name: str, mode: int | None) -> tuple[str, int]:
    """A new temporary file beside the target, with the target's mode (None: a new file's)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        temp = os.path.join(folder, f"{_temp_prefix(name)}{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}")
        try:
            fd = os.open(temp, flags, 0o666 if mode is None else mode)   # the umask applies
        except FileExistsError:
            continue
        if mode is not None:       # the old file's mode exactly, which the umask may not cut
            os.chmod(fd if os.chmod in os.supports_fd else temp, mode)
        return temp, fd


def _temp_prefix(name: str) -> str:
    """`.NAME.`, NAME cut so that the temporary file's name fits where the target's does (a
    folder entry holds 255 bytes; the pid, random part and suffix take up to 40)."""
    while len(os.fsencode(name)) > 200:
        name = name[:-1]
    return f".{name}."


def _remove_stale(folder: str, name: str) -> None:
    """Remove temporary files of this target left by processes that no longer run."""
    prefix = _temp_prefix(name)
    try:
        entries = [e for e in os.listdir(folder) if e.startswith(prefix) and e.endswith(TEMP_SUFFIX)]
    except OSError:
        return
    for entry in entries:
        pid = entry[len(prefix):-len(TEMP_SUFFIX)].partition("-")[0]
        if pid.isdigit() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, entry))


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False             # this process writes one file at a time: its leftover is stale
    if sys.platform == "win32":
        return True              # no cheap check: leave it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:              # it exists, but belongs to another user
        return True
    return True


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _Paused:
    """A test hook (LAMINA_TEST_WRITE_PAUSE=1): after the first write into the temporary
    file, say so on stderr and wait, so a test can kill the process mid-write."""

    def __init__(self, f, name: str):
        self.f, self.name, self.done = f, name, False

    def write(self, data):
        n = self.f.write(data)
        if not self.done and n:
            self.done = True
            self.f.flush()
            print(f"lamina: paused writing {self.name}", file=sys.stderr, flush=True)
            import time
            time.sleep(600)
        return n

    def __getattr__(self, name):
        return getattr(self.f, name)
