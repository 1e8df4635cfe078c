"""The base every rule command shares: settings, receiver matching, sites and TODO markers.

A rule reports each call site it sees as a `Site` (rewritten or TODO); where it cannot
rewrite safely it attaches a `# TODO(agui): …` comment above the enclosing statement,
never twice.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import ClassVar

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.base_provider import ProviderT

from codemods import Rule, marker


class FalsePolicy(StrEnum):
    """What `approved=False` becomes: the 0.33.2 client's denial, or the Korean guide's cancel."""

    DENIAL = "denial"
    CANCEL = "cancel"


class Action(StrEnum):
    """What happened at a site."""

    REWRITTEN = "rewritten"
    TODO = "todo"


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


@dataclass(frozen=True, slots=True)
class Site:
    """One call site a rule saw; `line`/`column` are 1-based in the file as it was read."""

    rule: Rule
    line: int
    column: int
    message: str
    action: Action
    # True when the TODO marker was already in the file (a second run adds nothing).
    marked: bool = False


# A statement a TODO marker can sit above (both kinds carry `leading_lines`).
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


class RuleCommand(VisitorBasedCodemodCommand):
    """A rule: records `sites`, attaches TODO markers, says whether it changed anything."""

    RULE: ClassVar[Rule]
    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (PositionProvider,)

    def __init__(self, context: CodemodContext, settings: Settings | None = None) -> None:
        super().__init__(context)
        self.settings = settings if settings is not None else Settings()
        self.sites: list[Site] = []
        self.changed = False
        self._statements: list[Statement] = []
        self._markers: dict[int, list[str]] = {}

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Generator[cst.Module, None, None]:
        # The runner parses once and passes each rule a fresh tree, so the deep copy
        # MetadataWrapper makes by default (most of a rule's cost) buys nothing.
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        old = self.context
        with self.resolve(wrapper):
            self.context = replace(old, wrapper=wrapper)
            try:
                yield wrapper.module
            finally:
                self.context = old

    # -- helpers for rules -------------------------------------------------------------

    def receiver_matches(self, receiver: cst.BaseExpression) -> bool:
        """Whether `receiver.method` counts under the configured receivers."""
        wanted = self.settings.receivers
        if not wanted:
            return True
        name = get_full_name_for_node(receiver)
        if name is None:
            return False
        return name in wanted or name.rsplit(".", 1)[-1] in wanted

    def method_call(self, node: cst.CSTNode, method: str) -> cst.Call | None:
        """`node` if it is `<receiver>.<method>(...)` on a matching receiver."""
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == method
            and self.receiver_matches(node.func.value)
        ):
            return node
        return None

    def report(self, node: cst.CSTNode, message: str, action: Action = Action.REWRITTEN) -> None:
        """Record a rewritten site at `node` (an original node)."""
        start = self.get_metadata(PositionProvider, node).start
        self.sites.append(Site(self.RULE, start.line, start.column + 1, message, action))
        if action is Action.REWRITTEN:
            self.changed = True

    def todo(self, node: cst.CSTNode, todo: str, *, at: Statement | None = None) -> None:
        """Mark the statement enclosing `node` (or `at`) with a TODO and record the site."""
        statement = at if at is not None else self._statements[-1]
        text = marker(self.RULE, todo)
        lines = list(statement.leading_lines)
        if self.module.body and self.module.body[0] is statement:
            # Comments above a file's first statement parse into the module header.
            lines.extend(self.module.header)
        present = any(line.comment is not None and line.comment.value == text for line in lines)
        start = self.get_metadata(PositionProvider, node).start
        self.sites.append(Site(self.RULE, start.line, start.column + 1, todo, Action.TODO, present))
        if not present:
            pending = self._markers.setdefault(id(statement), [])
            if text not in pending:
                pending.append(text)
                self.changed = True

    def enclosing_statements(self) -> Iterator[Statement]:
        """Statements around the node being visited, innermost first."""
        return reversed(self._statements)

    # -- statement tracking --------------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            self._statements.append(node)
        return super().on_visit(node)

    def on_leave(
        self, original_node: cst.CSTNodeT, updated_node: cst.CSTNodeT
    ) -> cst.CSTNodeT | cst.RemovalSentinel:
        result = super().on_leave(original_node, updated_node)
        if isinstance(original_node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            self._statements.pop()
            texts = self._markers.pop(id(original_node), None)
            if texts:
                return _with_markers(result, texts)  # type: ignore[return-value]
        return result


def _with_markers(result: object, texts: list[str]) -> object:
    lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in texts]
    if isinstance(result, cst.SimpleStatementLine | cst.BaseCompoundStatement):
        return result.with_changes(leading_lines=[*result.leading_lines, *lines])
    if isinstance(result, cst.FlattenSentinel) and result.nodes:
        first, *rest = result.nodes
        assert isinstance(first, cst.SimpleStatementLine | cst.BaseCompoundStatement)
        first = first.with_changes(leading_lines=[*first.leading_lines, *lines])
        return cst.FlattenSentinel([first, *rest])
    return result
