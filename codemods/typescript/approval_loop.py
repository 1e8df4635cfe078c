"""AG005 for TypeScript/JavaScript: a loop answering every approval with one literal → one batch.

`for (const a of approvals) await addToolApprovalResponse({ id: a.id, approved: true })`,
`approvals.forEach((a) => ...)` and `await Promise.all(approvals.map((a) => ...))` all
answer item by item; `resolveInterrupts(true|false)` answers the whole batch at once
and atomically (0.33.2 `resolveInterrupts(approved: boolean): void`), which is what the
loop meant. A loop whose decision is computed per item gets a TODO; the calls inside are
still rewritten one by one by AG001, which runs after this rule.
"""

from __future__ import annotations

import tree_sitter

from codemods import Rule
from codemods.command import FalsePolicy
from codemods.typescript import bindings
from codemods.typescript.calls import OLD, arguments_of
from codemods.typescript.command import ScriptCommand
from codemods.typescript.document import FUNCTIONS

# What a batch becomes: every item answered with one decision, or (a `false` under
# `--false-as cancel`) every item cancelled.
BATCH_METHODS = ("resolveInterrupts", "cancelInterrupts")
LOOPS = frozenset({"for_in_statement", "for_statement", "while_statement", "do_statement"})
ITERATORS = frozenset({"forEach", "map"})
COMPUTED = (
    "this loop answers each approval with a computed decision: decide per bound item "
    "with resolveInterrupts((interrupt) => ...) or stage each item, then submit once"
)
SHAPE = (
    "this loop answers approvals one by one: answer the batch at once with "
    "resolveInterrupts(true|false) or stage each bound item, then submit once"
)


class ApprovalLoopCommand(ScriptCommand):
    """Replace a loop of identical approval answers with one `resolveInterrupts(...)`."""

    RULE = Rule.AG005

    def run(self) -> None:
        for call, receiver in self.member_calls(OLD):
            self.loop_around(call, self.document.text(receiver) + self.dot(call))
        for binding in bindings.destructured(self.document, OLD):
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
                batched = self.loop_around(call, "", locals_)
                if batched is not None:
                    used.append(batched)
        needed = [
            method
            for method in BATCH_METHODS
            if method in used
            and bindings.pattern_binding(document, binding.pattern, method) is None
        ]
        if used:
            keep_old = len(used) < len(uses)
            edit = bindings.entry_edit(document, binding, ", ".join(needed) or None, keep_old)
            if edit is not None:
                self.edit(*edit)

    def loop_around(
        self, call: tree_sitter.Node, prefix: str, names: dict[str, str] | None = None
    ) -> str | None:
        """Batch or mark the loop around `call`; the batch method used, if it was batched.

        `names` maps a batch method to the local name it is destructured as (a component);
        without it the method is called on `prefix` (a client or a `useChat` result)."""
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
        if statement is None or not self.is_sole_call(statement, call):
            self.todo(loop, SHAPE)
            return None
        if self.settings.false_as is FalsePolicy.CANCEL and approved == "false":
            method, argument = "cancelInterrupts", ""
        else:
            method, argument = "resolveInterrupts", approved
        batch = f"{prefix}{(names or {}).get(method, method)}({argument})"
        target = self.document.statement_of(loop)
        ends = (self.document.text(node).rstrip() for node in (target, statement))
        terminator = ";" if any(text.endswith(";") for text in ends) else ""
        self.replace(target, batch + terminator, f"approval loop → {batch}", at=call.start_byte)
        return method

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
        if parent is not None and parent.type == "expression_statement":
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
