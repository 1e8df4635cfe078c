"""`useChat` from a TanStack AI binding other than React's is not rewritten like React's.

@tanstack/ai-vue's result holds refs (and a Solid binding's, accessors), so React's
`interrupts.filter(...)` would be wrong there; the answers get a TODO instead. (Kept out
of the type-checked pairs: the example project installs only the React binding.)
"""

from __future__ import annotations

import pytest

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.site import Action

COMPOSABLE = """\
import { fetchServerSentEvents } from '@tanstack/ai-client'
import { useChat{alias} } from '{package}'
import { tools } from './tools'

export function useApprovals(id: string) {
  const { addToolApprovalResponse } = {hook}({ connection: fetchServerSentEvents('/x'), tools })
  const chat = {hook}({ connection: fetchServerSentEvents('/x'), tools })
  function approve() {
    addToolApprovalResponse({ id, approved: true })
  }
  function approveAll() {
    for (const item of chat.interrupts)
      chat.addToolApprovalResponse({ id: item.id, approved: true })
  }
  return { approve, approveAll }
}
"""


def source(package: str, alias: str = "") -> bytes:
    hook = alias or "useChat"
    text = COMPOSABLE.replace("{package}", package).replace("{hook}", hook)
    return text.replace("{alias}", f" as {alias}" if alias else "").encode()


@pytest.mark.parametrize(
    ("package", "alias"), [("@tanstack/ai-vue", ""), ("@tanstack/ai-solid", "useSolidChat")]
)
def test_other_bindings_get_todos_not_react_rewrites(package: str, alias: str) -> None:
    result = migrate_bytes(source(package, alias), "use-approvals.ts", Options())
    assert result.status is FileStatus.CHANGED
    text = (result.updated or b"").decode()
    assert "interrupts.filter" not in text
    assert "resolveInterrupts" not in text
    assert [(s.rule.value, s.line, s.action) for s in result.sites] == [
        ("AG001", 9, Action.TODO),
        ("AG001", 13, Action.TODO),
    ]
    assert all("other than @tanstack/ai-react" in s.message for s in result.sites)
    assert migrate_bytes(result.updated or b"", "use-approvals.ts", Options()).updated is None


def test_react_binding_is_still_rewritten() -> None:
    result = migrate_bytes(source("@tanstack/ai-react"), "use-approvals.ts", Options())
    text = (result.updated or b"").decode()
    assert "interrupts.filter((item) => item.kind === 'tool-approval')" in text
    assert "chat.resolveInterrupts(true)" in text
    assert all(s.action is Action.REWRITTEN for s in result.sites)


SVELTE = b"""\
<script lang="ts">
  import { createChat, fetchServerSentEvents } from '@tanstack/ai-svelte'
  import { tools } from './tools'

  const chat = createChat({ connection: fetchServerSentEvents('/api/chat'), tools })

  function approve(id: string) {
    chat.addToolApprovalResponse({ id, approved: true })
  }
</script>

<button onclick={() => approve('x')}>Approve</button>
"""


def test_svelte_create_chat_gets_a_todo_not_a_client_rewrite() -> None:
    # it became `chat.getInterrupts()…`: createChat's result is no ChatClient
    result = migrate_bytes(SVELTE, "Approvals.svelte", Options())
    text = (result.updated or b"").decode()
    assert "getInterrupts" not in text
    assert "?.resolveInterrupt(" not in text
    assert [(s.rule.value, s.line, s.action) for s in result.sites] == [
        ("AG001", 8, Action.TODO),
    ]
    assert "Svelte's createChat" in result.sites[0].message
    assert migrate_bytes(result.updated or b"", "Approvals.svelte", Options()).updated is None


def test_an_own_create_chat_still_holds_a_client() -> None:
    # not imported from a TanStack binding: the app's own factory, returning a ChatClient
    own = SVELTE.replace(
        b"createChat, fetchServerSentEvents } from '@tanstack/ai-svelte'",
        (
            b"fetchServerSentEvents } from '@tanstack/ai-client'\n"
            b"  import { createChat } from './chat'"
        ),
    )
    result = migrate_bytes(own, "Approvals.svelte", Options())
    text = (result.updated or b"").decode()
    assert "chat.getInterrupts().filter((item) => item.kind === 'tool-approval')" in text
    assert [s.action for s in result.sites] == [Action.REWRITTEN]
