"""A streaming, human-readable timeline of AG-UI runs: rich on a terminal, plain when piped.

`Timeline` renders one item at a time — `source()` when a response starts, `event()` for
each event, `problem()` for each finding, `run()` when a run's transcript is complete —
so it serves recordings (`agui replay`) and live HTTP responses (`agui resume`) alike.
It keeps only the tool calls still streaming their arguments. Plain output to a pipe
goes through `cli.stdout.PlainStdout` when given one, so rich is imported only for a
terminal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cli.resume_entry_text import entry_text
from cli.stdout import PlainStdout
from cli.visible_text import visible, visible_line
from replay.interrupts.descriptor_reader import (
    InterruptKind,
    approval_branches,
    binding_of,
    branch_schema,
    kind_of,
)
from replay.runs.transcript import Outcome, RunTranscript
from replay.wire.events import RecordedEvent
from replay.wire.problems import Problem, Severity

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

KIND_LABELS = {
    InterruptKind.TOOL_APPROVAL: "approval",
    InterruptKind.CLIENT_TOOL: "client tool",
    InterruptKind.GENERIC: "generic",
    InterruptKind.UNBOUND: "unbound",
}
SEVERITY_STYLES = {
    Severity.ERROR: "bold red",
    Severity.WARNING: "yellow",
    Severity.NOTICE: "cyan",
}
INTERRUPT_COLUMNS = ("id", "kind", "reason", "message", "tool", "answered by")
MAX_VALUE_WIDTH = 200
"""Long values (arguments, results) are cut in the timeline; `--json` has them whole."""


def _short(value: str, limit: int = MAX_VALUE_WIDTH) -> str:
    value = value.replace("\r", "\\r").replace("\n", "\\n")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _schema_shape(schema: Any) -> str:
    """A one-line sketch of an object schema: `{approved, note?}`."""
    if not isinstance(schema, dict) or not schema:
        return "any value"
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        kind = schema.get("type")
        return str(kind) if isinstance(kind, str) else "a value matching its schema"
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    fields = [name if name in needed else f"{name}?" for name in properties]
    return "{" + ", ".join(fields) + "}"


def answer_hint(descriptor: dict[str, Any]) -> str:
    """What resume entry answers a descriptor, in a few words."""
    kind = kind_of(descriptor)
    if kind is InterruptKind.TOOL_APPROVAL:
        branches = approval_branches(descriptor)
        approve = branches.get(True)
        extras = []
        if branch_schema(approve, "editedArgs") is not None:
            extras.append("editedArgs?")
        if branch_schema(approve, "payload") is not None:
            extras.append("payload")
        approve_shape = "{approved: true" + "".join(f", {e}" for e in extras) + "}"
        return f"resolved {approve_shape} or {{approved: false}}; or cancelled"
    if kind is InterruptKind.CLIENT_TOOL:
        return f"resolved with the tool's output {_schema_shape(descriptor.get('responseSchema'))}"
    if kind is InterruptKind.GENERIC:
        shape = _schema_shape(descriptor.get("responseSchema"))
        binding = binding_of(descriptor) or {}
        echo = " + continuation metadata" if "definitionId" in binding else ""
        return f"resolved {shape}{echo}; or cancelled"
    return "resolved or cancelled resume entry"


def interrupt_row(descriptor: dict[str, Any]) -> tuple[str, ...]:
    """The table row for one descriptor: id, kind, reason, message, tool, answered by."""
    metadata = descriptor.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    binding = binding_of(descriptor) or {}
    tool_name = binding.get("toolName") or metadata.get("toolName")
    call_id = descriptor.get("toolCallId")
    tool = ""
    if isinstance(tool_name, str):
        tool = tool_name
    if isinstance(call_id, str):
        tool = f"{tool} ({call_id})" if tool else call_id
    kind = KIND_LABELS[kind_of(descriptor)]
    definition = binding.get("definitionId")
    if isinstance(definition, str) and definition:
        kind = f"{kind} {definition}"  # the name `--answer` accepts besides the id
    cells = (
        str(descriptor.get("id", "?")),
        kind,
        str(descriptor.get("reason", "")),
        str(descriptor.get("message", "")),
        tool,
        answer_hint(descriptor),
    )
    return tuple(visible(cell) for cell in cells)


class Timeline:
    """Render a stream as it is read; `rich=None` picks rich output when the console is a TTY."""

    def __init__(self, console: Console | PlainStdout, *, rich: bool | None = None) -> None:
        self.console: Any = console
        self.rich = console.is_terminal if rich is None else rich
        if self.rich and isinstance(console, PlainStdout):
            self.console = console.rich_console()
        self._line_open = False
        self._open_message: str | None = None
        self._tool_args: dict[str, str] = {}
        """The first `MAX_VALUE_WIDTH + 1` characters of each streaming call's arguments:
        all `_short` can show, so an endless argument stream costs no memory."""
        self._tool_names: dict[str, str] = {}

    # -- low-level output --------------------------------------------------------------

    def _end_line(self) -> None:
        if self._line_open:
            if isinstance(self.console, PlainStdout):
                self.console.write("")
            else:
                self.console.print()
            self._line_open = False
        self._open_message = None

    def _line(self, text: str | Text, style: str = "") -> None:
        self._end_line()
        if isinstance(text, str):
            # one line: a break in a quoted id would show as a line of agui's own
            text = visible_line(text)
        if isinstance(self.console, PlainStdout):
            self.console.write(text if isinstance(text, str) else text.plain)
            return
        from rich.text import Text

        if isinstance(text, str):
            text = Text(text, style=style if self.rich else "")
        elif not self.rich:
            text = Text(text.plain)
        self.console.print(text, soft_wrap=True, highlight=False, markup=False)

    def _write(self, text: str, style: str = "") -> None:
        text = visible(text)
        if isinstance(self.console, PlainStdout):
            self.console.write(text, end="")
            self._line_open = True
            return
        from rich.text import Text

        self.console.print(
            Text(text, style=style if self.rich else ""),
            end="",
            soft_wrap=True,
            highlight=False,
            markup=False,
        )
        self._line_open = True

    def _mark(self, rich_mark: str, plain_mark: str) -> str:
        return rich_mark if self.rich else plain_mark

    # -- public API --------------------------------------------------------------------

    def source(self, name: str, request: dict[str, Any] | None = None) -> None:
        """A response stream starts; show the request that produced it when known."""
        self._line(f"{self._mark('──', '==')} {name}", "bold")
        if request is None:
            return
        parent = request.get("parentRunId")
        ids = f"  request: run {request.get('runId', '?')} thread {request.get('threadId', '?')}"
        if isinstance(parent, str):
            ids += f" parent {parent}"
        self._line(ids, "dim")
        resume = request.get("resume")
        if isinstance(resume, list):
            for entry in resume:
                if not isinstance(entry, dict):
                    continue
                self._line(f"  answers {entry_text(entry, MAX_VALUE_WIDTH)}", "magenta")

    def event(self, event: RecordedEvent) -> None:
        """Render one event."""
        data = event.data
        kind = event.type
        if kind == "RUN_STARTED":
            parent = data.get("parentRunId")
            text = (
                f"{self._mark('▶', '>')} run {data.get('runId', '?')}"
                f" thread {data.get('threadId', '?')}"
            )
            if isinstance(parent, str):
                text += f" parent {parent}"
            self._line(text, "bold green")
        elif kind in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_CONTENT"):
            self._text(kind, data)
        elif kind == "TEXT_MESSAGE_END":
            self._end_line()
        elif kind in ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_CHUNK", "TOOL_CALL_END"):
            self._tool(kind, data)
        elif kind == "TOOL_CALL_RESULT":
            content = data.get("content")
            shown = content if isinstance(content, str) else _json(content)
            self._line(
                f"  {self._mark('↩', '<-')} result {data.get('toolCallId', '?')}: {_short(shown)}",
                "blue",
            )
        elif kind == "MESSAGES_SNAPSHOT":
            messages = data.get("messages")
            count = len(messages) if isinstance(messages, list) else 0
            self._line(f"  messages snapshot: {count} message{'s' if count != 1 else ''}", "dim")
        elif kind == "STATE_SNAPSHOT":
            self._line(f"  state snapshot: {_short(_json(data.get('snapshot')))}", "dim")
        elif kind == "RUN_FINISHED":
            outcome = data.get("outcome")
            what = outcome.get("type") if isinstance(outcome, dict) else None
            self._line(f"{self._mark('■', '#')} finished ({what or 'success'})", "bold")
        elif kind == "RUN_ERROR":
            code = data.get("code")
            suffix = f" [{code}]" if isinstance(code, str) else ""
            self._line(
                f"{self._mark('✖', '!!')} error: {data.get('message', '')}{suffix}", "bold red"
            )
        elif kind == "CUSTOM":
            self._line(f"  custom {data.get('name', '?')}: {_short(_json(data.get('value')))}")
        else:
            self._line(f"  {kind or '(no type)'}", "dim")

    def _text(self, kind: str, data: dict[str, Any]) -> None:
        message_id = data.get("messageId")
        message_id = message_id if isinstance(message_id, str) else None
        starts = kind == "TEXT_MESSAGE_START"
        if starts or (kind == "TEXT_MESSAGE_CHUNK" and self._open_message != message_id):
            role = data.get("role")
            self._end_line()
            self._write(f"  {role if isinstance(role, str) else 'assistant'}: ", "bold cyan")
            self._open_message = message_id
        delta = data.get("delta")
        if isinstance(delta, str) and delta:
            if self._open_message != message_id or not self._line_open:
                self._end_line()
                self._write(f"  {self._mark('…', '...')} ", "dim")
                self._open_message = message_id
            self._write(delta.replace("\r", "").replace("\n", "\n    "))

    def _tool(self, kind: str, data: dict[str, Any]) -> None:
        call_id = str(data.get("toolCallId", "?"))
        if kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and call_id not in self._tool_args:
            self._tool_args[call_id] = ""
            name = data.get("toolCallName")
            self._tool_names[call_id] = name if isinstance(name, str) else "?"
        delta = data.get("delta")
        if isinstance(delta, str) and call_id in self._tool_args:
            kept = self._tool_args[call_id]
            if len(kept) <= MAX_VALUE_WIDTH:
                self._tool_args[call_id] = (kept + delta)[: MAX_VALUE_WIDTH + 1]
        if kind == "TOOL_CALL_END":
            arguments = self._tool_args.pop(call_id, "")
            name = self._tool_names.pop(call_id, "?")
            self._line(
                f"  {self._mark('⚙', '*')} tool {name} ({call_id}) {_short(arguments) or '{}'}",
                "yellow",
            )

    def problem(self, problem: Problem) -> None:
        """Render one finding inline."""
        style = SEVERITY_STYLES.get(problem.severity, "")
        self._line(f"  {problem.severity.value}: {problem}", style)

    def run(self, transcript: RunTranscript) -> None:
        """A run is complete: its outcome, and the interrupts it waits for as a table."""
        run = transcript.run_id or "?"
        outcome = transcript.outcome
        if outcome is Outcome.INTERRUPT:
            count = len(transcript.interrupts)
            noun = "interrupt" if count == 1 else "interrupts"
            self._line(f"  run {run} paused, waiting for {count} {noun}:", "bold magenta")
            self.interrupts(transcript.interrupts)
        elif outcome is Outcome.SUCCESS:
            reason = transcript.finish_reason
            extra = f" ({reason})" if reason else ""
            self._line(f"  run {run} succeeded{extra}", "green")
        elif outcome is Outcome.ERROR:
            self._line(f"  run {run} failed", "red")
        else:
            self._line(f"  run {run} never finished", "red")
        for legacy in transcript.legacy_events:
            value = legacy.data.get("value")
            body = value if isinstance(value, dict) else legacy.data
            self._line(
                f"  legacy {legacy.data.get('name', legacy.type)} for"
                f" {body.get('toolCallId', '?')} ({body.get('toolName', '?')}):"
                " translate it with --native",
                "yellow",
            )

    def interrupts(self, descriptors: Sequence[dict[str, Any]]) -> None:
        """The interrupts table: id, kind, reason, message, tool, what answers it."""
        rows = [interrupt_row(descriptor) for descriptor in descriptors]
        if not rows:
            return
        self._end_line()
        if self.rich and not self._fits(rows):
            self._stacked(rows)
            return
        if self.rich:
            from rich import box
            from rich.table import Table

            table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
            for column in INTERRUPT_COLUMNS:
                wraps = column in ("message", "answered by")
                table.add_column(
                    column, overflow="fold", no_wrap=not wraps, ratio=2 if wraps else None
                )
            for row in rows:
                table.add_row(*row)
            self.console.print(table)
            return
        widths = [
            max(len(column), *(len(row[i]) for row in rows))
            for i, column in enumerate(INTERRUPT_COLUMNS)
        ]
        for row in (INTERRUPT_COLUMNS, *rows):
            cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])]
            self._line("    " + "  ".join([*cells, row[-1]]).rstrip())

    def _fits(self, rows: Sequence[tuple[str, ...]]) -> bool:
        """Whether the table shows every cell whole on one line at the console's width."""
        widths = [
            max(len(column), *(len(row[i]) for row in rows))
            for i, column in enumerate(INTERRUPT_COLUMNS)
        ]
        width: int = self.console.width
        return sum(widths) + 3 * (len(widths) - 1) <= width

    def _stacked(self, rows: Sequence[tuple[str, ...]]) -> None:
        """The narrow layout: per interrupt, its key columns (id, kind, what answers it)
        on the first lines and the rest folded below, wrapped between words."""
        for row in rows:
            cells = dict(zip(INTERRUPT_COLUMNS, row, strict=True))
            self._wrapped(f"{cells['id']}  {cells['kind']}", 4, "bold")
            self._wrapped(f"answered by: {cells['answered by']}", 6)
            rest = [
                f"{column}: {cells[column]}"
                for column in ("reason", "tool", "message")
                if cells[column]
            ]
            if rest:
                self._wrapped(" · ".join(rest), 6, "dim")

    def _wrapped(self, text: str, indent: int, style: str = "") -> None:
        """A paragraph wrapped between words to the console, every line indented."""
        from rich.padding import Padding
        from rich.text import Text

        self.console.print(
            Padding(Text(text, style=style), (0, 0, 0, indent)), highlight=False, markup=False
        )

    def close(self) -> None:
        """End any open line (streamed text without its END)."""
        self._end_line()
