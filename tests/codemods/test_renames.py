"""AG002, AG003 and AG004: renames of the deprecated aliases."""

from __future__ import annotations

from textwrap import dedent

import libcst as cst

from codemods import Rule, marker
from codemods.command import getattr_key, renamed_getattr
from codemods.get_pending_interrupts import GetPendingInterruptsCommand
from codemods.pending_interrupts import OWN_ATTRIBUTE, PendingInterruptsCommand
from codemods.resume_interrupts import PREFER_BOUND, ResumeInterruptsCommand
from codemods.settings import ApiNames, Settings
from codemods.site import Action
from tests.codemods.helpers import apply


def test_pending_interrupts_reads_and_state_keys() -> None:
    code, sites = apply(
        PendingInterruptsCommand,
        """
        def f(client, chat):
            items = client.pending_interrupts  # the same array
            n = len(self.client.pending_interrupts)
            s = chat.get_interrupt_state()['pending_interrupts']
            t = chat.get_interrupt_state().get("pending_interrupts", [])
        """,
    )
    assert code == (
        "\ndef f(client, chat):\n"
        "    items = client.interrupts  # the same array\n"
        "    n = len(self.client.interrupts)\n"
        "    s = chat.get_interrupt_state()['interrupts']\n"
        '    t = chat.get_interrupt_state().get("interrupts", [])\n'
    )
    assert [(s.rule, s.line, s.action) for s in sites] == [
        (Rule.AG002, 3, Action.REWRITTEN),
        (Rule.AG002, 4, Action.REWRITTEN),
        (Rule.AG002, 5, Action.REWRITTEN),
        (Rule.AG002, 6, Action.REWRITTEN),
    ]


def test_pending_interrupts_assignments_definitions_and_other_dicts_stay() -> None:
    source = """
    class Mine:
        pending_interrupts = 0

        def pending_interrupts(self):
            self.pending_interrupts = 1
            return {"pending_interrupts": 1}["pending_interrupts"]
    """
    code, sites = apply(PendingInterruptsCommand, source)
    assert "interrupts" not in code.replace("pending_interrupts", "")
    assert sites == []


def test_state_keys_read_through_a_local_holding_the_state() -> None:
    code, sites = apply(
        PendingInterruptsCommand,
        """
        async def pending(client):
            state = client.get_interrupt_state()
            snap: dict = client.get_interrupt_state()
            if (live := client.get_interrupt_state()) is not None:
                return state["pending_interrupts"], snap.get("pending_interrupts"), live[
                    'pending_interrupts']
        """,
    )
    assert code.splitlines()[5:7] == [
        '        return state["interrupts"], snap.get("interrupts"), live[',
        "            'interrupts']",
    ]
    assert [(s.line, s.column) for s in sites] == [(6, 22), (6, 54), (7, 13)]


def test_state_keys_on_other_dicts_stay() -> None:
    source = """
    def f(client, state, n):
        cache = client.get_interrupt_state()
        cache = {}
        a, b = client.get_interrupt_state(), {}
        return state["pending_interrupts"], cache["pending_interrupts"], b["pending_interrupts"]

    def g(client):
        return cache["pending_interrupts"]

    other = client.get_interrupt_state()
    other = load()
    print(other["pending_interrupts"])
    """
    code, sites = apply(PendingInterruptsCommand, source)
    assert (code, sites) == (dedent(source), [])


def test_getattr_reads_of_the_old_names_are_renamed() -> None:
    source = """
    def compat(client, other):
        items = getattr(client, 'pending_interrupts', None) or []
        fetch = getattr(client, "get_pending_interrupts")
        return setattr(other, "pending_interrupts", 1), getattr(other, "pending", 0)
    """
    code, sites = apply(PendingInterruptsCommand, source)
    code, more = apply(GetPendingInterruptsCommand, code)
    assert code.splitlines()[2:4] == [
        "    items = getattr(client, 'interrupts', None) or []",
        '    fetch = getattr(client, "get_interrupts")',
    ]
    assert 'setattr(other, "pending_interrupts", 1)' in code
    assert [(s.rule, s.line, s.column) for s in [*sites, *more]] == [
        (Rule.AG002, 3, 29),
        (Rule.AG003, 4, 29),
    ]


def test_both_getattr_renames_keep_the_literals_prefix_and_quotes() -> None:
    # One helper (command.renamed_getattr) serves AG002 and AG003 alike.
    source = """
    def compat(client):
        items = getattr(client, u'''pending_interrupts''', None)
        return getattr(client, U"get_pending_interrupts", None)
    """
    code, _ = apply(PendingInterruptsCommand, source)
    code, _ = apply(GetPendingInterruptsCommand, code)
    assert code.splitlines()[2:4] == [
        "    items = getattr(client, u'''interrupts''', None)",
        '    return getattr(client, U"get_interrupts", None)',
    ]


def test_renamed_getattr_changes_only_the_name() -> None:
    call = cst.ensure_type(cst.parse_expression("getattr(c, r'old', d)"), cst.Call)
    key = getattr_key(call, "old")
    assert key is not None
    renamed = renamed_getattr(call, key, "new")
    assert cst.Module(body=()).code_for_node(renamed) == "getattr(c, r'new', d)"


def test_an_attribute_the_file_assigns_itself_is_not_renamed() -> None:
    # A Starlette app keeping its own `pending_interrupts` on `app.state`.
    source = """
    app = Starlette()
    app.state.pending_interrupts = {}


    async def list_pending(request):
        mine = request.app.state.pending_interrupts
        here = app.state.pending_interrupts
        return mine, here, request.state.chat.pending_interrupts
    """
    code, sites = apply(PendingInterruptsCommand, source)
    todo = marker(Rule.AG002, OWN_ATTRIBUTE.format(name="pending_interrupts", new="interrupts"))
    assert code.splitlines()[6:10] == [
        f"    {todo}",
        "    mine = request.app.state.pending_interrupts",
        "    here = app.state.pending_interrupts",
        "    return mine, here, request.state.chat.interrupts",
    ]
    assert [(s.action, s.line, s.column) for s in sites] == [
        (Action.TODO, 7, 30),
        (Action.REWRITTEN, 9, 43),
    ]


def test_renamed_api_names_from_config() -> None:
    names = ApiNames(pending_interrupts="waiting", interrupts="open_items")
    code, _ = apply(PendingInterruptsCommand, "x = desk.waiting\n", Settings(names=names))
    assert code == "x = desk.open_items\n"


def test_get_pending_interrupts_calls_and_references() -> None:
    code, sites = apply(
        GetPendingInterruptsCommand,
        """
        items = await client.get_pending_interrupts()
        getter = chat.get_pending_interrupts

        def get_pending_interrupts(): ...
        """,
    )
    assert "await client.get_interrupts()" in code
    assert "getter = chat.get_interrupts\n" in code
    assert "def get_pending_interrupts(): ..." in code
    assert len(sites) == 2


def test_resume_interrupts_renamed_with_a_todo() -> None:
    todo = f"renamed to resume_interrupts_unsafe: {PREFER_BOUND}"
    code, sites = apply(
        ResumeInterruptsCommand,
        """
        async def recover(client, entries):
            # validated entries from the store
            ok = await client.resume_interrupts(entries, {"threadId": "t", "runId": "r"})
        """,
    )
    assert code == (
        "\nasync def recover(client, entries):\n"
        "    # validated entries from the store\n"
        f"    {marker(Rule.AG004, todo)}\n"
        '    ok = await client.resume_interrupts_unsafe(entries, {"threadId": "t", "runId": "r"})\n'
    )
    assert [(s.rule, s.action) for s in sites] == [(Rule.AG004, Action.TODO)]


def test_resume_interrupts_unsafe_is_left_alone() -> None:
    source = "client.resume_interrupts_unsafe(entries)\n"
    assert apply(ResumeInterruptsCommand, source) == (source, [])
