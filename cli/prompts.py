"""Ask for unanswered interrupts on a terminal: show each item, build questions from its schema.

Only used when stdin is a TTY. Each item is shown with its message (else its reason,
the prompt of last resort), its tool and arguments or its display payload; the
questions come from the `responseSchema` — booleans, enums, strings and numbers get
typed questions, anything else is asked for as JSON.

Everything shown comes from the server's descriptor: it is written as plain text (no
Rich markup, no `:emoji:` codes) with its control characters escaped (`visible`), so an
id like `[/bold]` cannot crash the prompt and an ESC cannot act on the terminal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from cli.resume_entry_text import entry_text
from cli.visible_text import visible, visible_line
from replay.interrupts.descriptor_reader import (
    PAYLOAD_KEY,
    InterruptKind,
    approval_branches,
    binding_of,
    branch_schema,
    kind_of,
)
from replay.resume.answers import Action, AnswerSpec
from replay.wire import bounded_json

Ask = Callable[[str], str]

KIND_NAMES = {
    InterruptKind.TOOL_APPROVAL: "approval",
    InterruptKind.CLIENT_TOOL: "client tool",
    InterruptKind.GENERIC: "generic",
    InterruptKind.UNBOUND: "interrupt",
}


class PromptAborted(Exception):
    """The user gave up on an item (end of input)."""


class QuestionUnseen(Exception):
    """A question could not be shown: stderr did not take it (a full disk, a closed
    file) or lost a line before it (nothing more is written after a lost line,
    `cli.stderr_stream`). Whatever the user types then is typed blind, so it is not
    read, and nothing the prompts were for is sent."""


def _shown(console: Console) -> None:
    """Raise `QuestionUnseen` unless what `console` printed so far reached stderr."""
    from cli import stderr_stream

    try:
        console.file.flush()
    except (OSError, ValueError) as error:  # (a stderr that is not `stderr_stream`'s)
        raise QuestionUnseen from error
    if stderr_stream.lost():
        raise QuestionUnseen


def terminal_ask(console: Console) -> Ask:
    """Ask on `console` and read the reply from stdin, once the question is surely shown."""

    def ask(text: str) -> str:
        console.print(Text(text), emoji=False, end="")
        _shown(console)
        return console.input()

    return ask


def _compact(value: Any) -> str:
    return visible(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


def prompt_text(descriptor: Mapping[str, Any]) -> str:
    """The item's prompt: its message, else its reason (the prompt of last resort)."""
    message = descriptor.get("message")
    if isinstance(message, str) and message.strip():
        return message
    reason = descriptor.get("reason")
    return reason if isinstance(reason, str) and reason else "(no message)"


ANY_OBJECT = {"type": "object"}
"""The arguments of a tool whose input schema is unknown: an object, whatever it holds
(`replay.resume.answers` refuses any other edit)."""


def _tool_and_args(descriptor: Mapping[str, Any]) -> tuple[str | None, Any]:
    binding = binding_of(descriptor) or {}
    metadata = descriptor.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    tool = binding.get("toolName") or metadata.get("toolName")
    args = binding["originalArgs"] if "originalArgs" in binding else metadata.get("input")
    return (tool if isinstance(tool, str) else None), args


class Prompter:
    """Interactive answers for one item at a time. `ask` is injectable for tests."""

    def __init__(self, console: Console, ask: Ask | None = None) -> None:
        self.console = console
        self._ask = ask or terminal_ask(console)

    def ask(self, text: str) -> str:
        try:
            return self._ask(text)
        except EOFError:
            # Ctrl-D leaves the cursor after the question: end that line, so the message
            # saying nothing was sent starts a line of its own.
            self.console.line()
            raise PromptAborted from None

    def say(self, text: str | Text) -> None:
        """One line as it is: never read as markup, emoji codes or a highlight."""
        self.console.print(text, markup=False, emoji=False, highlight=False)

    def show(self, descriptor: Mapping[str, Any]) -> None:
        """The item as a short card: id and kind, prompt, tool and arguments or payload."""
        kind = kind_of(descriptor)
        interrupt_id = visible_line(str(descriptor.get("id", "?")))
        self.say(Text.assemble((interrupt_id, "bold"), " ", (f"({KIND_NAMES[kind]})", "dim")))
        self.say("  " + visible(prompt_text(descriptor)))
        tool, args = _tool_and_args(descriptor)
        if tool is not None:
            self.say(f"  tool {visible_line(tool)} {_compact(args)}")
        metadata = descriptor.get("metadata")
        if isinstance(metadata, dict) and PAYLOAD_KEY in metadata:
            self.say(f"  payload {_compact(metadata[PAYLOAD_KEY])}")
        expires = descriptor.get("expiresAt")
        if isinstance(expires, str):
            self.say(f"  expires {visible(expires)}")

    def answer(self, descriptor: Mapping[str, Any]) -> AnswerSpec:
        """Show the item and ask until there is a well-formed answer."""
        self.show(descriptor)
        interrupt_id = str(descriptor.get("id"))
        if kind_of(descriptor) is InterruptKind.TOOL_APPROVAL:
            return self._approval(descriptor, interrupt_id)
        choice = self._choose("answer or cancel?", {"a": "answer", "c": "cancel"})
        if choice == "c":
            return AnswerSpec(Action.CANCEL, interrupt_id, option=f"prompt {interrupt_id}")
        value = self.value(descriptor.get("responseSchema"), "answer")
        return AnswerSpec(Action.ANSWER, interrupt_id, value, True, f"prompt {interrupt_id}")

    def _approval(self, descriptor: Mapping[str, Any], interrupt_id: str) -> AnswerSpec:
        branches = approval_branches(descriptor)
        choices = {"a": "approve", "r": "reject"}
        input_schema = branch_schema(branches.get(True), "editedArgs")
        # Without decision branches (a legacy pause translated without --tools) the tool's
        # schemas are unknown: the server judges the edit, as `--edit` lets it.
        if input_schema is not None or not branches:
            choices["e"] = "edit"
        choices["c"] = "cancel"
        # the question names only what can be typed, in the order of the keys
        *first, last = choices.values()
        choice = self._choose(f"{', '.join(first)} or {last}?", choices)
        option = f"prompt {interrupt_id}"
        if choice == "c":
            return AnswerSpec(Action.CANCEL, interrupt_id, option=option)
        if choice == "e":
            _, args = _tool_and_args(descriptor)
            if input_schema is None:  # unknown schemas: any object, as `--edit` takes
                input_schema, args = ANY_OBJECT, args if isinstance(args, dict) else None
            edited = self.value(input_schema, "arguments", defaults=args)
            return AnswerSpec(Action.EDIT, interrupt_id, edited, True, option)
        approved = choice == "a"
        payload_schema = branch_schema(branches.get(approved), "payload")
        action = Action.APPROVE if approved else Action.REJECT
        if payload_schema is None:
            return AnswerSpec(action, interrupt_id, option=option)
        payload = self.value(payload_schema, "payload")
        return AnswerSpec(action, interrupt_id, payload, True, option)

    def post(self, run_id: str, url: str, resume: Sequence[Mapping[str, Any]]) -> bool:
        """Show the answers about to be posted and ask whether to post them (end of
        input: no)."""
        self.say(f"to post as run {visible(run_id)} to {visible(url)}:")
        for entry in resume:
            self.say("  " + entry_text(entry))
        try:
            return self._choose("post it?", {"y": "yes", "n": "no"}) == "y"
        except PromptAborted:
            return False

    def _choose(self, question: str, choices: dict[str, str]) -> str:
        keys = "/".join(choices)
        labels = ", ".join(f"{k}={v}" for k, v in choices.items())
        while True:
            reply = self.ask(f"  {question} [{keys}] ({labels}): ").strip().lower()
            if reply in choices:
                return reply
            for key, label in choices.items():
                if reply and label.startswith(reply):
                    return key
            self.say(f"  please type one of {keys}")

    def value(self, schema: Any, label: str, *, defaults: Any = None) -> Any:
        """A value for a schema: an object field by field, a scalar by type, else JSON."""
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
            properties: dict[str, Any] = schema["properties"]
            required = schema.get("required")
            needed = set(required) if isinstance(required, list) else set()
            result: dict[str, Any] = {}
            for name, field_schema in properties.items():
                default = defaults.get(name) if isinstance(defaults, dict) else None
                answered, value = self._field(
                    f"{label}.{name}", field_schema, name in needed, default
                )
                if answered:
                    result[name] = value
            return result
        answered, value = self._field(label, schema, True, defaults)
        return value

    def _field(self, label: str, schema: Any, required: bool, default: Any) -> tuple[bool, Any]:
        schema = schema if isinstance(schema, dict) else {}
        kind = schema.get("type")
        enum = schema.get("enum")
        if "const" in schema:
            return True, schema["const"]
        optional = "" if required else ", blank to skip"
        shown_default = f", default {_compact(default)}" if default is not None else ""
        while True:
            if isinstance(enum, list) and enum:
                hint = " | ".join(_compact(v) for v in enum)
            elif kind == "boolean":
                hint = "y/n"
            elif kind in ("string", "number", "integer"):
                hint = str(kind)
            elif kind == "object":
                hint = "JSON object"
            else:
                hint = "JSON"
            reply = self.ask(f"  {visible(label)} ({hint}{optional}{shown_default}): ").strip()
            if not reply:
                if default is not None:
                    return True, default
                if not required:
                    return False, None
                self.say("  a value is required")
                continue
            parsed, ok = _parse(reply, kind, enum)
            if ok:
                return True, parsed
            self.say(f"  not a valid {hint} value")


def _parse(reply: str, kind: Any, enum: Any) -> tuple[Any, bool]:
    if isinstance(enum, list) and enum:
        for value in enum:
            if reply == value or reply == _compact(value):
                return value, True
        return None, False
    if kind == "boolean":
        lowered = reply.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True, True
        if lowered in ("n", "no", "false", "0"):
            return False, True
        return None, False
    if kind == "string":
        return reply, True
    if kind in ("number", "integer"):
        try:
            number = float(reply) if kind == "number" else int(reply)
        except ValueError:
            return None, False
        if isinstance(number, float) and number.is_integer():
            return int(number), True
        return number, True
    try:
        value = bounded_json.loads(reply)
    except ValueError:
        return None, False
    return (value, True) if kind != "object" or isinstance(value, dict) else (None, False)
