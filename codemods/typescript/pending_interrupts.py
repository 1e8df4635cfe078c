"""AG002 for TypeScript/JavaScript: `pendingInterrupts` → `interrupts`, the same array.

`pendingInterrupts` is the deprecated alias on the `useChat` result and on
`ChatInterruptState` (0.27.3/0.33.2 `types.d.ts`). Member reads are renamed; a
`useChat` destructuring reads `interrupts` instead (see `bindings.rename_destructured`).
Assignments to a member of that name, and reads on `this` or on an object literal the
file declares (your own objects), are left alone. Where the file declares a member of
that name itself (an interface, a class field, an object key), a read on a receiver that
is not provably a `useChat` result or a `ChatClient` may be the app's own: it gets a TODO.
"""

from __future__ import annotations

import tree_sitter

from codemods import Rule
from codemods.typescript import bindings
from codemods.typescript.command import ScriptCommand

OLD = "pendingInterrupts"
NEW = "interrupts"
MESSAGE = f"{OLD} → {NEW} (the same array)"
OWN_MEMBER = (
    f"this file declares its own {OLD} member, so this read may be yours: if it reads "
    f"a useChat result or a ChatClient state, read {NEW} instead"
)


class PendingInterruptsCommand(ScriptCommand):
    """Read `interrupts` where the code reads the deprecated `pendingInterrupts`."""

    RULE = Rule.AG002

    def run(self) -> None:
        own_member = bindings.declares_member(self.document, OLD)
        for node in self.document.occurrences(OLD):
            member = node.parent
            if node.type != "property_identifier" or member is None:
                continue
            if member.type != "member_expression" or member.child_by_field_name("property") != node:
                continue
            receiver = member.child_by_field_name("object")
            if receiver is None or not self.receiver_matches(receiver) or self.own(receiver):
                continue
            outer = member.parent
            if (
                outer is not None
                and outer.type
                in (
                    "assignment_expression",
                    "augmented_assignment_expression",
                )
                and outer.child_by_field_name("left") == member
            ):
                continue
            if own_member and not bindings.is_client(self.document, receiver):
                self.todo(node, OWN_MEMBER)
                continue
            self.replace(node, NEW, MESSAGE)
        for binding in bindings.destructured(self.document, OLD):
            for edit in bindings.rename_destructured(self.document, binding, NEW):
                self.edit(*edit)
            self.site(binding.entry.start_byte, MESSAGE)

    def own(self, receiver: tree_sitter.Node) -> bool:
        """`this`, or a name this file binds to an object literal: the code's own object,
        whose `pendingInterrupts` is not the client's alias."""
        if receiver.type == "this":
            return True
        if receiver.type != "identifier":
            return False
        declared = bindings.declarations(self.document, self.document.text(receiver))
        values = [declaration.child_by_field_name("value") for declaration in declared]
        return any(value is not None and value.type == "object" for value in values)
