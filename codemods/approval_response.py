"""AG001: answer an approval on the bound interrupt instead of `add_tool_approval_response`.

The legacy call takes an approval id; the interrupt API binds the answer to the item,
so the rewrite looks the item up in `interrupts` by kind and id and calls
`resolve_interrupt(approved)` on it (or `cancel()` under `--false-as cancel`).
Only a call that is a whole statement can grow the lookup in front of it; anywhere
else (an expression, a lambda, a comprehension, a one-line suite) gets a TODO.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.approval_call import (
    UNREADABLE,
    ApprovalArguments,
    approval_arguments,
    awaited_call,
    literal_bool,
)
from codemods.command import RuleCommand, binds, comment_lines, names_in
from codemods.outline import Outline
from codemods.settings import FalsePolicy, Settings

IN_EXPRESSION = (
    "move this approval answer into a statement of its own so it can be rewritten "
    "to resolve_interrupt() on the bound tool-approval item"
)
PASSED_ON = (
    "add_tool_approval_response is passed on as a value here (a callback, a partial, "
    "an alias): pass the client on instead and answer on its bound tool-approval item "
    "with resolve_interrupt()"
)
IN_CLASS_BODY = (
    "move this approval answer into a method or function: in a class body the lookup's "
    "generator cannot see the class's own names"
)
NEXT_SHADOWED = (
    "'next' is a local name here, and the rewrite looks the item up with the builtin "
    "next(): rename the local and rerun, or resolve the bound interrupt by hand"
)
CANCEL_NEEDS_VALUE = (
    "under --false-as cancel a non-literal 'approved' needs a choice: "
    "resolve_interrupt(True) when approved, cancel() otherwise"
)


class ApprovalResponseCommand(RuleCommand):
    """Rewrite statement-level `add_tool_approval_response` calls; mark the rest."""

    DESCRIPTION = "add_tool_approval_response(...) -> resolve_interrupt(...) on the bound item."
    RULE = Rule.AG001

    def __init__(self, settings: Settings | None = None, outline: Outline | None = None) -> None:
        super().__init__(settings, outline)
        self._planned: set[int] = set()
        # The module, then each enclosing function: where a new local name would live.
        self._scopes: list[cst.Module | cst.FunctionDef] = []
        self._taken: dict[int, frozenset[str]] = {}
        self._binds_next: dict[int, bool] = {}
        """Per scope (by identity): whether it binds `next` (each scope walked once,
        not once per site: the module is one of every site's scopes)."""
        # Class bodies between the innermost function (or the module) and the site.
        self._class_depth: list[int] = [0]
        # `x.add_tool_approval_response` nodes that are called or assigned to, not passed on.
        self._not_passed: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(node)
        self._class_depth.append(0)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._class_depth[-1] += 1

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        self._class_depth[-1] -= 1
        return updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._scopes.pop()
        self._class_depth.pop()
        return updated_node

    def _shadows_next(self, scope: cst.CSTNode) -> bool:
        found = self._binds_next.get(id(scope))
        if found is None:
            found = self._binds_next[id(scope)] = binds(scope, "next")
        return found

    def _fresh(self, base: str) -> str:
        # Fresh against every name written anywhere in the enclosing function (its
        # locals, the globals and closures it reads, nested functions, the id expression
        # such as a loop variable `item`), or in the whole module at module level.
        scope = self._scopes[-1]
        if isinstance(scope, cst.Module):
            self.require_whole_module()  # a new global must be fresh in the whole file
        taken = self._taken.get(id(scope))
        if taken is None:
            taken = self._taken[id(scope)] = frozenset(names_in(scope))
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        return name

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        found = awaited_call(node)
        if found is not None and self.method_call(
            found[0], self.settings.names.add_tool_approval_response
        ):
            self._planned.add(id(found[0]))

    def visit_Call(self, node: cst.Call) -> None:
        self._not_passed.add(id(node.func))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._not_passed.add(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._not_passed.add(id(node.target))

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        # `partial(client.add_tool_approval_response, ...)`, `on_answer=client.add_...`:
        # the bound method leaves the site, and every call through it stays legacy.
        if (
            original_node.attr.value == self.settings.names.add_tool_approval_response
            and id(original_node) not in self._not_passed
            and not _is_class_name(original_node.value)
            and self.receiver_matches(
                original_node.value, self.settings.names.add_tool_approval_response
            )
        ):
            self.todo(original_node, PASSED_ON)
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if id(original_node) in self._planned:
            return updated_node
        if self.method_call(original_node, self.settings.names.add_tool_approval_response):
            self.todo(original_node, IN_EXPRESSION)
        return updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.BaseStatement]:
        found = awaited_call(original_node)
        if found is None or id(found[0]) not in self._planned:
            return updated_node
        call, awaited = found
        arguments = approval_arguments(call)
        if arguments is None:
            self.todo(call, UNREADABLE, at=original_node)
            return updated_node
        if self._class_depth[-1]:
            # `next((item for item in ... if item.id == NAME))` in a class body cannot
            # read the class's NAME, and its new names would become class attributes.
            self.todo(call, IN_CLASS_BODY, at=original_node)
            return updated_node
        if self.outline.spelled_outside("next"):
            # Bound out there, it would shadow the builtin here: the whole file decides.
            self.require_whole_module()
        # (a scope can only bind `next` if the code spells it: most files never do)
        spelled = "next" in self.outline.text
        if spelled and any(map(self._shadows_next, self._scopes)):
            # `next = page.get("next")`: the lookup would call the page cursor.
            self.todo(call, NEXT_SHADOWED, at=original_node)
            return updated_node
        method = self._answer(arguments)
        if method is None:
            self.todo(call, CANCEL_NEEDS_VALUE, at=original_node)
            return updated_node
        assert isinstance(call.func, cst.Attribute)
        statements = self._lookup(call.func.value, arguments.id, method, awaited)
        first, *rest = statements
        last = rest[-1]
        assert isinstance(last, cst.If)
        assert isinstance(last.body, cst.IndentedBlock)
        inner = last.body.body[0]
        assert isinstance(inner, cst.SimpleStatementLine)
        inner = inner.with_changes(trailing_whitespace=original_node.trailing_whitespace)
        last = last.with_changes(body=last.body.with_changes(body=[inner]))
        # Comments inside the call (between its arguments) move above the rewrite.
        moved = comment_lines(original_node.body[0])
        first = first.with_changes(leading_lines=[*original_node.leading_lines, *moved])
        self.report(call, f"rewritten to {method.split('(')[0]}() on the bound tool-approval item")
        return cst.FlattenSentinel([first, *rest[:-1], last])

    def _answer(self, arguments: ApprovalArguments) -> str | None:
        """The method call text on the item, or None when the policy needs a human."""
        names = self.settings.names
        approved = literal_bool(arguments.approved)
        if approved is False and self.settings.false_as is FalsePolicy.CANCEL:
            return f"{names.cancel}()"
        if approved is None and self.settings.false_as is FalsePolicy.CANCEL:
            return None
        return f"{names.resolve_interrupt}({self.module.code_for_node(arguments.approved)})"

    def _lookup(
        self,
        receiver: cst.BaseExpression,
        approval_id: cst.BaseExpression,
        method: str,
        awaited: bool,
    ) -> list[cst.BaseStatement]:
        code = self.module.code_for_node
        config = self.module.config_for_parsing
        nl = config.default_newline
        interrupt, item = self._fresh("interrupt"), self._fresh("item")
        statements: list[cst.BaseStatement] = []
        id_code = code(approval_id)
        if not _is_simple(approval_id):
            # The id is compared once per item: evaluate a call or an operation once.
            hoisted = self._fresh("approval_id")
            statements.append(cst.parse_statement(f"{hoisted} = {id_code}{nl}", config))
            id_code = hoisted
        interrupts = f"{code(receiver)}.{self.settings.names.interrupts}"
        statements.append(
            cst.parse_statement(
                f"{interrupt} = next(({item} for {item} in {interrupts} "
                f'if {item}.kind == "tool-approval" and {item}.id == {id_code}), None){nl}',
                config,
            )
        )
        prefix = "await " if awaited else ""
        statements.append(
            cst.parse_statement(
                f"if {interrupt} is not None:{nl}"
                f"{config.default_indent}{prefix}{interrupt}.{method}{nl}",
                config,
            )
        )
        return statements


def _is_class_name(node: cst.BaseExpression) -> bool:
    """`Client` in `Client.add_tool_approval_response`: a plain function taken from a class
    (the project's own wrapper, aliasing a method it defines), not an answer on a client."""
    return isinstance(node, cst.Name) and node.value[:1].isupper()


def _is_simple(node: cst.BaseExpression) -> bool:
    """Names, attribute chains, literal subscripts and literals: cheap and side-effect free."""
    if isinstance(node, cst.Name | cst.SimpleString | cst.Integer):
        return True
    if isinstance(node, cst.Attribute):
        return _is_simple(node.value)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return (
            _is_simple(node.value)
            and isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString | cst.Integer)
        )
    return False
