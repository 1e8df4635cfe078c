"""AG005: loops answering every approval with one literal become one batch call."""

from __future__ import annotations

import pytest

from codemods import Rule, marker
from codemods.approval_loop import OTHER_LOOP, ApprovalLoopCommand
from codemods.settings import FalsePolicy, Settings
from codemods.site import Action
from tests.codemods.helpers import apply


@pytest.mark.parametrize(
    "call",
    [
        "client.add_tool_approval_response(id=a.id, approved=True)",
        "client.add_tool_approval_response({'id': a['id'], 'approved': True})",
        "client.add_tool_approval_response(id=a, approved=True)",
    ],
)
def test_literal_loop_becomes_one_batch(call: str) -> None:
    source = (
        f"def f(client, approvals):\n    # all of them\n    for a in approvals:\n        {call}\n"
    )
    code, sites = apply(ApprovalLoopCommand, source)
    assert (
        code
        == "def f(client, approvals):\n    # all of them\n    client.resolve_interrupts(True)\n"
    )
    assert [(s.rule, s.line, s.action) for s in sites] == [(Rule.AG005, 3, Action.REWRITTEN)]


def test_await_and_false_policies() -> None:
    source = """
    async def f(chat, approvals):
        for a in approvals:
            await chat.add_tool_approval_response(id=a.id, approved=False)
    """
    denial, _ = apply(ApprovalLoopCommand, source)
    assert "    await chat.resolve_interrupts(False)\n" in denial
    cancel, _ = apply(ApprovalLoopCommand, source, Settings(false_as=FalsePolicy.CANCEL))
    assert "    await chat.cancel_interrupts()\n" in cancel


def test_an_import_only_the_loop_used_is_removed() -> None:
    code, _ = apply(
        ApprovalLoopCommand,
        """
        from app.queue import pending_approvals, unrelated

        def f(client):
            unrelated()
            for a in pending_approvals():
                client.add_tool_approval_response(id=a.id, approved=True)
        """,
    )
    assert "from app.queue import unrelated\n" in code
    assert "pending_approvals" not in code


@pytest.mark.parametrize(
    "body",
    [
        "    if a.ok:\n        client.add_tool_approval_response(id=a.id, approved=True)\n",
        "    client.add_tool_approval_response(id=a.id, approved=a.ok)\n",
        "    client.add_tool_approval_response(id=other.id, approved=True)\n",
        "    log(a)\n    client.add_tool_approval_response(id=a.id, approved=True)\n",
    ],
)
def test_other_loop_shapes_get_a_todo(body: str) -> None:
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    source = f"def f(client, approvals, other):\n    for a in approvals:\n{indented}"
    code, sites = apply(ApprovalLoopCommand, source)
    assert code == source.replace(
        "    for a", f"    {marker(Rule.AG005, OTHER_LOOP)}\n    for a", 1
    )
    assert [s.action for s in sites] == [Action.TODO]


@pytest.mark.parametrize(
    "source",
    [
        "for c in clients:\n    c.add_tool_approval_response(id=c.id, approved=True)\n",
        "for a in xs:\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
        "else:\n    done()\n",
    ],
)
def test_loop_with_else_or_receiver_from_the_loop_variable_is_not_batched(source: str) -> None:
    code, sites = apply(ApprovalLoopCommand, source)
    assert code == f"{marker(Rule.AG005, OTHER_LOOP)}\n{source}"
    assert [s.action for s in sites] == [Action.TODO]


def test_a_call_in_a_function_inside_a_loop_is_not_the_loops() -> None:
    source = """
    def f(client, approvals):
        for a in approvals:
            def answer():
                client.add_tool_approval_response(id=a.id, approved=True)
            register(answer)
    """
    code, sites = apply(ApprovalLoopCommand, source)
    assert sites == []
    assert "TODO" not in code


def test_no_op() -> None:
    source = "def f(items):\n    for a in items:\n        print(a)\n"
    assert apply(ApprovalLoopCommand, source) == (source, [])
