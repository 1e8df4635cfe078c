"""AG003 for TypeScript/JavaScript: `client.getPendingInterrupts()` → `client.getInterrupts()`.

Both return the same `BoundInterrupts` array (0.33.2 `chat-client.d.ts`, where the old
name is `@deprecated Use getInterrupts()`).
"""

from __future__ import annotations

from codemods import Rule
from codemods.typescript.command import ScriptCommand

OLD = "getPendingInterrupts"
NEW = "getInterrupts"


class GetPendingInterruptsCommand(ScriptCommand):
    """Call `getInterrupts()` instead of the deprecated `getPendingInterrupts()`."""

    RULE = Rule.AG003

    def run(self) -> None:
        for call, _ in self.member_calls(OLD):
            member = call.child_by_field_name("function")
            name = member.child_by_field_name("property") if member is not None else None
            if name is not None:
                self.replace(name, NEW, f"{OLD}() → {NEW}() (the same array)")
