"""Alias kept for the import path earlier READMEs documented: the event decoder now lives
in `replay.wire.events`."""

from __future__ import annotations

from replay.wire.events import decode_events

__all__ = ["decode_events"]
