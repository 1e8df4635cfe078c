"""A fake chat client with the legacy and the interrupt API, for running the sample.

It mirrors the semantics of `@tanstack/ai-client` 0.33.2 closely enough to compare a
run before and after the migration: answers are staged on bound items, and once every
item is staged one continuation ("submission") is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Done:
    """What the async-looking methods return: awaitable, or ignorable when called sync."""

    def __await__(self):
        return iter(())


@dataclass
class Interrupt:
    id: str
    kind: str
    tool_name: str
    client: FakeChatClient
    status: str = "pending"
    resolution: dict[str, Any] | None = None

    def resolve_interrupt(self, approved: bool, options: dict[str, Any] | None = None) -> Done:
        payload: dict[str, Any] = {"approved": approved}
        if options and "payload" in options:
            payload["payload"] = options["payload"]
        self._stage({"interruptId": self.id, "status": "resolved", "payload": payload})
        return Done()

    def cancel(self) -> Done:
        self._stage({"interruptId": self.id, "status": "cancelled"})
        return Done()

    def _stage(self, resolution: dict[str, Any]) -> None:
        self.status = "staged"
        self.resolution = resolution
        self.client._maybe_submit()


@dataclass
class FakeChatClient:
    interrupts: list[Interrupt] = field(default_factory=list)
    submissions: list[list[dict[str, Any]]] = field(default_factory=list)

    def pause(self, *approvals: str, tool_name: str = "transfer") -> None:
        """Simulate a run that paused on these approval ids."""
        self.interrupts = [
            Interrupt(approval_id, "tool-approval", tool_name, self) for approval_id in approvals
        ]

    # -- interrupt API ------------------------------------------------------------------

    def get_interrupts(self) -> list[Interrupt]:
        return self.interrupts

    def get_interrupt_state(self) -> dict[str, Any]:
        return {
            "interrupts": self.interrupts,
            "pending_interrupts": self.interrupts,
            "interrupt_errors": [],
            "resuming": False,
        }

    def resolve_interrupts(self, approved: bool) -> Done:
        for item in list(self.interrupts):
            if item.kind != "tool-approval":
                raise ValueError("Boolean bulk resolution requires payloadless tool approvals.")
        for item in list(self.interrupts):
            item.resolve_interrupt(approved)
        return Done()

    def cancel_interrupts(self) -> Done:
        for item in list(self.interrupts):
            item.cancel()
        return Done()

    def resume_interrupts_unsafe(
        self, entries: list[dict[str, Any]], state: dict[str, Any] | None = None
    ) -> bool:
        if not entries:
            return False
        self.submissions.append([dict(entry) for entry in entries])
        self.interrupts = []
        return True

    # -- legacy API (deprecated aliases, as in ai-client 0.33.2) ----------------------------

    @property
    def pending_interrupts(self) -> list[Interrupt]:
        return self.interrupts

    def get_pending_interrupts(self) -> list[Interrupt]:
        return self.interrupts

    def add_tool_approval_response(
        self, response: dict[str, Any] | None = None, *, id: str | None = None, approved: bool | None = None
    ) -> Done:
        if response is not None:
            id, approved = response["id"], response["approved"]
        for item in self.interrupts:
            if item.kind == "tool-approval" and item.id == id:
                # approved=False is a denial (resolved, approved: false), never a cancel.
                item.resolve_interrupt(bool(approved))
        return Done()

    def resume_interrupts(
        self, entries: list[dict[str, Any]], state: dict[str, Any] | None = None
    ) -> bool:
        return self.resume_interrupts_unsafe(entries, state)

    def _maybe_submit(self) -> None:
        if self.interrupts and all(item.status == "staged" for item in self.interrupts):
            batch = sorted(
                (item.resolution for item in self.interrupts if item.resolution is not None),
                key=lambda entry: entry["interruptId"],
            )
            self.submissions.append(batch)
            self.interrupts = []
