"""AG005: loops answering every approval with one literal become one batch call."""

from __future__ import annotations

import symtable
import textwrap

import libcst as cst
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from libcst.codemod import CodemodContext, TransformSuccess, transform_module

from codemods import Rule, marker
from codemods.approval_loop import OTHER_LOOP, ApprovalLoopCommand
from codemods.libcst_command import RuleCodemod
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
        "def f(client):\n    # all of them\n"
        f"    for a in client.pending_interrupts:\n        {call}\n"
    )
    code, sites = apply(ApprovalLoopCommand, source)
    assert code == "def f(client):\n    # all of them\n    client.resolve_interrupts(True)\n"
    assert [(s.rule, s.line, s.action) for s in sites] == [(Rule.AG005, 3, Action.REWRITTEN)]


def test_comments_inside_a_batched_loop_move_above_it() -> None:
    source = """
    def f(client):
        # every one
        for a in client.pending_interrupts:  # the whole set
            # approve it
            client.add_tool_approval_response(
                id=a.id,  # its own id
                approved=True,
            )  # yes
        done()
    """
    code, _ = apply(ApprovalLoopCommand, source)
    assert code == (
        "\ndef f(client):\n"
        "    # every one\n"
        "    # the whole set\n"
        "    # approve it\n"
        "    # its own id\n"
        "    # yes\n"
        "    client.resolve_interrupts(True)\n"
        "    done()\n"
    )


def test_a_loop_whose_variable_is_read_afterwards_is_not_batched() -> None:
    # After a batch call `a` would be unbound: the log line would raise NameError.
    source = """
    def f(client, log):
        for a in client.pending_interrupts:
            client.add_tool_approval_response(id=a.id, approved=True)
        log.info("approved up to %s", a.id)
    """
    code, sites = apply(ApprovalLoopCommand, source)
    assert code.splitlines()[2] == f"    {marker(Rule.AG005, OTHER_LOOP)}"
    assert [s.action for s in sites] == [Action.TODO]


def test_a_loop_variable_bound_again_afterwards_still_batches() -> None:
    source = """
    def f(client, xs):
        for a in client.pending_interrupts:
            client.add_tool_approval_response(id=a.id, approved=True)
        for a in xs:
            pass
        a = [a for a in xs]
    """
    code, sites = apply(ApprovalLoopCommand, source)
    assert code.splitlines()[2] == "    client.resolve_interrupts(True)"
    assert [s.action for s in sites] == [Action.REWRITTEN]


def test_await_and_false_policies() -> None:
    source = """
    async def f(chat):
        for a in chat.get_pending_interrupts():
            await chat.add_tool_approval_response(id=a.id, approved=False)
    """
    denial, _ = apply(ApprovalLoopCommand, source)
    assert "    await chat.resolve_interrupts(False)\n" in denial
    cancel, _ = apply(ApprovalLoopCommand, source, Settings(false_as=FalsePolicy.CANCEL))
    assert "    await chat.cancel_interrupts()\n" in cancel


@pytest.mark.parametrize(
    "iterable",
    [
        "self.client.pending_interrupts",
        "self.client.interrupts",
        "self.client.get_interrupts()",
        "self.client.get_pending_interrupts()",
    ],
)
def test_every_spelling_of_the_clients_own_pending_set_is_batched(iterable: str) -> None:
    source = (
        f"def f(self):\n    for a in {iterable}:\n"
        "        self.client.add_tool_approval_response(id=a.id, approved=True)\n"
    )
    code, _ = apply(ApprovalLoopCommand, source)
    assert code == "def f(self):\n    self.client.resolve_interrupts(True)\n"


@pytest.mark.parametrize(
    "loop",
    [
        # Filters and slices answer only some of the pending items.
        "for a in [x for x in client.pending_interrupts if x.amount < 10]:\n    {call}\n",
        "for a in (x for x in client.pending_interrupts if x.ok):\n    {call}\n",
        "for a in client.pending_interrupts[:1]:\n    {call}\n",
        "for a in filter(small, client.pending_interrupts):\n    {call}\n",
        "for a in sorted(client.pending_interrupts)[1:]:\n    {call}\n",
        # Iterables built elsewhere, or another client's set.
        "for a in approvals:\n    {call}\n",
        "for a in pending_approvals():\n    {call}\n",
        "for a in other.pending_interrupts:\n    {call}\n",
        "for a in client.get_pending_interrupts(kind='tool'):\n    {call}\n",
        # A body that may skip or stop.
        "for a in client.pending_interrupts:\n    if a.ok:\n        {call}\n",
        "for a in client.pending_interrupts:\n    if a.big:\n        continue\n    {call}\n",
        "for a in client.pending_interrupts:\n    {call}\n    break\n",
    ],
)
def test_loops_not_covering_every_pending_item_get_a_todo(loop: str) -> None:
    call = "client.add_tool_approval_response(id=a.id, approved=True)"
    source = loop.format(call=call)
    code, sites = apply(ApprovalLoopCommand, source)
    assert "resolve_interrupts(True)" not in code
    assert code == f"{marker(Rule.AG005, OTHER_LOOP)}\n{source}"
    assert [s.action for s in sites] == [Action.TODO]


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


def test_a_call_in_a_loops_else_belongs_to_the_loops_around_it() -> None:
    # `else:` runs once, after the loop: not an approval loop of its own.
    source = """
    def f(client, ids, batches):
        for i in ids:
            check(i)
        else:
            client.add_tool_approval_response(id=first, approved=True)
        while busy():
            for i in ids:
                pass
            else:
                client.add_tool_approval_response(id=last, approved=True)
    """
    code, sites = apply(ApprovalLoopCommand, source)
    lines = code.splitlines()
    assert [(s.action, s.line) for s in sites] == [(Action.TODO, 7)]
    assert lines[6:8] == [f"    {marker(Rule.AG005, OTHER_LOOP)}", "    while busy():"]
    assert code.count("TODO") == 1


def test_no_op() -> None:
    source = "def f(items):\n    for a in items:\n        print(a)\n"
    assert apply(ApprovalLoopCommand, source) == (source, [])


def test_each_loop_is_checked_once_and_the_module_walked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Checking every loop twice and walking the whole module once per loop made a file
    # of 400 loops take a minute: one check per loop, one walk for all of them.
    source = "".join(
        f"for a{i} in client.pending_interrupts:\n"
        f"    client.add_tool_approval_response(id=a{i}.id, approved=True)\n"
        for i in range(5)
    )
    checks: list[object] = []
    walks: list[object] = []
    check, walk = ApprovalLoopCommand._batch_call, cst.Module.visit

    def counted_check(self: ApprovalLoopCommand, loop: cst.For) -> object:
        checks.append(loop)
        return check(self, loop)

    def counted_walk(self: cst.Module, visitor: cst.CSTVisitorT) -> cst.Module:
        walks.append(visitor)
        return walk(self, visitor)

    monkeypatch.setattr(ApprovalLoopCommand, "_batch_call", counted_check)
    monkeypatch.setattr(cst.Module, "visit", counted_walk)
    command = ApprovalLoopCommand()
    code = transform_module(RuleCodemod(CodemodContext(), command), source)
    assert isinstance(code, TransformSuccess)
    assert code.code == "client.resolve_interrupts(True)\n" * 5
    assert len(checks) == 5
    assert len([w for w in walks if w is not command]) == 1  # besides the transform itself


LOOP = """\
    for item in client.pending_interrupts:
        client.add_tool_approval_response(id=item.id, approved=True)
"""


def test_two_consecutive_loops_over_the_same_variable_are_each_batched() -> None:
    # The second loop's `item.id` reads its own binding, not the first loop's.
    code, sites = apply(ApprovalLoopCommand, f"def f(client):\n{LOOP}{LOOP}")
    assert code == "def f(client):\n" + "    client.resolve_interrupts(True)\n" * 2
    assert [s.action for s in sites] == [Action.REWRITTEN, Action.REWRITTEN]


def test_a_read_after_a_second_loop_keeps_both() -> None:
    # The second loop may run zero times: then `item` is still the first loop's.
    code, sites = apply(ApprovalLoopCommand, f"def f(client):\n{LOOP}{LOOP}    print(item)\n")
    assert "resolve_interrupts(True)\n" not in code
    assert [s.action for s in sites] == [Action.TODO, Action.TODO]


@pytest.mark.parametrize(
    ("after", "batched"),
    [
        ("    b = {item: item.x for item in xs if item.y}\n", True),
        ("    b = (x for x in xs for item in x if item)\n", True),
        # A comprehension's first iterable is evaluated outside it: the loop's `item`.
        ("    b = [x for item in item.kids]\n", False),
    ],
)
def test_a_comprehension_reads_the_loop_variable_only_in_its_first_iterable(
    after: str, batched: bool
) -> None:
    code, _ = apply(ApprovalLoopCommand, f"def f(client, xs):\n{LOOP}{after}")
    assert ("    client.resolve_interrupts(True)\n" in code) is batched


def with_loop(shape: str) -> str:
    """`shape` in a function, its `LOOP` line replaced by the batchable loop, indented
    like that line."""
    lines = []
    for line in shape.splitlines(keepends=True):
        if line.strip() == "LOOP":
            indent = line[: len(line) - len(line.lstrip())]
            lines += [indent + loop_line[4:] for loop_line in LOOP.splitlines(keepends=True)]
        else:
            lines.append(line)
    return "def f(client, batches, more, log):\n" + "".join(lines)


@pytest.mark.parametrize(
    ("shape", "batched"),
    [
        # On the second pass the read sees the inner loop's last item, which a batch
        # call no longer binds: the read comes after the loop although it is above it.
        (
            "    for batch in batches:\n        if item is not None:\n"
            "            log(item.id)\n        LOOP\n",
            False,
        ),
        ("    while more():\n        log(item)\n        LOOP\n", False),
        ("    while item is None or more():\n        LOOP\n", False),
        ("    for batch in batches:\n        cb = lambda: item\n        LOOP\n", False),
        (
            "    for batch in batches:\n        def show():\n            return item\n"
            "        LOOP\n",
            False,
        ),
        # The loop around the loop around it repeats it too.
        (
            "    while more():\n        log(item)\n        for batch in batches:\n"
            "            LOOP\n",
            False,
        ),
        # A read of a binding made anew on each pass before it reads that binding.
        ("    for item in batches:\n        log(item)\n        LOOP\n", True),
        (
            "    for batch in batches:\n        for item in batch:\n            log(item)\n"
            "        LOOP\n",
            True,
        ),
        ("    for batch in batches:\n        b = [item for item in batch]\n        LOOP\n", True),
        ("    for batch in batches:\n        cb = lambda item: item.id\n        LOOP\n", True),
        (
            "    for batch in batches:\n        def show(item, x=1):\n            return item\n"
            "        LOOP\n",
            True,
        ),
        # Evaluated once, before any pass, or once after the last: not on a next pass.
        ("    for batch in item.batches:\n        LOOP\n", True),
        ("    for batch in batches:\n        LOOP\n    else:\n        log(batch)\n", True),
        ("    for batch in batches:\n        log(batch)\n        LOOP\n", True),
    ],
)
def test_a_read_on_the_next_pass_of_a_loop_around_it_keeps_the_loop(
    shape: str, batched: bool
) -> None:
    code, sites = apply(ApprovalLoopCommand, with_loop(shape))
    assert ("client.resolve_interrupts(True)\n" in code) is batched, code
    if not batched:
        assert f"{marker(Rule.AG005, OTHER_LOOP)}\n" in code
    assert [s.action for s in sites] == [Action.REWRITTEN if batched else Action.TODO]


@pytest.mark.parametrize(
    ("shape", "batched"),
    [
        # A function or a generator made before the loop reads the name when it runs,
        # which may be after the loop: `item` would then be unbound.
        ("    def show():\n        return item.id\n    LOOP\n    return show()\n", False),
        ("    later = (item for _ in range(1))\n    LOOP\n    return list(later)\n", False),
        ("    later = lambda: [item]\n    LOOP\n    return later()\n", False),
        ("    class Show:\n        def get(self):\n            return item\n    LOOP\n", False),
        # Its own parameter, its own comprehension variable, a default or a generator's
        # first iterable (both evaluated where they stand): not the loop's.
        ("    def show(item):\n        return item.id\n    LOOP\n", True),
        ("    later = lambda *item: item\n    LOOP\n", True),
        ("    def show():\n        return [item for item in batches]\n    LOOP\n", True),
        ("    def show(x=item):\n        return x\n    LOOP\n", True),
        ("    later = (x for x in item.kids)\n    LOOP\n", True),
        ("    def show(item):\n        return lambda: item\n    LOOP\n", True),
        # A local of its own (bound anywhere in it, by any statement) is another
        # variable, for the functions inside it too; `global` in a function is the
        # module's. A comprehension's variable or `nonlocal` leaves the name the loop's.
        ("    def show():\n        item = 1\n        return item\n    LOOP\n", True),
        ("    def show():\n        log(item)\n        item = 1\n    LOOP\n", True),
        ("    LOOP\n    def show():\n        item: int = 1\n        return item\n", True),
        ("    def show():\n        item += 1\n    LOOP\n", True),
        (
            "    def show():\n        for item in batches:\n            pass\n        return item\n"
            "    LOOP\n",
            True,
        ),
        ("    def show():\n        with log() as item:\n            return item\n    LOOP\n", True),
        (
            "    def show():\n        try:\n            pass\n        except ValueError as item:\n"
            "            return item\n    LOOP\n",
            True,
        ),
        ("    def show():\n        import item.kids\n        return item\n    LOOP\n", True),
        (
            "    def show():\n        def item():\n            pass\n"
            "        return item\n    LOOP\n",
            True,
        ),
        (
            "    def show():\n        class item:\n            pass\n"
            "        return item\n    LOOP\n",
            True,
        ),
        ("    def show():\n        del item\n    LOOP\n", True),
        ("    def show():\n        if (item := log()):\n            return item\n    LOOP\n", True),
        ("    later = lambda: (item := 1) + item\n    LOOP\n", True),
        (
            "    def show():\n        match log():\n            case [item]:\n"
            "                return item\n    LOOP\n",
            True,
        ),
        ("    def show():\n        item = 1\n        return lambda: item\n    LOOP\n", True),
        (
            "    def show():\n        item = 1\n        def inner():\n            return item\n"
            "        return inner\n    LOOP\n",
            True,
        ),
        ("    def show():\n        global item\n        return item\n    LOOP\n", True),
        (
            "    def show():\n        x = [item for item in batches]\n"
            "        return item\n    LOOP\n",
            False,
        ),
        ("    def show():\n        nonlocal item\n        return item\n    LOOP\n", False),
        (
            "    def show():\n        def inner():\n            item = 1\n        return item\n"
            "    LOOP\n",
            False,
        ),
        (
            "    def show():\n        class K:\n            item = 1\n            def get(self):\n"
            "                return item\n    LOOP\n",
            False,
        ),
    ],
)
def test_a_read_in_code_that_runs_later_is_a_read_after_the_loop(shape: str, batched: bool) -> None:
    code, sites = apply(ApprovalLoopCommand, with_loop(shape))
    assert ("client.resolve_interrupts(True)\n" in code) is batched, code
    assert [s.action for s in sites] == [Action.REWRITTEN if batched else Action.TODO]


def test_a_module_loop_variable_declared_global_in_a_function_is_that_variable() -> None:
    loop = LOOP.replace("\n    ", "\n").removeprefix("    ")
    code, _ = apply(ApprovalLoopCommand, f"def show():\n    global item\n    return item\n\n{loop}")
    assert "client.resolve_interrupts(True)" not in code
    code, _ = apply(ApprovalLoopCommand, f"def show():\n    item = 1\n    return item\n\n{loop}")
    assert "client.resolve_interrupts(True)" in code


# -- random nested functions, against Python's own symbol table ----------------------------

# Statements of a nested function's body that bind, read or declare `item` (or none).
STATEMENTS = (
    "item = 1",
    "log(item)",
    "item += 1",
    "for item in batches:\n    pass",
    "x = [item for item in batches]",
    "x = [y for y in item]",
    "with log() as item:\n    pass",
    "del item",
    "(item := 1)",
    "import item",
    "log(lambda: item)",
    "log(lambda item: item)",
    "class K:\n    item = 1\n    def get(self):\n        return item",
    "pass",
)
DECLARATIONS = ("", "global item", "nonlocal item")


@st.composite
def nested_function(draw: st.DrawFn, name: str, depth: int) -> str:
    """A `def` with random statements about `item`, perhaps a function inside it."""
    parameters = draw(st.sampled_from(("", "item", "x, *item", "x=item")))
    lines = [draw(st.sampled_from(DECLARATIONS))]
    lines += draw(st.lists(st.sampled_from(STATEMENTS), max_size=4))
    if depth < 2 and draw(st.booleans()):
        lines.insert(draw(st.integers(1, len(lines))), draw(nested_function("inner", depth + 1)))
    body = "\n".join(line for line in lines if line) or "pass"
    return f"def {name}({parameters}):\n" + textwrap.indent(body, "    ")


@settings(max_examples=300, deadline=None)
@given(nested_function("show", 0), st.booleans())
def test_a_loop_is_kept_exactly_when_a_nested_function_can_read_its_variable(
    function: str, before: bool
) -> None:
    # Python's symbol table says whether `show` (or a scope inside it) reads the
    # loop's `item`: then it is a free variable of `show`, resolved in `f`.
    body = textwrap.indent(function, "    ") + "\n"
    source = with_loop(body + "    LOOP\n" if before else "    LOOP\n" + body)
    try:
        table = symtable.symtable(source, "m.py", "exec")
    except SyntaxError:
        assume(False)  # `nonlocal item` beside a parameter `item`, say
        return
    [f] = table.get_children()
    [show] = [child for child in f.get_children() if child.get_name() == "show"]
    reads = "item" in show.get_identifiers() and show.lookup("item").is_free()
    # A default of `show`'s own is read where `show` is defined, by `f` itself.
    reads = reads or (not before and function.startswith("def show(x=item)"))
    code, sites = apply(ApprovalLoopCommand, source)
    assert ("client.resolve_interrupts(True)\n" in code) is not reads, source
    assert [s.action for s in sites] == [Action.TODO if reads else Action.REWRITTEN]


@pytest.mark.parametrize("declaration", ["global item", "nonlocal item"])
def test_a_loop_variable_declared_global_or_nonlocal_lives_outside_the_function(
    declaration: str,
) -> None:
    inner = with_loop(f"    {declaration}\n    LOOP\n").replace("\n", "\n    ")
    source = f"def outer():\n    item = None\n    {inner.rstrip()}\n    return item\n"
    code, sites = apply(ApprovalLoopCommand, source)
    assert "client.resolve_interrupts(True)" not in code
    assert [s.action for s in sites] == [Action.TODO]
