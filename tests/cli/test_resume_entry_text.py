"""A resume entry reads the same in `agui resume`'s confirmation and in the timeline."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from cli.prompts import Prompter
from cli.resume_entry_text import entry_text
from cli.timeline import MAX_VALUE_WIDTH, Timeline

ENTRIES: list[dict[str, Any]] = [
    {"interruptId": "approval_call_1", "status": "resolved", "payload": {"approved": True}},
    {"interruptId": "i-2", "status": "resolved", "payload": {"note": "a, b: c", "n": [1, 2]}},
    {"interruptId": "i-3", "status": "cancelled"},
    {"interruptId": "i-4", "status": "resolved", "payload": "line one\nline two\x1b[2J"},
    {"interruptId": "i-5", "status": "resolved", "payload": None},
    {"status": "resolved", "payload": {"ü": "ö"}},
]


def _confirmation_lines(entries: list[dict[str, Any]]) -> list[str]:
    out = io.StringIO()
    Prompter(Console(file=out, width=10_000), lambda _question: "n").post(
        "r2", "http://h/", entries
    )
    return [line[2:] for line in out.getvalue().splitlines() if line.startswith("  ")]


def _timeline_lines(entries: list[dict[str, Any]]) -> list[str]:
    out = io.StringIO()
    timeline = Timeline(Console(file=out, width=10_000), rich=False)
    timeline.source("run.sse", {"runId": "r2", "threadId": "t", "resume": entries})
    prefix = "  answers "
    return [line[len(prefix) :] for line in out.getvalue().splitlines() if line.startswith(prefix)]


def test_the_confirmation_and_the_timeline_show_an_entry_alike() -> None:
    confirmed = _confirmation_lines(ENTRIES)
    assert confirmed == _timeline_lines(ENTRIES)
    assert confirmed == [entry_text(entry) for entry in ENTRIES]
    assert confirmed[:3] == [
        'approval_call_1: resolved {"approved":true}',
        'i-2: resolved {"note":"a, b: c","n":[1,2]}',
        "i-3: cancelled",
    ]


def test_control_characters_are_escaped_and_missing_fields_show_as_a_question_mark() -> None:
    assert entry_text(ENTRIES[3]) == 'i-4: resolved "line one\\nline two\\u001b[2J"'
    assert entry_text({"interruptId": "i\x1b]0;x\x07"}) == "i\\x1b]0;x\\x07: ?"
    assert entry_text(ENTRIES[5]) == '?: resolved {"ü":"ö"}'


def test_the_timeline_cuts_a_long_payload_and_the_confirmation_shows_it_whole() -> None:
    entry = {"interruptId": "i", "status": "resolved", "payload": "x" * 1000}
    cut = entry_text(entry, MAX_VALUE_WIDTH)
    assert cut == "i: resolved " + '"' + "x" * (MAX_VALUE_WIDTH - 2) + "…"
    assert entry_text(entry) == 'i: resolved "' + "x" * 1000 + '"'
    assert _confirmation_lines([entry]) == [entry_text(entry)]


def test_a_line_break_in_an_id_or_status_stays_on_the_entry_line() -> None:
    # A server's (or a recording's) item id must not forge a second answer line.
    entry = {"interruptId": "i-1\ni-2: resolved", "status": "cancelled\r\n"}
    assert entry_text(entry) == "i-1\\x0ai-2: resolved: cancelled\\x0d\\x0a"
    assert _confirmation_lines([entry]) == [entry_text(entry)]
    assert _timeline_lines([entry]) == [entry_text(entry)]


def test_a_cut_never_falls_inside_an_escape() -> None:
    # U+202E (a bidi override, which JSON leaves as it is) is escaped as six characters
    entry = {"interruptId": "i", "status": "resolved", "payload": "\u202e" * 300}
    cut = entry_text(entry, 20)
    assert cut == 'i: resolved "' + "\\u202e" * 18 + "…"
