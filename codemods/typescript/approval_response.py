"""AG001 for TypeScript/JavaScript: `addToolApprovalResponse({ id, approved })` → the bound item.

The rewrite narrows before it looks up:
`interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)
?.resolveInterrupt(approved)`. Finding with `kind === 'tool-approval' && id === id` in
one callback does not narrow the 0.33.2 `ChatInterrupt` union (whose generic and unbound
members have no matching `resolveInterrupt`), so it fails under strict TypeScript
(TS2339); the separate `filter` callback is an inferred type predicate (TS >= 5.5).

`resolveInterrupt` returns `void` where the old call returned `Promise<void>`: the call
is rewritten as a statement (a bare `await` goes) and as a DOM event handler's arrow
body; wherever else its promise is used (a component's callback prop included) it gets
a TODO with the reason.
"""

from __future__ import annotations

import re

import tree_sitter

from codemods import Rule
from codemods.settings import FalsePolicy
from codemods.typescript import bindings
from codemods.typescript.calls import OLD, arguments_of, has_effects, is_plain, quote_of
from codemods.typescript.command import ScriptCommand

# Names for the callback parameter, the first one the id expression does not use.
PARAMETERS = ("item", "interrupt", "candidate", "pending")
ELSEWHERE = (
    f"{OLD} does not come from useChat in this file (a prop?): pass the bound items "
    "(interrupts) down instead and resolve the item with resolveInterrupt(approved)"
)
FOREIGN = (
    f"{OLD} comes from a useChat other than @tanstack/ai-react here (Vue refs, Solid "
    "accessors, Svelte's createChat): find the bound tool-approval item in its interrupts and call "
    "resolveInterrupt(approved) on it by hand"
)
# Why a call whose promise is used cannot simply become `resolveInterrupt(...)`.
USED_BECAUSE = {
    "member_expression": "its promise is chained (.then/.catch/.finally)",
    "return_statement": "its promise is returned, and callers that await it would no longer "
    "wait for the continuation run",
    "arguments": "its promise is passed on",
    "variable_declarator": "its promise is stored",
    "assignment_expression": "its promise is stored",
    "arrow_function": "its promise is the callback's result",
}


class ApprovalResponseCommand(ScriptCommand):
    """Resolve the bound tool-approval item instead of calling addToolApprovalResponse."""

    RULE = Rule.AG001

    def run(self) -> None:
        foreign = bool(bindings.foreign_hooks(self.document))
        for call, receiver in self.member_calls(OLD):
            if bindings.own_object(self.document, receiver):
                continue  # the app's own object (a test double, say): not a client
            problem = bindings.client_problem(self.document, receiver)
            if problem is not None:
                self.todo(call, problem)
                continue
            target = self.document.text(receiver) + self.dot(call)
            hook = bindings.is_hook_result(self.document, receiver)
            if hook and foreign:
                self.todo(call, FOREIGN)
                continue
            items = f"{target}interrupts" if hook else f"{target}getInterrupts()"
            self.answer(call, items)
        for binding in bindings.destructured(self.document, OLD):
            if not foreign:  # else each call gets the FOREIGN TODO below
                self.answer_destructured(binding)
        # A bare `addToolApprovalResponse(...)` whose name the file does not take from
        # `useChat` (a prop handed down, say): no items here to resolve.
        seen = {finding.offset for finding in self.findings}
        for call in bindings.bare_calls(self.document, OLD, seen):
            self.todo(call, FOREIGN if foreign else ELSEWHERE)

    def answer_destructured(self, binding: bindings.Destructured) -> None:
        """Rewrite the calls of a name destructured from `useChat`, then its entry."""
        document = self.document
        scope = document.scope_of(binding.pattern)
        # The `key: local` entry's own `local` is the binding, not a use.
        uses = [n for n in document.references(binding.local, scope) if n.parent != binding.entry]
        # `pendingInterrupts` is the same array (AG002 renames it afterwards).
        items = bindings.pattern_binding(
            document, binding.pattern, "interrupts"
        ) or bindings.pattern_binding(document, binding.pattern, "pendingInterrupts")
        needed = None
        if items is None:
            items = "interrupts"
            needed = "interrupts"
            if document.references("interrupts", scope):
                for use in uses:
                    self.todo(
                        use,
                        "the name interrupts is taken here: destructure interrupts "
                        "from useChat under another name and resolve the bound item",
                    )
                return
        no_tools = bindings.tools_problem(document, binding.hook_call)
        rewritten = 0
        dependencies: list[tree_sitter.Node] = []
        for use in uses:
            parent = use.parent
            if bindings.react_dependency(document, use):
                dependencies.append(use)
                continue
            if (
                parent is None
                or parent.type != "call_expression"
                or (parent.child_by_field_name("function") != use)
            ):
                self.todo(
                    use,
                    f"{OLD} is passed on as a function: call the bound item's "
                    "resolveInterrupt(approved) where it is called",
                )
                continue
            if no_tools is not None:
                self.todo(parent, no_tools)
                continue
            if self.answer(parent, items):
                rewritten += 1
        calls = len(uses) - len(dependencies)
        if not rewritten and (calls or not dependencies):
            return
        if not rewritten:  # only listed as a dependency: nothing calls it, so it goes
            self.site(binding.entry.start_byte, f"{OLD} was only a dependency: dropped")
        new = items if rewritten else None
        for dependency in dependencies:
            self.edit(*bindings.dependency_edit(document, dependency, new, rewritten < calls))
        edit = bindings.entry_edit(document, binding, new and needed, keep_old=rewritten < calls)
        if edit is not None:
            self.edit(*edit)

    def answer(self, call: tree_sitter.Node, items: str) -> bool:
        """Rewrite one call to resolve the bound item, or mark it; True when rewritten."""
        document = self.document
        read = arguments_of(document, call)
        if isinstance(read, str):
            self.todo(call, f"{read}: resolve the bound tool-approval item by hand")
            return False
        id_value, approved_value = read
        if isinstance(id_value, tree_sitter.Node) and not is_plain(id_value):
            self.todo(
                call,
                "the id is computed: store it in a const first, then resolve "
                "the bound item with resolveInterrupt(approved)",
            )
            return False
        if isinstance(approved_value, tree_sitter.Node) and has_effects(approved_value):
            self.todo(
                call,
                "approved is computed by a call: store it in a const first (the rewrite "
                "evaluates it only when the item is found), then resolve the bound item",
            )
            return False
        id_text = id_value if isinstance(id_value, str) else document.text(id_value)
        approved = (
            approved_value if isinstance(approved_value, str) else document.text(approved_value)
        )
        cancel = self.settings.false_as is FalsePolicy.CANCEL
        if cancel and approved not in ("true", "false"):
            self.todo(
                call,
                "approved is computed and --false-as cancel is set: call "
                "resolveInterrupt(true) or cancel() on the bound item by hand",
            )
            return False
        target, reason = self.target(call)
        if target is None:
            self.todo(call, f"{reason}: resolveInterrupt returns void, so rewrite this by hand")
            return False
        parameter = next(
            (p for p in PARAMETERS if not re.search(rf"(?<![\w$]){p}(?![\w$])", id_text)),
            "x",
        )
        quote = quote_of(document.source)
        answer = "cancel()" if cancel and approved == "false" else f"resolveInterrupt({approved})"
        text = (
            f"{items}.filter(({parameter}) => {parameter}.kind === {quote}tool-approval{quote})"
            f".find(({parameter}) => {parameter}.id === {id_text})?.{answer}"
        )
        self.keep_comments(target)
        self.replace(
            target, text, f"{OLD} → resolve the bound tool-approval item", at=call.start_byte
        )
        return True

    def target(self, call: tree_sitter.Node) -> tuple[tree_sitter.Node | None, str]:
        """The node to replace (the call, or the `await` around it), or why none can be."""
        expression = call
        parent = call.parent
        if parent is not None and parent.type == "await_expression":
            expression, parent = parent, parent.parent
        if parent is None:
            return None, "its result is used"
        if parent.type == "expression_statement":
            return expression, ""
        if parent.type == "unary_expression" and self.document.text(parent).startswith("void"):
            return expression, ""
        if (
            parent.type == "arrow_function"
            and parent.child_by_field_name("body") == expression
            and parent.child_by_field_name("return_type") is None
            and parent.parent is not None
            and parent.parent.type == "jsx_expression"
        ):
            if self.on_dom_element(parent.parent):
                return expression, ""  # a DOM event handler: React ignores its result
            return None, (
                "its promise is the result of a callback passed to a component, which may "
                "wait for it (a prop typed () => Promise<void> no longer type-checks)"
            )
        if parent.type == "arrow_function" and self.for_each_callback(parent):
            return expression, ""  # forEach drops what its callback returns
        return None, USED_BECAUSE.get(parent.type, "its result is used")
