"""Check a request body the way TanStack's `chatParamsFromRequestBody` does, reason for reason.

`agui replay --serve` answers what the real server answers: a body the TanStack route
rejects gets the same HTTP 400 with the same fixed text, and the detailed reason (which
the real server keeps to itself) goes to agui's request log. The checks, their order and
their wording follow `@tanstack/ai` 0.58.0 `utilities/chat-params.ts` (protocol.md §4.3).
"""

from __future__ import annotations

import json
from typing import Any, Final, NoReturn, cast

INVALID_BODY_TEXT: Final = "Invalid AG-UI request body. See docs/migration/ag-ui-compliance.md."
"""The body of the 400 response `chatParamsFromRequest` throws, whatever the reason."""

ROLES: Final = ("developer", "system", "assistant", "user", "tool", "activity", "reasoning")

_MISSING: Final = object()
"""A key absent from the JSON object (JavaScript's `undefined`, unlike JSON `null`)."""


class InvalidBody(ValueError):
    """The body is not a valid `RunAgentInput`; the message is TanStack's `<reason>`."""


def parse_request_body(raw: bytes) -> dict[str, Any]:
    """Decode and check a posted body; raise `InvalidBody` with the server's reason."""
    try:
        body = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError as error:
        raise InvalidBody(f"invalid JSON: {error}") from None
    except RecursionError:
        # Python's decoder recurses per level; V8's does not, but no chat history nests
        # this deep, and the answer must be a 400, not a crashed request.
        raise InvalidBody("JSON nested too deep to parse") from None
    check_request_body(body)
    return cast("dict[str, Any]", body)


def check_request_body(body: Any) -> None:
    """Raise `InvalidBody` with the first reason `chatParamsFromRequestBody` would give."""
    if not isinstance(body, dict):
        _invalid("body must be a JSON object")
    _require_string(body.get("threadId", _MISSING), "threadId")
    _require_string(body.get("runId", _MISSING), "runId")
    parent = body.get("parentRunId", _MISSING)
    if parent is not _MISSING:
        _require_string(parent, "parentRunId")
    for index, message in enumerate(_require_array(body.get("messages", _MISSING), "messages")):
        _check_message(message, f"messages[{index}]")
    for index, tool in enumerate(_require_array(body.get("tools", _MISSING), "tools")):
        at = f"tools[{index}]"
        if not isinstance(tool, dict):
            _invalid(f"{at} must be an object")
        _require_string(tool.get("name", _MISSING), f"{at}.name")
        _require_string(tool.get("description", _MISSING), f"{at}.description")
    for index, item in enumerate(_require_array(body.get("context", _MISSING), "context")):
        at = f"context[{index}]"
        if not isinstance(item, dict):
            _invalid(f"{at} must be an object")
        _require_string(item.get("description", _MISSING), f"{at}.description")
        _require_string(item.get("value", _MISSING), f"{at}.value")
    resume = body.get("resume", _MISSING)
    if resume is not _MISSING:
        for index, entry in enumerate(_require_array(resume, "resume")):
            _check_resume_entry(entry, f"resume[{index}]")
    forwarded = body.get("forwardedProps", _MISSING)
    if forwarded is not _MISSING and not isinstance(forwarded, dict):
        _invalid("forwardedProps must be an object")


def _invalid(reason: str) -> NoReturn:
    raise InvalidBody(reason)


def _require_string(value: Any, at: str) -> None:
    if not isinstance(value, str):
        _invalid(f"{at} must be a string")


def _require_array(value: Any, at: str) -> list[Any]:
    if not isinstance(value, list):
        _invalid(f"{at} must be an array")
    return value


def _check_message(message: Any, at: str) -> None:
    if not isinstance(message, dict):
        _invalid(f"{at} must be an object")
    _require_string(message.get("id", _MISSING), f"{at}.id")
    role = message.get("role", _MISSING)
    if not isinstance(role, str) or role not in ROLES:
        _invalid(f"{at}.role must be one of {' | '.join(ROLES)}")
    content = message.get("content", _MISSING)
    if role == "assistant":
        if content is not _MISSING:
            _require_string(content, f"{at}.content")
        tool_calls = message.get("toolCalls", _MISSING)
        if tool_calls is not _MISSING:
            _require_array(tool_calls, f"{at}.toolCalls")
    elif role == "user":
        if not isinstance(content, str | list):
            _invalid(f"{at}.content must be a string or an array of content parts")
    elif role == "tool":
        _require_string(content, f"{at}.content")
        _require_string(message.get("toolCallId", _MISSING), f"{at}.toolCallId")
    elif role == "activity":
        _require_string(message.get("activityType", _MISSING), f"{at}.activityType")
        if not isinstance(content, dict):
            _invalid(f"{at}.content must be an object")
    else:
        _require_string(content, f"{at}.content")
    metadata = message.get("metadata", _MISSING)
    if metadata is not _MISSING and not isinstance(metadata, dict):
        _invalid(f"{at}.metadata must be an object")


def _check_resume_entry(entry: Any, at: str) -> None:
    if not isinstance(entry, dict):
        _invalid(f"{at} must be an object")
    if entry.get("status", _MISSING) not in ("resolved", "cancelled"):
        _invalid(f'{at}.status must be "resolved" or "cancelled"')
    _require_string(entry.get("interruptId", _MISSING), f"{at}.interruptId")
    metadata = entry.get("metadata", _MISSING)
    if metadata is not _MISSING and not isinstance(metadata, dict):
        _invalid(f"{at}.metadata must be an object")
