"""The errors a TanStack server reports for a rejected resume batch, and the `RUN_ERROR`
that carries them (protocol.md §5.3).

Batch validation produces `InterruptError`s; `agui replay --serve` streams them in the
server's one `RUN_ERROR`, and `agui resume` and `replay --check` report them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class InterruptError:
    """One `InterruptSubmissionError` as the server puts it in `interruptErrors`."""

    scope: str
    code: str
    message: str
    interrupt_id: str | None = None
    path: tuple[str | int, ...] = ()
    interrupt_ids: tuple[str, ...] = ()
    source: str = "client"

    def to_wire(self, *, thread_id: str, interrupted_run_id: str) -> dict[str, Any]:
        """The error object exactly as `metadata.tanstack.interruptErrors` carries it."""
        wire: dict[str, Any] = {
            "scope": self.scope,
            "threadId": thread_id,
            "interruptedRunId": interrupted_run_id,
            "generation": 0,
        }
        if self.scope == "item":
            wire["interruptId"] = self.interrupt_id
        wire.update(code=self.code, message=self.message, source=self.source, retryable=False)
        if self.scope == "item" and self.path:
            wire["path"] = list(self.path)
        if self.scope == "batch":
            wire["interruptIds"] = list(self.interrupt_ids)
        return wire


def run_error_event(
    errors: Sequence[InterruptError],
    *,
    run_id: str,
    thread_id: str,
    interrupted_run_id: str,
    timestamp: int,
) -> dict[str, Any]:
    """The one `RUN_ERROR` the server streams for a rejected batch (protocol.md §5.3)."""
    return {
        "type": "RUN_ERROR",
        "timestamp": timestamp,
        "message": " ".join(error.message for error in errors),
        "code": errors[0].code,
        "metadata": {
            "tanstack": {
                "runId": run_id,
                "threadId": thread_id,
                "interruptErrors": [
                    error.to_wire(thread_id=thread_id, interrupted_run_id=interrupted_run_id)
                    for error in errors
                ],
            }
        },
    }
