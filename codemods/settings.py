"""What a migration is told about the target project: API names, receivers, the False policy.

Plain data without libcst, so the CLI and the config reader can build it, and the runner
can prefilter files with it, before any process has loaded the parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum


class FalsePolicy(StrEnum):
    """What `approved=False` becomes: the 0.33.2 client's denial, or the Korean guide's cancel."""

    DENIAL = "denial"
    CANCEL = "cancel"


@dataclass(frozen=True, slots=True)
class ApiNames:
    """Method and attribute names, old and new; teams that wrapped the client rename them."""

    add_tool_approval_response: str = "add_tool_approval_response"
    pending_interrupts: str = "pending_interrupts"
    get_pending_interrupts: str = "get_pending_interrupts"
    resume_interrupts: str = "resume_interrupts"
    get_interrupt_state: str = "get_interrupt_state"
    interrupts: str = "interrupts"
    get_interrupts: str = "get_interrupts"
    resolve_interrupt: str = "resolve_interrupt"
    resolve_interrupts: str = "resolve_interrupts"
    cancel: str = "cancel"
    cancel_interrupts: str = "cancel_interrupts"
    resume_interrupts_unsafe: str = "resume_interrupts_unsafe"

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The configurable keys, i.e. the default names."""
        return tuple(f.name for f in fields(cls))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a rule needs to know about the target project."""

    names: ApiNames = field(default_factory=ApiNames)
    # Empty: any receiver counts. Otherwise a receiver matches by its dotted name or
    # the last part of it (`self.client` matches "client").
    receivers: tuple[str, ...] = ()
    false_as: FalsePolicy = FalsePolicy.DENIAL
