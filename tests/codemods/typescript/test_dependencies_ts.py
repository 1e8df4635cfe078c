"""React dependency arrays around legacy approval answers: they follow the rewrite."""

from __future__ import annotations

from codemods.runner import FileStatus, Options, migrate_bytes
from codemods.site import Action

HEAD = "import { useEffect } from 'react'\nimport { useChat } from '@tanstack/ai-react'\n"


def migrate(body: str) -> tuple[str, list[tuple[int, str, str]]]:
    result = migrate_bytes((HEAD + body).encode(), "a.tsx", Options())
    assert result.status is not FileStatus.FAILED, result.error
    text = (result.updated or (HEAD + body).encode()).decode()
    again = migrate_bytes(text.encode(), "a.tsx", Options())
    assert again.updated is None
    return text.removeprefix(HEAD), [(s.line, s.action.value, s.message) for s in result.sites]


def test_a_name_only_listed_as_a_dependency_goes_and_is_reported() -> None:
    text, sites = migrate(
        "export function A({ connection, tools }: any) {\n"
        "  const { addToolApprovalResponse, messages } = useChat({ connection, tools })\n"
        "  useEffect(() => { console.log(messages.length) }, [messages, addToolApprovalResponse])\n"
        "  return null\n"
        "}\n"
    )
    assert "const { messages } = useChat" in text
    assert "[messages])" in text
    assert sites == [
        (4, Action.REWRITTEN.value, "addToolApprovalResponse was only a dependency: dropped")
    ]


def test_an_unused_destructured_name_is_left_as_it_was() -> None:
    body = (
        "export function B({ connection, tools }: any) {\n"
        "  const { addToolApprovalResponse: unused, messages } = useChat({ connection, tools })\n"
        "  return messages.length\n"
        "}\n"
    )
    assert migrate(body) == (body, [])


def test_a_dependency_of_a_member_hook_follows_too() -> None:
    text, _ = migrate(
        "import * as React from 'react'\n"
        "export function C({ id, connection, tools }: any) {\n"
        "  const { addToolApprovalResponse } = useChat({ connection, tools })\n"
        "  const go = React.useCallback(() => {\n"
        "    addToolApprovalResponse({ id, approved: true })\n"
        "  }, [id, addToolApprovalResponse])\n"
        "  return go\n"
        "}\n"
    )
    assert "}, [id, interrupts])" in text
    assert "const { interrupts } = useChat" in text
