"""The base every TypeScript rule shares: the document, settings, edits, findings, markers.

A rule looks at one `Document`, proposes `Edit`s on its bytes and reports each site it
saw as a `Finding` (byte offset in the text it was given); the engine applies the
edits, reparses for the next rule and maps findings back to the original lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import tree_sitter

from codemods import Rule, marker
from codemods.settings import Settings
from codemods.site import Action
from codemods.typescript.document import Document, Edit


@dataclass(frozen=True, slots=True)
class Finding:
    """One site: where (byte offset in the rule's input), what, and whether it was rewritten."""

    rule: Rule
    offset: int
    message: str
    action: Action
    # True when the TODO marker was already in the file (a second run adds nothing).
    marked: bool = False


def comment(rule: Rule, todo: str) -> str:
    """The TODO marker as a `//` comment (the Python rules' text, same README anchor)."""
    return "//" + marker(rule, todo).removeprefix("#")


class ScriptCommand:
    """A rule over one document; `run()` fills `edits` and `findings`."""

    RULE: ClassVar[Rule]

    def __init__(self, document: Document, settings: Settings) -> None:
        self.document = document
        self.settings = settings
        self.edits: list[Edit] = []
        self.findings: list[Finding] = []
        self._marked: set[tuple[int, str]] = set()

    def run(self) -> None:
        raise NotImplementedError

    def replace(
        self, node: tree_sitter.Node, text: str, message: str, at: int | None = None
    ) -> None:
        """Rewrite `node` to `text` and record a rewritten site (at `at`, default the node)."""
        self.edits.append(Edit(node.start_byte, node.end_byte, self.document.encode(text)))
        offset = node.start_byte if at is None else at
        self.findings.append(Finding(self.RULE, offset, message, Action.REWRITTEN))

    def keep_comments(self, node: tree_sitter.Node) -> None:
        """Put the comments inside `node`, which a rewrite replaces whole, on their own
        lines above its statement, so the user's notes survive the rewrite."""
        pending = list(node.children)
        comments = []
        while pending:
            child = pending.pop(0)
            if child.type == "comment":
                comments.append(child)
            else:
                pending[:0] = child.children
        for comment_node in comments:
            edit = self.document.marker_edit(node, self.document.text(comment_node))
            if edit is not None:
                self.edits.append(edit)

    def site(self, offset: int, message: str) -> None:
        """Record a rewritten site whose edits were added separately."""
        self.findings.append(Finding(self.RULE, offset, message, Action.REWRITTEN))

    def edit(self, start: int, end: int, text: str) -> None:
        """A supporting edit that is not a site of its own (a destructuring entry, say)."""
        self.edits.append(Edit(start, end, self.document.encode(text)))

    def todo(self, node: tree_sitter.Node, todo: str) -> None:
        """Mark the statement holding `node` (or the JSX child holding it) with a TODO
        (once) and record the site."""
        text = comment(self.RULE, todo)
        edit = self.document.marker_edit(node, text, jsx=True)
        present = edit is None
        self.findings.append(Finding(self.RULE, node.start_byte, todo, Action.TODO, present))
        if edit is not None and (edit.start, text) not in self._marked:
            self._marked.add((edit.start, text))
            self.edits.append(edit)

    def on_dom_element(self, value: tree_sitter.Node) -> bool:
        """Whether a JSX attribute value belongs to a DOM element (`<button onClick>`),
        whose handlers React calls and forgets; a component (`<Approve onApprove>`) gets
        the callback as a prop and may await what it returns."""
        attribute = value.parent
        element = attribute.parent if attribute is not None else None
        if attribute is None or element is None or attribute.type != "jsx_attribute":
            return False
        name = element.child_by_field_name("name")
        if name is None or name.type != "identifier":
            return False  # `<Foo.Bar>`, `<ns:tag>`: not a plain DOM tag
        return self.document.text(name)[:1].islower()

    def handler_body(self, node: tree_sitter.Node) -> bool:
        """Whether `node` is the whole body of an arrow that is a DOM event handler
        (`<button onClick={() => node}>`): what it evaluates to is thrown away."""
        arrow = node.parent
        return (
            arrow is not None
            and arrow.type == "arrow_function"
            and arrow.child_by_field_name("body") == node
            and arrow.child_by_field_name("return_type") is None
            and arrow.parent is not None
            and arrow.parent.type == "jsx_expression"
            and self.on_dom_element(arrow.parent)
        )

    def for_each_callback(self, function: tree_sitter.Node) -> bool:
        """Whether `function` is the callback of `xs.forEach(...)`, which ignores what
        the callback returns."""
        arguments = function.parent
        call = arguments.parent if arguments is not None else None
        if arguments is None or call is None or arguments.type != "arguments":
            return False
        member = call.child_by_field_name("function")
        method = member.child_by_field_name("property") if member is not None else None
        return (
            call.type == "call_expression"
            and member is not None
            and member.type == "member_expression"
            and method is not None
            and self.document.text(method) == "forEach"
        )

    def receiver_matches(self, receiver: tree_sitter.Node) -> bool:
        """Whether `receiver.method` counts under the configured receivers."""
        wanted = self.settings.receivers
        if not wanted:
            return True
        name = self.document.text(receiver)
        return name in wanted or name.rsplit(".", 1)[-1] in wanted

    @staticmethod
    def dot(call: tree_sitter.Node) -> str:
        """`?.` when the call's member access is optional (`client?.method()`), else `.`:
        the rewrite keeps the short-circuit, which covers the whole chain after it."""
        member = call.child_by_field_name("function")
        optional = member is not None and any(c.type == "optional_chain" for c in member.children)
        return "?." if optional else "."

    def member_calls(self, method: str) -> list[tuple[tree_sitter.Node, tree_sitter.Node]]:
        """`(call, receiver)` for each `<receiver>.<method>(...)` on a matching receiver."""
        found = []
        for name in self.document.occurrences(method):
            member = name.parent
            if name.type != "property_identifier" or member is None:
                continue
            if member.type != "member_expression" or member.child_by_field_name("property") != name:
                continue
            call = member.parent
            receiver = member.child_by_field_name("object")
            if call is None or call.type != "call_expression" or receiver is None:
                continue
            if call.child_by_field_name("function") == member and self.receiver_matches(receiver):
                found.append((call, receiver))
        return found
