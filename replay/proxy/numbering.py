"""Exchange numbers in a recording directory that other proxies may be writing into too.

A number is taken by creating a hidden placeholder, `.NNN.claim`, with `O_CREAT|O_EXCL`:
the kernel lets exactly one writer create a name, so two exchanges never hold the same
number, whoever the other writer is (a thread, a second `agui proxy`) and whether or
not the directory can be locked. The exchange's bytes are written into its placeholder
(see `replay.proxy.recorder`), which stays until they are linked into place under the
number, so a number that is taken always shows in the directory: as a placeholder or as
recorded files. Each placeholder is locked while its writer has it open; a process killed
meanwhile leaves its placeholder, hidden and unlocked, holding what had arrived, until
the next proxy recording there finds it (`orphans`) and keeps it under its number, or
the next free one when its name is taken (`replay.proxy.recorder.recover_killed`).

Numbers continue from one past the highest in the directory. Where the directory can be
locked (`flock`), the scan and the claim happen under the lock, so the scan sees every
number taken before. Without it a writer may scan, another take the next number, write
its files and drop its placeholder, all before the first creates its own placeholder:
so a writer without the lock scans again once it holds a number, and gives the number
back when another file carries it.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

_NUMBERED: Final = re.compile(r"^(?:(\d{3,})-|\.(\d{3,})[-.])")
"""A file's number: `NNN-…` recorded, `.NNN.…claim` being written (an older agui's temp
file `.NNN-….agui-tmp` too). A visible name needs the dash: `2026.notes.txt` is the
user's, not exchange 2026."""
CLAIM: Final = ".claim"
"""Suffix of a placeholder: hidden, and no `*.sse` glob finds it."""
_CREATE: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def claim_path(directory: Path, number: int, kind: str = "") -> Path:
    """`.NNN.claim` (or `.NNN.KIND.claim`, a sidecar being written under the number)."""
    return directory / f".{number:03d}{'.' + kind if kind else ''}{CLAIM}"


@dataclass(frozen=True, slots=True)
class Claim:
    """A number this process holds, by the placeholder it created."""

    number: int
    path: Path
    fd: int
    """The placeholder, open for writing; the caller closes it."""


class Unclaimed(Exception):
    """No placeholder could be created: the directory is gone, read-only or full."""

    def __init__(self, number: int, error: OSError) -> None:
        super().__init__(number, error)
        self.number = number
        """The number that was tried, so the failure can name the file it would have been."""
        self.error = error


class Numbers:
    """Hands out exchange numbers for one directory, one past the highest it holds."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._next = 1  # numbers only go up within one process, even past a gap

    def take(self) -> Claim:
        """Claim the next free number (raises `Unclaimed` when no placeholder can be made)."""
        with _locked(self.directory) as locked:
            number = max(self._next, highest(self.directory) + 1)
            while True:
                claim = _claim(self.directory, number)
                if claim is None:  # a placeholder already there: someone else's number
                    number += 1
                    continue
                if locked or not _carried_elsewhere(claim):
                    break
                release(claim)
                number = max(number + 1, highest(self.directory) + 1)
            self._next = number + 1
            return claim


def release(claim: Claim) -> None:
    """Give a number back: close and remove its placeholder."""
    with contextlib.suppress(OSError):
        os.close(claim.fd)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(claim.path)


def highest(directory: Path) -> int:
    """The highest number in `directory`, placeholders included (0 when it is unreadable:
    claiming then says what is wrong)."""
    return max((number for number, _ in _numbered(directory)), default=0)


def _numbered(directory: Path) -> Iterator[tuple[int, str]]:
    try:
        names = [entry.name for entry in os.scandir(directory)]
    except OSError:
        return
    for name in names:
        if match := _NUMBERED.match(name):
            yield int(match.group(1) or match.group(2)), name


def _claim(directory: Path, number: int) -> Claim | None:
    path = claim_path(directory, number)
    try:
        fd = os.open(path, _CREATE | getattr(os, "O_CLOEXEC", 0), 0o666)
    except FileExistsError:
        return None
    except OSError as error:
        raise Unclaimed(number, error) from None
    _hold(fd)
    return Claim(number, path, fd)


def _hold(fd: int) -> None:
    """Lock a new placeholder for as long as its writer keeps it open (`flock`): the
    kernel drops the lock when the writer ends, however it ends, which is how `orphans`
    tells a placeholder whose writer was killed. Where files cannot be locked, nothing
    is held and `orphans` finds none."""
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (ImportError, OSError):
        pass


_STREAM_CLAIM: Final = re.compile(r"^\.(\d{3,})\.claim$")
"""A stream's placeholder (a sidecar's, `.NNN.KIND.claim`, only lives while it is written)."""


@dataclass(frozen=True, slots=True)
class Orphan:
    """A stream placeholder no process holds any more: its writer was killed."""

    number: int
    path: Path
    fd: int
    """The placeholder, open and locked by this process; the caller closes it."""


def orphans(directory: Path) -> list[Orphan]:
    """The stream placeholders in `directory` whose writer is gone, each locked here so
    no other process takes it meanwhile. None where the directory or its files cannot be
    locked: a live writer's placeholder could not be told from a dead one's."""
    found: list[Orphan] = []
    with _locked(directory) as locked:  # no writer is between creating and locking one
        if not locked:
            return found
        import fcntl

        for number, name in _numbered(directory):
            if not _STREAM_CLAIM.match(name):
                continue
            path = directory / name
            flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
            try:
                fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                continue  # gone meanwhile (placed, or taken by another proxy), or not ours
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = os.fstat(fd)
                # still the file at that name (another proxy may have just moved it away)
                same = os.lstat(path)
                if not (
                    stat.S_ISREG(held.st_mode)
                    and (held.st_dev, held.st_ino) == (same.st_dev, same.st_ino)
                ):
                    raise FileNotFoundError(path)
            except OSError:  # locked: its writer is alive
                os.close(fd)
                continue
            found.append(Orphan(number, path, fd))
    return found


def _carried_elsewhere(claim: Claim) -> bool:
    """Whether a file other than our placeholder carries the number (taken, recorded and
    its placeholder dropped while we were not looking)."""
    return any(
        number == claim.number and name != claim.path.name
        for number, name in _numbered(claim.path.parent)
    )


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[bool]:
    """Hold an exclusive lock on `directory`; yields False where it cannot be locked (no
    flock on this system or file system, a directory that cannot be opened)."""
    try:
        import fcntl
    except ImportError:
        yield False
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            locked = False
        else:
            locked = True
        yield locked
    finally:
        os.close(fd)  # closing releases the lock
