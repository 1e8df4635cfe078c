"""AG006 for TypeScript/JavaScript: producers and readers of the legacy CUSTOM approval events.

`approval-requested` and `tool-input-available` were CUSTOM events of `@tanstack/ai`
<= 0.42.0; since 0.43.0 a paused run ends with a `RUN_FINISHED` interrupt outcome
(reasons `tool_call` and `tanstack:client_tool_execution`), and 0.58.0 keeps the
`ApprovalRequestedEvent`/`ToolInputAvailableEvent` types only as `@deprecated`. Moving a
server or a stream reader needs a human: this rule only reports and marks.

Only event-shaped uses count: an object literal's `name: '…'`, a comparison with a
`.name` read, a `case` of a switch on `.name`, a list of names searched for a `.name`
(`[…].includes(chunk.name)`, also through a const), and the two types. The same strings are
also tool-call part states in the client (`part.state === 'approval-requested'`), which
are current API and stay unmarked.
"""

from __future__ import annotations

import tree_sitter

from codemods import Rule
from codemods.typescript.command import ScriptCommand
from codemods.typescript.document import TYPE_WRAPPERS

# Legacy CUSTOM event name → what replaces it on the wire (the Python rule's wording).
LEGACY_EVENTS: dict[str, str] = {
    "approval-requested": 'a RUN_FINISHED interrupt outcome with reason "tool_call"',
    "tool-input-available": (
        'a RUN_FINISHED interrupt outcome with reason "tanstack:client_tool_execution"'
    ),
}
LEGACY_TYPES: dict[str, str] = {
    "ApprovalRequestedEvent": "approval-requested",
    "ToolInputAvailableEvent": "tool-input-available",
}
COMPARISONS = frozenset({"===", "==", "!==", "!="})
# `const A = '…'; const B = A`: how many consts deep a name is followed to its reads.
MAX_CONST_DEPTH = 3


class LegacyEventsCommand(ScriptCommand):
    """Mark code that emits or reads the legacy approval CUSTOM events."""

    RULE = Rule.AG006

    def run(self) -> None:
        found: list[tuple[int, tree_sitter.Node, str]] = []
        for event in LEGACY_EVENTS:
            for fragment in self.document.occurrences(event):
                string = fragment.parent
                if (
                    fragment.type == "string_fragment"
                    and string is not None
                    and self.is_event_name(string)
                ):
                    found.append((string.start_byte, string, self.message(event)))
        for type_name, event in LEGACY_TYPES.items():
            for node in self.document.occurrences(type_name):
                if node.type in ("type_identifier", "identifier"):
                    message = f"deprecated {type_name} type: {self.message(event)}"
                    found.append((node.start_byte, node, message))
        for _, node, message in sorted(found, key=lambda item: item[0]):
            self.todo(node, message)

    @staticmethod
    def message(event: str) -> str:
        return f"legacy {event!r} event: emit or read {LEGACY_EVENTS[event]} instead"

    def is_event_name(self, string: tree_sitter.Node, depth: int = 0) -> bool:
        """Whether this string literal names an event rather than, say, a part state
        (also through a const holding it: `const APPROVAL = 'approval-requested'`
        compared with `chunk.name`)."""
        parent = string.parent
        while parent is not None and parent.type in TYPE_WRAPPERS:  # `'…' as const`
            string, parent = parent, parent.parent
        if parent is None:
            return False
        if parent.type == "variable_declarator" and depth < MAX_CONST_DEPTH:
            name = parent.child_by_field_name("name")
            if name is None or name.type != "identifier":
                return False
            return any(
                self.is_event_name(use, depth + 1)
                for use in self.document.occurrences(self.document.text(name))
                if use.type == "identifier" and use != name
            )
        if parent.type == "pair":
            key = parent.child_by_field_name("key")
            return key is not None and self.document.text(key).strip("'\"") == "name"
        if parent.type == "binary_expression":
            operator = parent.child_by_field_name("operator")
            if operator is None or self.document.text(operator) not in COMPARISONS:
                return False
            left = parent.child_by_field_name("left")
            other = parent.child_by_field_name("right") if left == string else left
            return other is not None and self.reads_name(other)
        if parent.type == "array":
            return self.listed_names(parent)
        if parent.type == "switch_case":
            switch = parent.parent.parent if parent.parent is not None else None
            value = switch.child_by_field_name("value") if switch is not None else None
            inner = value.named_children[0] if value is not None and value.named_children else None
            return inner is not None and self.reads_name(inner)
        return False

    def listed_names(self, array: tree_sitter.Node) -> bool:
        """Whether an array of strings is a list of event names: `[…].includes(x.name)`,
        directly or through the const it is stored in (`LEGACY.includes(chunk.name)`)."""
        receivers = [array]
        declarator = array.parent
        if declarator is not None and declarator.type == "variable_declarator":
            name = declarator.child_by_field_name("name")
            if name is None or name.type != "identifier":
                return False
            receivers = [
                node
                for node in self.document.occurrences(self.document.text(name))
                if node.type == "identifier" and node != name
            ]
        for receiver in receivers:
            member = receiver.parent
            call = member.parent if member is not None else None
            if member is None or call is None or member.type != "member_expression":
                continue
            method = member.child_by_field_name("property")
            arguments = call.child_by_field_name("arguments")
            if (
                call.type == "call_expression"
                and member.child_by_field_name("object") == receiver
                and method is not None
                and self.document.text(method) == "includes"
                and arguments is not None
                and arguments.named_children
                and self.reads_name(arguments.named_children[0])
            ):
                return True
        return False

    def reads_name(self, node: tree_sitter.Node) -> bool:
        """`x.name`, `x?.name` or `x['name']`: how a handler reads an event's name."""
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            return prop is not None and self.document.text(prop) == "name"
        if node.type == "subscript_expression":
            index = node.child_by_field_name("index")
            return index is not None and self.document.text(index).strip("'\"") == "name"
        return False
