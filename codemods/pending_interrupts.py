"""AG002: read `interrupts` instead of the deprecated `pending_interrupts` alias.

Both name the same array (protocol §7), so an attribute read and the
`get_interrupt_state()["pending_interrupts"]` key are renamed in place. Assignments to
an attribute of that name belong to the project's own classes and are left alone.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.command import RuleCommand
from codemods.outline import Outline
from codemods.settings import Settings


class PendingInterruptsCommand(RuleCommand):
    """Rename `pending_interrupts` reads and state keys to `interrupts`."""

    DESCRIPTION = "pending_interrupts -> interrupts (attribute reads and state keys)."
    RULE = Rule.AG002

    def __init__(self, settings: Settings | None = None, outline: Outline | None = None) -> None:
        super().__init__(settings, outline)
        self._stores: set[int] = set()

    # Attribute targets of assignments and `del` are stores, not reads.
    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._stores.add(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._stores.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._stores.add(id(node.target))

    def visit_Del(self, node: cst.Del) -> None:
        self._stores.add(id(node.target))

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        names = self.settings.names
        if original_node.attr.value != names.pending_interrupts:
            return updated_node
        if id(original_node) in self._stores or not self.receiver_matches(original_node.value):
            return updated_node
        self.report(original_node.attr, f"renamed to {names.interrupts}")
        return updated_node.with_changes(attr=cst.Name(names.interrupts))

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.Subscript:
        if len(original_node.slice) != 1 or not self._is_state(original_node.value):
            return updated_node
        index = original_node.slice[0].slice
        if not isinstance(index, cst.Index) or not self._is_old_key(index.value):
            return updated_node
        assert isinstance(index.value, cst.SimpleString)
        renamed = index.with_changes(value=self._renamed_key(index.value))
        self.report(index.value, f"state key renamed to {self.settings.names.interrupts!r}")
        element = updated_node.slice[0].with_changes(slice=renamed)
        return updated_node.with_changes(slice=[element])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        # state.get("pending_interrupts") on get_interrupt_state()'s result.
        func = original_node.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get"
            and self._is_state(func.value)
            and original_node.args
            and self._is_old_key(original_node.args[0].value)
        ):
            return updated_node
        key = original_node.args[0].value
        assert isinstance(key, cst.SimpleString)
        self.report(key, f"state key renamed to {self.settings.names.interrupts!r}")
        first = updated_node.args[0].with_changes(value=self._renamed_key(key))
        return updated_node.with_changes(args=[first, *updated_node.args[1:]])

    def _is_state(self, node: cst.BaseExpression) -> bool:
        return self.method_call(node, self.settings.names.get_interrupt_state) is not None

    def _is_old_key(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.SimpleString)
            and node.evaluated_value == self.settings.names.pending_interrupts
        )

    def _renamed_key(self, key: cst.SimpleString) -> cst.SimpleString:
        # Keep the prefix and quote style of the original literal.
        body = key.value[len(key.prefix) + len(key.quote) : -len(key.quote)]
        names = self.settings.names
        renamed = body.replace(names.pending_interrupts, names.interrupts)
        return key.with_changes(value=f"{key.prefix}{key.quote}{renamed}{key.quote}")
