"""The TypeScript rule catalog: which command implements each rule, and the run order.

The engine runs the selected rules in `RULE_ORDER`, each on the text the previous one
left (reparsed), so a rule always sees code it can match exactly.
"""

from __future__ import annotations

from codemods import Rule
from codemods.typescript.approval_loop import ApprovalLoopCommand
from codemods.typescript.approval_response import ApprovalResponseCommand
from codemods.typescript.command import ScriptCommand
from codemods.typescript.get_pending_interrupts import GetPendingInterruptsCommand
from codemods.typescript.legacy_events import LegacyEventsCommand
from codemods.typescript.pending_interrupts import PendingInterruptsCommand
from codemods.typescript.resume_interrupts import ResumeInterruptsCommand

RULE_ORDER: tuple[tuple[Rule, type[ScriptCommand]], ...] = (
    # AG005 before AG001: a batchable loop must still contain its legacy call when it is
    # recognised; AG001 would otherwise turn the body into a per-item lookup first.
    (Rule.AG005, ApprovalLoopCommand),
    # AG001 before AG002: AG001 may add `interrupts` to a useChat destructuring that still
    # holds `pendingInterrupts`; AG002 then folds the old entry into the new one.
    (Rule.AG001, ApprovalResponseCommand),
    # AG002 and AG003 match distinct names (`pendingInterrupts` is a whole word, never
    # the tail of `getPendingInterrupts`), so their relative order does not matter.
    (Rule.AG002, PendingInterruptsCommand),
    (Rule.AG003, GetPendingInterruptsCommand),
    # AG004 matches `resumeInterrupts` as a whole word, so its own output
    # (`resumeInterruptsUnsafe`) never matches again.
    (Rule.AG004, ResumeInterruptsCommand),
    # AG006 only adds comments; last, so its markers sit above any rewritten statement.
    (Rule.AG006, LegacyEventsCommand),
)
