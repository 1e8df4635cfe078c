"""Read one source file for `agui migrate`: its bytes, or an `OSError` saying why not.

A walk meets whatever the tree holds, and a FIFO named `app.py` (or `/dev/zero` named
on the command line) is not a file to migrate: opened the ordinary way, the first
blocks until some writer appears and the second never ends. So the file is opened
without blocking and read only when it is a regular file.
"""

from __future__ import annotations

import errno
import os
import stat


class NotARegularFile(OSError):
    """The path names a FIFO, a socket or a device: nothing a migration can read."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EINVAL, "not a regular file", path)


def read_source(path: str) -> bytes:
    """The whole file at `path`; `NotARegularFile` for anything but a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:  # closes `fd` however this ends
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(path)
        return handle.read()
