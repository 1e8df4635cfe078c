"""The reader rules for TanStack's interrupt binding (protocol.md §2.6), one binding at a time.

A paused run's descriptors carry a `tanstack:interruptBinding` that the client reads to
route each answer; these rules say what a reader accepts. The run checker applies them
to every descriptor (`replay.runs.checks`); they depend on nothing but the binding, its
descriptor and the canonical digest of a response schema.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TypeGuard

from replay.interrupts.descriptor_reader import parse_expires_at
from replay.wire.canonical import CanonicalJsonError, digest

TOOL_BINDING_HASHES = {
    "tool-approval": ("inputSchemaHash", "approvalSchemaHash", "responseSchemaHash"),
    "client-tool-execution": ("outputSchemaHash", "responseSchemaHash"),
}
GENERIC_FIRST_PARTY_FIELDS = ("definitionId", "key", "batchIndex")


def is_int(value: Any) -> TypeGuard[int]:
    """An integer in JSON's sense: `True` is not 1 here."""
    return isinstance(value, int) and not isinstance(value, bool)


def non_empty(value: Any) -> TypeGuard[str]:
    """A string with something in it: ids and names must not be blank."""
    return isinstance(value, str) and bool(value)


_DIGESTS: dict[bytes | str, str] = {}
_DIGEST_CACHE_SIZE = 256


def schema_digest(schema: Any) -> str:
    """`digest(schema)`, memoised: a long recording repeats the same few schemas.

    The key is an exact JSON text of the value, NaN/Infinity kept apart from null (the
    digest refuses them): pydantic-core's (bytes, written in C) once it is loaded,
    else `json.dumps`'s (str; a small check does not import pydantic-core for this).
    A bytes key never equals a str key. The canonical text is computed on a miss.
    """
    core = sys.modules.get("pydantic_core")
    try:
        key: bytes | str = (
            core.to_json(schema, inf_nan_mode="constants")
            if core is not None
            else json.dumps(schema, separators=(",", ":"))
        )
    except (ValueError, TypeError, RecursionError):
        return digest(schema)
    found = _DIGESTS.get(key)
    if found is None:
        found = digest(schema)
        if len(_DIGESTS) >= _DIGEST_CACHE_SIZE:
            _DIGESTS.pop(next(iter(_DIGESTS)))
        _DIGESTS[key] = found
    return found


def binding_problems(descriptor: Mapping[str, Any], binding: Any) -> list[str]:
    """What breaks the reader rules of protocol.md §2.6 in one binding (empty when valid)."""
    if not isinstance(binding, dict):
        return ["the binding is not an object"]
    reasons: list[str] = []
    if "v" in binding and binding["v"] != 1:
        reasons.append(f"`v` is {binding['v']!r}, not 1")
    if binding.get("interruptId") != descriptor.get("id"):
        reasons.append("`interruptId` differs from the descriptor's `id`")
    kind = binding.get("kind")
    if kind not in ("tool-approval", "client-tool-execution", "generic"):
        reasons.append(f"unknown `kind` {kind!r}")
    schema_hash = binding.get("responseSchemaHash")
    if "responseSchemaHash" in binding and not non_empty(schema_hash):
        reasons.append("`responseSchemaHash` is empty or not a string")
    elif non_empty(schema_hash) and "responseSchema" in descriptor:
        try:
            if schema_digest(descriptor["responseSchema"]) != schema_hash:
                reasons.append(
                    "`responseSchemaHash` does not match the descriptor's responseSchema"
                )
        except CanonicalJsonError:
            reasons.append("the descriptor's responseSchema is not JSON-compatible")
    expires_at = binding.get("expiresAt")
    if "expiresAt" in binding and (
        not isinstance(expires_at, str) or parse_expires_at(expires_at) is None
    ):
        reasons.append("`expiresAt` is not a date")
    if isinstance(kind, str) and kind in TOOL_BINDING_HASHES:
        for field in ("toolName", "toolCallId", *TOOL_BINDING_HASHES[kind]):
            if not non_empty(binding.get(field)):
                reasons.append(f"`{field}` is missing")
        call_id = descriptor.get("toolCallId")
        if isinstance(call_id, str) and binding.get("toolCallId") not in (None, call_id):
            reasons.append("`toolCallId` differs from the descriptor's `toolCallId`")
    if kind == "generic":
        present = [field for field in GENERIC_FIRST_PARTY_FIELDS if field in binding]
        if present and len(present) != len(GENERIC_FIRST_PARTY_FIELDS):
            reasons.append("`definitionId`, `key` and `batchIndex` must come together")
        elif present:
            if not (non_empty(binding["definitionId"]) and non_empty(binding["key"])):
                reasons.append("`definitionId` and `key` must be non-empty strings")
            index = binding["batchIndex"]
            if not is_int(index) or index < 0:
                reasons.append("`batchIndex` is not a non-negative integer")
    if not non_empty(binding.get("interruptedRunId")):
        reasons.append("`interruptedRunId` is missing")
    generation = binding.get("generation")
    if not is_int(generation) or generation < 0:
        reasons.append("`generation` is not a non-negative integer")
    return reasons
