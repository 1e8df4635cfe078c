"""AG005 batches a loop only when it provably answers every pending item of its client.

`resolveInterrupts(true|false)` answers EVERY pending item, so batching a loop that
visits fewer (a filter, a slice, a passed-in list, an early exit) would approve items
the code never touched. The pairs in cases/ show each form in a file; these tests walk
the three conditions (iterable, body, answered id) one at a time and in every
combination.
"""

from __future__ import annotations

import itertools

import pytest

from codemods.runner import Options, migrate_bytes


def ag005(source: str, name: str = "x.ts") -> list[str]:
    """The AG005 actions the engine reports for `source`, in order."""
    result = migrate_bytes(source.encode(), name, Options())
    assert result.error is None
    return [site.action.value for site in result.sites if site.rule.value == "AG005"]


def client_loop(iterable: str, item: str = "item", answer: str = "item.id") -> str:
    return (
        f"for (const {item} of {iterable}) {{\n"
        f"  await client.addToolApprovalResponse({{ id: {answer}, approved: true }})\n"
        "}\n"
    )


@pytest.mark.parametrize(
    "iterable",
    ["client.getInterrupts()", "client.getPendingInterrupts()", "client.interrupts"],
)
def test_the_clients_own_collection_is_batched(iterable: str) -> None:
    assert ag005(client_loop(iterable)) == ["rewritten"]


@pytest.mark.parametrize(
    "iterable",
    [
        "ids",
        "client.getInterrupts().filter((i) => i.kind === 'tool-approval')",
        "client.getInterrupts().slice(1)",
        "[...client.getInterrupts()]",
        "client.getInterrupts().toReversed()",
        "other.getInterrupts()",
        "client.getInterrupts(filter)",
        "client.getMessages()",
        "this.client.getInterrupts()",
        "client.getInterrupts() ?? []",
    ],
)
def test_any_other_iterable_gets_a_todo(iterable: str) -> None:
    assert ag005(client_loop(iterable)) == ["todo"]


def test_the_same_member_receiver_is_the_same_client() -> None:
    source = client_loop("this.client.getInterrupts()").replace(
        "await client.", "await this.client."
    )
    assert ag005(source) == ["rewritten"]


def test_a_receiver_built_per_call_is_never_the_same_client() -> None:
    source = client_loop("make().getInterrupts()").replace("await client.", "await make().")
    assert ag005(source) == ["todo"]


@pytest.mark.parametrize(
    "loop",
    [
        "for (const k in client.getInterrupts()) ",
        "for await (const item of client.getInterrupts()) ",
        "for (let i = 0; i < 2; i++) ",
        "while (more()) ",
    ],
)
def test_loops_that_walk_no_named_collection_get_a_todo(loop: str) -> None:
    call = "client.addToolApprovalResponse({ id: item.id, approved: true })"
    assert ag005(loop + call + "\n") == ["todo"]


@pytest.mark.parametrize(
    ("item", "answer", "batched"),
    [
        ("item", "item.id", True),
        ("{ id }", "id", True),
        ("{ id: key }", "key", True),
        ("item", "first", False),
        ("item", "item.toolCallId", False),
        ("item", "other.id", False),
        ("{ id: key }", "id", False),
        ("[item]", "item.id", False),
    ],
)
def test_the_body_must_answer_the_visited_item_by_its_own_id(
    item: str, answer: str, batched: bool
) -> None:
    source = client_loop("client.getInterrupts()", item, answer)
    assert ag005(source) == ["rewritten" if batched else "todo"]


def test_callback_loops_bind_the_item_from_their_first_parameter() -> None:
    loop = "client.getInterrupts().forEach(({item}, i) => {call})\n"
    call = "client.addToolApprovalResponse({{ id: {answer}, approved: true }})"
    good = loop.format(item="item", call=call.format(answer="item.id"))
    wrong = loop.format(item="_", call=call.format(answer="ids[i]"))
    assert ag005(good) == ["rewritten"]
    assert ag005(wrong) == ["todo"]


HOOK = (
    "function C() {{\n"
    "  const {{ addToolApprovalResponse: respond, {entry} }} = useChat({{ tools }})\n"
    "{body}}}\n"
)
BODY = "  for (const item of {iterable}) respond({{ id: item.id, approved: true }})\n"


@pytest.mark.parametrize(
    ("entry", "iterable", "batched"),
    [
        ("interrupts", "interrupts", True),
        ("pendingInterrupts", "pendingInterrupts", True),
        ("interrupts: queue", "queue", True),
        ("interrupts: queue", "interrupts", False),
        ("messages", "messages", False),
        ("interrupts", "interrupts.filter((i) => i.kind === 'tool-approval')", False),
    ],
)
def test_a_component_loop_reads_its_own_destructuring(
    entry: str, iterable: str, batched: bool
) -> None:
    source = HOOK.format(entry=entry, body=BODY.format(iterable=iterable))
    assert ag005(source, "x.tsx") == ["rewritten" if batched else "todo"]


def test_a_name_shadowing_the_destructured_collection_gets_a_todo() -> None:
    body = (
        "  const some = (interrupts: { id: string }[]) => {\n"
        "  " + BODY.format(iterable="interrupts") + "  }\n"
    )
    source = HOOK.format(entry="interrupts", body=body)
    assert ag005(source, "x.tsx") == ["todo"]


def test_another_hooks_collection_is_not_this_hooks() -> None:
    source = (
        "function C() {\n"
        "  const { addToolApprovalResponse: respond } = useChat({ tools })\n"
        "  const { interrupts } = useOtherChat({ tools })\n"
        + BODY.format(iterable="interrupts")
        + "}\n"
    )
    assert ag005(source, "x.tsx") == ["todo"]


ITERABLES = {
    "client.getInterrupts()": True,
    "client.getInterrupts().slice(0, 1)": False,
    "ids": False,
}
BODIES = {
    "{answer}": True,
    "if (item.kind === 'tool-approval') {answer}": False,
    "{{ if (!item.id) continue; {answer} }}": False,
    "{{ {answer}; break }}": False,
    "{{ log(item); {answer} }}": False,
}
IDS = {"item.id": True, "ids[0]": False}


@pytest.mark.parametrize(
    ("iterable", "body", "answer"), list(itertools.product(ITERABLES, BODIES, IDS))
)
def test_batched_exactly_when_every_condition_holds(iterable: str, body: str, answer: str) -> None:
    call = f"client.addToolApprovalResponse({{ id: {answer}, approved: true }})"
    source = f"for (const item of {iterable}) " + body.format(answer=call) + "\n"
    batched = ITERABLES[iterable] and BODIES[body] and IDS[answer]
    assert ag005(source) == ["rewritten" if batched else "todo"]


OUTLIVING_LOOP = (
    "  for ({decl}item of client.getInterrupts()) {{\n"
    "    await client.addToolApprovalResponse({{ id: item.id, approved: true }})\n"
    "  }}\n"
)


@pytest.mark.parametrize(
    ("decl", "before", "after", "batched"),
    [
        # Each pass's own binding: nothing outside the loop sees it.
        ("const ", "", "  log(item)\n", True),
        ("let ", "", "  const show = () => item\n", True),
        # A `var` outlives the loop, hoisted: a read anywhere in the function sees it.
        ("var ", "", "", True),
        ("var ", "", "  log(item)\n", False),
        ("var ", "  log(item)\n", "", False),
        ("var ", "", "  const show = () => item\n", False),
        ("var ", "  const show = () => item.id\n", "", False),
        ("var ", "", "  function show(x = item) { return x }\n", False),
        ("var ", "", "  function show() { if (x) { let item = 1 } return item }\n", False),
        # A nested function declaring the name itself reads its own.
        ("var ", "", "  const show = (item) => item\n", True),
        ("var ", "", "  function show({ item }) { return item }\n", True),
        ("var ", "", "  function show() { let item = 1; return item }\n", True),
        ("var ", "", "  function show() { var item; return () => item }\n", True),
        # A name declared before the loop: read after it, later, or on a next pass.
        ("", "  let item\n", "", True),
        ("", "  let item\n  log(item)\n", "", True),
        ("", "  let item\n", "  log(item)\n", False),
        ("", "  let item\n  const show = () => item\n", "", False),
        ("", "  let item\n  const show = (item) => item\n", "", True),
        ("", "  let item\n  while (more()) {\n    log(item)\n", "  }\n", False),
    ],
)
def test_a_loop_variable_that_outlives_the_loop_keeps_the_loop(
    decl: str, before: str, after: str, batched: bool
) -> None:
    loop = OUTLIVING_LOOP.format(decl=decl)
    source = f"async function f(client, x) {{\n{before}{loop}{after}}}\n"
    assert ag005(source) == ["rewritten" if batched else "todo"]


def test_a_name_declared_outside_the_function_may_be_read_anywhere() -> None:
    loop = OUTLIVING_LOOP.format(decl="")
    source = f"let item\nasync function f(client) {{\n{loop}}}\nfunction g() {{ return item }}\n"
    assert ag005(source) == ["todo"]
    alone = f"let item\nasync function f(client) {{\n{loop}}}\n"
    assert ag005(alone) == ["rewritten"]
