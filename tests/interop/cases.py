"""The interop cases: one client script per ``<scenario>.<variant>``, shared by tests and record.py.

A case names the project (native or legacy), the scenario the server plays and the
answers the real client gives; ``script(url)`` builds the driver script. The
expectations the tests check live beside each case so the data is stated once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TRANSFER_ID = "approval_call_transfer_1"
DELETE_ID = "approval_call_delete_1"
COLOR_CALL = "call_color_1"
EDITED_ARGS = {"amount": 12, "recipient": "Ada"}
PLAN_OK = {"approved": True, "note": "Looks good"}


def _resolve(
    interrupt_id: str, value: Any, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    step: dict[str, Any] = {"action": "resolve", "id": interrupt_id, "value": value}
    if options is not None:
        step["options"] = options
    return step


def _resolve_plan(value: dict[str, Any]) -> dict[str, Any]:
    return {"action": "resolveByDefinition", "definitionId": "review-plan", "value": value}


@dataclass(frozen=True, slots=True)
class Case:
    """One recorded/tested conversation: scenario + variant + the client's answers."""

    project: str
    scenario: str
    variant: str | None
    answers: tuple[dict[str, Any], ...] = ()
    tools: bool = False
    interrupts: bool = False
    auto: bool = False
    #: Descriptors in run 1's RUN_FINISHED outcome: (binding kind, id or definitionId).
    descriptors: tuple[tuple[str, str], ...] = ()
    #: What getInterrupts() exposes after run 1: (kind, id or definitionId).
    exposed: tuple[tuple[str, str], ...] = ()
    #: Expected continuation ``resume`` entries: (id or definitionId, status, payload).
    resume: tuple[tuple[str, str, Any], ...] = ()
    #: Legacy: CUSTOM event names after run 1's RUN_FINISHED.
    custom_events: tuple[str, ...] = ()
    #: Assistant text expected in the last response ("" = no text message at all).
    final_text: str = ""
    #: TOOL_CALL_RESULT contents expected in run 2, by toolCallId.
    tool_results: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.scenario if self.variant is None else f"{self.scenario}.{self.variant}"

    @property
    def thread_id(self) -> str:
        return f"thread-{self.name}"

    @property
    def pauses(self) -> bool:
        return bool(self.descriptors or self.custom_events)

    def script(self, url: str) -> dict[str, Any]:
        script: dict[str, Any] = {
            "url": url,
            "scenario": self.scenario,
            "threadId": self.thread_id,
            "message": f"Please run the {self.scenario} scenario.",
            "answers": list(self.answers),
        }
        if self.tools:
            script["tools"] = self.scenario
        if self.interrupts:
            script["interrupts"] = self.scenario
        if self.auto:
            script["auto"] = True
        return script


_TRANSFER: dict[str, Any] = {"tools": True, "descriptors": (("tool-approval", TRANSFER_ID),)}
_TRANSFER_EXPOSED = (("tool-approval", TRANSFER_ID),)
_DONE_TRANSFER = "Done with the transfer."
_PLAN: dict[str, Any] = {"interrupts": True, "descriptors": (("generic", "review-plan"),)}
_PLAN_EXPOSED = (("generic", "review-plan"),)
_PLAN_TOOLS: dict[str, Any] = {**_PLAN, "tools": True}
_REVIEWED = "Plan reviewed, continuing."
_CHANGES_RESULT = '{"changes":["Add search","Add tests"]}'

NATIVE_CASES: tuple[Case, ...] = (
    Case("native", "plain", None, final_text="Hello! This is a plain answer."),
    Case(
        "native",
        "tool-approval",
        "approve",
        answers=(_resolve(TRANSFER_ID, True),),
        exposed=_TRANSFER_EXPOSED,
        resume=((TRANSFER_ID, "resolved", {"approved": True}),),
        final_text=_DONE_TRANSFER,
        tool_results={"call_transfer_1": '{"receiptId":"rcpt_Ada_42"}'},
        **_TRANSFER,
    ),
    Case(
        "native",
        "tool-approval",
        "approve-edited",
        answers=(_resolve(TRANSFER_ID, True, {"editedArgs": EDITED_ARGS}),),
        exposed=_TRANSFER_EXPOSED,
        resume=((TRANSFER_ID, "resolved", {"approved": True, "editedArgs": EDITED_ARGS}),),
        final_text=_DONE_TRANSFER,
        tool_results={"call_transfer_1": '{"receiptId":"rcpt_Ada_12"}'},
        **_TRANSFER,
    ),
    Case(
        "native",
        "tool-approval",
        "reject",
        answers=(_resolve(TRANSFER_ID, False),),
        exposed=_TRANSFER_EXPOSED,
        resume=((TRANSFER_ID, "resolved", {"approved": False}),),
        final_text=_DONE_TRANSFER,
        **_TRANSFER,
    ),
    Case(
        "native",
        "tool-approval",
        "cancel",
        answers=({"action": "cancel", "id": TRANSFER_ID},),
        exposed=_TRANSFER_EXPOSED,
        resume=((TRANSFER_ID, "cancelled", None),),
        final_text=_DONE_TRANSFER,
        tool_results={"call_transfer_1": '{"error":"Tool execution cancelled"}'},
        **_TRANSFER,
    ),
    Case(
        "native",
        "tool-approval-schema",
        "reject",
        answers=(_resolve(TRANSFER_ID, False, {"payload": {"reason": "limit"}}),),
        exposed=_TRANSFER_EXPOSED,
        resume=((TRANSFER_ID, "resolved", {"approved": False, "payload": {"reason": "limit"}}),),
        final_text=_DONE_TRANSFER,
        **_TRANSFER,
    ),
    Case(
        "native",
        "client-tool",
        "auto",
        tools=True,
        auto=True,
        descriptors=(("client-tool-execution", "client_tool_call_color_1"),),
        resume=(("client_tool_call_color_1", "resolved", {"color": "blue"}),),
        final_text="Nice color.",
    ),
    Case(
        "native",
        "client-tool",
        "add-tool-result",
        tools=True,
        answers=(
            {
                "action": "addToolResult",
                "toolCallId": COLOR_CALL,
                "tool": "pick_color",
                "output": {"color": "green"},
            },
        ),
        descriptors=(("client-tool-execution", "client_tool_call_color_1"),),
        resume=(("client_tool_call_color_1", "resolved", {"color": "green"}),),
        final_text="Nice color.",
    ),
    Case(
        "native",
        "generic-before-model",
        "resolved",
        answers=(_resolve_plan(PLAN_OK),),
        exposed=_PLAN_EXPOSED,
        resume=(("review-plan", "resolved", PLAN_OK),),
        final_text=_REVIEWED,
        **_PLAN,
    ),
    Case(
        "native",
        "generic-before-model",
        "rejected",
        answers=(_resolve_plan({"approved": False}),),
        exposed=_PLAN_EXPOSED,
        resume=(("review-plan", "resolved", {"approved": False}),),
        final_text="",
        **_PLAN,
    ),
    Case(
        "native",
        "generic-before-model",
        "cancelled",
        answers=({"action": "cancel", "definitionId": "review-plan"},),
        exposed=_PLAN_EXPOSED,
        resume=(("review-plan", "cancelled", None),),
        final_text=_REVIEWED,
        **_PLAN,
    ),
    # Paused before the tool ran, so the continuation runs it: its result streams.
    *(
        Case(
            "native",
            scenario,
            "resolved",
            answers=(_resolve_plan(PLAN_OK),),
            exposed=_PLAN_EXPOSED,
            resume=(("review-plan", "resolved", PLAN_OK),),
            final_text=_REVIEWED,
            tool_results={"call_changes_1": _CHANGES_RESULT},
            **_PLAN_TOOLS,
        )
        for scenario in ("generic-after-model", "generic-before-tools")
    ),
    Case(
        "native",
        "generic-after-tools",
        "resolved",
        answers=(_resolve_plan(PLAN_OK),),
        exposed=_PLAN_EXPOSED,
        resume=(("review-plan", "resolved", PLAN_OK),),
        final_text=_REVIEWED,
        **_PLAN_TOOLS,
    ),
    Case(
        "native",
        "generic-two-cards",
        "one-cancelled",
        interrupts=True,
        answers=(
            _resolve_plan(PLAN_OK),
            {"action": "cancel", "definitionId": "choose-audience"},
        ),
        descriptors=(("generic", "review-plan"), ("generic", "choose-audience")),
        exposed=(("generic", "review-plan"), ("generic", "choose-audience")),
        resume=(("review-plan", "resolved", PLAN_OK), ("choose-audience", "cancelled", None)),
        final_text=_REVIEWED,
    ),
    Case(
        "native",
        "generic-expiring",
        "resolved",
        answers=(_resolve_plan(PLAN_OK),),
        exposed=_PLAN_EXPOSED,
        resume=(("review-plan", "resolved", PLAN_OK),),
        final_text=_REVIEWED,
        **_PLAN,
    ),
    Case(
        "native",
        "mixed",
        "approve-and-resolve",
        tools=True,
        interrupts=True,
        answers=(_resolve(TRANSFER_ID, True), _resolve_plan(PLAN_OK)),
        descriptors=(("tool-approval", TRANSFER_ID), ("generic", "review-plan")),
        exposed=(("tool-approval", TRANSFER_ID), ("generic", "review-plan")),
        resume=(
            (TRANSFER_ID, "resolved", {"approved": True}),
            ("review-plan", "resolved", PLAN_OK),
        ),
        final_text=_DONE_TRANSFER,
        tool_results={"call_transfer_1": '{"receiptId":"rcpt_Ada_42"}'},
    ),
    Case(
        "native",
        "two-approvals",
        "approve-both",
        tools=True,
        answers=(_resolve(TRANSFER_ID, True), _resolve(DELETE_ID, True)),
        descriptors=(("tool-approval", TRANSFER_ID), ("tool-approval", DELETE_ID)),
        exposed=(("tool-approval", TRANSFER_ID), ("tool-approval", DELETE_ID)),
        resume=(
            (DELETE_ID, "resolved", {"approved": True}),
            (TRANSFER_ID, "resolved", {"approved": True}),
        ),
        final_text="All actions handled.",
        tool_results={
            "call_transfer_1": '{"receiptId":"rcpt_Ada_42"}',
            "call_delete_1": '{"deleted":true}',
        },
    ),
    Case(
        "native",
        "two-approvals",
        "approve-one-reject-other",
        tools=True,
        answers=(_resolve(TRANSFER_ID, True), _resolve(DELETE_ID, False)),
        descriptors=(("tool-approval", TRANSFER_ID), ("tool-approval", DELETE_ID)),
        exposed=(("tool-approval", TRANSFER_ID), ("tool-approval", DELETE_ID)),
        resume=(
            (DELETE_ID, "resolved", {"approved": False}),
            (TRANSFER_ID, "resolved", {"approved": True}),
        ),
        final_text="All actions handled.",
        tool_results={"call_transfer_1": '{"receiptId":"rcpt_Ada_42"}'},
    ),
)

LEGACY_CASES: tuple[Case, ...] = (
    Case("legacy", "plain", None, final_text="Hello! This is a plain answer."),
    Case(
        "legacy",
        "tool-approval",
        "approve",
        tools=True,
        answers=({"action": "addToolApprovalResponse", "id": TRANSFER_ID, "approved": True},),
        custom_events=("approval-requested",),
        final_text=_DONE_TRANSFER,
        tool_results={"call_transfer_1": '{"receiptId":"rcpt_Ada_42"}'},
    ),
    Case(
        "legacy",
        "tool-approval",
        "reject",
        tools=True,
        answers=({"action": "addToolApprovalResponse", "id": TRANSFER_ID, "approved": False},),
        custom_events=("approval-requested",),
        final_text=_DONE_TRANSFER,
    ),
    Case(
        "legacy",
        "client-tool",
        "auto",
        tools=True,
        auto=True,
        custom_events=("tool-input-available",),
        final_text="Nice color.",
    ),
    Case(
        "legacy",
        "client-tool",
        "add-tool-result",
        tools=True,
        answers=(
            {
                "action": "addToolResult",
                "toolCallId": COLOR_CALL,
                "tool": "pick_color",
                "output": {"color": "green"},
            },
        ),
        custom_events=("tool-input-available",),
        final_text="Nice color.",
    ),
    Case(
        "legacy",
        "two-approvals",
        "approve-both",
        tools=True,
        answers=(
            {"action": "addToolApprovalResponse", "id": TRANSFER_ID, "approved": True},
            {"action": "addToolApprovalResponse", "id": DELETE_ID, "approved": True},
        ),
        custom_events=("approval-requested", "approval-requested"),
        final_text="All actions handled.",
        tool_results={
            "call_transfer_1": '{"receiptId":"rcpt_Ada_42"}',
            "call_delete_1": '{"deleted":true}',
        },
    ),
)

ALL_CASES: tuple[Case, ...] = NATIVE_CASES + LEGACY_CASES


def fixture_files(case: Case) -> list[str]:
    """The files record.py writes for a case, relative to tests/fixtures/recordings/."""
    base = f"{case.project}/{case.name}"
    files = [f"{base}.request.json", f"{base}.run1.sse"]
    if case.project == "native":
        files.append(f"{base}.interrupts.json")
    if case.pauses:
        files += [f"{base}.resume.json", f"{base}.run2.sse"]
    return files
