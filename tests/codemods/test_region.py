"""Parsing only a region of a file (a class's members, or top-level statements) gives the
whole-module result, and the outline finds the indentation LibCST would detect."""

from __future__ import annotations

import random
from functools import partial

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods import runner
from codemods.outline import Outline
from codemods.region import MEMBER_HEADER, locate
from codemods.runner import FileResult, Options, migrate_bytes
from codemods.site import Action

UNITS = ("    ", "  ", "\t", "   ")
SITES = (
    "await self.client.add_tool_approval_response({'id': a.id, 'approved': True})",
    "self.client.add_tool_approval_response(id=a.id, approved=False)",
    "return len(self.client.pending_interrupts)",
    "return list(self.client.get_pending_interrupts())",
    "self.client.resume_interrupts([])",
    "ok = event.name == 'approval-requested'",
    "for a in todo:\n{u}self.client.add_tool_approval_response(id=a.id, approved=True)",
    "x = 1; y = self.client.pending_interrupts",
    # Shapes whose answer depends on more than their own statement. In a method body,
    # `{s}` is the body's indentation, `{u}` one level in, `{w}` two.
    "return getattr(self.client, 'pending_interrupts', None)",
    "state = self.client.get_interrupt_state()\n{s}return state['pending_interrupts']",
    "match event.name:\n{u}case 'approval-requested':\n{w}return 1",
    "APPROVAL = 'approval-requested'",
    "for a in self.client.pending_interrupts:\n"
    "{u}self.client.add_tool_approval_response(id=a.id, approved=True)\n"
    "{s}log.info('%s', a)",
    # A read above a loop, in a loop around it: on the next pass it reads the last item.
    "while self.more():\n{u}log.info('%s', a)\n{u}for a in self.client.pending_interrupts:\n"
    "{w}self.client.add_tool_approval_response(id=a.id, approved=True)",
    "for a in self.batches:\n{u}log.info('%s', a)\n{u}for a in self.client.pending_interrupts:\n"
    "{w}self.client.add_tool_approval_response(id=a.id, approved=True)",
)
FILLER = (
    "x = 1",
    "return None",
    "log.info('%s', value)",
    "pass",
    '"""Doc."""',
    # Makes any `APPROVAL = <legacy name>` above, in any method, a legacy site.
    "ok = event['name'] == APPROVAL",
)
# A module-level loop (its variable lives on in the module) and, maybe, a read of it.
TOP_LOOP = (
    "for item in client.pending_interrupts:\n"
    "{u}client.add_tool_approval_response(id=item.id, approved=True)\n"
)
# The same loop in a loop that reads its variable above it (on the next pass).
TOP_LOOP_AROUND = "while more():\n{u}print(item)\n" + "".join(
    "{u}" + line for line in TOP_LOOP.splitlines(keepends=True)
)
# Top-level statements that open a block some way (or none), for the indentation check.
OPENERS = (
    "if a: pass\nelif b:\n{u}c = 1",
    "if a: pass\nelse:\n{u}c = 1",
    "try:\n{u}pass\nexcept E: pass",
    "try: pass\nexcept E:\n{u}pass",
    "class A: x = 1",
    "def f(): return 1",
    "with a: pass",
    "x = '''\n   not code\n'''",
    "for a in b: pass\nelse:\n{u}pass",
    "while a:\n{u}# a comment\n{u}pass",
    "@deco\ndef g(\n        a):\n{u}return a",
)


def members_module(seed: int) -> bytes:
    """Top-level filler, then a class whose methods hold some call sites, then more."""
    rng = random.Random(seed)
    unit = rng.choice(UNITS)
    first = rng.choice(UNITS)  # the file's first block may be indented otherwise
    lines = ["import os", "", f"def helper():\n{first}return 1", ""]
    lines += [f"def f{i}():\n{unit}return {i}\n" for i in range(rng.randint(0, 25))]
    bases = rng.choice(("", "(Base)", "(\n    Base,\n)"))
    lines.append(f"class Desk{bases}:")
    if rng.random() < 0.5:
        lines.append(f'{unit}"""The desk."""')
    for index in range(rng.randint(1, 6)):
        if rng.random() < 0.5:
            lines.append(rng.choice(("", f"{unit}# between", "# column 0")))
        if rng.random() < 0.5:
            lines.append(f"{unit}@decorate")
        lines.append(f"{unit}{rng.choice(('def', 'async def'))} m{index}(self, a):")
        body = rng.choices(SITES + FILLER, k=rng.randint(1, 3))
        for statement in body:
            text = statement.replace("{u}", unit * 3).replace("{w}", unit * 4)
            text = text.replace("{s}", unit * 2)
            lines.append(unit * 2 + text)
        if rng.random() < 0.5:
            lines.append(f"{unit}{unit}# trailing")
    lines += [f"def g{i}():\n{unit}return {i}\n" for i in range(rng.randint(0, 25))]
    if rng.random() < 0.2:
        top = rng.choice((TOP_LOOP, TOP_LOOP_AROUND))
        lines.append(top.replace("{u}", unit) + rng.choice(("", "print(item)\n")))
    newline = rng.choice(("\n", "\r\n"))
    return ("\n".join(lines) + "\n").replace("\n", newline).encode()


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.sites)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_members_region_equals_class_region_and_whole_module(seed: int) -> None:
    source = members_module(seed)
    members = migrate_bytes(source, "x.py", Options())
    # The migrated file again: its TODO markers must be found above the same statements.
    again = members.updated or source
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "locate", partial(locate, members=False))
        whole_class = migrate_bytes(source, "x.py", Options())
        patch.setattr(runner, "_migrate_region", lambda *args: None)
        whole_module = migrate_bytes(source, "x.py", Options())
        whole_module_again = migrate_bytes(again, "x.py", Options())
    assert _key(members) == _key(whole_class) == _key(whole_module)
    members_again = migrate_bytes(again, "x.py", Options())
    assert _key(members_again) == _key(whole_module_again)
    assert members_again.updated is None  # a second run changes nothing


def test_the_random_modules_take_the_members_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property above proves nothing unless members are parsed on their own."""
    parsed: list[str] = []
    real = cst.parse_module

    def parse(source: str | bytes) -> cst.Module:
        parsed.append(source if isinstance(source, str) else "")
        return real(source)

    monkeypatch.setattr(cst, "parse_module", parse)
    sources = [members_module(seed) for seed in range(60)]
    changed = sum(
        migrate_bytes(source, "x.py", Options()).updated is not None for source in sources
    )
    assert sum(text.startswith(MEMBER_HEADER) for text in parsed) > 20
    assert changed > 20


@st.composite
def indented_module(draw: st.DrawFn) -> str:
    units = draw(st.lists(st.sampled_from(UNITS), min_size=1, max_size=3))
    statements = [
        draw(st.sampled_from(OPENERS)).replace("{u}", draw(st.sampled_from(units)))
        for _ in range(draw(st.integers(0, 5)))
    ]
    return "".join(f"{statement}\n" for statement in statements)


@settings(max_examples=300, deadline=None)
@given(text=indented_module())
def test_first_indent_is_libcsts_default_indent(text: str) -> None:
    found = Outline.of(text).first_indent()
    assert found is not None
    assert found == cst.parse_module(text).default_indent


@pytest.mark.parametrize(
    "text", ["match x:\n    case 1:\n        pass\n", "if a: \\\n    b = 1\nif c:\n  pass\n"]
)
def test_first_indent_is_undecided_where_ast_cannot_tell(text: str) -> None:
    assert Outline.of(text).first_indent() is None


@pytest.mark.parametrize(
    "binding",
    ["next = lambda it: None", "from paging import next", "def next(it): ...", "next: int"],
)
def test_a_next_bound_outside_the_region_is_seen_as_in_the_whole_module(binding: str) -> None:
    # Only the site's function is parsed; a module-level `next` far above it would be
    # called by the rewrite's lookup, so the site gets the TODO the whole module gives.
    filler = "".join(f"def g{i}():\n    return {i}\n\n\n" for i in range(20))
    site = "def f(client, a):\n    client.add_tool_approval_response(id=a, approved=True)\n"
    source = f"{binding}\n\n\n{filler}{site}".encode()
    in_region = migrate_bytes(source, "x.py", Options())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "_migrate_region", lambda *args: None)
        whole = migrate_bytes(source, "x.py", Options())
    assert _key(in_region) == _key(whole)
    assert [site.action for site in whole.sites] == [Action.TODO]


def test_a_next_spelled_only_in_the_region_keeps_the_region() -> None:
    filler = "".join(f"def g{i}():\n    return {i}\n\n\n" for i in range(20))
    site = (
        "def f(client, a, it):\n    first = next(it)\n"
        "    client.add_tool_approval_response(id=a, approved=True)\n"
    )
    source = f"{filler}{site}".encode()
    calls: list[object] = []
    original = runner._migrate_region

    def counted(*args: object) -> object:
        result = original(*args)  # type: ignore[arg-type]
        calls.append(result)
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "_migrate_region", counted)
        result = migrate_bytes(source, "x.py", Options())
    assert calls
    assert calls[0] is not None  # the region's answer stood
    assert [site.action for site in result.sites] == [Action.REWRITTEN]
