"""Give a finished file a name nothing holds yet, never replacing a file already there.

The recorder writes each exchange into a hidden placeholder and names it when it is
done (`replay.proxy.recorder`). Another proxy, a tool or the user may put a file at the
same name at any moment, so the name must be taken by the kernel in the same step that
checks it is free: a check made before the move (`os.path.exists`, then `os.rename`)
lets a file that appears in between be replaced, and its bytes lost.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

NO_HARD_LINKS: Final = frozenset(
    code
    for code in (
        errno.EPERM,
        errno.EMLINK,
        errno.EXDEV,
        errno.ENOSYS,
        getattr(errno, "ENOTSUP", None),
        errno.EOPNOTSUPP,
    )
    if code is not None
)
"""What `link` answers on a file system without hard links (FAT and exFAT say EPERM,
some network shares and FUSE file systems ENOTSUP, ENOSYS or EXDEV)."""

_NO_EXCLUSIVE_RENAME: Final = frozenset({errno.EINVAL, errno.ENOSYS, *NO_HARD_LINKS})
"""What `renameat2(RENAME_NOREPLACE)` answers where the file system or the kernel does
not offer it (EXDEV too: a copy still gives the name)."""

_AT_FDCWD: Final = -100
_RENAME_NOREPLACE: Final = 1


def give_name(source: Path, target: Path) -> None:
    """Give `source`'s file the name `target` and drop `source`; `FileExistsError` when
    `target` is taken, whatever took it and whenever.

    Tried in turn, each only where the one before is not supported:

    1. a hard link (`link` never replaces a name), then `source` is removed;
    2. a rename that refuses a taken name (Linux's `renameat2` with `RENAME_NOREPLACE`,
       which FAT and exFAT offer though they have no links);
    3. a copy into `target` created with `O_EXCL`, then `source` is removed. Only here
       can a reader see the file before it is whole, while it is copied.

    On any error but success `source` keeps its bytes, and a copy made in step 3 is
    removed (only while `target` is still the file step 3 created).
    """
    try:
        os.link(source, target)
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in NO_HARD_LINKS:
            raise
    else:
        with contextlib.suppress(OSError):  # linked: the name is in place, whatever is left
            os.unlink(source)
        return
    rename = exclusive_rename()
    if rename is not None:
        try:
            rename(source, target)
        except OSError as error:
            if error.errno not in _NO_EXCLUSIVE_RENAME:
                raise
        else:
            return
    _copy_new(source, target)
    with contextlib.suppress(OSError):
        os.unlink(source)


@functools.cache
def exclusive_rename() -> Callable[[Path, Path], None] | None:
    """`rename(source, target)` that raises `FileExistsError` rather than replace
    `target`, or None where the C library offers none (not Linux, an old glibc, musl
    before 1.2.5)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int

    def rename(source: Path, target: Path) -> None:
        old, new = os.fsencode(source), os.fsencode(target)
        if function(_AT_FDCWD, old, _AT_FDCWD, new, _RENAME_NOREPLACE) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), str(source), None, str(target))

    return rename


_CREATE_NEW: Final = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def _copy_new(source: Path, target: Path) -> None:
    """Copy `source` into a new file at `target`, which `O_EXCL` creates or refuses."""
    with open(source, "rb") as data:
        mode = os.fstat(data.fileno()).st_mode & 0o777
        fd = os.open(target, _CREATE_NEW, mode)  # FileExistsError when taken
        made = os.fstat(fd)
        try:
            with os.fdopen(fd, "wb") as out:
                while chunk := data.read(1 << 20):
                    out.write(chunk)
        except BaseException:
            _remove_own(target, made)
            raise


def _remove_own(target: Path, made: os.stat_result) -> None:
    """Remove the unfinished copy at `target`, unless another file took the name since."""
    with contextlib.suppress(OSError):
        now = os.lstat(target)
        if (now.st_dev, now.st_ino) == (made.st_dev, made.st_ino):
            os.unlink(target)
