"""LibCST codemods that move Python call sites from the legacy approval API to interrupts.

This module stays light (no libcst import) so the CLI can parse `--select`/`--ignore`
without paying for the parser; the rule classes and their run order live in
`codemods.rules`.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Rule(StrEnum):
    """Stable rule codes; each has a README section named by `anchor(rule)`."""

    AG001 = "AG001"
    """`add_tool_approval_response(...)` → `resolve_interrupt(...)`/`cancel()` on the bound item."""
    AG002 = "AG002"
    """`pending_interrupts` (attribute or state key) → `interrupts`, the same array."""
    AG003 = "AG003"
    """`get_pending_interrupts()` → `get_interrupts()`, the same array."""
    AG004 = "AG004"
    """`resume_interrupts(...)` → `resume_interrupts_unsafe(...)` plus a TODO to stop using it."""
    AG005 = "AG005"
    """An approval loop answering every item with one literal → one `resolve_interrupts(...)`."""
    AG006 = "AG006"
    """Code emitting or consuming legacy `approval-requested`/`tool-input-available` events."""


# One-line titles: the README headings (and so the anchors in TODO markers) come from here.
RULE_TITLES: dict[Rule, str] = {
    Rule.AG001: "Resolve approvals on the bound interrupt",
    Rule.AG002: "Read interrupts instead of pending_interrupts",
    Rule.AG003: "Call get_interrupts instead of get_pending_interrupts",
    Rule.AG004: "Mark raw resume_interrupts as unsafe",
    Rule.AG005: "Answer approval loops with one batch",
    Rule.AG006: "Replace legacy approval events with interrupt outcomes",
}


def anchor(rule: Rule) -> str:
    """The GitHub heading anchor of the rule's README section (`## AG001 Title`)."""
    heading = f"{rule.value} {RULE_TITLES[rule]}".lower()
    return "#" + re.sub(r"[^a-z0-9 _-]", "", heading).replace(" ", "-")


def marker(rule: Rule, todo: str, encoding: str = "utf-8") -> str:
    """The idempotent TODO comment a rule leaves where it cannot rewrite safely.

    A file in an encoding without the em dash (latin-1, say) gets `--` instead.
    """
    text = f"# TODO(agui): {rule.value} {todo} — README{anchor(rule)}"
    try:
        text.encode(encoding)
    except (UnicodeError, LookupError):
        return text.replace(" — ", " -- ")
    return text
