"""AG005: a loop that answers every approval with one literal becomes one batch call.

`for a in client.pending_interrupts: client.add_tool_approval_response(id=a.id,
approved=True)` is `client.resolve_interrupts(True)`: the native batch is all-or-nothing
and the boolean shorthand answers every pending approval at once. That is only the same
program when the loop provably visits every pending item, so the iterable must be the
answering client's own pending collection, unfiltered (`pending_interrupts`,
`interrupts`, `get_pending_interrupts()`, `get_interrupts()`); a comprehension, a slice,
a list built elsewhere or a body that can skip an item (`if`, `continue`, `break`) keeps
the loop with a TODO (the calls inside are still handled by AG001).
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.approval_call import approval_arguments, awaited_call, literal_bool
from codemods.command import RuleCommand, comment_lines, names_in
from codemods.outline import Outline
from codemods.settings import FalsePolicy, Settings

OTHER_LOOP = (
    "answer this approval loop as one atomic batch: "
    "resolve_interrupts(lambda item: ...) or the bound items' methods"
)


class ApprovalLoopCommand(RuleCommand):
    """Collapse literal approval loops into `resolve_interrupts(...)`; mark other loops."""

    DESCRIPTION = "for-loops of add_tool_approval_response -> one resolve_interrupts(...)."
    RULE = Rule.AG005

    def __init__(self, settings: Settings | None = None, outline: Outline | None = None) -> None:
        super().__init__(settings, outline)
        # Innermost first: a loop, or None for a function/lambda/class boundary.
        self._scopes: list[cst.For | cst.While | None] = []
        self._batched: set[int] = set()
        self._marked: set[int] = set()
        # The `else:` of a loop, which runs once after it: the loops around it, not it.
        self._loop_else: set[int] = set()
        # The module, then each enclosing function: where a loop variable lives on.
        self._owners: list[cst.Module | cst.FunctionDef] = []

    def visit_Module(self, node: cst.Module) -> None:
        self._owners.append(node)

    def visit_For(self, node: cst.For) -> None:
        self._scopes.append(node)
        if node.orelse is not None:
            self._loop_else.add(id(node.orelse))
        if self._batch_call(node) is not None:
            self._batched.add(id(node))

    def visit_While(self, node: cst.While) -> None:
        self._scopes.append(node)
        if node.orelse is not None:
            self._loop_else.add(id(node.orelse))

    def visit_Else(self, node: cst.Else) -> None:
        if id(node) in self._loop_else:
            self._scopes.append(self._scopes[-2] if len(self._scopes) > 1 else None)

    def leave_Else(self, original_node: cst.Else, updated_node: cst.Else) -> cst.Else:
        if id(original_node) in self._loop_else:
            self._scopes.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(None)
        self._owners.append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append(None)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.append(None)

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> cst.BaseStatement:
        self._scopes.pop()
        return updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement:
        self._scopes.pop()
        self._owners.pop()
        return updated_node

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.BaseStatement:
        self._scopes.pop()
        return updated_node

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.Lambda:
        self._scopes.pop()
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        loop = self._scopes[-1] if self._scopes else None
        if (
            loop is not None
            and id(loop) not in self._batched
            and id(loop) not in self._marked
            and self.method_call(original_node, self.settings.names.add_tool_approval_response)
        ):
            self._marked.add(id(loop))
            self.todo(loop, OTHER_LOOP, at=loop)
        return updated_node

    def leave_For(
        self, original_node: cst.For, updated_node: cst.For
    ) -> cst.BaseStatement | cst.RemovalSentinel:
        self._scopes.pop()
        if id(original_node) not in self._batched:
            return updated_node
        found = self._batch_call(original_node)
        assert found is not None
        call, awaited, approved = found
        assert isinstance(call.func, cst.Attribute)
        names = self.settings.names
        if not approved and self.settings.false_as is FalsePolicy.CANCEL:
            method = f"{names.cancel_interrupts}()"
        else:
            method = f"{names.resolve_interrupts}({approved})"
        prefix = "await " if awaited else ""
        config = self.module.config_for_parsing
        receiver = self.module.code_for_node(call.func.value)
        statement = cst.parse_statement(
            f"{prefix}{receiver}.{method}{config.default_newline}", config
        )
        self.report(original_node, f"loop rewritten to one {method.split('(')[0]}() batch")
        # Comments in the loop (its header, its body) move above the batch call.
        moved = comment_lines(original_node.with_changes(leading_lines=()))
        return statement.with_changes(leading_lines=[*original_node.leading_lines, *moved])

    def _batch_call(self, loop: cst.For) -> tuple[cst.Call, bool, bool] | None:
        """The single approval call of a batchable loop, whether awaited, and its literal."""
        if loop.orelse is not None or not isinstance(loop.target, cst.Name):
            return None
        body = loop.body
        if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
            return None
        statement = body.body[0]
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        found = awaited_call(statement)
        if found is None:
            return None
        call, awaited = found
        if not self.method_call(call, self.settings.names.add_tool_approval_response):
            return None
        arguments = approval_arguments(call)
        if arguments is None:
            return None
        approved = literal_bool(arguments.approved)
        variable = loop.target.value
        assert isinstance(call.func, cst.Attribute)
        if approved is None or variable in names_in(call.func.value):
            return None
        if not self._is_every_pending_item(loop.iter, call.func.value):
            return None
        if not _is_item_id(arguments.id, variable):
            return None
        if self._read_after(loop, variable):
            return None  # the batch would leave it unbound
        return call, awaited, approved

    def _read_after(self, loop: cst.For, variable: str) -> bool:
        """Whether code after `loop` in its function (or module) reads `variable`."""
        owner = self._owners[-1]
        if isinstance(owner, cst.Module):
            self.require_whole_module()
        reads = _ReadsAfter(loop, variable)
        owner.visit(reads)
        return reads.found

    def _is_every_pending_item(
        self, iterable: cst.BaseExpression, receiver: cst.BaseExpression
    ) -> bool:
        """`R.pending_interrupts`, `R.interrupts` or `R.get_(pending_)interrupts()`, where R
        is the receiver answering: the full set of pending items, nothing filtered out."""
        names = self.settings.names
        if isinstance(iterable, cst.Call):
            if iterable.args:
                return False
            accessor = iterable.func
            allowed = {
                names.get_pending_interrupts,
                names.get_interrupts,
                names.pending_interrupts,
                names.interrupts,
            }
        else:
            accessor = iterable
            allowed = {names.pending_interrupts, names.interrupts}
        if not isinstance(accessor, cst.Attribute) or accessor.attr.value not in allowed:
            return False
        return self.module.code_for_node(accessor.value) == self.module.code_for_node(receiver)


def _is_item_id(node: cst.BaseExpression, variable: str) -> bool:
    """`a.id`, `a["id"]` or `a` itself for loop variable `a`."""
    if isinstance(node, cst.Name):
        return node.value == variable
    if isinstance(node, cst.Attribute):
        return (
            node.attr.value == "id"
            and isinstance(node.value, cst.Name)
            and node.value.value == variable
        )
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return (
            isinstance(node.value, cst.Name)
            and node.value.value == variable
            and isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString)
            and index.value.evaluated_value == "id"
        )
    return False


class _ReadsAfter(cst.CSTVisitor):
    """Finds `variable` written after `loop` other than as a plain binding target.

    A read there sees the loop's last item, which a batch call no longer binds.
    """

    def __init__(self, loop: cst.For, variable: str) -> None:
        super().__init__()
        self.loop = loop
        self.variable = variable
        self.after = False
        self.found = False
        self.targets: set[int] = set()

    def visit_For(self, node: cst.For) -> bool:
        if node is self.loop:
            return False
        self.targets.add(id(node.target))
        return True

    def leave_For(self, original_node: cst.For) -> None:
        if original_node is self.loop:
            self.after = True

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.targets.add(id(node.target))

    def _rebinds(self, node: cst.BaseComp) -> bool:
        """A comprehension binding `variable` itself reads its own, not the loop's."""
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            if self.variable in names_in(comp.target):
                return True
            comp = comp.inner_for_in
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return not self._rebinds(node)

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return not self._rebinds(node)

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return not self._rebinds(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return not self._rebinds(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.targets.add(id(node.target))

    def visit_Name(self, node: cst.Name) -> None:
        if self.after and node.value == self.variable and id(node) not in self.targets:
            self.found = True
