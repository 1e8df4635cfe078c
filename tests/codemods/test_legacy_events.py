"""AG006: legacy CUSTOM approval events are reported and marked, never rewritten."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.codemod import CodemodContext, TransformSuccess, transform_module

from codemods import Rule
from codemods.legacy_events import LegacyEventsCommand
from codemods.libcst_command import RuleCodemod
from codemods.site import Action
from tests.codemods.helpers import apply


@pytest.mark.parametrize(
    "line",
    [
        'yield CustomEvent(name="approval-requested", value=value)',
        "yield core.CustomEvent(type=EventType.CUSTOM, name='tool-input-available', value=v)",
        'if event.name == "approval-requested": handle(event)',
        "if 'tool-input-available' != event['name']: return",
        'if event.name in ("approval-requested", "tool-input-available"): return',
        'send({"type": "CUSTOM", "name": "approval-requested", "value": {}})',
    ],
)
def test_legacy_event_sites_get_a_todo(line: str) -> None:
    source = f"def f(event, value, v):\n    {line}\n"
    code, sites = apply(LegacyEventsCommand, source)
    lines = code.splitlines()
    assert lines[1].startswith("    # TODO(agui): AG006 legacy ")
    assert "RUN_FINISHED interrupt outcome" in lines[1]
    assert lines[2] == f"    {line}"
    assert [(s.rule, s.action, s.line) for s in sites] == [(Rule.AG006, Action.TODO, 2)]


def test_other_events_and_strings_are_untouched() -> None:
    source = """
    def f(event):
        if event.name == "run-started":
            log("approval-requested is gone")
        return CustomEvent(name="progress", value={"name": "tool-input"})
    """
    code, sites = apply(LegacyEventsCommand, source)
    assert "TODO" not in code
    assert sites == []


@pytest.mark.parametrize(
    ("lines", "site_line"),
    [
        # The class imported under another name (`from ag_ui.core import CustomEvent as C`).
        (['yield Custom(name="approval-requested", value={})'], 2),
        (['return dict(type="CUSTOM", name="tool-input-available", value={})'], 2),
        (['if event.get("name") == "approval-requested":', "    return 1"], 2),
        (
            [
                'match event["name"]:',
                '    case "run-started" | "tool-input-available":',
                "        return 1",
            ],
            3,
        ),
        (
            [
                "match event:",
                '    case {"type": "CUSTOM", "name": "approval-requested"}:',
                "        return 1",
            ],
            3,
        ),
        (
            [
                "match event:",
                '    case CustomEvent(name="tool-input-available" as n):',
                "        return n",
            ],
            3,
        ),
    ],
)
def test_aliases_get_and_match_cases_get_a_todo(lines: list[str], site_line: int) -> None:
    body = "".join(f"    {line}\n" for line in lines)
    source = f"def f(event):\n{body}"
    code, sites = apply(LegacyEventsCommand, source)
    out = code.splitlines()
    assert out[1].startswith("    # TODO(agui): AG006 legacy "), code
    assert out[2:] == [f"    {line}" for line in lines]
    assert [(s.rule, s.action, s.line) for s in sites] == [(Rule.AG006, Action.TODO, site_line)]


def test_match_on_other_subjects_is_untouched() -> None:
    source = """
    def f(state):
        match state.phase:
            case "approval-requested":
                return 1
        return call(label="approval-requested!")
    """
    code, sites = apply(LegacyEventsCommand, source)
    assert "TODO" not in code
    assert sites == []


def test_a_constant_compared_with_an_event_name_gets_a_todo() -> None:
    source = """
    from typing import Final

    APPROVAL: Final = "approval-requested"
    LEGACY = ("tool-input-available", "approval-requested")
    PART_STATE = "approval-requested"


    def handle(event, part):
        if event.name == APPROVAL:
            return 1
        if event["name"] in LEGACY:
            return 2
        return part.state == PART_STATE
    """
    code, sites = apply(LegacyEventsCommand, source)
    lines = code.splitlines()
    assert lines[3].startswith("# TODO(agui): AG006 legacy 'approval-requested' event")
    assert lines[4] == 'APPROVAL: Final = "approval-requested"'
    assert lines[5].startswith("# TODO(agui): AG006 legacy 'tool-input-available' event")
    assert lines[6].startswith("# TODO(agui): AG006 legacy 'approval-requested' event")
    assert lines[7:9] == [
        'LEGACY = ("tool-input-available", "approval-requested")',
        'PART_STATE = "approval-requested"',
    ]
    assert [(s.line, s.column) for s in sites] == [(4, 19), (5, 11), (5, 35)]


def test_the_module_is_walked_once_for_every_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    # A walk of the whole module per constant made 1,000 constants take half a minute.
    constants = "".join(f'C{i} = "approval-requested"\n' for i in range(6))
    source = f"{constants}if event.name == C2 or C4 == event['name']:\n    pass\n"
    walks: list[cst.CSTVisitorT] = []
    walk = cst.Module.visit

    def counted_walk(self: cst.Module, visitor: cst.CSTVisitorT) -> cst.Module:
        walks.append(visitor)
        return walk(self, visitor)

    monkeypatch.setattr(cst.Module, "visit", counted_walk)
    command = LegacyEventsCommand()
    result = transform_module(RuleCodemod(CodemodContext(), command), source)
    assert isinstance(result, TransformSuccess)
    assert [site.line for site in command.sites] == [3, 5]
    assert len([w for w in walks if w is not command]) == 1  # besides the transform itself
