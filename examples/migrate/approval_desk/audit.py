"""The app's own audit counter; its `pending_interrupts` is not the client's alias."""

from __future__ import annotations


class Audit:
    def __init__(self) -> None:
        self.pending_interrupts = 0

    def seen(self, count: int) -> int:
        self.pending_interrupts += count
        return self.pending_interrupts


audit = Audit()


def record(count: int) -> int:
    return audit.seen(count) + audit.pending_interrupts * 0
