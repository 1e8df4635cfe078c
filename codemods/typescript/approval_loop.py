"""AG005 for TypeScript/JavaScript: a loop answering every approval with one literal → one batch.

`for (const a of approvals) await addToolApprovalResponse({ id: a.id, approved: true })`,
`approvals.forEach((a) => ...)` and `await Promise.all(approvals.map((a) => ...))` all
answer item by item; `resolveInterrupts(true|false)` answers the whole batch at once
and atomically (0.33.2 `resolveInterrupts(approved: boolean): void`). That is what the
loop meant only when it visits every pending item: `resolveInterrupts` answers EVERY
pending item, so a loop over a filtered, sliced or passed-in list, or one that can skip
or stop, would approve items the code never touched. A loop is batched only when its
iterable is the answering client's own unfiltered pending collection (`interrupts` /
`pendingInterrupts` from the same `useChat` destructuring, `client.getInterrupts()` /
`client.getPendingInterrupts()` of the same client) and its one statement answers the
visited item by its own id with one literal. Every other loop gets a TODO; the calls
inside are still rewritten one by one by AG001, which runs after this rule.
"""

from __future__ import annotations

import tree_sitter

from codemods import Rule
from codemods.settings import FalsePolicy
from codemods.typescript import bindings
from codemods.typescript.calls import OLD, arguments_of
from codemods.typescript.command import ScriptCommand
from codemods.typescript.document import FUNCTIONS, Document

# What a batch becomes: every item answered with one decision, or (a `false` under
# `--false-as cancel`) every item cancelled.
BATCH_METHODS = ("resolveInterrupts", "cancelInterrupts")
LOOPS = frozenset({"for_in_statement", "for_statement", "while_statement", "do_statement"})
ITERATORS = frozenset({"forEach", "map"})
# The client's own pending collection, read as a method (`ChatClient`) or as a property
# (the `useChat` result); both names give the same array (0.33.2 `chat-client.d.ts`).
PENDING_METHODS = frozenset({"getInterrupts", "getPendingInterrupts"})
PENDING_PROPERTIES = frozenset({"interrupts", "pendingInterrupts"})
COMPUTED = (
    "this loop answers each approval with a computed decision: decide per bound item "
    "with resolveInterrupts((interrupt) => ...) or stage each item, then submit once"
)
SHAPE = (
    "this loop does more than answer each approval (an if, continue, break, return or "
    "another statement), so it may skip items: answer the items it visits one by one, "
    "or stage each bound item, then submit once"
)
SUBSET = (
    "this loop does not provably visit every pending approval (only the client's own "
    "getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) "
    "would answer the items it skips: answer the items it visits one by one, or stage "
    "each bound item, then submit once"
)
EMBEDDED = (
    "this loop's result is used (it is not a statement of its own), so one call cannot "
    "replace it: answer the items one by one, or stage each bound item, then submit once"
)
OTHER_ID = (
    "this loop does not answer the item it visits by that item's own id, so it may "
    "answer other items than it visits: answer them one by one, or stage each bound "
    "item, then submit once"
)

OUTLIVED = (
    "this loop's variable outlives the loop (a `var` or a name declared elsewhere, read "
    "after it, on a next pass of a loop around it, or in a function that may run later), "
    "and one call would leave it unset: answer the items one by one, or stage each bound "
    "item, then submit once"
)
# Where an identifier under a function's parameters is a default value (read), not a
# parameter's name: the field of these nodes that holds the value.
DEFAULT_VALUES = {
    "assignment_pattern": "right",
    "optional_parameter": "value",
    "required_parameter": "value",
}


class ApprovalLoopCommand(ScriptCommand):
    """Replace a loop of identical approval answers with one `resolveInterrupts(...)`."""

    RULE = Rule.AG005

    def run(self) -> None:
        # Not React's useChat (Vue, Solid): AG001 marks each answer for a hand rewrite.
        foreign = bool(bindings.foreign_hooks(self.document))
        for call, receiver in self.member_calls(OLD):
            if not (foreign and bindings.is_hook_result(self.document, receiver)):
                self.loop_around(call, self.document.text(receiver) + self.dot(call))
        for binding in bindings.destructured(self.document, OLD):
            if not foreign:
                self.destructured_loops(binding)

    def destructured_loops(self, binding: bindings.Destructured) -> None:
        """Batch the loops over a name destructured from `useChat`; the batch method
        (`resolveInterrupts`, or `cancelInterrupts` under `--false-as cancel`) joins the
        destructuring, and the old name leaves it once no call is left."""
        document = self.document
        scope = document.scope_of(binding.pattern)
        uses = [n for n in document.references(binding.local, scope) if n.parent != binding.entry]
        locals_: dict[str, str] = {}
        for method in BATCH_METHODS:
            local = bindings.pattern_binding(document, binding.pattern, method)
            if local is None and document.references(method, scope):
                return  # the name is taken: AG001 answers item by item
            locals_[method] = local or method
        used: list[str] = []
        for use in uses:
            call = use.parent
            if call is not None and call.type == "call_expression":
                batched = self.loop_around(call, "", locals_, binding.pattern)
                if batched is not None:
                    used.append(batched)
        needed = [
            method
            for method in BATCH_METHODS
            if method in used
            and bindings.pattern_binding(document, binding.pattern, method) is None
        ]
        if used:
            # A hook's dependency array lists the old name: the batch method takes its
            # place (or joins it while a call of the old name is left).
            dependencies = [use for use in uses if bindings.react_dependency(document, use)]
            keep_old = len(used) < len(uses) - len(dependencies)
            for dependency in dependencies:
                new = locals_[used[0]]
                self.edit(*bindings.dependency_edit(document, dependency, new, keep_old))
            edit = bindings.entry_edit(document, binding, ", ".join(needed) or None, keep_old)
            if edit is not None:
                self.edit(*edit)

    def loop_around(
        self,
        call: tree_sitter.Node,
        prefix: str,
        names: dict[str, str] | None = None,
        pattern: tree_sitter.Node | None = None,
    ) -> str | None:
        """Batch or mark the loop around `call`; the batch method used, if it was batched.

        `names` maps a batch method to the local name it is destructured as in `pattern`
        (a component's `useChat` destructuring); without them the method is called on
        `prefix` (a client or a `useChat` result)."""
        loop = self.enclosing_loop(call)
        if loop is None:
            return None
        read = arguments_of(self.document, call)
        approved = None
        if not isinstance(read, str) and isinstance(read[1], tree_sitter.Node):
            approved = self.document.text(read[1])
        statement = self.only_statement(loop)
        if approved not in ("true", "false"):
            self.todo(loop, COMPUTED)
            return None
        if loop.type == "call_expression" and not self.is_statement_loop(loop):
            self.todo(loop, EMBEDDED)
            return None
        if statement is None or not self.is_sole_call(statement, call):
            self.todo(loop, SHAPE)
            return None
        iterable, item = self.iteration_of(loop)
        if iterable is None or not self.is_pending_collection(iterable, call, pattern):
            self.todo(loop, SUBSET)
            return None
        if item is None or not self.is_own_id(read[0], item):
            self.todo(loop, OTHER_ID)
            return None
        if loop.type == "for_in_statement" and self.outlives(loop, item):
            self.todo(loop, OUTLIVED)
            return None
        if self.settings.false_as is FalsePolicy.CANCEL and approved == "false":
            method, argument = "cancelInterrupts", ""
        else:
            method, argument = "resolveInterrupts", approved
        batch = f"{prefix}{(names or {}).get(method, method)}({argument})"
        if self.handler_body(loop):  # `onClick={() => xs.forEach(…)}`: the body only
            target, terminator = loop, ""
        else:
            target = self.document.statement_of(loop)
            ends = (self.document.text(node).rstrip() for node in (target, statement))
            terminator = ";" if any(text.endswith(";") for text in ends) else ""
        self.keep_comments(target)
        self.replace(target, batch + terminator, f"approval loop → {batch}", at=call.start_byte)
        return method

    def iteration_of(
        self, loop: tree_sitter.Node
    ) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
        """`(iterable, item)`: what the loop walks and the pattern each item is bound to.

        Only `for (… of xs)` (not `for await`, not `for … in`) and `xs.forEach(cb)` /
        `xs.map(cb)` walk a collection item by item; counting and `while` loops give
        `(None, None)`, since what they visit is not a collection the code names."""
        if loop.type == "for_in_statement":
            operator = loop.child_by_field_name("operator")
            if operator is None or operator.type != "of":
                return None, None
            if any(child.type == "await" for child in loop.children):
                return None, None
            return loop.child_by_field_name("right"), loop.child_by_field_name("left")
        if loop.type != "call_expression":
            return None, None
        member = loop.child_by_field_name("function")
        arguments = loop.child_by_field_name("arguments")
        callbacks = arguments.named_children if arguments is not None else []
        if member is None or member.type != "member_expression" or len(callbacks) != 1:
            return None, None
        item = callbacks[0].child_by_field_name("parameter")
        parameters = callbacks[0].child_by_field_name("parameters")
        if item is None and parameters is not None and parameters.named_children:
            first = parameters.named_children[0]
            item = (
                first.child_by_field_name("pattern") if first.type == "required_parameter" else None
            )
        return member.child_by_field_name("object"), item

    def is_pending_collection(
        self, iterable: tree_sitter.Node, call: tree_sitter.Node, pattern: tree_sitter.Node | None
    ) -> bool:
        """Whether `iterable` is, unfiltered, the pending collection of the client that
        `call` answers: a name the same `useChat` destructuring binds (`pattern`), or
        `<receiver>.getInterrupts()` / `<receiver>.interrupts` on the same receiver."""
        document = self.document
        if pattern is not None:
            if iterable.type != "identifier":
                return False
            name = document.text(iterable)
            locals_ = {bindings.pattern_binding(document, pattern, p) for p in PENDING_PROPERTIES}
            if name not in locals_:
                return False
            # Another declaration of the name inside the hook's scope may be what the loop
            # reads (a parameter, a filtered copy); only a name declared nowhere else is
            # provably the destructured one.
            scope = document.scope_of(pattern)
            inner = bindings.declarations(document, name)
            return not any(
                scope.start_byte <= node.start_byte < scope.end_byte
                and node.start_byte != pattern.start_byte
                for node in inner
            )
        member = call.child_by_field_name("function")
        receiver = member.child_by_field_name("object") if member is not None else None
        if receiver is None or bindings.receiver_name(document, receiver) is None:
            return False  # `make().add…()`: a fresh client each time is not "the same"
        read = iterable
        if read.type == "call_expression":
            arguments = read.child_by_field_name("arguments")
            if arguments is None or arguments.named_children:
                return False
            function = read.child_by_field_name("function")
            if function is None or function.type != "member_expression":
                return False
            read, names = function, PENDING_METHODS
        else:
            names = PENDING_PROPERTIES
        if read.type != "member_expression":
            return False
        owner = read.child_by_field_name("object")
        name_node = read.child_by_field_name("property")
        return (
            owner is not None
            and name_node is not None
            and document.text(name_node) in names
            and document.text(owner) == document.text(receiver)
        )

    def outlives(self, loop: tree_sitter.Node, item: tree_sitter.Node) -> bool:
        """Whether what `for (… item of …)` binds can be read once the loop is replaced.

        `const`/`let` bind each pass's own variable, which nothing outside the loop
        sees. A `var` (hoisted to the function) or a name declared elsewhere outlives
        it: a read of it after the loop, on the next pass of a loop around it, or in a
        nested function (which may run later) that does not declare the name itself
        would see it unset after a batch call. A `var`'s reads anywhere count, since its
        hoisted declaration goes with the loop."""
        document = self.document
        kind = loop.child_by_field_name("kind")
        if kind is not None and document.text(kind) in ("const", "let"):
            return False
        hoisted = kind is not None
        function = document.function_of(loop)
        for name in _pattern_names(document, item):
            owner = function
            if not hoisted and (function is None or not self.declares(function, name, loop)):
                owner = None  # declared outside the function: the whole file may read it
            scope = owner or document.root
            for node in document.references(name, scope):
                if loop.start_byte <= node.start_byte < loop.end_byte or _declares(node):
                    continue
                reader = document.function_of(node)
                if reader != owner:  # in a function of its own, run whenever it is called
                    if not self.shadowed(node, name, owner):
                        return True
                elif hoisted or node.start_byte >= loop.end_byte:
                    return True
                elif any(
                    a.type in LOOPS and a.start_byte <= node.start_byte < a.end_byte
                    for a in document.ancestors(loop)
                    if owner is None or owner.start_byte <= a.start_byte
                ):
                    return True  # above the loop in a loop around it: the next pass
        return False

    def shadowed(self, node: tree_sitter.Node, name: str, owner: tree_sitter.Node | None) -> bool:
        """Whether a function between `owner` and the read `node` declares `name`
        itself (a parameter, a `var`, a `let`/`const` whose block holds the read)."""
        for function in self.document.ancestors(node):
            if function == owner:
                return False
            if function.type in FUNCTIONS and self.declares(function, name, node):
                return True
        return False

    def declares(self, function: tree_sitter.Node, name: str, node: tree_sitter.Node) -> bool:
        """Whether `function` declares `name` for the code at `node` inside it: as a
        parameter, a `var` of its own, or a `let`/`const` in a block holding `node`."""
        document = self.document
        parameters = function.child_by_field_name("parameters")
        parameters = parameters or function.child_by_field_name("parameter")
        pending = [parameters] if parameters is not None else []
        while pending:
            current = pending.pop()
            if current.type in ("identifier", "shorthand_property_identifier_pattern"):
                parent = current.parent
                field = DEFAULT_VALUES.get(parent.type) if parent is not None else None
                is_default = (
                    parent is not None
                    and field is not None
                    and parent.child_by_field_name(field) == current
                )
                if document.text(current) == name and not is_default:
                    return True
            pending.extend(current.children)
        for declaration in bindings.declarations(document, name):
            if declaration.type != "variable_declarator":
                continue
            if document.function_of(declaration) != function:
                continue
            statement = declaration.parent
            if statement is None or statement.type == "variable_declaration":
                return True  # `var`: the whole function's
            block = statement.parent
            if block is not None and block.start_byte <= node.start_byte < block.end_byte:
                return True
        return False

    def is_own_id(self, answered: tree_sitter.Node | str, item: tree_sitter.Node) -> bool:
        """Whether the answered id is the visited item's own: `item.id` for an item bound
        to a name, or the name an `{ id }` pattern binds."""
        if isinstance(answered, str):
            return False
        document = self.document
        if item.type == "identifier":
            if answered.type != "member_expression":
                return False
            owner = answered.child_by_field_name("object")
            name = answered.child_by_field_name("property")
            return (
                owner is not None
                and name is not None
                and owner.type == "identifier"
                and document.text(owner) == document.text(item)
                and document.text(name) == "id"
            )
        if item.type == "object_pattern":
            local = bindings.pattern_binding(document, item, "id")
            return (
                local is not None
                and answered.type in ("identifier", "shorthand_property_identifier")
                and document.text(answered) == local
            )
        return False

    def enclosing_loop(self, call: tree_sitter.Node) -> tree_sitter.Node | None:
        """The loop statement or `.forEach`/`.map` call around `call` in its function."""
        current = call.parent
        while current is not None:
            if current.type in LOOPS:
                return current
            if current.type in FUNCTIONS:
                outer = current.parent
                iterator = outer.parent if outer is not None else None
                if outer is not None and outer.type == "arguments" and iterator is not None:
                    function = iterator.child_by_field_name("function")
                    method = (
                        function.child_by_field_name("property")
                        if function is not None and function.type == "member_expression"
                        else None
                    )
                    if method is not None and self.document.text(method) in ITERATORS:
                        return iterator
                return None
            current = current.parent
        return None

    def only_statement(self, loop: tree_sitter.Node) -> tree_sitter.Node | None:
        """The loop's single body statement (or callback body expression); None if several.

        A `.forEach`/`.map` loop counts only as a whole statement (`xs.forEach(...)`,
        `await Promise.all(xs.map(...))`), since only then can one call replace it."""
        if loop.type == "call_expression":
            if not self.is_statement_loop(loop):
                return None
            arguments = loop.child_by_field_name("arguments")
            callbacks = arguments.named_children if arguments is not None else []
            if len(callbacks) != 1 or callbacks[0].type not in FUNCTIONS:
                return None
            body = callbacks[0].child_by_field_name("body")
        else:
            body = loop.child_by_field_name("body")
        if body is None:
            return None
        if body.type != "statement_block":
            return body
        statements = [child for child in body.named_children if child.type != "comment"]
        return statements[0] if len(statements) == 1 else None

    def is_statement_loop(self, loop: tree_sitter.Node) -> bool:
        parent = loop.parent
        if parent is not None and (
            parent.type == "expression_statement" or self.handler_body(loop)
        ):
            method = loop.child_by_field_name("function")
            return method is not None and self.document.text(method).endswith(".forEach")
        # await Promise.all(xs.map(cb)) as a statement
        arguments = parent
        outer = arguments.parent if arguments is not None else None
        if arguments is None or arguments.type != "arguments" or outer is None:
            return False
        function = outer.child_by_field_name("function")
        if function is None or self.document.text(function) != "Promise.all":
            return False
        holder = outer.parent
        if holder is not None and holder.type == "await_expression":
            holder = holder.parent
        return holder is not None and holder.type == "expression_statement"

    @staticmethod
    def is_sole_call(statement: tree_sitter.Node, call: tree_sitter.Node) -> bool:
        """Whether the statement (or arrow body) is just `[await] <call>`."""
        node = statement
        if node.type == "expression_statement" and node.named_child_count == 1:
            node = node.named_children[0]
        if node.type == "await_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        return node == call


def _pattern_names(document: Document, pattern: tree_sitter.Node) -> set[str]:
    """The names a loop's left side binds: `item`, or those of `{ id, kind: k }`."""
    names: set[str] = set()
    pending = [pattern]
    while pending:
        node = pending.pop()
        if node.type in ("identifier", "shorthand_property_identifier_pattern"):
            names.add(document.text(node))
        elif node.type != "property_identifier":
            pending.extend(node.children)
    return names


def _declares(node: tree_sitter.Node) -> bool:
    """Whether the identifier `node` is a declaration's name, not a read."""
    parent = node.parent
    return (
        parent is not None
        and parent.type == "variable_declarator"
        and parent.child_by_field_name("name") == node
    )
