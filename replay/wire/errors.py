"""Errors that stop a job in the stream layer; findings about a stream are `Problem`s instead."""

from __future__ import annotations

import errno


class AguiError(Exception):
    """Base for every error the stream layer raises when a job cannot be done."""


class UnreadableInput(AguiError):
    """An input could not be opened or read at all (missing file, directory, bad HAR)."""


class InvalidRequest(AguiError):
    """A request body, answer or option value is unusable; nothing was sent."""


class TransportFailure(AguiError):
    """The network exchange failed: refused connection, timeout, non-2xx, wrong content type."""


def read_failure(error: OSError) -> str:
    """Why a named JSON file (`--tools`, `--request`, `--items`, `@FILE`, ...) could not
    be read, in the words agui uses for a recording that cannot be: the OS's own
    capitalised text ("Is a directory") told a user who gave a folder nothing to do."""
    if error.errno == errno.EISDIR:
        return "is a directory, expected a JSON file"
    if error.errno == errno.ENOENT:
        return "no such file"
    reason = error.strerror or str(error) or type(error).__name__
    return reason[:1].lower() + reason[1:]
