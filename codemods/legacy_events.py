"""AG006: code that emits or consumes the legacy approval CUSTOM events gets a TODO.

`approval-requested` and `tool-input-available` were CUSTOM events of `@tanstack/ai`
≤ 0.42.0; 0.43.0+ ends the run with a `RUN_FINISHED` interrupt outcome instead
(reasons `tool_call` and `tanstack:client_tool_execution`). Emitters and handlers
need a human: this rule only reports and marks them.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.command import RuleCommand
from codemods.triggers import LEGACY_EVENTS


def _todo(name: str) -> str:
    return f"legacy {name!r} event: emit or read {LEGACY_EVENTS[name]} instead"


def _legacy_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if isinstance(value, str) and value in LEGACY_EVENTS:
            return value
    return None


def _is_name_access(node: cst.BaseExpression) -> bool:
    """`x.name` or `x["name"]`, how handlers read an event's name."""
    if isinstance(node, cst.Attribute):
        return node.attr.value == "name"
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString)
            and index.value.evaluated_value == "name"
        )
    return False


class LegacyEventsCommand(RuleCommand):
    """Mark `CustomEvent(name=…)`, `event.name == …` and `{"name": …}` legacy sites."""

    DESCRIPTION = "Report code that emits or consumes legacy approval CUSTOM events."
    RULE = Rule.AG006

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = original_node.func
        callee = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            callee = func.value
        if callee == "CustomEvent":
            for arg in original_node.args:
                name = _legacy_name(arg.value)
                if arg.keyword is not None and arg.keyword.value == "name" and name:
                    self.todo(original_node, _todo(name))
        return updated_node

    def leave_Comparison(
        self, original_node: cst.Comparison, updated_node: cst.Comparison
    ) -> cst.BaseExpression:
        left = original_node.left
        for target in original_node.comparisons:
            right = target.comparator
            for side, other in ((left, right), (right, left)):
                name = _legacy_name(side)
                if name and _is_name_access(other):
                    self.todo(original_node, _todo(name))
                    return updated_node
            if isinstance(target.operator, cst.In | cst.NotIn) and _is_name_access(left):
                for element in getattr(right, "elements", ()):
                    name = _legacy_name(element.value)
                    if name:
                        self.todo(original_node, _todo(name))
                        return updated_node
            left = right
        return updated_node

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        for element in original_node.elements:
            if (
                isinstance(element, cst.DictElement)
                and isinstance(element.key, cst.SimpleString)
                and element.key.evaluated_value == "name"
            ):
                name = _legacy_name(element.value)
                if name:
                    self.todo(original_node, _todo(name))
        return updated_node
