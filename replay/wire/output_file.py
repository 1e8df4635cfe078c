"""Write a user's output file safely: the one place agui puts bytes at a path it was given.

A path on the command line is not always a regular file. A symlink must keep being a
symlink (the file it points to is replaced), a character device or a FIFO must receive
the bytes (renaming over `/dev/null` would replace the device), `-` is stdout, and a
regular file is replaced atomically by a temp file created beside the *resolved*
target, so that an interrupted run leaves the old content or the new, never half. A
rewritten file keeps its mode and its other hard links; a new one gets the mode the
umask allows. Errors name the user's path, never the temp file's.

A temp file is created beside the target only in a directory the current user owns
(root's own directories, when running as root). Anywhere else — `/tmp` or another
shared sticky directory for an ordinary user, another user's home for root — a file
there must not change owner, and a name there must not be trusted: the bytes are
collected in an unnamed temp file (`tempfile.TemporaryFile`, in `$TMPDIR`) and copied
into the target when the run is done, so the target keeps its inode, owner and mode,
and an interrupted run leaves it untouched. A new file is created at that moment with
`O_EXCL` (a name someone planted meanwhile is refused, never followed). In a sticky
directory, as the kernel's `protected_symlinks`/`protected_regular` do, a symlink or an
existing file owned by neither the user nor the directory's owner is refused with one
line. SIGTERM and SIGHUP
remove pending temp files as SIGINT does; a temp file a killed run left behind carries
the dead process's id in its name, so a later run can recognise and remove it.

This module imports nothing else from agui, so the stream layer, the codemods and the
CLI can all use it.

Kept whole (about 430 lines): every way of landing the bytes (rename beside the target,
copy into it, write to a device or stdout) answers the same two questions — where may
a temp file live, and what may the target become — and the signal cleanup must know
every temp file those paths create.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import BinaryIO

STDOUT = "-"
TEMP_SUFFIX = ".agui-tmp"
# `.NAME.PID.RANDOM.agui-tmp`: the pid tells a live run's temp file from a dead one's.
_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]{8}\.agui-tmp$")
# Paths the kernel resolves by itself (`/dev/stdout` → `/proc/self/fd/1`): written
# straight, since their resolved name is no place to create a temp file.
_KERNEL_PREFIXES = ("/proc/", "/dev/")
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

_pending: set[str] = set()
_previous: dict[int, Callable[[int, FrameType | None], object] | int | None] = {}
_lock = threading.Lock()


class OutputFile:
    """An output path opened for writing; `commit()` puts the bytes in place.

    Use it as a context manager: leaving the block normally commits, an exception
    (Ctrl-C included) discards the temp file and leaves the target as it was.
    """

    def __init__(self, path: str | os.PathLike[str], *, make_parents: bool = False) -> None:
        self.path = os.fspath(path)
        self._temp: str | None = None
        self._target: str | None = None
        self._mode: int | None = None
        self._in_place = False
        # Not our directory: bytes wait in an unnamed temp file, copied in at commit.
        self._shared_directory: os.stat_result | None = None
        self._closed = False
        if self.path == STDOUT:
            sys.stdout.flush()
            self._handle: BinaryIO = _stdout_buffer()
            self._owns_handle = False
            return
        self._owns_handle = True
        with _naming(self.path):
            self._handle = self._open(make_parents)

    def _open(self, make_parents: bool) -> BinaryIO:
        try:
            info: os.stat_result | None = os.stat(self.path)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", self.path)
        _refuse_foreign_links(self.path)
        target = os.path.realpath(self.path)
        kernel = (target, os.path.abspath(self.path))
        if info is not None and (
            not stat.S_ISREG(info.st_mode)
            or any(name.startswith(_KERNEL_PREFIXES) for name in kernel)
        ):
            if stat.S_ISSOCK(info.st_mode) or stat.S_ISBLK(info.st_mode):
                raise OSError(errno.EINVAL, "not a file, FIFO or character device", self.path)
            # A device, FIFO or /dev/stdout: the bytes go straight in, nothing is renamed.
            return open(self.path, "wb")
        if info is not None:
            _refuse_read_only(info)
            self._mode = stat.S_IMODE(info.st_mode)
            # Another name shares this inode: replacing it would leave that name with
            # the old content, so at commit the new bytes are copied into the inode.
            self._in_place = info.st_nlink > 1
        directory = os.path.dirname(target) or "."
        if make_parents:
            os.makedirs(directory, exist_ok=True)
        elif not os.path.isdir(directory):
            raise FileNotFoundError(errno.ENOENT, "no such directory", self.path)
        self._target = target
        folder = os.stat(directory)
        if folder.st_uid != os.geteuid():
            if info is not None:
                _refuse_foreign_file(info, folder)
            elif not os.access(directory, os.W_OK | os.X_OK):
                # Refused now, not after the work: the file is created only at commit.
                raise PermissionError(errno.EACCES, "permission denied")
            self._shared_directory = folder
            return tempfile.TemporaryFile()  # unnamed: nothing beside the target
        _watch_signals()
        with _signals_held():  # a signal between the two would leave an unknown file
            fd, temp = tempfile.mkstemp(
                dir=directory,
                prefix=f".{os.path.basename(target)}.{os.getpid()}.",
                suffix=TEMP_SUFFIX,
            )
            with _lock:
                _pending.add(temp)
            self._temp = temp
        try:
            return os.fdopen(fd, "wb")
        except BaseException:  # Ctrl-C right after the temp file appeared
            os.close(fd)
            os.unlink(temp)
            self._forget_temp()
            raise

    def retarget(self, path: str | os.PathLike[str]) -> bool:
        """Commit to `path` instead, a name beside the target (an unfinished recording
        is kept as `.partial`); only before `commit()`. False when the bytes already
        went straight into a device, FIFO or stdout: they stay there. What stands at
        `path` is checked as opening it checks: not a regular file, read-only, or a link
        out of the target's directory is refused (an `OSError` naming `path`)."""
        path = os.fspath(path)
        beside = self._temp if self._temp is not None else self._target
        if beside is None:
            return False
        with _naming(path):
            try:
                info: os.stat_result | None = os.stat(path)
            except FileNotFoundError:
                info = None
            if info is not None:
                if not stat.S_ISREG(info.st_mode):
                    raise OSError(errno.EINVAL, "not a regular file: nothing is moved onto it")
                _refuse_read_only(info)
            _refuse_foreign_links(path)
            target = os.path.realpath(path)
            if os.path.dirname(target) != os.path.dirname(beside):
                raise OSError(errno.EXDEV, f"not beside {self.path}")
            if info is not None and self._shared_directory is not None:
                _refuse_foreign_file(info, self._shared_directory)
        self.path, self._target = path, target
        self._mode = None if info is None else stat.S_IMODE(info.st_mode)
        self._in_place = info is not None and info.st_nlink > 1
        return True

    def write(self, data: bytes) -> None:
        with _naming(self.path):
            self._handle.write(data)

    def commit(self) -> None:
        """Flush and put the bytes in place: rename the temp file over the target, or copy
        it into the target's inode when other hard links share it."""
        if self._closed:
            return
        self._closed = True
        try:
            with _naming(self.path):
                if not self._owns_handle:
                    self._handle.flush()
                    return
                if self._shared_directory is not None and self._target is not None:
                    with self._handle:
                        self._handle.flush()
                        self._handle.seek(0)
                        with _signals_held():  # overwritten in place: never half
                            _copy_into_shared(self._handle, self._target, self._shared_directory)
                    return
                self._handle.close()
                if self._temp is None or self._target is None:
                    return
                with contextlib.suppress(FileNotFoundError):
                    now = os.stat(self._target)
                    if stat.S_ISREG(now.st_mode):
                        # Made read-only while the run went on: refused, as at the start.
                        _refuse_read_only(now)
                if self._in_place:
                    with _signals_held():  # overwritten in place: never half
                        _copy_into(self._temp, self._target)
                    os.unlink(self._temp)
                    return
                mode = self._mode if self._mode is not None else 0o666 & ~_umask()
                os.chmod(self._temp, mode)
                os.replace(self._temp, self._target)
        except BaseException:
            # The target could not take the bytes (it became a directory meanwhile, ...): the
            # temp file is of no use to anyone, and left there the next run would remove it
            # with a notice about an interrupted run that never was.
            if self._temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self._temp)
            raise
        finally:
            self._forget_temp()

    def discard(self) -> None:
        """Drop what was written; the target keeps its old content."""
        if self._closed:
            return
        self._closed = True
        if self._owns_handle:
            with contextlib.suppress(OSError):
                self._handle.close()
        if self._temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temp)
        self._forget_temp()

    def _forget_temp(self) -> None:
        if self._temp is None:
            return
        with _lock:
            _pending.discard(self._temp)
            if not _pending:
                _restore_signals()
        self._temp = None

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def write_output(path: str | os.PathLike[str], data: bytes) -> None:
    """Put `data` at the user's `path` (see `OutputFile`)."""
    with OutputFile(path) as out:
        out.write(data)


def discard_pending() -> None:
    """Remove the temp file of every output neither committed nor discarded yet.

    For a run that Ctrl-C ends: the interrupt can arrive after an `OutputFile` made its
    temp file but before the `with` block (or `try`) that would discard it began, and
    then nothing else would remove the file.
    """
    with _lock:
        pending = list(_pending)
    for temp in pending:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    with _lock:
        _pending.difference_update(pending)
        if not _pending:
            _restore_signals()


def stale_temp_files(directory: str | os.PathLike[str]) -> Iterator[Path]:
    """Temp files in `directory` that an agui run left behind when it was killed.

    Only names of our own pattern whose process is gone are yielded; a concurrent run's
    temp file (its pid alive) is left alone, and so is a file another user owns (agui
    creates its temp files only in the user's own directories, so such a file is not
    one of this user's runs').
    """
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        match = _TEMP_NAME.match(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                continue
        except OSError:
            continue
        if not _alive(int(match["pid"])):
            yield Path(entry.path)


def remove_stale_temp_files(
    paths: Iterable[str | os.PathLike[str]], report: Callable[[str], None]
) -> list[Path]:
    """Remove the temp files killed runs left beside these output paths, saying so.

    Every command that writes through `OutputFile` calls this before writing: a SIGKILL
    cannot be caught, so the next run is the first chance to clean up. The directories
    are those of the *resolved* targets, where the temp files were created; `report`
    receives one line per file removed.
    """
    directories = {
        os.path.dirname(os.path.realpath(os.fspath(path))) or "."
        for path in paths
        if os.fspath(path) != STDOUT
    }
    # Nothing is ever renamed into /dev or /proc (see `_KERNEL_PREFIXES`).
    directories = {name for name in directories if not (name + "/").startswith(_KERNEL_PREFIXES)}
    removed = []
    for directory in sorted(directories):
        for stale in stale_temp_files(directory):
            try:
                stale.unlink()
            except OSError:
                continue
            removed.append(stale)
            report(f"agui: removed {stale}, a temp file left by an interrupted run")
    return removed


def _copy_into_shared(source: BinaryIO, target: str, folder: os.stat_result) -> None:
    """Put `source`'s bytes at `target` in a directory the user does not own.

    A new file is created exclusively and without following a symlink (nothing planted
    since the run began is trusted); an existing one is opened without following a
    symlink, checked again, and overwritten in its own inode, so it keeps its owner.
    """
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        fd = os.open(target, flags)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "no longer a regular file", target)
            _refuse_foreign_file(info, folder)
        except BaseException:
            os.close(fd)
            raise
    with os.fdopen(fd, "wb", buffering=0) as writer:
        _overwrite(source, writer)


def _refuse_foreign_file(info: os.stat_result, folder: os.stat_result) -> None:
    """In a sticky directory, a file owned by neither us nor the directory's owner is
    someone else's: writing into it would hand them our output (`protected_regular`)."""
    if folder.st_mode & stat.S_ISVTX and info.st_uid not in (os.geteuid(), folder.st_uid):
        raise PermissionError(
            errno.EACCES, "owned by another user in a shared directory; choose another name"
        )


def _refuse_foreign_links(path: str) -> None:
    """Refuse to follow a symlink another user owns in a sticky, world-writable directory.

    The kernel refuses to follow such links (`fs.protected_symlinks`), but agui resolves
    the path itself to find where the temp file goes, so it must apply the rule too:
    otherwise `-o /tmp/out.sse`, planted as a link to `/etc/passwd`, would replace it.
    """
    hops = 0
    while hops < 40:
        try:
            link = os.lstat(path)
        except FileNotFoundError:
            return
        if not stat.S_ISLNK(link.st_mode):
            return
        folder = os.stat(os.path.dirname(os.path.abspath(path)) or ".")
        shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
        if shared and link.st_uid not in (os.geteuid(), folder.st_uid):
            raise PermissionError(
                errno.EACCES, "a symlink another user owns in a shared directory; not followed"
            )
        path = os.path.join(os.path.dirname(os.path.abspath(path)), os.readlink(path))
        hops += 1


def _copy_into(source: str, target: str) -> None:
    """Overwrite `target`'s inode with `source`'s bytes (its other hard links see them)."""
    with open(source, "rb") as reader, open(target, "r+b", buffering=0) as writer:
        _overwrite(reader, writer)


def _overwrite(reader: BinaryIO, writer: BinaryIO) -> None:
    """Make the file `writer` (unbuffered) holds `reader`'s bytes, in its own inode.

    The bytes past the old end need new room on the disk, so they are written first: a
    full disk (or a file-size limit) fails there, the file is cut back to its old length,
    and not one old byte has changed. Then the old bytes are overwritten, in room the
    file has, and the file is cut to its new length.
    """
    old = os.fstat(writer.fileno()).st_size
    new = os.fstat(reader.fileno()).st_size
    if new > old:
        reader.seek(old)
        writer.seek(old)
        try:
            _copy_bytes(reader, writer, new - old)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(writer.fileno(), old)
            raise
    reader.seek(0)
    writer.seek(0)
    _copy_bytes(reader, writer, min(old, new))
    writer.truncate(new)


def _copy_bytes(reader: BinaryIO, writer: BinaryIO, count: int) -> None:
    """Copy `count` bytes; `writer` is unbuffered, so a short write is written on."""
    while count > 0:
        block = reader.read(min(count, 1 << 20))
        if not block:
            raise OSError(errno.EIO, "the temp file ended early")
        count -= len(block)
        view = memoryview(block)
        while view:
            view = view[writer.write(view) :]


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _refuse_read_only(info: os.stat_result) -> None:
    """A file without any write bit is not rewritten, even by root (who could)."""
    if not stat.S_IMODE(info.st_mode) & 0o222:
        raise PermissionError(errno.EACCES, "read-only file (chmod u+w to allow rewriting it)")


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """Re-raise an OS error with the user's path as its file name (never the temp's)."""
    try:
        yield
    except OSError as error:
        if error.filename == path and error.filename2 is None:
            raise
        raise OSError(error.errno, error.strerror or str(error), path) from None


def _stdout_buffer() -> BinaryIO:
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        return buffer  # type: ignore[no-any-return]
    return _TextWriter()  # type: ignore[return-value]


class _TextWriter:
    """stdout without a binary buffer (some test runners): bytes decoded as UTF-8."""

    def write(self, data: bytes) -> int:
        return sys.stdout.write(data.decode("utf-8", errors="replace"))

    def flush(self) -> None:
        sys.stdout.flush()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back SIGINT, SIGTERM and SIGHUP until the block ends (where the platform can)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *_SIGNALS})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _watch_signals() -> None:
    """Install SIGTERM/SIGHUP handlers that remove pending temp files (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        for number in _SIGNALS:
            if number not in _previous:
                _previous[number] = signal.getsignal(number)
                signal.signal(number, _on_signal)


def _restore_signals() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for number, handler in _previous.items():
        signal.signal(number, handler if handler is not None else signal.SIG_DFL)
    _previous.clear()


def _on_signal(number: int, frame: FrameType | None) -> None:
    previous = _previous.get(number)
    if previous == signal.SIG_IGN:
        return  # ignored (`nohup`): the run goes on, and needs its temp files
    if callable(previous):
        # The program handles this signal itself (a command that stops on SIGTERM as on
        # Ctrl-C): the outputs are still its own, to discard as the unwinding goes, or to
        # keep (`resume --record` keeps what arrived as `.partial`).
        previous(number, frame)
        return
    for temp in list(_pending):
        with contextlib.suppress(OSError):
            os.unlink(temp)
    _pending.clear()
    _restore_signals()
    # The default action: end the process with the status the signal gives.
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
