"""Deeply nested expressions (generated code, minified bundles) migrate like shallow
ones: the walks over them keep their own stack instead of Python's."""

from __future__ import annotations

import pytest

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.site import Action

HOOK_IN_TERNARIES = """\
import { useChat } from '@tanstack/ai-react'

export function Panel(id: string, c: boolean, x: unknown) {
  const chat = {nested}
  chat.addToolApprovalResponse({ id, approved: true })
}
"""


def ternaries(depth: int) -> str:
    return "(c ? " * depth + "useChat({})" + " : x)" * depth


@pytest.mark.parametrize("depth", [1, 600])
def test_a_hook_result_deep_in_ternaries_is_still_a_hook_result(depth: int) -> None:
    source = HOOK_IN_TERNARIES.replace("{nested}", ternaries(depth)).encode()
    result = migrate_bytes(source, "panel.tsx", Options())
    assert result.status is FileStatus.CHANGED, result.error
    assert b"chat.interrupts" in (result.updated or b"")


CLIENT_CALL = """\
import { ChatClient } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ tools })
export function approve(id: string, a: boolean, f: () => boolean) {
  client.addToolApprovalResponse({ id, approved: {chain} })
}
"""


@pytest.mark.parametrize("terms", [2, 1000])
def test_approved_as_a_long_chain_is_read_for_calls_to_its_end(terms: int) -> None:
    plain = CLIENT_CALL.replace("{chain}", " && ".join(["a"] * terms)).encode()
    result = migrate_bytes(plain, "approve.ts", Options())
    assert result.status is FileStatus.CHANGED, result.error
    assert [site.action for site in result.sites] == [Action.REWRITTEN]

    called = CLIENT_CALL.replace("{chain}", " && ".join(["a"] * (terms - 1) + ["f()"])).encode()
    result = migrate_bytes(called, "approve.ts", Options())
    assert result.status is FileStatus.CHANGED, result.error
    assert [site.message.startswith("approved is computed by a call") for site in result.sites] == [
        True
    ]
