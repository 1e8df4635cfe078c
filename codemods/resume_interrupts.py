"""AG004: `resume_interrupts(entries, state)` → `resume_interrupts_unsafe(...)` plus a TODO.

The deprecated name is an alias of the unsafe form: it posts raw entries with no
validation or sorting (protocol §7). The rename keeps behaviour; the TODO asks for the
bound items' methods or `resolve_interrupts(...)`, since the unsafe form is meant for
validated recovery tools only.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.command import RuleCommand

PREFER_BOUND = (
    "prefer the bound items' resolve_interrupt()/cancel() or resolve_interrupts(...); "
    "resume_interrupts_unsafe is for validated recovery tools only"
)


class ResumeInterruptsCommand(RuleCommand):
    """Rename `resume_interrupts` to `resume_interrupts_unsafe` and mark the statement."""

    DESCRIPTION = "resume_interrupts(...) -> resume_interrupts_unsafe(...) with a TODO."
    RULE = Rule.AG004

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        names = self.settings.names
        if original_node.attr.value != names.resume_interrupts or not self.receiver_matches(
            original_node.value, names.resume_interrupts
        ):
            return updated_node
        self.todo(
            original_node.attr, f"renamed to {names.resume_interrupts_unsafe}: {PREFER_BOUND}"
        )
        self.changed = True
        return updated_node.with_changes(attr=cst.Name(names.resume_interrupts_unsafe))
