"""AG003: call `get_interrupts()` instead of the deprecated `get_pending_interrupts()`.

They return the same array (protocol §7); a bound-method reference is renamed too.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.command import RuleCommand, getattr_key, renamed_getattr


class GetPendingInterruptsCommand(RuleCommand):
    """Rename `get_pending_interrupts` to `get_interrupts` on any matching receiver."""

    DESCRIPTION = "get_pending_interrupts() -> get_interrupts()."
    RULE = Rule.AG003

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        names = self.settings.names
        if original_node.attr.value != names.get_pending_interrupts or not self.receiver_matches(
            original_node.value, names.get_pending_interrupts
        ):
            return updated_node
        self.report(original_node.attr, f"renamed to {names.get_interrupts}")
        return updated_node.with_changes(attr=cst.Name(names.get_interrupts))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        # getattr(client, "get_pending_interrupts")(): the method read by name.
        names = self.settings.names
        key = getattr_key(original_node, names.get_pending_interrupts)
        if key is None or not self.receiver_matches(
            original_node.args[0].value, names.get_pending_interrupts
        ):
            return updated_node
        self.report(key, f"renamed to {names.get_interrupts}")
        return renamed_getattr(updated_node, key, names.get_interrupts)
