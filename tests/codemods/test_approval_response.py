"""AG001: statement-level approval answers become a lookup plus resolve_interrupt()."""

from __future__ import annotations

from textwrap import dedent

import pytest

from codemods import Rule, marker
from codemods.approval_call import UNREADABLE
from codemods.approval_response import (
    CANCEL_NEEDS_VALUE,
    IN_CLASS_BODY,
    IN_EXPRESSION,
    NEXT_SHADOWED,
    PASSED_ON,
    ApprovalResponseCommand,
)
from codemods.settings import FalsePolicy, Settings
from codemods.site import Action
from tests.codemods.helpers import apply

LOOKUP = (
    'interrupt = next((item for item in {recv}.interrupts if item.kind == "tool-approval" '
    "and item.id == {id}), None)"
)


def lookup(recv: str = "client", id: str = "approval.id") -> str:
    return LOOKUP.format(recv=recv, id=id)


@pytest.mark.parametrize(
    "call",
    [
        'client.add_tool_approval_response({"id": approval.id, "approved": True})',
        "client.add_tool_approval_response({'approved': True, 'id': approval.id})",
        "client.add_tool_approval_response(id=approval.id, approved=True)",
        "client.add_tool_approval_response(approved=True, id=approval.id)",
        "client.add_tool_approval_response(dict(id=approval.id, approved=True))",
    ],
)
def test_dict_and_keyword_forms(call: str) -> None:
    code, sites = apply(ApprovalResponseCommand, f"def f(client, approval):\n    {call}\n")
    assert code == (
        "def f(client, approval):\n"
        f"    {lookup()}\n"
        "    if interrupt is not None:\n"
        "        interrupt.resolve_interrupt(True)\n"
    )
    assert [(s.rule, s.line, s.column, s.action) for s in sites] == [
        (Rule.AG001, 2, 5, Action.REWRITTEN)
    ]


def test_await_is_preserved() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        """
        async def f(client, approval):
            await client.add_tool_approval_response(id=approval.id, approved=True)
        """,
    )
    assert "        await interrupt.resolve_interrupt(True)\n" in code


def test_aliased_receiver_keeps_its_expression() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        """
        class Desk:
            def go(self, approval):
                chat = self.client
                chat.add_tool_approval_response(id=approval.id, approved=True)
                self.client.add_tool_approval_response(id=approval.id, approved=True)
        """,
    )
    assert lookup("chat") in code
    assert lookup("self.client") in code


def test_receivers_setting_limits_matches() -> None:
    source = """
    def f(client, other, approval):
        other.add_tool_approval_response(id=approval.id, approved=True)
        client.add_tool_approval_response(id=approval.id, approved=True)
    """
    code, sites = apply(ApprovalResponseCommand, source, Settings(receivers=("client",)))
    assert "other.add_tool_approval_response(id=approval.id, approved=True)" in code
    assert "client.add_tool_approval_response" not in code
    assert len(sites) == 1


def test_shadowed_names_get_fresh_ones() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        """
        def f(client, item, interrupt):
            client.add_tool_approval_response(id=item.id, approved=interrupt)
        """,
    )
    assert (
        "    interrupt_2 = next((item_2 for item_2 in client.interrupts "
        'if item_2.kind == "tool-approval" and item_2.id == item.id), None)\n'
        "    if interrupt_2 is not None:\n"
        "        interrupt_2.resolve_interrupt(interrupt)\n"
    ) in code


def test_unrelated_resolve_interrupt_and_definitions_are_untouched() -> None:
    source = dedent(
        """
        def resolve_interrupt(x):
            return x

        class Client:
            def add_tool_approval_response(self, response):
                return resolve_interrupt(response)

        add_tool_approval_response = Client.add_tool_approval_response
        """
    )
    code, sites = apply(ApprovalResponseCommand, source)
    assert code == source
    assert sites == []


def test_a_resolve_interrupt_function_in_scope_is_not_shadowed() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        """
        from app import resolve_interrupt

        def f(client, approval):
            client.add_tool_approval_response(id=approval.id, approved=True)
            resolve_interrupt(approval)
        """,
    )
    assert "    resolve_interrupt(approval)\n" in code
    assert "from app import resolve_interrupt\n" in code


def test_comments_around_the_call_survive() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        """
        def f(client, approval):
            # before
            client.add_tool_approval_response(id=approval.id, approved=True)  # trailing
            # after
        """,
    )
    assert code == (
        "\ndef f(client, approval):\n"
        "    # before\n"
        f"    {lookup()}\n"
        "    if interrupt is not None:\n"
        "        interrupt.resolve_interrupt(True)  # trailing\n"
        "    # after\n"
    )


def test_comments_inside_a_multi_line_call_move_above_it() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        """
        def f(client, approval):
            client.add_tool_approval_response(  # answer
                {
                    "id": approval.id,  # from the request
                    "approved": True,
                }
            )  # done
        """,
    )
    assert code == (
        "\ndef f(client, approval):\n"
        "    # answer\n"
        "    # from the request\n"
        f"    {lookup()}\n"
        "    if interrupt is not None:\n"
        "        interrupt.resolve_interrupt(True)  # done\n"
    )


def test_false_is_a_denial_by_default_and_cancel_on_request() -> None:
    source = "def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=False)\n"
    denial, _ = apply(ApprovalResponseCommand, source)
    cancel, _ = apply(ApprovalResponseCommand, source, Settings(false_as=FalsePolicy.CANCEL))
    assert "interrupt.resolve_interrupt(False)" in denial
    assert "interrupt.cancel()" in cancel
    assert "resolve_interrupt" not in cancel.split("\n", 2)[2]


def test_non_literal_approved() -> None:
    source = "def f(client, a, ok):\n    client.add_tool_approval_response(id=a.id, approved=ok)\n"
    denial, _ = apply(ApprovalResponseCommand, source)
    assert "interrupt.resolve_interrupt(ok)" in denial
    cancel, sites = apply(ApprovalResponseCommand, source, Settings(false_as=FalsePolicy.CANCEL))
    assert cancel == (
        "def f(client, a, ok):\n"
        f"    {marker(Rule.AG001, CANCEL_NEEDS_VALUE)}\n"
        "    client.add_tool_approval_response(id=a.id, approved=ok)\n"
    )
    assert sites[0].action is Action.TODO


def test_an_id_with_side_effects_is_evaluated_once() -> None:
    code, _ = apply(
        ApprovalResponseCommand,
        "def f(client):\n    client.add_tool_approval_response(id=next_id(), approved=True)\n",
    )
    assert code.splitlines()[1:3] == [
        "    approval_id = next_id()",
        "    " + lookup(id="approval_id"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "ok = client.add_tool_approval_response(id=a.id, approved=True)",
        "return client.add_tool_approval_response(id=a.id, approved=True)",
        "callback = lambda: client.add_tool_approval_response(id=a.id, approved=True)",
        "[client.add_tool_approval_response(id=x.id, approved=True) for x in a]",
        "if a: client.add_tool_approval_response(id=a.id, approved=True)",
        "print(1); client.add_tool_approval_response(id=a.id, approved=True)",
    ],
)
def test_expression_positions_get_a_todo(line: str) -> None:
    source = f"def f(client, a):\n    {line}\n"
    code, sites = apply(ApprovalResponseCommand, source)
    assert code == f"def f(client, a):\n    {marker(Rule.AG001, IN_EXPRESSION)}\n    {line}\n"
    assert [(s.action, s.marked) for s in sites] == [(Action.TODO, False)]
    # On the second run the marker is found, reported as already marked, and not repeated.
    _, again = apply(ApprovalResponseCommand, code)
    assert [(s.action, s.marked) for s in again] == [(Action.TODO, True)]


@pytest.mark.parametrize(
    "args",
    [
        "response",
        "{'id': a.id}",
        "{**base, 'approved': True}",
        "id=a.id, approved=True, x=1",
        "dict(base, id=a.id, approved=True)",
        "dict(id=a.id, approved=True, x=1)",
        "dict(**base)",
    ],
)
def test_unreadable_arguments_get_a_todo(args: str) -> None:
    line = f"client.add_tool_approval_response({args})"
    code, _ = apply(ApprovalResponseCommand, f"def f(client, a):\n    {line}\n")
    assert code == f"def f(client, a):\n    {marker(Rule.AG001, UNREADABLE)}\n    {line}\n"


@pytest.mark.parametrize(
    "line",
    [
        "answer = functools.partial(client.add_tool_approval_response)",
        "router.on('approval', client.add_tool_approval_response)",
        "answer = client.add_tool_approval_response",
        "handlers = {'approve': self.client.add_tool_approval_response}",
    ],
)
def test_a_bound_method_passed_on_gets_a_todo(line: str) -> None:
    source = f"def f(self, client, router):\n    {line}\n"
    code, sites = apply(ApprovalResponseCommand, source)
    assert (
        code == f"def f(self, client, router):\n    {marker(Rule.AG001, PASSED_ON)}\n    {line}\n"
    )
    column = line.index("add_tool_approval_response")
    column -= len("self.client.") if "self.client" in line else len("client.")
    assert [(s.action, s.line, s.column) for s in sites] == [(Action.TODO, 2, 5 + column)]


def test_an_attribute_of_that_name_assigned_is_not_passed_on() -> None:
    source = "def f(self, answer):\n    self.add_tool_approval_response = answer\n"
    code, sites = apply(ApprovalResponseCommand, source)
    assert (code, sites) == (source, [])


def test_an_answer_in_a_class_body_gets_a_todo() -> None:
    # Rewritten, `DEFAULT` inside the generator would raise NameError at class creation.
    line = 'client.add_tool_approval_response({"id": DEFAULT, "approved": True})'
    source = f"class Boot:\n    DEFAULT = 'boot-1'\n    {line}\n"
    code, sites = apply(ApprovalResponseCommand, source)
    todo = marker(Rule.AG001, IN_CLASS_BODY)
    assert code == f"class Boot:\n    DEFAULT = 'boot-1'\n    {todo}\n    {line}\n"
    assert [(s.action, s.line, s.column) for s in sites] == [(Action.TODO, 3, 5)]


def test_an_answer_in_a_method_of_a_class_in_a_function_is_rewritten() -> None:
    source = """
    def factory(client):
        class Desk:
            def approve(self, a):
                client.add_tool_approval_response(id=a.id, approved=True)
        return Desk
    """
    code, _ = apply(ApprovalResponseCommand, source)
    assert "interrupt.resolve_interrupt(True)" in code


@pytest.mark.parametrize(
    "binding",
    [
        'next = page.get("next")',
        "for next in cursors: pass",
        "from paging import next",
        "def next(): ...",
        "cursor, next = split(page)",
    ],
)
def test_a_local_next_gets_a_todo(binding: str) -> None:
    # The lookup calls the builtin next(); a local of that name would be called instead.
    line = "client.add_tool_approval_response(id=a, approved=True)"
    source = f"def f(client, a, page):\n    {binding}\n    {line}\n"
    code, sites = apply(ApprovalResponseCommand, source)
    todo = marker(Rule.AG001, NEXT_SHADOWED)
    assert code == f"def f(client, a, page):\n    {binding}\n    {todo}\n    {line}\n"
    assert [(s.action, s.line) for s in sites] == [(Action.TODO, 3)]


def test_next_called_or_bound_as_an_attribute_is_not_shadowing() -> None:
    source = (
        "def f(client, a, it, page):\n    first = next(it)\n    page.next = 2\n"
        "    client.add_tool_approval_response(id=a, approved=True)\n"
    )
    code, _ = apply(ApprovalResponseCommand, source)
    assert "    " + lookup(recv="client", id="a") in code


def test_no_op() -> None:
    source = "def f(client):\n    client.add_tool_result(tool_call_id='c1', output={})\n"
    code, sites = apply(ApprovalResponseCommand, source)
    assert (code, sites) == (source, [])


def test_crlf_survives_byte_exact() -> None:
    source = (
        "def f(client, a):\r\n"
        "    # keep\r\n"
        "    client.add_tool_approval_response(id=a.id, approved=True)\r\n"
        "    return 1\r\n"
    )
    code, _ = apply(ApprovalResponseCommand, source, strip=False)
    assert code == (
        "def f(client, a):\r\n"
        "    # keep\r\n"
        f"    {lookup(id='a.id')}\r\n"
        "    if interrupt is not None:\r\n"
        "        interrupt.resolve_interrupt(True)\r\n"
        "    return 1\r\n"
    )


def test_tab_indentation_is_followed() -> None:
    source = "def f(client, a):\n\tclient.add_tool_approval_response(id=a.id, approved=True)\n"
    code, _ = apply(ApprovalResponseCommand, source, strip=False)
    assert code.endswith("\tif interrupt is not None:\n\t\tinterrupt.resolve_interrupt(True)\n")
