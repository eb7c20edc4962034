"""Files a program touches: the permission check every file access goes through, and
writes that a crash cannot half-finish.

Permissions. A run's `Permissions` say under which folders (or single files) it may read
and write; None means anything (the default, so plain `lamina prog.lam` is unchanged).
`lamina --allow-read=DIR,... --allow-write=DIR,...` and `--sandbox` make one; the
Interpreter holds it, and while that Interpreter compiles or runs it is the *current* one
(a context variable, so two interpreters in one process, or in two threads, never see each
other's). A builtin opens a program's file through `open_read(path, who)` or writes it
through `write_file(path, who, write)` (`import` through `open_regular`, which also tells
whether a regular file is there). In a restricted run they `walk` the path one name
at a time: each folder opened relative to the one before without following a link, each
symlink read and followed by hand, so however deep the path, the resolved folder is the
one held open; they check the resolved path, and open the final name relative to that
folder with O_NOFOLLOW (a write's temporary file is made and renamed there too). What is
opened is what was checked, whatever another process swaps meanwhile. A folder on the way
that cannot be followed (no permission, a loop of links, a link swapped on every look) is
denied; a missing final name is not. A denial is a PermissionError naming the path, what it
resolves to, and the flag that would allow it. Any other error on the way (a name too long,
an I/O error) is the OSError open() would raise, naming the path, which the builtin reports
as it reports a failed open ("cannot read ..."); nothing is opened then. `check_read`/
`check_write` give the verdict alone (an early check, before expensive work; where the way
cannot be looked at they give none, and the open that follows reports it); code outside an
Interpreter's run passes the permissions itself:
`check_read(path, "import", interp.permissions)`. An unrestricted run opens the path as
given, as Python does (/dev/stdin, whose link names a pipe, included).

Atomic writes. `atomic_write(path, write)` writes to a temporary file in the target's
folder, flushes and fsyncs it, renames it over the target with `os.replace` (atomic on
POSIX) and fsyncs the folder, all relative to the folder's descriptor, so a crash at any moment leaves either the old
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
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

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


FOLDER_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
MAX_LINKS = 40          # symlinks one path may pass through, as Linux allows
# The errors of a folder on the way that deny following it; any other (ENAMETOOLONG, EIO)
# is the OSError an open would raise.
DENIALS = (errno.EACCES, errno.EPERM, errno.ELOOP)


class Unresolvable(Exception):
    """A folder on a path's way that cannot be followed (no permission, a loop of links, a
    folder that keeps turning into a link)."""

    def __init__(self, where: str, reason: str):
        super().__init__(where, reason)
        self.where, self.reason = where, reason


class Place:
    """Where a walked path leads: the folder it lies in, resolved and held open (`fd`), and
    the name in it ("" when the path names that folder) with the name's lstat (None: no such
    entry). `broken`: the errno of a folder on the way that is missing (ENOENT) or a file
    (ENOTDIR); then `name` is the rest of the path as written, and nothing may be opened."""

    def __init__(self, fd: int, folder: str, name: str, stat: os.stat_result | None, broken: int = 0):
        self.fd, self.folder, self.name, self.stat, self.broken = fd, folder, name, stat, broken

    @property
    def path(self) -> str:
        return os.path.normpath(os.path.join(self.folder, self.name)) if self.name else self.folder

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def walk(path: str) -> Place:
    """Resolve path as the kernel does, one name at a time: each folder is opened relative to
    the one before without following a link, each symlink is read and followed by hand. So
    the folder held is the one the resolved path names, however long the path, and another
    process that swaps a link meanwhile changes nothing that was checked. A folder that
    cannot be followed (DENIALS) is Unresolvable; any other error on the way is an OSError,
    and a missing final name is not an error."""
    wants_folder = os.path.basename(path) in ("", ".", "..")
    held, links, where = [], 0, "the current folder"
    try:
        names = [n for n in reversed(os.path.join(os.getcwd(), path).split(os.sep)) if n not in ("", ".")]
        held.append((os.open(os.sep, FOLDER_FLAGS), os.sep))
        while names:
            name = names.pop()
            fd, folder = held[-1]
            if name == "..":
                if len(held) > 1:
                    os.close(held.pop()[0])
                continue
            where, last = os.path.join(folder, name), not names and not wants_folder
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError as exc:
                if last:
                    return _settle(held, name, None)
                if exc.errno == errno.ENOENT:
                    return _settle(held, os.path.join(name, *reversed(names)), None, errno.ENOENT)
                raise
            if stat.S_ISLNK(st.st_mode):
                links += 1
                if links > MAX_LINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
                try:
                    target = os.readlink(name, dir_fd=fd)
                except OSError as exc:
                    if exc.errno not in (errno.EINVAL, errno.ENOENT):
                        raise
                    names.append(name)      # no longer a link since the lstat: look again
                    continue
                while target.startswith(os.sep) and len(held) > 1:
                    os.close(held.pop()[0])
                names.extend(n for n in reversed(target.split(os.sep)) if n not in ("", "."))
            elif last:
                return _settle(held, name, st)
            elif not stat.S_ISDIR(st.st_mode):
                return _settle(held, os.path.join(name, *reversed(names)), None, errno.ENOTDIR)
            else:
                try:
                    held.append((os.open(name, FOLDER_FLAGS, dir_fd=fd), where))
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                        raise
                    if links >= MAX_LINKS:      # swapped on every look
                        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
                    links += 1          # replaced since the lstat: look again
                    names.append(name)
        return _settle(held, "", None)
    except OSError as exc:
        for fd, _ in held:
            os.close(fd)
        if exc.errno in DENIALS:
            raise Unresolvable(where, exc.strerror or str(exc)) from None
        exc.filename, exc.filename2 = path, None
        raise


def _settle(held: list[tuple[int, str]], name: str, st: os.stat_result | None, broken: int = 0) -> Place:
    """The Place in the innermost folder held; the folders above it are closed."""
    fd, folder = held.pop()
    for above, _ in held:
        os.close(above)
    return Place(fd, folder, name, st, broken)


def check_read(path: str, who: str, permissions: Permissions | None = None) -> str:
    """The resolved path, if the run may read it; else a PermissionError. It only answers:
    a builtin that then opens the path by name could open something else (open_read). Where
    the way cannot be looked at (a name too long, an I/O error) it gives no verdict, only
    os.path.realpath's answer: the open that follows walks again and raises the OSError."""
    return _checked_path("read", path, who, permissions)


def check_write(path: str, who: str, permissions: Permissions | None = None) -> str:
    """The resolved path, if the run may write it; else a PermissionError (see check_read)."""
    return _checked_path("write", path, who, permissions)


def open_read(path: str, who: str, permissions: Permissions | None = None) -> BinaryIO:
    """The file at path, open for reading (binary), if the run may read it: what was opened
    is what was checked. OSError (no such file, a folder) is left to the caller."""
    perms = _validated(path, who, permissions)
    if perms.read is None:
        return open(path, "rb")
    fd = _at_place("read", path, who, perms, _open_for_reading)
    return os.fdopen(fd, "rb")


def open_regular(path: str, who: str, permissions: Permissions | None = None) -> tuple[str, BinaryIO] | None:
    """The resolved path and the file, open for reading (binary), if path names a regular file
    the run may read; None where it names nothing, a folder, a device or a pipe (none of them
    is opened). One walk gives the verdict, the look and the file: `import`'s search. A denial
    is check_read's PermissionError; an error on the way or in the open is an OSError."""
    perms = _validated(path, who, permissions)
    try:
        if perms.read is None:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None
            return resolve(path), open(path, "rb")
        return _at_place("read", path, who, perms, _open_if_regular)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _open_if_regular(place: Place) -> tuple[str, BinaryIO] | None:
    if place.stat is not None and not stat.S_ISREG(place.stat.st_mode):
        return None
    # without waiting, should a pipe have taken the name since the walk
    fd = os.open(place.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=place.fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return place.path, os.fdopen(fd, "rb")


def write_file(path: str, who: str, write: Callable, permissions: Permissions | None = None) -> None:
    """atomic_write(path, write), if the run may write path: the temporary file is made, and
    renamed over the target, in the folder that was checked."""
    perms = _validated(path, who, permissions)
    if perms.write is None:
        atomic_write(path, write)
    else:
        _at_place("write", path, who, perms, lambda place: _write_at(place, write))


def _validated(path: str, who: str, permissions: Permissions | None) -> Permissions:
    if "\0" in path:
        raise LaminaError("ValueError", f"{who}'s path holds a NUL character, which no file's name has.")
    if not path:
        raise LaminaError("ValueError", f"{who}'s path is empty; it needs the name of a file.")
    return current() if permissions is None else permissions


def _checked_path(mode: str, path: str, who: str, permissions: Permissions | None) -> str:
    perms = _validated(path, who, permissions)
    if (perms.read if mode == "read" else perms.write) is None:
        return resolve(path)
    try:
        place = _checked_place(mode, path, who, perms)
    except OSError:         # no verdict: the open walks again and reports it
        return resolve(path)
    place.close()
    return place.path


def _checked_place(mode: str, path: str, who: str, perms: Permissions) -> Place:
    """Where path leads, its folder held open, once the run may `mode` it there."""
    try:
        place = walk(path)
    except Unresolvable as exc:
        raise LaminaError("PermissionError", f'{who} may not {mode} "{path}": {exc.where} cannot be '
                          f"followed ({exc.reason}), so where the path leads cannot be checked.") from None
    if perms.allows(mode, place.path):
        return place
    place.close()
    resolved = place.path
    roots = perms.read if mode == "read" else perms.write
    shown = f'"{path}"' if resolved == path else f'"{path}" (resolved: {resolved})'
    limit = f"this run may {mode} only under {', '.join(roots)}" if roots else f"this run may {mode} no files"
    if perms.sandbox:
        limit += " (--sandbox)"
    names_folder = not place.name or (place.stat is not None and stat.S_ISDIR(place.stat.st_mode))
    folder = resolved if names_folder else os.path.dirname(resolved)
    raise LaminaError("PermissionError", f"{who} may not {mode} {shown}: {limit}; run lamina "
                      f"with --allow-{mode}={folder} to allow it.")


def _at_place(mode: str, path: str, who: str, perms: Permissions, act: Callable):
    """act(place) on the checked place path leads to. An OSError names path; a final name
    that became a symlink since the walk (ELOOP from O_NOFOLLOW) is walked again."""
    for _ in range(MAX_LINKS):
        place = _checked_place(mode, path, who, perms)
        try:
            if place.broken:        # a folder on the way is missing or a file: as open() says
                raise OSError(place.broken, os.strerror(place.broken))
            if not place.name:
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            return act(place)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                exc.filename, exc.filename2 = path, None
                raise
        finally:
            place.close()
    raise LaminaError("PermissionError", f'{who} may not {mode} "{path}": it kept turning into a '
                      "symlink while it was opened, so what it names cannot be checked.")


def _open_for_reading(place: Place) -> int:
    fd = os.open(place.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.fd)
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    return fd


def atomic_write(path: str, write: Callable) -> None:
    """Call write(f) on a temporary file (binary) in path's folder, then put it in place of path.
    No permission is checked (Lamina's own files, such as the docs pages; a program's writes
    go through write_file).

    OSError is left to the caller, after the temporary file is removed, naming path (not the
    temporary file, which the user never asked for)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:                 # no such file (or folder on the way: the write below says so)
        mode = None
    if (mode is not None and stat.S_ISDIR(mode)) or path.endswith((os.sep, os.altsep or os.sep)):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)   # as open() says
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as f:     # a device or a pipe: nothing to replace
            write(f)
        return
    folder, name = os.path.split(resolve(path))
    try:
        fd = os.open(folder or ".", FOLDER_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:      # a folder that is missing
        exc.filename = path
        raise
    try:
        _replace(Place(fd, folder, name, None), write, path)
    finally:
        os.close(fd)


def _write_at(place: Place, write: Callable) -> None:
    """A checked write: a device or a pipe is written directly, opened without following a
    link; anything else is replaced through a temporary file in the checked folder."""
    if place.stat is not None and stat.S_ISDIR(place.stat.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    if place.stat is not None and not stat.S_ISREG(place.stat.st_mode):
        fd = os.open(place.name, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.fd)
        with os.fdopen(fd, "wb") as f:
            write(f)
        return
    _replace(place, write, None)


def _replace(place: Place, write: Callable, given: str | None) -> None:
    """Write a temporary file in place's folder (fsynced), rename it over place's name and
    fsync the folder: nothing is looked up by a path from the root."""
    folder_fd, name = place.fd, place.name
    try:
        st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except OSError:
        st = None
    mode = None if st is None or not stat.S_ISREG(st.st_mode) else stat.S_IMODE(st.st_mode)
    if mode is not None and not os.access(name, os.W_OK, dir_fd=folder_fd):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), given)   # as open() keeps it
    listing = _readable_folder(folder_fd)
    try:
        if listing is not None:
            _remove_stale(listing, name)
        temp, fd = _create_temp(folder_fd, name, mode)
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder_fd)
            raise
        if listing is not None:
            with contextlib.suppress(OSError):     # makes the rename durable
                os.fsync(listing)
    except OSError as exc:
        exc.filename, exc.filename2 = given, None
        raise
    finally:
        if listing is not None:
            os.close(listing)


def _readable_folder(folder_fd: int) -> int | None:
    """The folder again, open for listing and fsync (a walked folder may be open for
    lookups only); None where it cannot be read."""
    try:
        return os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError:
        return None


def _create_temp(folder_fd: int, name: str, mode: int | None) -> tuple[str, int]:
    """A new temporary file beside the target (its name, an open descriptor), with the
    target's mode (None: a new file's)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        temp = f"{_temp_prefix(name)}{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}"
        try:
            fd = os.open(temp, flags, 0o666 if mode is None else mode, dir_fd=folder_fd)   # the umask applies
        except FileExistsError:
            continue
        if mode is not None:       # the old file's mode exactly, which the umask may not cut
            os.chmod(fd, mode)
        return temp, fd


def _temp_prefix(name: str) -> str:
    """`.NAME.`, NAME cut so that the temporary file's name fits where the target's does (a
    folder entry holds 255 bytes; the pid, random part and suffix take up to 40)."""
    while len(os.fsencode(name)) > 200:
        name = name[:-1]
    return f".{name}."


def _remove_stale(folder_fd: int, name: str) -> None:
    """Remove temporary files of this target left by processes that no longer run."""
    prefix = _temp_prefix(name)
    try:
        entries = [e for e in os.listdir(folder_fd) if e.startswith(prefix) and e.endswith(TEMP_SUFFIX)]
    except OSError:
        return
    for entry in entries:
        pid = entry[len(prefix):-len(TEMP_SUFFIX)].partition("-")[0]
        if pid.isdigit() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(entry, dir_fd=folder_fd)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False             # this process writes one file at a time: its leftover is stale
    return process_running(pid)


def process_running(pid: int) -> bool:
    """Whether a process of that id exists (a folder or file named after it is not a leftover)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:              # it exists, but belongs to another user
        return True
    return True
