"""Deeply nested expressions (generated code, minified bundles) migrate like shallow
ones: the walks over them keep their own stack instead of Python's."""

from __future__ import annotations

import pytest

from codemods.runner import FileStatus, Options, migrate_bytes

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
