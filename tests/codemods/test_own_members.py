"""A wrapper class declaring a legacy name itself keeps `self.<name>`: it is its own member."""

from __future__ import annotations

from textwrap import dedent

import pytest

from codemods.approval_loop import ApprovalLoopCommand
from codemods.approval_response import ApprovalResponseCommand
from codemods.command import RuleCommand
from codemods.get_pending_interrupts import GetPendingInterruptsCommand
from codemods.pending_interrupts import PendingInterruptsCommand
from codemods.resume_interrupts import ResumeInterruptsCommand
from tests.codemods.helpers import apply

GATEWAY = """
from dataclasses import dataclass, field


class Gateway:
    \"\"\"Keeps the old names the app still calls.\"\"\"

    def __init__(self, client):
        self._client = client
        self.pending_interrupts = []

    def add_tool_approval_response(self, response):
        self.pending_interrupts = [i for i in self.pending_interrupts if i.id != response["id"]]

    def approve(self, approval_id):
        self.add_tool_approval_response({"id": approval_id, "approved": True})

    def approve_all(self):
        for a in self.pending_interrupts:
            self.add_tool_approval_response(id=a.id, approved=True)

    def get_pending_interrupts(self):
        return list(self.pending_interrupts)

    @classmethod
    def resume_interrupts(cls, entries, state):
        return cls.resume_interrupts(entries[1:], state)

    def count(self):
        return len(self.get_pending_interrupts()) + len(getattr(self, "pending_interrupts"))

    def fetch(self):
        return getattr(self, "get_pending_interrupts")()


@dataclass
class Desk:
    pending_interrupts: list = field(default_factory=list)

    def waiting(self):
        return self.pending_interrupts
"""

COMMANDS: list[type[RuleCommand]] = [
    ApprovalLoopCommand,
    ApprovalResponseCommand,
    PendingInterruptsCommand,
    GetPendingInterruptsCommand,
    ResumeInterruptsCommand,
]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_class_own_legacy_named_members_are_left_alone(command: type[RuleCommand]) -> None:
    code, sites = apply(command, GATEWAY)
    assert (code, sites) == (dedent(GATEWAY), [])


def test_the_same_names_on_the_client_or_a_base_class_are_still_migrated() -> None:
    source = """
    class Gateway:
        def __init__(self, client):
            self.pending_interrupts = []

        def both(self):
            return self.pending_interrupts, self._client.pending_interrupts

    class Sub(Base):
        def mine(self):
            return self.pending_interrupts
    """
    code, sites = apply(PendingInterruptsCommand, source)
    assert "return self.pending_interrupts, self._client.interrupts\n" in code
    assert "        return self.interrupts\n" in code
    assert len(sites) == 2
