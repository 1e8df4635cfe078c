"""The text each rule needs to see before it can match: the runner's byte prefilter and
the rules' statement pruning both read it from here.

Plain data without libcst, so the main process can skip the files that mention no
legacy name while its worker processes are still loading the parser.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from codemods import Rule
from codemods.settings import ApiNames

# Legacy CUSTOM event name → what replaces it on the wire (AG006 names it in its TODO).
LEGACY_EVENTS: dict[str, str] = {
    "approval-requested": 'a RUN_FINISHED interrupt outcome with reason "tool_call"',
    "tool-input-available": (
        'a RUN_FINISHED interrupt outcome with reason "tanstack:client_tool_execution"'
    ),
}


def rule_triggers(rule: Rule, names: ApiNames) -> tuple[str, ...]:
    """Text one of which a statement (and so its file) must contain for `rule` to match."""
    match rule:
        case Rule.AG001 | Rule.AG005:
            return (names.add_tool_approval_response,)
        case Rule.AG002:
            return (names.pending_interrupts,)
        case Rule.AG003:
            return (names.get_pending_interrupts,)
        case Rule.AG004:
            return (names.resume_interrupts,)
        case Rule.AG006:
            return tuple(LEGACY_EVENTS)
        case _:
            assert_never(rule)


def file_triggers(rule: Rule, names: ApiNames) -> tuple[bytes, ...]:
    """Byte strings one of which must occur in a file for `rule` to possibly match."""
    return tuple(text.encode() for text in rule_triggers(rule, names))


def fewest(needles: Iterable[bytes]) -> tuple[bytes, ...]:
    """The needles that contain no other one, each once: `any(n in data ...)` over them
    answers what it answers over all of them, with fewer scans of every file."""
    unique = sorted(set(needles), key=len)
    kept: list[bytes] = []
    for needle in unique:
        if not any(shorter in needle for shorter in kept):
            kept.append(needle)
    return tuple(kept)
