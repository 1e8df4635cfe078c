"""AG003: call `get_interrupts()` instead of the deprecated `get_pending_interrupts()`.

They return the same array (protocol §7); a bound-method reference is renamed too.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.command import RuleCommand


class GetPendingInterruptsCommand(RuleCommand):
    """Rename `get_pending_interrupts` to `get_interrupts` on any matching receiver."""

    DESCRIPTION = "get_pending_interrupts() -> get_interrupts()."
    RULE = Rule.AG003

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        names = self.settings.names
        if original_node.attr.value != names.get_pending_interrupts or not self.receiver_matches(
            original_node.value
        ):
            return updated_node
        self.report(original_node.attr, f"renamed to {names.get_interrupts}")
        return updated_node.with_changes(attr=cst.Name(names.get_interrupts))
