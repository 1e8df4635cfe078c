"""The rule catalog: which command implements each rule, and the order they run in.

The runner reads a file's bytes once and runs only the rules whose trigger names
(`codemods.triggers`) occur in them, in `RULE_ORDER`.
"""

from __future__ import annotations

from codemods import Rule
from codemods.approval_loop import ApprovalLoopCommand
from codemods.approval_response import ApprovalResponseCommand
from codemods.command import RuleCommand
from codemods.get_pending_interrupts import GetPendingInterruptsCommand
from codemods.legacy_events import LegacyEventsCommand
from codemods.pending_interrupts import PendingInterruptsCommand
from codemods.resume_interrupts import ResumeInterruptsCommand

RULE_ORDER: tuple[tuple[Rule, type[RuleCommand]], ...] = (
    # AG005 before AG001: a batchable loop must still contain its legacy call when it is
    # recognised; AG001 would otherwise turn the body into a per-item lookup first.
    (Rule.AG005, ApprovalLoopCommand),
    # AG001 writes `<receiver>.interrupts` and `resolve_interrupt`, names no later rule
    # matches, so its output is final.
    (Rule.AG001, ApprovalResponseCommand),
    # AG002 and AG003 match distinct attribute names (`pending_interrupts` vs
    # `get_pending_interrupts`), so their relative order does not matter.
    (Rule.AG002, PendingInterruptsCommand),
    (Rule.AG003, GetPendingInterruptsCommand),
    # AG004's new name `resume_interrupts_unsafe` contains the old one, so it must run at
    # most once per file (it does: one pass per rule) and match the name exactly.
    (Rule.AG004, ResumeInterruptsCommand),
    # AG006 only adds comments; last, so its markers sit above any rewritten statement.
    (Rule.AG006, LegacyEventsCommand),
)

COMMANDS: dict[Rule, type[RuleCommand]] = dict(RULE_ORDER)
