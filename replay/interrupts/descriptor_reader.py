"""Reading an interrupt descriptor the way TanStack does: its binding, its kind, its expiry
and, for an approval, the approve and reject envelopes of its response schema.

Every consumer of a paused run needs these answers (batch validation, the run checks,
the resume answers and prompts, the timeline), so they are read in one place, from the
descriptor alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

BINDING_KEY = "tanstack:interruptBinding"
CONTINUATION_KEY = "tanstack:interruptContinuation"
PAYLOAD_KEY = "tanstack:interruptPayload"


class InterruptKind(StrEnum):
    """What answers an interrupt, read from its binding (or its pre-binding markers)."""

    TOOL_APPROVAL = "tool-approval"
    CLIENT_TOOL = "client-tool-execution"
    GENERIC = "generic"
    UNBOUND = "unbound"
    """No TanStack binding: another AG-UI producer, or an older TanStack."""


def binding_of(descriptor: Mapping[str, Any]) -> dict[str, Any] | None:
    """The descriptor's `tanstack:interruptBinding`, when it is an object."""
    metadata = descriptor.get("metadata")
    if not isinstance(metadata, dict):
        return None
    binding = metadata.get(BINDING_KEY)
    return binding if isinstance(binding, dict) else None


def kind_of(descriptor: Mapping[str, Any]) -> InterruptKind:
    """Classify a descriptor by its binding, falling back to the legacy `metadata.kind`."""
    binding = binding_of(descriptor)
    if binding is not None:
        try:
            return InterruptKind(str(binding.get("kind")))
        except ValueError:
            return InterruptKind.UNBOUND
    metadata = descriptor.get("metadata")
    marker = metadata.get("kind") if isinstance(metadata, dict) else None
    if marker == "approval":
        return InterruptKind.TOOL_APPROVAL
    if marker == "client_tool":
        return InterruptKind.CLIENT_TOOL
    return InterruptKind.UNBOUND


def parse_expires_at(value: str) -> datetime | None:
    """Parse `expiresAt` like `Date.parse` would, for the formats that matter; None if not."""
    text = value.strip()
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        import email.utils  # only for RFC 2822 dates: a check rarely meets one

        try:
            parsed = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    # A date without an offset is UTC, as ECMAScript reads date-only forms.
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def approval_branches(descriptor: Mapping[str, Any]) -> dict[bool, dict[str, Any]]:
    """The approve/reject envelopes of an approval `responseSchema` (`oneOf`), by decision."""
    schema = descriptor.get("responseSchema")
    branches: dict[bool, dict[str, Any]] = {}
    options = schema.get("oneOf") if isinstance(schema, dict) else None
    if not isinstance(options, list):
        return branches
    for option in options:
        properties = option.get("properties") if isinstance(option, dict) else None
        approved = properties.get("approved") if isinstance(properties, dict) else None
        if isinstance(approved, dict) and isinstance(approved.get("const"), bool):
            branches[approved["const"]] = option
    return branches


def branch_schema(branch: Mapping[str, Any] | None, key: str) -> Any | None:
    """The schema a decision envelope declares for `editedArgs` or `payload`, if any."""
    if branch is None:
        return None
    properties = branch.get("properties")
    if not isinstance(properties, dict):
        return None
    return properties.get(key)
