"""Write a large, realistic AG-UI recording for the replay benchmark (deterministic, seeded).

The recording is TanStack 0.58.0 wire format (`data: <compact JSON>\\n\\n`): threads of
runs with streamed text in small deltas, tool calls, native approval pauses (with real
bindings and schema hashes), their continuations (`TOOL_CALL_RESULT` before the
continuation's `RUN_STARTED`, as TanStack sends it), client-tool pauses and plain runs.

    python benchmarks/generate_recording.py --size 10MB benchmarks/.data/replay-10MB.sse
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from replay.wire.canonical import digest, hash_schema_input  # noqa: E402

WORDS = (  # noqa: SIM905
    "the transfer of funds to the recipient was checked against the account limits and "
    "the ledger before the agent asked for approval because the amount exceeds the daily "
    "threshold configured for this workspace and policy"
).split()
INPUT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"amount": {"type": "number"}, "recipient": {"type": "string"}},
    "required": ["amount", "recipient"],
}
APPROVAL_RESPONSE = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"approved": {"const": True}, "editedArgs": INPUT_SCHEMA},
            "required": ["approved"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"approved": {"const": False}},
            "required": ["approved"],
            "additionalProperties": False,
        },
    ]
}
COLOR_SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string"}},
    "required": ["color"],
}
HASHES = {
    "input": hash_schema_input(INPUT_SCHEMA),
    "approval": digest({"approve": None, "reject": None}),
    "approval_response": digest(APPROVAL_RESPONSE),
    "color": digest(COLOR_SCHEMA),
    "output": hash_schema_input(None),
}


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Scenario:
    """Emits events for one thread at a time; ids and clock advance deterministically."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.clock = 1_796_035_060_000
        self.counter = 0

    def tick(self) -> int:
        self.clock += self.random.randint(0, 3)
        return self.clock

    def ident(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.clock}-{self.counter:06x}"

    def text(self, message_id: str, words: int) -> Iterator[dict[str, Any]]:
        yield {
            "type": "TEXT_MESSAGE_START",
            "messageId": message_id,
            "role": "assistant",
            "timestamp": self.tick(),
        }
        sentence = " ".join(self.random.choice(WORDS) for _ in range(words)) + "."
        for start in range(0, len(sentence), 12):
            yield {
                "type": "TEXT_MESSAGE_CONTENT",
                "messageId": message_id,
                "delta": sentence[start : start + 12],
                "timestamp": self.tick(),
            }
        yield {"type": "TEXT_MESSAGE_END", "messageId": message_id, "timestamp": self.tick()}

    def tool_call(
        self, call_id: str, name: str, args: dict[str, Any], parent: str
    ) -> Iterator[dict[str, Any]]:
        yield {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name,
            "parentMessageId": parent,
            "timestamp": self.tick(),
        }
        text = compact(args)
        for start in range(0, len(text), 10):
            yield {
                "type": "TOOL_CALL_ARGS",
                "toolCallId": call_id,
                "delta": text[start : start + 10],
                "timestamp": self.tick(),
            }
        yield {"type": "TOOL_CALL_END", "toolCallId": call_id, "timestamp": self.tick()}

    def approval(self, call_id: str, args: dict[str, Any], run_id: str) -> dict[str, Any]:
        interrupt_id = f"approval_{call_id}"
        return {
            "id": interrupt_id,
            "reason": "tool_call",
            "message": "Approval required to run transfer",
            "toolCallId": call_id,
            "responseSchema": APPROVAL_RESPONSE,
            "metadata": {
                "kind": "approval",
                "toolName": "transfer",
                "input": args,
                "tanstack:interruptBinding": {
                    "v": 1,
                    "kind": "tool-approval",
                    "interruptId": interrupt_id,
                    "toolName": "transfer",
                    "toolCallId": call_id,
                    "originalArgs": args,
                    "inputSchemaHash": HASHES["input"],
                    "approvalSchemaHash": HASHES["approval"],
                    "responseSchemaHash": HASHES["approval_response"],
                    "interruptedRunId": run_id,
                    "generation": 0,
                },
            },
        }

    def client_tool(self, call_id: str, run_id: str) -> dict[str, Any]:
        interrupt_id = f"client_tool_{call_id}"
        return {
            "id": interrupt_id,
            "reason": "tanstack:client_tool_execution",
            "message": "Client tool pick_color is ready to run",
            "toolCallId": call_id,
            "responseSchema": COLOR_SCHEMA,
            "metadata": {
                "kind": "client_tool",
                "toolName": "pick_color",
                "input": {"hint": "warm"},
                "tanstack:interruptBinding": {
                    "v": 1,
                    "kind": "client-tool-execution",
                    "interruptId": interrupt_id,
                    "toolName": "pick_color",
                    "toolCallId": call_id,
                    "outputSchemaHash": HASHES["output"],
                    "responseSchemaHash": HASHES["color"],
                    "interruptedRunId": run_id,
                    "generation": 0,
                },
            },
        }

    def thread(self) -> Iterator[dict[str, Any]]:
        """One thread: a paused run and its continuation, or a plain run."""
        thread_id = self.ident("thread")
        run_id = self.ident("run")
        kind = self.random.choice(("approval", "approval", "client", "plain"))
        yield {
            "type": "RUN_STARTED",
            "runId": run_id,
            "threadId": thread_id,
            "timestamp": self.tick(),
        }
        message_id = self.ident("msg")
        yield from self.text(message_id, self.random.randint(20, 80))
        finished: dict[str, Any] = {"type": "RUN_FINISHED", "runId": run_id, "threadId": thread_id}
        if kind == "plain":
            yield {**finished, "timestamp": self.tick()}
            return
        call_id = f"call_{self.counter:06x}"
        if kind == "approval":
            args = {"amount": self.random.randint(1, 5000), "recipient": self.random.choice(WORDS)}
            yield from self.tool_call(call_id, "transfer", args, message_id)
            descriptor = self.approval(call_id, args, run_id)
        else:
            yield from self.tool_call(call_id, "pick_color", {"hint": "warm"}, message_id)
            descriptor = self.client_tool(call_id, run_id)
        yield {
            "type": "MESSAGES_SNAPSHOT",
            "timestamp": self.tick(),
            "messages": [
                {"id": self.ident("msg"), "role": "user", "content": "Please pay the invoice."},
                {
                    "id": message_id,
                    "role": "assistant",
                    "content": "",
                    "toolCalls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "transfer", "arguments": "{}"},
                        }
                    ],
                },
            ],
        }
        yield {
            **finished,
            "timestamp": self.tick(),
            "outcome": {"type": "interrupt", "interrupts": [descriptor]},
            "metadata": {"tanstack": {"finishReason": "tool_calls"}},
        }
        # The continuation: the resumed tool's result comes before RUN_STARTED.
        next_run = self.ident("run")
        yield {
            "type": "TOOL_CALL_RESULT",
            "messageId": message_id,
            "toolCallId": call_id,
            "content": compact({"receiptId": f"rcpt_{self.counter}"}),
            "role": "tool",
            "timestamp": self.tick(),
        }
        yield {
            "type": "RUN_STARTED",
            "runId": next_run,
            "threadId": thread_id,
            "parentRunId": run_id,
            "timestamp": self.tick(),
        }
        yield from self.text(self.ident("msg"), self.random.randint(10, 40))
        yield {
            "type": "RUN_FINISHED",
            "runId": next_run,
            "threadId": thread_id,
            "timestamp": self.tick(),
            "metadata": {"tanstack": {"finishReason": "stop"}},
        }


def parse_size(text: str) -> int:
    units = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}
    for suffix, factor in units.items():
        if text.upper().endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)


def generate(path: Path, size: int, *, seed: int = 7) -> int:
    """Write threads until the file reaches `size` bytes; return the number of events."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scenario = Scenario(seed)
    written = 0
    events = 0
    temporary = path.with_suffix(path.suffix + ".tmp")
    with temporary.open("w", encoding="utf-8", newline="") as handle:
        while written < size:
            chunk = "".join(f"data: {compact(event)}\n\n" for event in scenario.thread())
            events += chunk.count("\n\n")
            handle.write(chunk)
            written += len(chunk.encode("utf-8"))
    temporary.replace(path)
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--size", default="10MB", help="target size, e.g. 10MB or 100MB")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    events = generate(args.output, parse_size(args.size), seed=args.seed)
    print(f"{args.output}: {args.output.stat().st_size} bytes, {events} events")


if __name__ == "__main__":
    main()
