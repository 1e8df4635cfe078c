"""Turn `agui resume` answer options into one decision per interrupt, naming items loosely.

Users name an interrupt by its exact id, a unique id prefix, its tool name or its
generic definition id; each spec becomes an `Answer` for exactly one pending item.
Everything here is pure: bad input raises `InvalidRequest` with one line that names the
option and what to do, and nothing is sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from replay.interrupts.descriptor_reader import (
    BINDING_KEY,
    InterruptKind,
    approval_branches,
    branch_schema,
    kind_of,
)
from replay.wire import bounded_json
from replay.wire.errors import InvalidRequest, read_failure


class Action(StrEnum):
    """What the user decided for one interrupt."""

    APPROVE = "approve"
    REJECT = "reject"
    EDIT = "edit"
    CANCEL = "cancel"
    ANSWER = "answer"
    """A raw resolved payload: a generic response, a client tool's output, an envelope."""
    PAYLOAD = "payload"
    """`--payload ID=JSON` whose ID is not spelled as in any --approve/--reject: it goes
    with the decision for the item ID names, found once targets are resolved
    (`resolve_answers`). Never an answer of its own."""


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """One answer as the user typed it, before its target is resolved."""

    action: Action
    target: str
    value: Any = None
    has_value: bool = False
    option: str = ""
    """How the user wrote it (`--approve transfer`), for error messages."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A decision for one pending interrupt, keyed by its exact id."""

    interrupt_id: str
    action: Action
    value: Any = None
    has_value: bool = False
    option: str = ""


@dataclass(frozen=True, slots=True)
class AnswerOptions:
    """Every answer option of the command, raw."""

    approve: Sequence[str] = ()
    reject: Sequence[str] = ()
    payload: Sequence[str] = ()
    edit: Sequence[str] = ()
    cancel: Sequence[str] = ()
    answer: Sequence[str] = ()
    answers_file: str | None = None
    approve_all: bool = False
    cancel_all: bool = False
    extra: Sequence[AnswerSpec] = field(default_factory=tuple)


def parse_json_text(text: str, *, option: str, base: Path | None = None) -> Any:
    """A JSON value from an option, or from a file when the text is `@path`."""
    if text.startswith("@"):
        path = Path(text[1:])
        if base is not None and not path.is_absolute():
            path = base / path
        try:
            raw = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as error:
            raise InvalidRequest(f"{option}: cannot read {path}: {read_failure(error)}") from None
        where = str(path)
    else:
        raw, where = text, "the value"
    try:
        return bounded_json.loads(raw)
    except json.JSONDecodeError as error:
        shell = "; quote it for the shell, e.g. '{\"approved\": true}'"
        hint = "" if text.startswith("@") else shell  # a file is not the shell's doing
        raise InvalidRequest(
            f"{option}: {where} is not valid JSON ({error.msg} at column {error.colno}){hint}"
        ) from None
    except ValueError as error:  # nested too deep for every later step (bounded_json)
        raise InvalidRequest(f"{option}: {where} is not valid JSON ({error})") from None


def split_assignment(text: str, *, option: str) -> tuple[str, str]:
    """`ID=VALUE` into its two halves; the id may not be empty."""
    target, sep, value = text.partition("=")
    if not sep or not target.strip():
        raise InvalidRequest(f"{option} {text!r}: expected ID=JSON (or ID=@file.json)")
    return target.strip(), value


def _descriptor_id(descriptor: Mapping[str, Any]) -> str:
    value = descriptor.get("id")
    return value if isinstance(value, str) else ""


def _names(descriptor: Mapping[str, Any]) -> set[str]:
    """Tool name, tool call id and generic definition id: the friendly names of an item."""
    names: set[str] = set()
    call_id = descriptor.get("toolCallId")
    if isinstance(call_id, str) and call_id:
        names.add(call_id)
    metadata = descriptor.get("metadata")
    if isinstance(metadata, dict):
        tool = metadata.get("toolName")
        if isinstance(tool, str) and tool:
            names.add(tool)
        binding = metadata.get(BINDING_KEY)
        if isinstance(binding, dict):
            for key in ("toolName", "definitionId"):
                value = binding.get(key)
                if isinstance(value, str) and value:
                    names.add(value)
    return names


def resolve_target(target: str, descriptors: Sequence[Mapping[str, Any]], *, option: str) -> str:
    """The exact interrupt id a user-supplied name denotes; one clear error otherwise.

    Order: exact id, then tool name or definition id, then unique id prefix. A name
    shared by several items is ambiguous rather than silently applied to all.
    """
    ids = [_descriptor_id(d) for d in descriptors]
    if target in ids:
        return target
    by_name = [_descriptor_id(d) for d in descriptors if target in _names(d)]
    if len(by_name) == 1:
        return by_name[0]
    if len(by_name) > 1:
        raise InvalidRequest(
            f"{option}: {target!r} names {len(by_name)} items ({', '.join(by_name)}); "
            "use an interrupt id instead"
        )
    by_prefix = [i for i in ids if i.startswith(target)]
    if len(by_prefix) == 1:
        return by_prefix[0]
    if len(by_prefix) > 1:
        raise InvalidRequest(
            f"{option}: {target!r} is a prefix of {len(by_prefix)} ids "
            f"({', '.join(by_prefix)}); type more of it"
        )
    known = ", ".join(ids) if ids else "none"
    raise InvalidRequest(f"{option}: no pending interrupt matches {target!r} (pending: {known})")


def specs_from_options(options: AnswerOptions, *, cwd: Path | None = None) -> list[AnswerSpec]:
    """Every targeted answer option as a spec, in the order the command documents them."""
    specs: list[AnswerSpec] = []
    for target in options.approve:
        specs.append(AnswerSpec(Action.APPROVE, target, option=f"--approve {target}"))
    for target in options.reject:
        specs.append(AnswerSpec(Action.REJECT, target, option=f"--reject {target}"))
    for text in options.edit:
        target, value = split_assignment(text, option="--edit")
        option = f"--edit {target}"
        specs.append(
            AnswerSpec(Action.EDIT, target, parse_json_text(value, option=option), True, option)
        )
    for target in options.cancel:
        specs.append(AnswerSpec(Action.CANCEL, target, option=f"--cancel {target}"))
    for text in options.answer:
        target, value = split_assignment(text, option="--answer")
        option = f"--answer {target}"
        specs.append(
            AnswerSpec(Action.ANSWER, target, parse_json_text(value, option=option), True, option)
        )
    specs = _attach_payloads(specs, options.payload)
    if options.answers_file is not None:
        specs.extend(answers_file_specs(options.answers_file))
    specs.extend(options.extra)
    return specs


def _attach_payloads(specs: list[AnswerSpec], payloads: Sequence[str]) -> list[AnswerSpec]:
    """`--payload JSON` goes with the one --approve/--reject; `--payload ID=JSON` with the
    one spelling ID so, else (a tool name for an id, say) it waits as an `Action.PAYLOAD`
    spec for `resolve_answers`, which knows which item each name stands for."""
    if not payloads:
        return specs
    decisions = [s for s in specs if s.action in (Action.APPROVE, Action.REJECT)]
    out = list(specs)
    for text in payloads:
        if text.startswith("@") or _is_json(text):
            if len(decisions) != 1:
                raise InvalidRequest(
                    "--payload JSON needs exactly one --approve or --reject; "
                    "with several, write --payload ID=JSON"
                )
            chosen = decisions[0]
            value = parse_json_text(text, option="--payload")
        else:
            target, raw = split_assignment(text, option="--payload")
            option = f"--payload {target}"
            value = parse_json_text(raw, option=option)
            matches = [s for s in decisions if s.target == target]
            if len(matches) != 1:
                out.append(AnswerSpec(Action.PAYLOAD, target, value, True, option))
                continue
            chosen = matches[0]
        if chosen.has_value:
            raise InvalidRequest(f"{chosen.option}: given two payloads")
        index = out.index(chosen)
        out[index] = AnswerSpec(chosen.action, chosen.target, value, True, chosen.option)
        decisions[decisions.index(chosen)] = out[index]
    return out


def _is_json(text: str) -> bool:
    try:
        bounded_json.loads(text)
    except ValueError:
        return False
    return True


def answers_file_specs(path_text: str) -> list[AnswerSpec]:
    """`--answers FILE`: a JSON object keyed by interrupt id, tool name or definition id.

    Each value is `{"status": "cancelled"}`, `{"status": "resolved", "payload": …}`, or
    any other JSON value, which is taken as the resolved payload.
    """
    path = Path(path_text)
    data = parse_json_text("@" + path_text, option="--answers")
    if not isinstance(data, dict):
        raise InvalidRequest(
            f"--answers: {path} must hold a JSON object keyed by interrupt id or definition id"
        )
    specs: list[AnswerSpec] = []
    for key, value in data.items():
        option = f"--answers {path.name}: {key}"
        if isinstance(value, dict) and value.get("status") in ("cancelled", "resolved"):
            extra = set(value) - {"status", "payload"}
            if extra:
                raise InvalidRequest(
                    f"{option}: unexpected key(s) {', '.join(sorted(extra))} beside status"
                )
            if value["status"] == "cancelled":
                if "payload" in value:
                    raise InvalidRequest(f"{option}: a cancellation carries no payload")
                specs.append(AnswerSpec(Action.CANCEL, key, option=option))
                continue
            if "payload" not in value:
                raise InvalidRequest(f'{option}: "status": "resolved" needs a "payload"')
            specs.append(AnswerSpec(Action.ANSWER, key, value["payload"], True, option))
            continue
        specs.append(AnswerSpec(Action.ANSWER, key, value, True, option))
    return specs


def resolve_answers(
    specs: Sequence[AnswerSpec],
    descriptors: Sequence[Mapping[str, Any]],
    *,
    approve_all: bool = False,
    cancel_all: bool = False,
    strict: bool = True,
) -> dict[str, Answer]:
    """One answer per interrupt id, in batch order; `--approve-all`/`--cancel-all` fill gaps.

    With `strict=False` (hand-built batches without descriptors) targets are taken as
    exact ids and nothing is checked against the item kind.
    """
    if approve_all and cancel_all:
        raise InvalidRequest("--approve-all and --cancel-all exclude each other")
    chosen: dict[str, Answer] = {}
    payloads = [spec for spec in specs if spec.action is Action.PAYLOAD]
    for spec in specs:
        if spec.action is Action.PAYLOAD:
            continue
        if strict:
            interrupt_id = resolve_target(spec.target, descriptors, option=spec.option)
            descriptor = next(d for d in descriptors if _descriptor_id(d) == interrupt_id)
            _check_action(spec, descriptor)
        else:
            interrupt_id = spec.target
        previous = chosen.get(interrupt_id)
        if previous is not None:
            raise InvalidRequest(
                f"{spec.option}: {interrupt_id} is already answered by {previous.option}; "
                "answer each interrupt once"
            )
        chosen[interrupt_id] = Answer(
            interrupt_id, spec.action, spec.value, spec.has_value, spec.option
        )
    for descriptor in descriptors:
        interrupt_id = _descriptor_id(descriptor)
        if interrupt_id in chosen or not interrupt_id:
            continue
        if cancel_all:
            chosen[interrupt_id] = Answer(interrupt_id, Action.CANCEL, option="--cancel-all")
        elif approve_all and kind_of(descriptor) is InterruptKind.TOOL_APPROVAL:
            chosen[interrupt_id] = Answer(interrupt_id, Action.APPROVE, option="--approve-all")
    # After the gaps are filled: an approval schema with a branch payload can be
    # approved by --approve-all only if a named --payload reaches its approval.
    for spec in payloads:
        _attach_payload(spec, chosen, descriptors, strict=strict)
    order = {_descriptor_id(d): index for index, d in enumerate(descriptors)}
    return dict(sorted(chosen.items(), key=lambda item: order.get(item[0], len(order))))


def _attach_payload(
    spec: AnswerSpec,
    chosen: dict[str, Answer],
    descriptors: Sequence[Mapping[str, Any]],
    *,
    strict: bool,
) -> None:
    """Give a `--payload ID=JSON` to the --approve/--reject/--approve-all answering the
    item ID names."""
    interrupt_id = (
        resolve_target(spec.target, descriptors, option=spec.option) if strict else spec.target
    )
    decision = chosen.get(interrupt_id)
    if decision is not None and decision.action is Action.EDIT:
        # --edit's value is the edited arguments; the envelope holding both is --answer's
        raise InvalidRequest(
            f"{spec.option}: {decision.option} carries edited arguments, not a payload; "
            f"give both with --answer {interrupt_id}="
            """'{"approved":true,"editedArgs":{…},"payload":{…}}'"""
        )
    if decision is None or decision.action not in (Action.APPROVE, Action.REJECT):
        raise InvalidRequest(
            f"{spec.option}: no --approve, --reject or --approve-all answers {interrupt_id} "
            "to attach it to"
        )
    if decision.has_value:
        raise InvalidRequest(f"{decision.option}: given two payloads")
    if strict:
        descriptor = next(d for d in descriptors if _descriptor_id(d) == interrupt_id)
        _check_action(
            AnswerSpec(decision.action, interrupt_id, spec.value, True, decision.option),
            descriptor,
        )
    chosen[interrupt_id] = Answer(interrupt_id, decision.action, spec.value, True, decision.option)


def has_boolean_approved(descriptor: Mapping[str, Any]) -> bool:
    """Whether a generic/unbound response schema is an object with a boolean `approved`."""
    schema = descriptor.get("responseSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    approved = properties.get("approved") if isinstance(properties, dict) else None
    return isinstance(approved, dict) and approved.get("type") == "boolean"


def _check_action(spec: AnswerSpec, descriptor: Mapping[str, Any]) -> None:
    kind = kind_of(descriptor)
    interrupt_id = _descriptor_id(descriptor)
    if spec.action in (Action.APPROVE, Action.REJECT):
        if kind is InterruptKind.CLIENT_TOOL:
            raise InvalidRequest(
                f"{spec.option}: {interrupt_id} is a client tool; give its output with "
                f"--answer {interrupt_id}=JSON"
            )
        if kind is InterruptKind.GENERIC and not has_boolean_approved(descriptor):
            raise InvalidRequest(
                f"{spec.option}: {interrupt_id} is a generic interrupt without a boolean "
                f"'approved' answer; use --answer {interrupt_id}=JSON"
            )
        if kind is InterruptKind.GENERIC and spec.has_value:
            raise InvalidRequest(
                f"{spec.option}: --payload applies to tool approvals; answer the generic "
                f"{interrupt_id} with --answer {interrupt_id}=JSON"
            )
    if spec.action is Action.EDIT:
        if kind is not InterruptKind.TOOL_APPROVAL:
            raise InvalidRequest(
                f"{spec.option}: {interrupt_id} is not a tool approval; only approvals take "
                "edited arguments"
            )
        if not isinstance(spec.value, dict):
            raise InvalidRequest(f"{spec.option}: edited arguments must be a JSON object")
        branches = approval_branches(descriptor)
        if branches and branch_schema(branches.get(True), "editedArgs") is None:
            raise InvalidRequest(
                f"{spec.option}: the tool of {interrupt_id} has no input schema, so its "
                "arguments cannot be edited"
            )
