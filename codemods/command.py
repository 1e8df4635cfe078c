"""The base every rule command shares: settings, receiver matching, sites and TODO markers.

A rule reports each call site it sees as a `Site` (rewritten or TODO); where it cannot
rewrite safely it attaches a `# TODO(agui): …` comment above the enclosing statement,
never twice. Rules are plain LibCST transformers: `libcst.codemod` imports
`libcst.matchers`, which alone costs each worker process more than parsing its files
(`codemods.libcst_command` runs them under LibCST's codemod machinery instead).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import ClassVar, cast

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from codemods import Rule, marker
from codemods.outline import NESTED, Outline, line_breaks, mentions, span
from codemods.settings import ApiNames, Settings
from codemods.site import Action, Site
from codemods.triggers import rule_triggers


class NeedsWholeModule(Exception):
    """Raised by a rule given a region of a module when its rewrite needs the whole file."""


# A statement a TODO marker can sit above (both kinds carry `leading_lines`).
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


class RuleCommand(cst.CSTTransformer):
    """A rule: records `sites`, attaches TODO markers, says whether it changed anything.

    Speed matters (a monorepo has thousands of candidate files), so the base skips every
    statement whose source never mentions one of the rule's `triggers`, resolves no
    metadata up front, and computes a site's position only when there is a site, on
    the top-level statement around it.
    """

    RULE: ClassVar[Rule]
    DESCRIPTION: ClassVar[str]

    @classmethod
    def triggers(cls, names: ApiNames) -> tuple[str, ...]:
        """Text one of which a statement must contain for this rule to match inside it."""
        return rule_triggers(cls.RULE, names)

    def __init__(self, settings: Settings | None = None, outline: Outline | None = None) -> None:
        super().__init__()
        # The tree being transformed (`transform_module` sets it): rules generate code
        # for its nodes with `self.module.code_for_node`.
        self.module = cst.Module(body=())
        # The code of the tree this rule will receive, when the caller has it already.
        self._outline = outline
        self.settings = settings if settings is not None else Settings()
        self.sites: list[Site] = []
        self.changed = False
        self._statements: list[Statement] = []
        self._markers: dict[int, list[str]] = {}
        self._pruned: set[int] = set()
        self._first_lines: dict[int, int] = {}
        # The `ast` line of each statement kept inside a class or function body (where
        # its own position starts), so a site is located on its method, not its class.
        self._nested_lines: dict[int, int] = {}
        self._positions: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}
        # The classes around the node being visited, and the members each declares.
        self._classes: list[cst.ClassDef] = []
        self._declared: dict[int, frozenset[str]] = {}

    def transform_module(self, tree: cst.Module) -> cst.Module:
        """Run the rule over `tree`; `sites` and `changed` say what it found (one run each)."""
        self.module = tree
        return self.transform_module_impl(tree)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        wanted = self.triggers(self.settings.names)
        if self._outline is None:
            self._outline = Outline.of(tree.code, encoding=tree.encoding)
        outline = self._outline
        if outline.statements is None or not self._prune_by_lines(
            tree.body, outline.statements, outline.lines_with(wanted), top=True
        ):
            self._pruned.clear()
            self._first_lines.clear()
            self._nested_lines.clear()
            self._prune_by_codegen(tree, wanted)
        return tree.visit(self)

    def _prune_by_lines(
        self,
        statements: Sequence[cst.BaseStatement],
        nodes: Sequence[ast.stmt],
        lines: list[int],
        *,
        top: bool,
    ) -> bool:
        """Prune statements whose lines mention no trigger; False if ast and LibCST disagree."""
        index = 0
        for statement in statements:
            # `a; b` is one LibCST line but two ast statements.
            count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            group = nodes[index : index + count]
            index += count
            if len(group) != count:
                return False
            start, end = span(group[0])[0], span(group[-1])[1]
            if top:
                leading = getattr(statement, "leading_lines", ())
                self._first_lines[id(statement)] = start - len(leading)
            else:
                self._nested_lines[id(statement)] = group[0].lineno
            if not mentions(lines, start, end):
                self._pruned.add(id(statement))
                continue
            body = getattr(statement, "body", None)
            if (
                isinstance(group[0], NESTED)
                and isinstance(body, cst.IndentedBlock)
                and not self._prune_by_lines(body.body, group[0].body, lines, top=False)
            ):
                return False
        return index == len(nodes)

    def _prune_by_codegen(self, tree: cst.Module, wanted: tuple[str, ...]) -> None:
        line = 1 + len(tree.header)
        for statement in tree.body:
            text = tree.code_for_node(statement)
            self._first_lines[id(statement)] = line
            line += line_breaks(text)
            if not any(t in text for t in wanted):
                self._pruned.add(id(statement))

    # -- helpers for rules -------------------------------------------------------------

    @property
    def outline(self) -> Outline:
        """The `ast` outline of the tree being transformed (set once the transform starts)."""
        assert self._outline is not None
        return self._outline

    def require_whole_module(self) -> None:
        """Stop here when given only a region of the file (the runner retries with all)."""
        if self._outline is not None and self._outline.partial:
            raise NeedsWholeModule(type(self).__name__)

    def receiver_matches(self, receiver: cst.BaseExpression, member: str | None = None) -> bool:
        """Whether `receiver.member` counts under the configured receivers.

        `self.member` (or `cls.member`) inside a class that declares `member` itself (a
        wrapper's own method, property or attribute) never counts: renamed, it would name
        something the class does not have.
        """
        if member is not None and self._own_member(receiver, member):
            return False
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
            and self.receiver_matches(node.func.value, method)
        ):
            return node
        return None

    def _own_member(self, receiver: cst.BaseExpression, member: str) -> bool:
        if not (isinstance(receiver, cst.Name) and receiver.value in {"self", "cls"}):
            return False
        if not self._classes:
            return False
        owner = self._classes[-1]
        declared = self._declared.get(id(owner))
        if declared is None:
            # Every declaration of `member` mentions it, so a region holds them all.
            declared = self._declared[id(owner)] = declared_members(owner)
        return member in declared

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """1-based line and column of an original node, found on its innermost outlined statement.

        Positions come from code generation, which costs as much as the code it covers:
        a site in one method of a long class is located on a copy of the class that
        holds only that method (`_top_position` is the plain twin, on the whole top
        statement; tests prove the two agree).
        """
        inner = next((s for s in reversed(self._statements) if id(s) in self._nested_lines), None)
        if inner is None:
            return self._top_position(node)
        positions = self._positions.get(id(inner))
        if positions is None:
            skeleton: cst.BaseStatement = inner
            # Every statement between the top one and `inner` is a class or function whose
            # indented body the outline walked (see `_prune_by_lines`): keep only the path.
            depth = next(i for i, s in enumerate(self._statements) if s is inner)
            for parent in reversed(self._statements[:depth]):
                assert isinstance(parent, cst.ClassDef | cst.FunctionDef)
                assert isinstance(parent.body, cst.IndentedBlock)
                body = parent.body.with_changes(body=(skeleton,))
                skeleton = parent.with_changes(body=body)
            alone = self.module.with_changes(header=(), body=(skeleton,), footer=())
            positions = code_positions(alone)
            self._positions[id(inner)] = positions
        start = positions[node].start
        line = self._nested_lines[id(inner)] + start.line - positions[inner].start.line
        return line, start.column + 1

    def _top_position(self, node: cst.CSTNode) -> tuple[int, int]:
        """1-based line and column of an original node inside the current top statement."""
        top = self._statements[0]
        positions = self._positions.get(id(top))
        if positions is None:
            alone = self.module.with_changes(header=(), body=(top,), footer=())
            positions = code_positions(alone)
            self._positions[id(top)] = positions
        start = positions[node].start
        return self._first_lines[id(top)] + start.line - 1, start.column + 1

    def report(self, node: cst.CSTNode, message: str, action: Action = Action.REWRITTEN) -> None:
        """Record a rewritten site at `node` (an original node)."""
        line, column = self.position(node)
        self.sites.append(Site(self.RULE, line, column, message, action))
        if action is Action.REWRITTEN:
            self.changed = True

    def todo(self, node: cst.CSTNode, todo: str, *, at: Statement | None = None) -> None:
        """Mark the statement enclosing `node` (or `at`) with a TODO and record the site."""
        statement = at if at is not None else self._statements[-1]
        encoding = self._outline.encoding if self._outline is not None else self.module.encoding
        text = marker(self.RULE, todo, encoding)
        lines = list(statement.leading_lines)
        if self.module.body and self.module.body[0] is statement:
            # Comments above a file's first statement parse into the module header.
            lines.extend(self.module.header)
        present = any(line.comment is not None and line.comment.value == text for line in lines)
        line, column = self.position(node)
        self.sites.append(Site(self.RULE, line, column, todo, Action.TODO, present))
        if not present:
            pending = self._markers.setdefault(id(statement), [])
            if text not in pending:
                pending.append(text)
                self.changed = True

    # -- dispatch ------------------------------------------------------------------------
    # Rules use plain visit_/leave_ methods (never per-attribute ones), so these skip
    # pruned statements and LibCST's per-attribute method lookups.

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._pruned:
            return False
        if isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            self._statements.append(node)
            if isinstance(node, cst.ClassDef):
                self._classes.append(node)
        visit = getattr(self, f"visit_{type(node).__name__}", None)
        return visit is None or visit(node) is not False

    def on_leave(
        self, original_node: cst.CSTNodeT, updated_node: cst.CSTNodeT
    ) -> cst.CSTNodeT | cst.RemovalSentinel:
        if id(original_node) in self._pruned:
            return updated_node
        leave = getattr(self, f"leave_{type(original_node).__name__}", None)
        result = updated_node if leave is None else leave(original_node, updated_node)
        if isinstance(original_node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            self._statements.pop()
            if isinstance(original_node, cst.ClassDef):
                self._classes.pop()
            texts = self._markers.pop(id(original_node), None)
            if texts:
                return _with_markers(result, texts)  # type: ignore[return-value]
        return result

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None


def code_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """`PositionProvider`'s positions of every node in `module`, from one code generation.

    `MetadataWrapper.resolve` also walks the whole tree once for the batchable providers
    it was not asked for, which doubles the cost; `wrapped_positions` is the plain twin
    (tests/codemods/test_command_positions.py proves them equal on random modules).
    """
    provider = PositionProvider()
    provider._computed = {}
    provider._gen_impl(module)
    # PositionProvider stores CodeRanges only (no lazy values).
    return cast("Mapping[cst.CSTNode, CodeRange]", provider._computed)


def wrapped_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """The positions through LibCST's public `MetadataWrapper.resolve`."""
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier written anywhere under `node`."""
    collector = _NameCollector()
    node.visit(collector)
    return collector.names


def binds(node: cst.CSTNode, name: str) -> bool:
    """Whether code under `node` binds `name` (assigns, imports, defines or takes it)."""
    finder = _BindingFinder(name)
    node.visit(finder)
    return finder.found


class Bindings(cst.CSTVisitor):
    """Every place code binds a name, told to `bound`: assignments (plain, annotated,
    augmented, `:=`), loop and comprehension targets, `as` names, imports, parameters,
    function and class definitions, and `global`/`nonlocal` (the name may then be
    rebound elsewhere). One walker, so that every check asking "is this name bound
    here, and to what" sees the same binding sites."""

    def bound(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """`target` (a name, or a tuple or list of them) is bound, to `value` when a
        single plain assignment says what (else None)."""

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.bound(target.target, node.value if len(node.targets) == 1 else None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bound(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bound(node.target, None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bound(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self.bound(node.target, None)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.bound(node.target, None)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.bound(node.name, None)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            self.bound(node.name, None)

    def visit_Param(self, node: cst.Param) -> None:
        self.bound(node.name, None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bound(node.name, None)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.bound(node.name, None)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.bound(item.name, None)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self.bound(item.name, None)


class _BindingFinder(Bindings):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def bound(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if not self.found:
            self.found = self.name in target_names(target)


def target_names(target: cst.CSTNode) -> set[str]:
    """The plain names a binding target binds (`a`, `a, (b, *c)`; not `x.a` or `x[a]`)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return {name for element in target.elements for name in target_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return set()


def declared_members(owner: cst.ClassDef) -> frozenset[str]:
    """The members a class declares: its methods and class attributes, and the
    `self.x = ...` attributes its methods assign."""
    collector = _MemberCollector(owner)
    owner.visit(collector)
    return frozenset(collector.names)


class _MemberCollector(cst.CSTVisitor):
    def __init__(self, owner: cst.ClassDef) -> None:
        super().__init__()
        self.owner = owner
        self.names: set[str] = set()
        self.depth = 0  # 0: the class body itself

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.owner  # a nested class declares its own members

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.depth == 0:
            self.names.add(node.name.value)
        self.depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def _target(self, target: cst.BaseExpression) -> None:
        if self.depth == 0 and isinstance(target, cst.Name):
            self.names.add(target.value)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in {"self", "cls"}
        ):
            self.names.add(target.attr.value)


def getattr_key(call: cst.Call, attribute: str) -> cst.SimpleString | None:
    """The `"attribute"` literal of `getattr(receiver, "attribute"[, default])`, else None.

    Compatibility shims read the legacy names this way; it is an attribute read.
    """
    args = call.args
    if (
        isinstance(call.func, cst.Name)
        and call.func.value == "getattr"
        and len(args) in (2, 3)
        and all(arg.keyword is None and not arg.star for arg in args)
        and isinstance(args[1].value, cst.SimpleString)
        and args[1].value.evaluated_value == attribute
    ):
        return args[1].value
    return None


def renamed_getattr(call: cst.Call, key: cst.SimpleString, attribute: str) -> cst.Call:
    """`call`, a `getattr(receiver, key[, default])`, reading `attribute` instead.

    `key` is the literal `getattr_key` found; its prefix and quotes are kept as written
    (`SimpleString.prefix` is lower-cased: `U"…"` would become `u"…"`), so the rename
    changes the name and nothing else on the line.
    """
    opening = key.value[: len(key.prefix) + len(key.quote)]
    quoted = f"{opening}{attribute}{key.quote}"
    second = call.args[1].with_changes(value=key.with_changes(value=quoted))
    return call.with_changes(args=[call.args[0], second, *call.args[2:]])


def comment_lines(node: cst.CSTNode) -> list[cst.EmptyLine]:
    """Every comment under `node`, each as a line of its own, in source order.

    A rewrite that replaces a multi-line call or loop moves its comments above the
    result instead of dropping them.
    """
    collector = _CommentCollector()
    node.visit(collector)
    return [cst.EmptyLine(comment=cst.Comment(text)) for text in collector.comments]


class _CommentCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.comments: list[str] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.comments.append(node.value)


class _NameCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


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
