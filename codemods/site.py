"""A call site a rule saw, and what it did there: the unit of every migrate report.

Plain data without libcst, so reports are rendered without loading the parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from codemods import Rule


class Action(StrEnum):
    """What happened at a site."""

    REWRITTEN = "rewritten"
    TODO = "todo"


@dataclass(frozen=True, slots=True)
class Site:
    """One call site a rule saw; `line`/`column` are 1-based in the file as it was read."""

    rule: Rule
    line: int
    column: int
    message: str
    action: Action
    # True when the TODO marker was already in the file (a second run adds nothing).
    marked: bool = False
