"""AG006: legacy CUSTOM approval events are reported and marked, never rewritten."""

from __future__ import annotations

import pytest

from codemods import Rule
from codemods.legacy_events import LegacyEventsCommand
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
