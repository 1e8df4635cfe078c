"""Errors that stop a job in the stream layer; findings about a stream are `Problem`s instead."""

from __future__ import annotations


class AguiError(Exception):
    """Base for every error the stream layer raises when a job cannot be done."""


class UnreadableInput(AguiError):
    """An input could not be opened or read at all (missing file, directory, bad HAR)."""


class InvalidRequest(AguiError):
    """A request body, answer or option value is unusable; nothing was sent."""


class TransportFailure(AguiError):
    """The network exchange failed: refused connection, timeout, non-2xx, wrong content type."""
