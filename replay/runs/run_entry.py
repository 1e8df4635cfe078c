"""What the run checker remembers of a finished run for the runs after it.

Continuations are checked against the run they resume and its ancestors, which may be
thousands of runs back, so each run leaves one small `RunEntry`: ids, outcome, the
tool calls it made itself and, for a paused run, where its terminal text is kept.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from replay.runs.history_tool_calls import history_tool_call_ids
from replay.runs.terminal_blocks import TerminalText
from replay.runs.transcript import Outcome, RunTranscript
from replay.wire import event_json


@dataclass(frozen=True, slots=True)
class RunEntry:
    """What later runs need to know about an earlier one."""

    run_id: str
    thread_id: str | None
    parent_run_id: str | None
    outcome: Outcome
    tool_call_ids: tuple[str, ...]
    """Tool calls the run itself made (streamed or in its snapshot). A tuple: the index
    keeps 20,000 runs, most with one or two calls, and an empty tuple is shared; a
    frozenset costs 216 bytes however few it holds (about 1.5 MiB on 100 MB)."""
    terminal: TerminalText | None
    """Where a paused run's terminal event is kept (its `outcome` holds the
    descriptors): its recorded JSON text, UTF-8, in a compressed block
    (`replay.runs.terminal_blocks`). The recorded text costs nothing to keep; serialising
    the descriptors again for every paused run was a noticeable share of a check."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Plain constructor arguments: a helper process sends thousands of these, and
        # the dataclass default (state set field by field in Python) is several times
        # slower to load.
        return _received, (
            self.run_id,
            self.thread_id,
            self.parent_run_id,
            self.outcome,
            self.tool_call_ids,
            self.terminal,
        )

    def descriptors(self) -> list[dict[str, Any]]:
        """The paused run's interrupt descriptors, decoded on demand."""
        if self.terminal is None:
            return []
        block, start, end = self.terminal
        raw = block.read(start, end)
        try:
            value = event_json.from_json(raw.decode("utf-8"))
        except ValueError:  # lone surrogates (or not UTF-8): json.loads takes them
            value = json.loads(raw.decode("utf-8", "surrogatepass"))
        outcome = value.get("outcome") if isinstance(value, dict) else None
        found = outcome.get("interrupts") if isinstance(outcome, dict) else None
        return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def _received(
    run_id: str,
    thread_id: str | None,
    parent_run_id: str | None,
    outcome: Outcome,
    tool_call_ids: tuple[str, ...],
    terminal: TerminalText | None,
) -> RunEntry:
    """A `RunEntry` sent by the helper process, its thread and parent ids shared
    (interned) like those of the entries the reader makes itself: each message from the
    helper would copy them again."""
    return RunEntry(
        run_id,
        None if thread_id is None else sys.intern(thread_id),
        None if parent_run_id is None else sys.intern(parent_run_id),
        outcome,
        tool_call_ids,
        terminal,
    )


def own_tool_calls(transcript: RunTranscript) -> set[str]:
    """Tool-call ids of a run's own tool calls, streamed or in its snapshot."""
    ids = set(transcript.streams.tool_call_ids)
    if transcript.snapshot:
        ids |= message_tool_calls(transcript.snapshot)
    return ids


def message_tool_calls(messages: Iterable[Any]) -> set[str]:
    """Tool-call ids named by a message list (`toolCalls[].id` or a `tool-call` part)."""
    return history_tool_call_ids(list(messages))
