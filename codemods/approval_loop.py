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
from codemods.command import RuleCommand, comment_lines, names_in, target_names
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
        # Each batchable loop's call, found on the way in and rewritten on the way out.
        self._batched: dict[int, tuple[cst.Call, bool, bool]] = {}
        self._marked: set[int] = set()
        # The `else:` of a loop, which runs once after it: the loops around it, not it.
        self._loop_else: set[int] = set()
        # The module, then each enclosing function: where a loop variable lives on.
        self._owners: list[cst.Module | cst.FunctionDef] = []
        # One walk of each owner answers "is this name read after that loop" for all its loops.
        self._reads: dict[int, _Reads] = {}
        # What each function owner declares `global`/`nonlocal`: a loop variable so
        # declared lives outside it, where any code may read it.
        self._global_names: dict[int, set[str]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        self._owners.append(node)

    def visit_For(self, node: cst.For) -> None:
        self._scopes.append(node)
        if node.orelse is not None:
            self._loop_else.add(id(node.orelse))
        found = self._batch_call(node)
        if found is not None:
            self._batched[id(node)] = found

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
        found = self._batched.get(id(original_node))
        if found is None:
            return updated_node
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
        if self._read_after(loop, variable) or self._declared_outside(variable):
            return None  # the batch would leave it unbound (or the last item of a pass)
        return call, awaited, approved

    def _declared_outside(self, variable: str) -> bool:
        """Whether the function the loop is in declares `variable` `global` or
        `nonlocal`: then code outside the function may read it after the loop."""
        owner = self._owners[-1]
        if isinstance(owner, cst.Module):
            return False
        declared = self._global_names.get(id(owner))
        if declared is None:
            scope = _OwnScope()
            owner.body.visit(scope)
            declared = self._global_names[id(owner)] = scope.declared
        return variable in declared

    def _read_after(self, loop: cst.For, variable: str) -> bool:
        """Whether code after `loop` in its function (or module) reads `variable`, on a
        later pass of a loop around it too."""
        owner = self._owners[-1]
        if isinstance(owner, cst.Module):
            self.require_whole_module()
        reads = self._reads.get(id(owner))
        if reads is None:
            reads = self._reads[id(owner)] = _Reads(owner)
            owner.visit(reads)
        return reads.read_after(loop, variable)

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


class _Reads(cst.CSTVisitor):
    """Every read of a name in one function (or module), in source order, in one walk.

    A read after a batched loop sees the loop's last item, which a batch call no longer
    binds; so does a read above it in a loop around it, on that loop's next pass, and a
    read in a function or generator made anywhere, which runs when it is called. Asking
    each loop's question by walking the whole function again made a file of n loops
    cost n walks; one walk records, per name, when it is read, and then "read after
    loop L" is a lookup.
    """

    def __init__(self, owner: cst.Module | cst.FunctionDef) -> None:
        super().__init__()
        self._owner = owner
        self.clock = 0
        # id(loop) -> the clock when the loop starts (every read before it is at or
        # before) and when it ends.
        self.starts: dict[int, int] = {}
        self.ends: dict[int, int] = {}
        # id(loop) -> the clock where the repeated part (a `for` body, a `while` test and
        # body) of each loop around it begins, outermost first.
        self.around: dict[int, tuple[int, ...]] = {}
        # name -> (clock of the read, clock where the innermost region binding it anew
        # began, or -1): a read inside such a region reads that binding, not an older one.
        self.reads: dict[str, list[tuple[int, int]]] = {}
        # Names read, in a nested function, lambda or generator, as bound in the owner
        # (not its own parameter or local, nor a `global` of a function owner): such code
        # runs when called, perhaps after any loop, so they count as read after.
        self.later: set[str] = set()
        # Where each nested function, lambda or generator around the walk began.
        self._deferred: list[int] = []
        self._targets: set[int] = set()
        self._rebound: list[tuple[set[str], int]] = []
        self._repeated: list[int] = []

    def read_after(self, loop: cst.For, variable: str) -> bool:
        """Whether `variable` is read after `loop` ends, other than as a binding target:
        below it, or above it in a loop around it (the next pass runs that read after
        it) unless what the read sees is bound anew within that pass."""
        if variable in self.later:
            return True
        start, end = self.starts[id(loop)], self.ends[id(loop)]
        reads = self.reads.get(variable, ())
        if any(at > end and since <= end for at, since in reads):
            return True
        return any(
            since < begin <= at <= start for begin in self.around[id(loop)] for at, since in reads
        )

    def visit_For(self, node: cst.For) -> bool:
        # Its iterable is read before it binds anything; its body reads its own binding.
        # What follows it may not (it can run zero times), so the region ends with it.
        self.starts[id(node)] = self.clock
        self.around[id(node)] = tuple(self._repeated)
        self._targets.add(id(node.target))
        node.target.visit(self)
        node.iter.visit(self)
        begin = self.clock + 1
        self._rebound.append((set(names_in(node.target)), begin))
        self._repeated.append(begin)
        node.body.visit(self)
        self._repeated.pop()
        self._rebound.pop()
        if node.orelse is not None:
            node.orelse.visit(self)  # runs once, after the last pass
        return False

    def visit_While(self, node: cst.While) -> bool:
        # The test runs again after every pass of the body.
        self._repeated.append(self.clock + 1)
        node.test.visit(self)
        node.body.visit(self)
        self._repeated.pop()
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        # Decorators, defaults and annotations are read where the function is defined;
        # its parameters are bound anew for its body, which then reads them.
        for decorator in node.decorators:
            decorator.visit(self)
        if node.returns is not None:
            node.returns.visit(self)
        return self._function(node.params, node.body, deferred=node is not self._owner)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self._function(node.params, node.body, deferred=True)

    def _function(self, params: cst.Parameters, body: cst.CSTNode, *, deferred: bool) -> bool:
        # A nested function's own locals, and what it declares `global` inside a
        # function owner, are other variables than the owner's: its reads of them (and
        # those of functions inside it) are not reads of a loop variable of the owner.
        names = (
            _hidden_names(body, module_owner=isinstance(self._owner, cst.Module))
            if deferred
            else set()
        )
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            names.add(param.name.value)
            self._targets.add(id(param.name))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
                self._targets.add(id(star.name))
        params.visit(self)
        self._rebound.append((names, self.clock + 1))
        if deferred:
            self._deferred.append(self.clock + 1)
        body.visit(self)
        if deferred:
            self._deferred.pop()
        self._rebound.pop()
        return False

    def leave_For(self, original_node: cst.For) -> None:
        self.clock += 1
        self.ends[id(original_node)] = self.clock

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets.add(id(node.target))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets.add(id(node.target))

    def _comprehension(self, node: cst.BaseComp, *parts: cst.BaseExpression) -> bool:
        """A comprehension binds its targets itself: only its first iterable, evaluated
        outside it, reads an outer binding; everything else in it reads its own."""
        outer = node.for_in
        outer.iter.visit(self)
        names: set[str] = set()
        comp: cst.CompFor | None = outer
        while comp is not None:
            names.update(names_in(comp.target))
            comp = comp.inner_for_in
        self._rebound.append((names, self.clock + 1))
        lazy = isinstance(node, cst.GeneratorExp)  # the rest runs as it is iterated
        if lazy:
            self._deferred.append(self.clock + 1)
        self._targets.add(id(outer.target))
        for part in (*parts, outer.target, *(test.test for test in outer.ifs)):
            part.visit(self)
        if outer.inner_for_in is not None:
            outer.inner_for_in.visit(self)
        if lazy:
            self._deferred.pop()
        self._rebound.pop()
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return self._comprehension(node, node.elt)

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return self._comprehension(node, node.elt)

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return self._comprehension(node, node.key, node.value)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return self._comprehension(node, node.elt)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._targets:
            return
        self.clock += 1
        since = max((at for names, at in self._rebound if node.value in names), default=-1)
        self.reads.setdefault(node.value, []).append((self.clock, since))
        if self._deferred and since < self._deferred[0]:  # bound outside the outermost
            self.later.add(node.value)


def _hidden_names(body: cst.CSTNode, *, module_owner: bool) -> set[str]:
    """The names a nested function (or lambda) with `body` does not read from the scope
    around it: its own locals, and (in a function owner, whose variables are not the
    module's) what it declares `global`. A `nonlocal` name is the enclosing one."""
    scope = _OwnScope()
    body.visit(scope)
    hidden = scope.names - scope.declared
    if not module_owner:
        hidden |= scope.globals
    return hidden


class _OwnScope(cst.CSTVisitor):
    """What one function's body binds in its own scope, and what it declares `global`
    or `nonlocal`. Not `command.Bindings`, which walks into nested scopes and binds
    parameters and comprehension variables: this walk stops at a nested function,
    class or lambda (only binding its name) and skips a comprehension's own variables
    (its `:=` targets are this scope's), so each body is walked once. A `match`
    capture binds here too."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.declared: set[str] = set()
        self.globals: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names |= target_names(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names |= target_names(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names |= target_names(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names |= target_names(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.names |= target_names(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self.names |= target_names(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.names |= target_names(node.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:  # `import a.b` binds `a`
            name: cst.BaseExpression = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self.names |= target_names(name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Global(self, node: cst.Global) -> None:
        names = {item.name.value for item in node.names}
        self.declared |= names
        self.globals |= names

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared |= {item.name.value for item in node.names}

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.names.add(node.name.value)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.names.add(node.rest.value)
