"""AG004 for TypeScript/JavaScript: `resumeInterrupts(...)` → `resumeInterruptsUnsafe(...)` + TODO.

The deprecated name is an alias of the unsafe form (0.33.2: `@deprecated Use bound
interrupt methods or resumeInterruptsUnsafe()`), which posts raw resume entries with no
validation. The rename keeps behaviour; the TODO asks for the bound items' methods or
`resolveInterrupts(...)` unless this is a validated recovery tool.
"""

from __future__ import annotations

from codemods import Rule
from codemods.typescript import bindings
from codemods.typescript.command import ScriptCommand

OLD = "resumeInterrupts"
NEW = "resumeInterruptsUnsafe"
TODO = (
    f"renamed to {NEW}: prefer the bound items' resolveInterrupt()/cancel() or "
    f"resolveInterrupts(...); {NEW} is for validated recovery tools only"
)


ELSEWHERE = (
    f"{OLD} is deprecated and does not come from useChat in this file (a prop?): "
    f"use {NEW} where it comes from, or better the bound items' resolveInterrupt()/cancel() "
    "or resolveInterrupts(...)"
)


class ResumeInterruptsCommand(ScriptCommand):
    """Rename `resumeInterrupts` to `resumeInterruptsUnsafe` and mark each use."""

    RULE = Rule.AG004

    def run(self) -> None:
        for call, _ in self.member_calls(OLD):
            member = call.child_by_field_name("function")
            name = member.child_by_field_name("property") if member is not None else None
            if name is not None:
                self.edit(name.start_byte, name.end_byte, NEW)
                self.todo(call, TODO)
        for binding in bindings.destructured(self.document, OLD):
            for edit in bindings.rename_destructured(self.document, binding, NEW):
                self.edit(*edit)
            scope = self.document.scope_of(binding.pattern)
            reads = [
                read
                for read in self.document.references(binding.local, scope)
                if read.parent != binding.entry
            ]
            for read in reads or [binding.entry]:
                self.todo(read, TODO)
        # A bare `resumeInterrupts(...)` the file does not take from `useChat` (a prop):
        # the name is not ours to rename, so only the TODO.
        seen = {finding.offset for finding in self.findings}
        for call in bindings.bare_calls(self.document, OLD, seen):
            self.todo(call, ELSEWHERE)
