"""Translate legacy approval streams into the native interrupt terminal, event by event.

A raw-object stage: it runs between the JSON step and validation (legacy shapes are
not valid AG-UI 1.0), holds at most one run's worth of state, and passes everything it
does not translate through as the very same object. `translate_stream` does the same on
bytes, copying every untouched byte verbatim (`replay.translate.stream_rewriter`), for
`agui translate`.

Per legacy run (protocol.md §6.4): the legacy `RUN_FINISHED` and its trailing
`approval-requested` / `tool-input-available` events become a `MESSAGES_SNAPSHOT` and a
`RUN_FINISHED` with `outcome: {type: "interrupt"}`, exactly as `@tanstack/ai` 0.58.0
emits them (with `RUN_STARTED` first when the stream never started a run). AG-UI's own
retired shapes (`THINKING_*`, whole optional fields sent as `null`) are modernised too
(`replay.wire.retired_shapes`).

This module is the stage plumbing: when to hold a legacy finish, when to release it and
how events pass through. What a run said is kept in `replay.translate.run_record`, the
native terminal is built in `replay.translate.native_terminal`, and the notice rules
are `replay.translate.notices`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

from replay.interrupts.descriptors import ToolDefinition, tool_map
from replay.translate.native_terminal import TerminalBuilder
from replay.translate.notices import INVENTED, LOST, TRANSLATED
from replay.translate.run_record import RunRecord, text, track
from replay.translate.stream_rewriter import Verbatim, rewrite_stream
from replay.wire.canonical import as_javascript_reads, compact_json
from replay.wire.events import Decoded, EndOfStream, RawEvent
from replay.wire.legacy import (
    RETIRED_EVENT_TYPES,
    LegacyRequest,
    is_legacy_finish,
    read_legacy,
)
from replay.wire.problems import Location, Problem, Severity
from replay.wire.retired_shapes import ReasoningRenamer, null_fields, without_nulls
from replay.wire.stream_position import Position


class Translator:
    """The translation state machine; `feed` one decoded item, then `finish`."""

    def __init__(
        self,
        *,
        tools: dict[str, ToolDefinition] | None = None,
        request: dict[str, Any] | None = None,
    ) -> None:
        self.tools = tools
        self.request = request if isinstance(request, dict) else None
        self.changed = False
        """Whether anything was translated, invented or lost (`--check`)."""
        self.saw_event = False
        """Whether any event came in: an input without one is worth a word, not silence."""
        self._run = RunRecord()
        self._round: RunRecord | None = None
        """A run whose model round ended in server tools (a legacy `tool_calls` finish that
        paused nothing): 0.42.0 starts the next round with another `RUN_STARTED` of the
        same run id, and the pause's snapshot must still hold this round's messages."""
        self._held: RawEvent | None = None
        self._results: list[RawEvent] = []
        """`TOOL_CALL_RESULT`s after the held finish: 0.42.0 runs a pausing turn's server
        tools after its `RUN_FINISHED`, before the legacy events; 0.58.0 sends them before
        the pause, so they go out before the native terminal, or after the finish."""
        self._batch: list[tuple[LegacyRequest, RawEvent]] = []
        self._after_terminal = False
        self._reasoning = ReasoningRenamer()
        self._terminal = TerminalBuilder(tools=tools, request=self.request, notify=self._notice)

    # -- driving -----------------------------------------------------------------

    def feed(self, item: Decoded) -> list[Decoded]:
        if isinstance(item, Problem):
            return [item]
        if isinstance(item, EndOfStream):
            out = self._flush(force=True)
            if self._after_terminal:
                out.append(
                    self._notice(
                        TRANSLATED,
                        "dropped the `[DONE]` end marker after the translated pause: the"
                        " current client turns it into a second RUN_FINISHED",
                        item.location,
                    )
                )
                return out
            out.append(item)
            return out
        self.saw_event = True
        legacy = read_legacy(item.data)
        if legacy is not None:
            return self._take_legacy(legacy, item)
        if (
            self._held is not None
            and not self._batch
            and item.data.get("type") == "TOOL_CALL_RESULT"
        ):
            self._results.append(item)
            return []
        starts = item.data.get("type") == "RUN_STARTED"
        out = self._flush(force=starts or self._held is not None or not self._open)
        out.extend(self._take_event(item))
        return out

    def finish(self) -> list[Decoded]:
        return self._flush(force=True)

    @property
    def holding(self) -> bool:
        """Whether a legacy finish or legacy events wait for the next event to release them."""
        return self._held is not None or bool(self._batch)

    def pass_through(self, events: Iterable[dict[str, Any]], last: Location) -> None:
        """Take in bulk, as `feed` would one by one, events it passes through unchanged.

        For a caller that copies their bytes through itself (`stream_rewriter.Verbatim`):
        only while not `holding`, and only text message and tool call events with no
        `null` field (no legacy, retired or `RUN_*` event, nothing to repair), which
        `feed` would pass through as they are. A stream's deltas may come joined into
        one event: only their concatenation is kept. `last` is where the last one was.
        """
        if self.holding:
            raise ValueError("events pass through in bulk only while nothing is held")
        self._after_terminal = False
        self.saw_event = True
        run = self._run
        for data in events:
            track(data, data.get("type"), run)
        run.location = last

    @property
    def reasoning(self) -> tuple[str | None, str | None]:
        """The open reasoning and reasoning-message ids (`THINKING_*` renaming): the only
        state a translator carries from one run to the next besides `changed`."""
        return self._reasoning.reasoning, self._reasoning.message

    @reasoning.setter
    def reasoning(self, value: tuple[str | None, str | None]) -> None:
        self._reasoning.reasoning, self._reasoning.message = value

    @property
    def open_round(self) -> tuple[RunRecord | None, RunRecord] | None:
        """After a model round that ended in server tools, that run and what followed it
        (tool results): what a run continued by a `RUN_STARTED` of the same run id (0.42.0
        sends one per round) starts from; or (None, the run) while a round opened by such
        a repeat has said nothing but tool results (`RunRecord.quiet_since_round`); or
        (None, a record not started) holding what was said before any `RUN_STARTED` or
        after a finished run (a continuation's early results, or whatever a hostile
        stream sent first), which the next `RUN_STARTED` takes into its run. None
        otherwise. Copies, both ways, so a translator never shares a record with another."""
        early = not self._run.started and bool(self._run.messages)
        if self._round is None and not self._run.quiet_since_round() and not early:
            return None
        return copy.deepcopy((self._round, self._run))

    @open_round.setter
    def open_round(self, value: tuple[RunRecord | None, RunRecord] | None) -> None:
        if value is None:
            self._round = None
            return
        self._round, self._run = copy.deepcopy(value)

    @property
    def _open(self) -> bool:
        return self._run.started and not self._run.finished and self._held is None

    # -- legacy events -------------------------------------------------------------

    def _take_legacy(self, legacy: LegacyRequest, raw: RawEvent) -> list[Decoded]:
        self._batch.append((legacy, raw))
        return []

    def _flush(self, *, force: bool) -> list[Decoded]:
        """Release the held finish: as it came, or as the native terminal of its batch."""
        if not force or (self._held is None and not self._batch):
            return []
        held, batch, results = self._held, self._batch, self._results
        self._held, self._batch, self._results = None, [], []
        if not batch:
            assert held is not None
            self._after_terminal = False
            out = self._modernise(held)
            rounds = held.data.get("finishReason") == "tool_calls" and self._run.run_id
            self._round = self._run if rounds else None
            self._run = RunRecord()
            for result in results:
                out.extend(self._take_event(result))
            return out
        if not self._run.started and self._round is not None:
            # A pause after a model round that ran its server tools, with no RUN_STARTED
            # between: the round's run goes on (0.58.0 starts it once). A RUN_STARTED
            # synthesised here would read, translated again, as 0.42.0's repeat and be
            # dropped (idempotence).
            self._run = self._round.continued(self._run)
        self._round = None
        anchor = held if held is not None else batch[0][1]
        if held is None and self._run.started:
            # The run never finished: the terminal goes after its last event.
            anchor = RawEvent(self._run.location or anchor.location, anchor.data, anchor.text)
        run = self._run
        out = []
        for result in results:
            track(result.data, "TOOL_CALL_RESULT", run)
            out.extend(self._modernise(result))
        out.extend(self._terminal.build(run, anchor, held, batch))
        # Left as reading the output back would leave it (idempotence): the run, or the
        # one its synthesised RUN_STARTED began, finished by the native terminal.
        if not run.started:
            finish = out[-1]
            assert isinstance(finish, RawEvent)
            run = RunRecord(
                started=True,
                run_id=finish.data["runId"],
                thread_id=finish.data["threadId"],
                location=finish.location,
            )
        run.finished = True
        self._run = run
        self._after_terminal = True
        return out

    def _take_event(self, raw: RawEvent) -> list[Decoded]:
        self._after_terminal = False
        data = raw.data
        event_type = data.get("type")
        run = self._run
        if event_type == "RUN_STARTED":
            run_id = text(data.get("runId"))
            earlier, between, self._round = self._round, self._run, None
            run = self._run = RunRecord(
                started=True, run_id=run_id, thread_id=text(data.get("threadId"))
            )
            repeat = True
            if (
                earlier is not None
                and earlier.started
                and earlier.run_id == run_id
                and (not between.calls and all(m.role == "tool" for m in between.messages))
            ):
                # The next model round of the same run: what it said so far (and the
                # tool results sent between the rounds) stays, and the run goes on
                # without a second start, as 0.58.0 streams it.
                self._run = earlier.continued(between)
            elif between.run_id == run_id and between.quiet_since_round():
                # Another repeat before the round said anything: dropped as well, or the
                # output would hold the round's finish and this start side by side, which
                # a second translation would read as the first repeat (idempotence).
                self._run = between
            else:
                repeat = False
            if repeat:
                continued = self._run
                continued.location = raw.location
                continued.round_mark = (len(continued.messages), len(continued.calls))
                return [
                    self._notice(
                        TRANSLATED,
                        f"dropped the RUN_STARTED 0.42.0 repeats for the next model round"
                        f" of run {run_id!r} (0.58.0 starts a run once)",
                        raw.location,
                    )
                ]
            if earlier is None and not between.started and between.messages:
                # A continuation's results of the calls it was answered about, streamed
                # before its RUN_STARTED: they belong to this run's conversation, as
                # 0.58.0's snapshot has them (`snapshot.snapshot_messages`).
                run = self._run = run.continued(between)
            if self.request is not None:
                run.thread_id = run.thread_id or text(self.request.get("threadId"))
        run.location = raw.location
        if event_type == "RUN_FINISHED" and is_legacy_finish(data):
            run.run_id = run.run_id or text(data.get("runId"))
            self._held = raw
            return []
        if event_type in ("RUN_FINISHED", "RUN_ERROR"):
            run.finished = True
            # A round's run ends here, its next round having gone on without a start
            # (0.58.0): a later RUN_STARTED of its id is no repeat of 0.42.0's to drop.
            self._round = None
        track(data, event_type, run)
        return self._modernise(raw)

    # -- AG-UI retired shapes ---------------------------------------------------------------

    def _modernise(self, raw: RawEvent) -> list[Decoded]:
        """Pass an event through, or rewrite AG-UI 0.x shapes (THINKING_*, optional nulls)."""
        data = raw.data
        notices: list[Decoded] = []
        new = data
        event_type = data.get("type")
        if isinstance(event_type, str) and event_type in RETIRED_EVENT_TYPES:
            new = self._reasoning_event(raw, event_type, notices)
        removed = null_fields(new)
        if removed:
            new = without_nulls(new)
            fields = ", ".join(f"`{name}: null`" for name in removed)
            notices.append(
                self._notice(TRANSLATED, f"removed retired optional {fields}", raw.location)
            )
        # After any other repair too: a second pass must find nothing left to repair.
        if event_type == "RUN_FINISHED" and not text(new.get("threadId")):
            thread_id = self._run.thread_id or (
                text(self.request.get("threadId")) if self.request else None
            )
            if thread_id is not None:
                new = _insert_after(new, "runId", "threadId", thread_id)
                notices.append(
                    self._notice(
                        INVENTED,
                        f"RUN_FINISHED had no threadId (TanStack's Python package);"
                        f" added {thread_id!r} from the run",
                        raw.location,
                    )
                )
        if new is data:
            return [raw]
        # Written anew, the event says what JavaScript holds: a field of `1e400` (Infinity)
        # becomes `null`, a retired optional a second translation would remove; so it goes
        # now (idempotence).
        new = as_javascript_reads(new)
        infinite = null_fields(new)
        if infinite:
            new = without_nulls(new)
            fields = ", ".join(f"`{name}`" for name in infinite)
            notices.append(
                self._notice(
                    LOST,
                    f"dropped {fields}: a number no double holds (Infinity to JavaScript),"
                    " which would be written as a retired null",
                    raw.location,
                )
            )
        notices.append(RawEvent(raw.location, new, compact_json(new), raw.kind))
        return notices

    def _reasoning_event(
        self, raw: RawEvent, old_type: str, notices: list[Decoded]
    ) -> dict[str, Any]:
        data = raw.data
        new_type = RETIRED_EVENT_TYPES[old_type]
        index = raw.location.index if raw.location.index >= 0 else raw.location.offset
        new, minted = self._reasoning.rename(data, old_type, index)
        notices.append(self._notice(TRANSLATED, f"{old_type} → {new_type}", raw.location))
        if minted is not None:
            notices.append(
                self._notice(
                    INVENTED, f"{new_type} needs a messageId; minted {minted!r}", raw.location
                )
            )
        if old_type == "THINKING_START" and "title" in data:
            notices.append(
                self._notice(
                    LOST, "THINKING_START.title has no REASONING_START counterpart", raw.location
                )
            )
        return new

    def _notice(self, rule: str, message: str, location: Location) -> Problem:
        self.changed = True
        return Problem(rule, Severity.NOTICE, message, location)


def _insert_after(data: dict[str, Any], after: str, key: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, item in data.items():
        if name == key:
            continue
        out[name] = item
        if name == after:
            out[key] = value
    if key not in out:
        out[key] = value
    return out


def translate_items(
    items: Iterable[RawEvent | EndOfStream | Problem],
    *,
    tools: list[dict[str, Any]] | None = None,
    request: dict[str, Any] | None = None,
) -> Iterator[RawEvent | EndOfStream | Problem]:
    """The raw-object stage for `replay.wire.events.decode_events(transform=...)`.

    Yields native events in place of legacy ones (a synthesised event carries the
    location of the legacy event it replaces and its compact JSON as `text`), passes
    everything else through as the same object, and reports each change as a
    `Problem` notice with rule `translated`, `invented` or `lost`.
    """
    translator = Translator(tools=tool_map(tools), request=request)
    for item in items:
        yield from translator.feed(item)
    yield from translator.finish()


def translate_stream(
    chunks: Iterable[bytes | Verbatim],
    *,
    source: str,
    tools: list[dict[str, Any]] | None = None,
    request: dict[str, Any] | None = None,
    translator: Translator | None = None,
    start: Position | None = None,
) -> Iterator[bytes | Problem]:
    """Translate a recording given as byte chunks; yields output bytes and notices.

    Every byte of a message the translator passes through — and every byte between
    messages (comments, stray blank lines) — is copied verbatim, so a native stream
    comes out byte-identical. Memory holds the bytes of at most one run's pending events.
    """
    state = translator or Translator(tools=tool_map(tools), request=request)
    yield from rewrite_stream(chunks, source=source, stage=state, start=start or Position())
