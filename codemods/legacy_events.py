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
from codemods.outline import Outline
from codemods.settings import Settings
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
    """`x.name`, `x["name"]` or `x.get("name")`, how handlers read an event's name."""
    if isinstance(node, cst.Attribute):
        return node.attr.value == "name"
    if isinstance(node, cst.Call):
        func = node.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get"
            and bool(node.args)
            and node.args[0].keyword is None
            and isinstance(node.args[0].value, cst.SimpleString)
            and node.args[0].value.evaluated_value == "name"
        )
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString)
            and index.value.evaluated_value == "name"
        )
    return False


def _case_names(pattern: cst.MatchPattern) -> list[tuple[cst.MatchValue, str]]:
    """The legacy names a `case` pattern matches by value (`"a"` or `"a" | "b"`)."""
    if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
        return _case_names(pattern.pattern)
    if isinstance(pattern, cst.MatchOr):
        return [found for element in pattern.patterns for found in _case_names(element.pattern)]
    if isinstance(pattern, cst.MatchValue):
        name = _legacy_name(pattern.value)
        return [(pattern, name)] if name else []
    return []


class LegacyEventsCommand(RuleCommand):
    """Mark legacy sites: `CustomEvent(name=…)`, `event.name == …`, `{"name": …}`, `case`s."""

    DESCRIPTION = "Report code that emits or consumes legacy approval CUSTOM events."
    RULE = Rule.AG006

    def __init__(self, settings: Settings | None = None, outline: Outline | None = None) -> None:
        super().__init__(settings, outline)
        # For each enclosing `match`: whether its subject is an event's name.
        self._subjects: list[bool] = []
        # The module walked for names compared with an event's name, and those names:
        # one walk serves every constant (a walk per constant was quadratic).
        self._compared: tuple[cst.Module, set[str]] | None = None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        # Any call given `name=<legacy name>` builds such an event: `CustomEvent(...)`,
        # the class imported under another name, `core.CustomEvent(...)`, `dict(...)`.
        for arg in original_node.args:
            name = _legacy_name(arg.value)
            if arg.keyword is not None and arg.keyword.value == "name" and name:
                self.todo(original_node, _todo(name))
        return updated_node

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        if len(original_node.targets) == 1:
            self._constant(original_node.targets[0].target, original_node.value)
        return updated_node

    def leave_AnnAssign(
        self, original_node: cst.AnnAssign, updated_node: cst.AnnAssign
    ) -> cst.AnnAssign:
        if original_node.value is not None:
            self._constant(original_node.target, original_node.value)
        return updated_node

    def _constant(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """`APPROVAL = "approval-requested"` (or a list of names) compared elsewhere in the
        file with an event's name: the comparison names no event itself, so mark here."""
        if not isinstance(target, cst.Name):
            return
        strings = [value]
        if isinstance(value, cst.List | cst.Tuple | cst.Set):
            strings = [element.value for element in value.elements]
        found = [(string, name) for string in strings if (name := _legacy_name(string))]
        if not found:
            return
        self.require_whole_module()  # its uses may be anywhere in the file
        if target.value in self._compared_names():
            for string, name in found:
                self.todo(string, _todo(name))

    def _compared_names(self) -> set[str]:
        """Every name the module compares with an event's name, from one walk of it."""
        if self._compared is None or self._compared[0] is not self.module:
            uses = _NameComparisons()
            self.module.visit(uses)
            self._compared = (self.module, uses.names)
        return self._compared[1]

    def visit_Match(self, node: cst.Match) -> None:
        self._subjects.append(_is_name_access(node.subject))

    def leave_Match(self, original_node: cst.Match, updated_node: cst.Match) -> cst.Match:
        self._subjects.pop()
        return updated_node

    def leave_MatchCase(
        self, original_node: cst.MatchCase, updated_node: cst.MatchCase
    ) -> cst.MatchCase:
        # `match event.name:` / `case "approval-requested":`
        if self._subjects and self._subjects[-1]:
            for value, name in _case_names(original_node.pattern):
                self.todo(value, _todo(name))
        return updated_node

    def leave_MatchMapping(
        self, original_node: cst.MatchMapping, updated_node: cst.MatchMapping
    ) -> cst.MatchMapping:
        # `case {"type": "CUSTOM", "name": "approval-requested"}:`
        for element in original_node.elements:
            key = element.key
            if isinstance(key, cst.SimpleString) and key.evaluated_value == "name":
                for value, name in _case_names(element.pattern):
                    self.todo(value, _todo(name))
        return updated_node

    def leave_MatchClass(
        self, original_node: cst.MatchClass, updated_node: cst.MatchClass
    ) -> cst.MatchClass:
        # `case CustomEvent(name="approval-requested"):`
        for keyword in original_node.kwds:
            if keyword.key.value == "name":
                for value, name in _case_names(keyword.pattern):
                    self.todo(value, _todo(name))
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


class _NameComparisons(cst.CSTVisitor):
    """The names compared with an event's name anywhere in the module
    (`event.name == constant`, `event["name"] in constant`)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            right = target.comparator
            for side, other in ((left, right), (right, left)):
                if isinstance(side, cst.Name) and _is_name_access(other):
                    self.names.add(side.value)
            left = right
