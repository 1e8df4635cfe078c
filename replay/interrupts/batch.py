"""Validate a resume batch against the interrupts it answers, as the TanStack server does.

One implementation serves three commands: `replay --check` (resume findings in a
recording), `resume` (refuse locally what the server would reject) and `replay --serve`
(answer with the same `RUN_ERROR` the real server streams). The rules, codes, messages
and error order follow `@tanstack/ai` 0.58.0 (`validateInterruptResumeBatch` and the
generic-continuation reader); where agui knows more than the stateless server (the
recorded batch), it is stricter, never looser. `client_rules=True` adds the checks that
only the TanStack client makes (no edits on a rejection, no stray envelope keys).

The server's rule order stays whole here (about 400 lines), so this reads side by side
with the server function; what it reads from a descriptor is
`replay.interrupts.descriptor_reader`, how a schema violation is worded is
`replay.interrupts.schema_issues`, and the errors it returns are
`replay.interrupts.interrupt_errors`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from replay.interrupts.descriptor_reader import (
    CONTINUATION_KEY,
    InterruptKind,
    approval_branches,
    binding_of,
    branch_schema,
    kind_of,
    parse_expires_at,
)
from replay.interrupts.interrupt_errors import InterruptError
from replay.interrupts.schema_issues import schema_errors
from replay.wire.canonical import CanonicalJsonError, digest, locale_sort_key

MISSING_PARENT_MESSAGE = (
    "Interrupt continuation requires parentRunId to identify the interrupted run."
)
INCOMPLETE_MESSAGE = "Resume entries must resolve or cancel the complete interrupt batch."
ITEMS_INVALID_MESSAGE = "One or more interrupt resolutions are invalid."


@dataclass(frozen=True, slots=True)
class _Pending:
    interrupt_id: str
    descriptor: Mapping[str, Any]
    kind: InterruptKind
    binding: dict[str, Any] | None


def validate_batch(
    pending: Sequence[Mapping[str, Any]],
    resume: Sequence[Mapping[str, Any]],
    *,
    thread_id: str,
    interrupted_run_id: str,
    now: datetime | None = None,
    client_rules: bool = False,
) -> list[InterruptError]:
    """All errors for answering `pending` with `resume`; empty when the server accepts it.

    Errors come in the server's order: item errors grouped by interrupt id (groups in
    `localeCompare` order), then batch errors. A malformed generic continuation is a
    single `stale` batch error, as the server reports it.
    """
    moment = now if now is not None else datetime.now(UTC)
    records = [
        _Pending(str(d.get("id")), d, kind_of(d), binding_of(d))
        for d in pending
        if isinstance(d.get("id"), str)
    ]
    continuation_error = _check_continuations(records, resume)
    if continuation_error is not None:
        return [continuation_error]

    item_errors: list[InterruptError] = []
    entries: dict[str, Mapping[str, Any]] = {}
    duplicates: set[str] = set()
    for entry in resume:
        interrupt_id = entry.get("interruptId")
        if not isinstance(interrupt_id, str):
            continue
        if interrupt_id in entries:
            if interrupt_id not in duplicates:
                duplicates.add(interrupt_id)
                item_errors.append(
                    InterruptError(
                        "item",
                        "conflict",
                        f"Interrupt {interrupt_id} has duplicate resume entries.",
                        interrupt_id,
                    )
                )
            continue
        entries[interrupt_id] = entry

    generics = [r for r in records if r.kind is InterruptKind.GENERIC]
    client_tools_may_wait = bool(generics) and all(r.interrupt_id in entries for r in generics)
    incomplete = False
    for record in records:
        found = entries.get(record.interrupt_id)
        if found is None:
            if record.kind is InterruptKind.CLIENT_TOOL and client_tools_may_wait:
                continue
            incomplete = True
            item_errors.append(
                InterruptError(
                    "item",
                    "unknown-interrupt",
                    f"Missing resume entry for interrupt {record.interrupt_id}.",
                    record.interrupt_id,
                )
            )
            continue
        item_errors.extend(
            _check_entry(record, found, interrupted_run_id, moment, client_rules=client_rules)
        )

    known = {record.interrupt_id for record in records}
    for interrupt_id in entries:
        if interrupt_id not in known:
            incomplete = True
            item_errors.append(
                InterruptError(
                    "item",
                    "unknown-interrupt",
                    f"Resume entry references unknown interrupt {interrupt_id}.",
                    interrupt_id,
                )
            )

    all_ids = tuple(record.interrupt_id for record in records)
    batch_errors: list[InterruptError] = []
    if incomplete:
        batch_errors.append(
            InterruptError("batch", "incomplete-batch", INCOMPLETE_MESSAGE, interrupt_ids=all_ids)
        )
    if item_errors:
        batch_errors.append(
            InterruptError(
                "batch", "item-validation-failed", ITEMS_INVALID_MESSAGE, interrupt_ids=all_ids
            )
        )
    grouped = sorted(
        item_errors, key=lambda error: locale_sort_key(error.interrupt_id or "")
    )  # sorted() is stable: errors of one item keep their order
    return grouped + batch_errors


def _check_continuations(
    records: Sequence[_Pending], resume: Sequence[Mapping[str, Any]]
) -> InterruptError | None:
    """The generic-continuation reader: any failure is one `stale` batch error."""
    definitions = {
        str(r.binding.get("definitionId")): r
        for r in records
        if r.kind is InterruptKind.GENERIC and r.binding is not None
    }
    seen_ids: set[str] = set()
    seen_indexes: set[int] = set()
    for entry in resume:
        metadata = entry.get("metadata")
        if not isinstance(metadata, dict) or CONTINUATION_KEY not in metadata:
            continue
        interrupt_id = str(entry.get("interruptId"))
        continuation = metadata[CONTINUATION_KEY]
        if not isinstance(continuation, dict):
            return _stale("Generic interrupt continuation is invalid.")
        if not _continuation_shape_ok(continuation):
            return _stale("Generic interrupt continuation contains invalid fields.")
        definition_id = continuation["definitionId"]
        record = definitions.get(definition_id)
        if record is None or record.binding is None:
            return _stale(f"Generic interrupt definition {definition_id} is unavailable.")
        batch_index = continuation["batchIndex"]
        if interrupt_id in seen_ids or batch_index in seen_indexes:
            return _stale("Generic interrupt continuation contains duplicate entries.")
        seen_ids.add(interrupt_id)
        seen_indexes.add(batch_index)
        for field, label in (("key", "key"), ("reason", "reason"), ("message", "message")):
            if not continuation[field].strip():
                return _stale(
                    f"Generic interrupt continuation {interrupt_id} is invalid: "
                    f"Interrupt {label} must be a non-empty string."
                )
        expires_at = continuation.get("expiresAt")
        if expires_at is not None and parse_expires_at(expires_at) is None:
            return _stale(
                f"Generic interrupt continuation {interrupt_id} is invalid: "
                "Interrupt expiresAt must be a valid date string."
            )
        binding = record.binding
        if "payload" in continuation and "payloadSchemaHash" not in binding:
            return _stale(
                f"Generic interrupt continuation {interrupt_id} is invalid: "
                f"Interrupt definition {definition_id} does not accept a payload."
            )
        for hash_key in ("responseSchemaHash", "payloadSchemaHash"):
            if continuation.get(hash_key) != binding.get(hash_key):
                return _stale(
                    f"Generic interrupt continuation {interrupt_id} does not match its definition."
                )
    return None


def _continuation_shape_ok(continuation: Mapping[str, Any]) -> bool:
    if continuation.get("v") != 1:
        return False
    if not all(
        isinstance(continuation.get(field), str)
        for field in ("definitionId", "key", "reason", "message")
    ):
        return False
    batch_index = continuation.get("batchIndex")
    if isinstance(batch_index, bool) or not isinstance(batch_index, int) or batch_index < 0:
        return False
    return all(
        field not in continuation or isinstance(continuation[field], str)
        for field in ("responseSchemaHash", "expiresAt", "payloadSchemaHash")
    )


def _stale(message: str) -> InterruptError:
    return InterruptError("batch", "stale", message, source="server")


def _check_entry(
    record: _Pending,
    entry: Mapping[str, Any],
    interrupted_run_id: str,
    now: datetime,
    *,
    client_rules: bool,
) -> list[InterruptError]:
    interrupt_id = record.interrupt_id
    descriptor = record.descriptor

    def item(
        code: str, message: str, path: tuple[str | int, ...] = (), source: str = "client"
    ) -> InterruptError:
        return InterruptError("item", code, message, interrupt_id, path, source=source)

    binding = record.binding
    if binding is not None and (
        binding.get("interruptId") != interrupt_id
        or binding.get("interruptedRunId") != interrupted_run_id
        or binding.get("generation", 0) != 0
    ):
        return [
            item(
                "stale",
                f"Interrupt {interrupt_id} has stale correlation metadata.",
                source="server",
            )
        ]
    expires_at = descriptor.get("expiresAt")
    if isinstance(expires_at, str):
        moment = parse_expires_at(expires_at)
        if moment is None:
            return [item("invalid-payload", f"Interrupt {interrupt_id} has an invalid expiresAt.")]
        if moment <= now:
            return [item("expired", f"Interrupt {interrupt_id} has expired.", source="server")]
    schema = descriptor.get("responseSchema")
    expected_hash = binding.get("responseSchemaHash") if binding is not None else None
    if isinstance(expected_hash, str) and schema is not None:
        try:
            matches = digest(schema) == expected_hash
        except CanonicalJsonError:
            matches = False
        if not matches:
            return [
                item(
                    "invalid-response-schema",
                    f"Interrupt {interrupt_id} response schema no longer matches its binding.",
                )
            ]
    status = entry.get("status")
    if status not in ("resolved", "cancelled"):
        return [
            item(
                "invalid-payload",
                f'Interrupt {interrupt_id} status must be "resolved" or "cancelled".',
            )
        ]
    if status == "cancelled":
        if "payload" in entry:
            return [
                item(
                    "invalid-payload",
                    f"Cancelled interrupt {interrupt_id} must not include a payload.",
                )
            ]
        return []
    payload = entry.get("payload")
    if record.kind is InterruptKind.TOOL_APPROVAL:
        return _check_approval(record, payload, item, client_rules=client_rules)
    if record.kind is InterruptKind.CLIENT_TOOL:
        tool = str((binding or {}).get("toolName") or _metadata_tool(descriptor) or "?")
        return [
            item("invalid-tool-output", f"Tool {tool} output is invalid: {message}", path)
            for path, message in schema_errors(schema, payload)
        ]
    return [
        item("invalid-payload", f"Interrupt {interrupt_id} payload is invalid: {message}", path)
        for path, message in schema_errors(schema, payload)
    ]


def _metadata_tool(descriptor: Mapping[str, Any]) -> str | None:
    metadata = descriptor.get("metadata")
    name = metadata.get("toolName") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def _check_approval(
    record: _Pending, payload: Any, item: Any, *, client_rules: bool
) -> list[InterruptError]:
    interrupt_id = record.interrupt_id
    if isinstance(payload, bool):
        approved, envelope = payload, None
    elif isinstance(payload, dict) and isinstance(payload.get("approved"), bool):
        approved, envelope = payload["approved"], payload
    else:
        return [
            item(
                "invalid-payload",
                f"Approval {interrupt_id} must be a boolean or decision envelope.",
            )
        ]
    branches = approval_branches(record.descriptor)
    branch = branches.get(approved)
    # Without a responseSchema (a legacy pause translated without --tools, an item of
    # another producer) the tool's schemas are unknown here; the server judges edits and
    # payloads by its own tool, so agui cannot say they are not allowed.
    schemas_known = bool(branches)
    errors: list[InterruptError] = []
    if client_rules and envelope is not None:
        allowed = {"approved", "payload"} | ({"editedArgs"} if approved else set())
        for key in sorted(set(envelope) - allowed):
            errors.append(
                item(
                    "invalid-payload",
                    f"Approval {interrupt_id} envelope does not allow {key!r}"
                    + (" on a rejection." if key == "editedArgs" else "."),
                    (key,),
                )
            )
    if approved and envelope is not None and "editedArgs" in envelope:
        input_schema = branch_schema(branch, "editedArgs")
        if input_schema is None and schemas_known:
            errors.append(
                item(
                    "invalid-edited-args",
                    f"Approval {interrupt_id} cannot edit arguments without an input schema.",
                )
            )
        elif input_schema is not None:
            errors.extend(
                item(
                    "invalid-edited-args",
                    f"Approval {interrupt_id} edited arguments are invalid: {message}",
                    path,
                )
                for path, message in schema_errors(input_schema, envelope["editedArgs"])
            )
    payload_schema = branch_schema(branch, "payload")
    decision = "approve" if approved else "reject"
    if payload_schema is not None:
        if envelope is None or "payload" not in envelope:
            errors.append(
                item(
                    "invalid-payload",
                    f"Approval {interrupt_id} requires a payload for the {decision} decision.",
                )
            )
        else:
            errors.extend(
                item(
                    "invalid-payload",
                    f"Approval {interrupt_id} payload is invalid: {message}",
                    path,
                )
                for path, message in schema_errors(payload_schema, envelope["payload"])
            )
    elif client_rules and schemas_known and envelope is not None and "payload" in envelope:
        errors.append(
            item(
                "invalid-payload",
                f"Approval {interrupt_id} takes no payload for the {decision} decision.",
                ("payload",),
            )
        )
    return errors


def missing_parent_errors(resume: Sequence[Mapping[str, Any]]) -> list[InterruptError]:
    """`resume` without `parentRunId`: the single `stale` error the server streams."""
    ids = tuple(str(entry.get("interruptId")) for entry in resume)
    return [
        InterruptError("batch", "stale", MISSING_PARENT_MESSAGE, interrupt_ids=ids, source="server")
    ]
