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
