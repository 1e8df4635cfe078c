"""AG002: read `interrupts` instead of the deprecated `pending_interrupts` alias.

Both name the same array (protocol §7), so an attribute read and the
`get_interrupt_state()["pending_interrupts"]` key are renamed in place. Assignments to
an attribute of that name belong to the project's own classes and are left alone.
"""

from __future__ import annotations

import libcst as cst

from codemods import Rule
from codemods.command import Bindings, RuleCommand, getattr_key, renamed_getattr, target_names
from codemods.outline import Outline
from codemods.settings import Settings

OWN_ATTRIBUTE = (
    "this file assigns its own {name} attribute on a receiver of this name: rename this "
    "read to {new} if it reads the chat client's"
)


class PendingInterruptsCommand(RuleCommand):
    """Rename `pending_interrupts` reads and state keys to `interrupts`."""

    DESCRIPTION = "pending_interrupts -> interrupts (attribute reads and state keys)."
    RULE = Rule.AG002

    def __init__(self, settings: Settings | None = None, outline: Outline | None = None) -> None:
        super().__init__(settings, outline)
        self._stores: set[int] = set()
        # Receivers this file stores its own `pending_interrupts` on (found on first use;
        # every such store mentions the name, so a region holds them all).
        self._stored: frozenset[str] | None = None
        # The module, then each enclosing function; and the names each binds only to
        # `get_interrupt_state()` (found on first use).
        self._scopes: list[cst.Module | cst.FunctionDef] = []
        self._state_names: dict[int, frozenset[str]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        self._scopes.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(node)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._scopes.pop()
        return updated_node

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
        if id(original_node) in self._stores or not self.receiver_matches(
            original_node.value, names.pending_interrupts
        ):
            return updated_node
        stored = self._stored_receivers()
        receiver = self.module.code_for_node(original_node.value)
        if receiver in stored:
            return updated_node  # the app's own attribute: the file assigns it right there
        if _last_name(receiver) in {_last_name(other) for other in stored}:
            # `app.state.pending_interrupts = {}` here, `request.app.state.…` read.
            self.todo(
                original_node.attr,
                OWN_ATTRIBUTE.format(name=names.pending_interrupts, new=names.interrupts),
            )
            return updated_node
        self.report(original_node.attr, f"renamed to {names.interrupts}")
        return updated_node.with_changes(attr=cst.Name(names.interrupts))

    def _stored_receivers(self) -> frozenset[str]:
        """The receivers this file assigns a `pending_interrupts` attribute on (not `self`:
        a class's own members are `RuleCommand.receiver_matches`'s business)."""
        if self._stored is None:
            finder = _AttributeStores(self.settings.names.pending_interrupts)
            self.module.visit(finder)
            self._stored = frozenset(
                self.module.code_for_node(target) for target in finder.receivers
            )
        return self._stored

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
        named = getattr_key(original_node, self.settings.names.pending_interrupts)
        if named is not None and self.receiver_matches(
            original_node.args[0].value, self.settings.names.pending_interrupts
        ):
            # getattr(client, "pending_interrupts", None): an attribute read too.
            self.report(named, f"renamed to {self.settings.names.interrupts}")
            return renamed_getattr(updated_node, named, self.settings.names.interrupts)
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
        """`get_interrupt_state()`, or a local name only ever bound to its result
        (`state = client.get_interrupt_state()` then `state["pending_interrupts"]`)."""
        if self.method_call(node, self.settings.names.get_interrupt_state) is not None:
            return True
        return isinstance(node, cst.Name) and node.value in self._state_names_here()

    def _state_names_here(self) -> frozenset[str]:
        scope = self._scopes[-1]
        found = self._state_names.get(id(scope))
        if found is None:
            if isinstance(scope, cst.Module):
                self.require_whole_module()  # a global may be bound anywhere in the file
            bindings = _Bindings(self)
            scope.visit(bindings)
            found = frozenset(bindings.state - bindings.other)
            self._state_names[id(scope)] = found
        return found

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


class _Bindings(Bindings):
    """The names a scope binds to `get_interrupt_state()` and the names it binds otherwise.

    Nested functions and classes are scanned too: a name rebound there counts as
    "otherwise", which only ever leaves a key alone.
    """

    def __init__(self, rule: PendingInterruptsCommand) -> None:
        super().__init__()
        self.rule = rule
        self.state: set[str] = set()
        self.other: set[str] = set()

    def bound(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name) and value is not None:
            call = self.rule.method_call(value, self.rule.settings.names.get_interrupt_state)
            if call is not None:
                self.state.add(target.value)
                return
        self.other.update(target_names(target))


def _last_name(code: str) -> str:
    return code.rsplit(".", 1)[-1].strip()


class _AttributeStores(cst.CSTVisitor):
    """The receivers of `receiver.<attribute> = ...` (plain, annotated or augmented)."""

    def __init__(self, attribute: str) -> None:
        super().__init__()
        self.attribute = attribute
        self.receivers: list[cst.BaseExpression] = []

    def _target(self, target: cst.BaseExpression) -> None:
        if (
            isinstance(target, cst.Attribute)
            and target.attr.value == self.attribute
            and not (isinstance(target.value, cst.Name) and target.value.value in {"self", "cls"})
        ):
            self.receivers.append(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)
