"""Rebind a served event to the run and thread ids of the request it answers.

The real client only resolves interrupts bound to its own run id, so every served run
takes the request's ids, interrupt bindings included, with the key order kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replay.interrupts.descriptor_reader import BINDING_KEY


@dataclass(frozen=True, slots=True)
class RunIds:
    """The ids of the request a served run answers."""

    run_id: str
    thread_id: str
    parent_run_id: str | None = None


def rewrite_event(data: Mapping[str, Any], ids: RunIds) -> dict[str, Any] | None:
    """The event rebound to `ids`, or None when it names no run, thread or binding.

    `runId`/`threadId` (top level and `metadata.tanstack`), `parentRunId`, and every
    interrupt binding's `interruptedRunId` take the request's values; key order is kept.
    """
    changed = False
    event = dict(data)
    for key, value in (("runId", ids.run_id), ("threadId", ids.thread_id)):
        if key in event and event[key] != value:
            event[key] = value
            changed = True
    if "parentRunId" in event and event["parentRunId"] != ids.parent_run_id:
        if ids.parent_run_id is None:
            del event["parentRunId"]
        else:
            event["parentRunId"] = ids.parent_run_id
        changed = True
    metadata = event.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    if isinstance(metadata, dict) and isinstance(tanstack, dict):
        new_tanstack = dict(tanstack)
        for key, value in (("runId", ids.run_id), ("threadId", ids.thread_id)):
            if key in new_tanstack and new_tanstack[key] != value:
                new_tanstack[key] = value
        if new_tanstack != tanstack:
            event["metadata"] = {**metadata, "tanstack": new_tanstack}
            changed = True
    outcome = event.get("outcome")
    interrupts = outcome.get("interrupts") if isinstance(outcome, dict) else None
    if isinstance(outcome, dict) and isinstance(interrupts, list):
        rebound = [rebind_descriptor(item, ids.run_id) for item in interrupts]
        if rebound != interrupts:
            event["outcome"] = {**outcome, "interrupts": rebound}
            changed = True
    return event if changed else None


def rebind_descriptor(descriptor: Any, run_id: str) -> Any:
    """An interrupt descriptor whose binding names `run_id` as its interrupted run."""
    if not isinstance(descriptor, dict):
        return descriptor
    metadata = descriptor.get("metadata")
    binding = metadata.get(BINDING_KEY) if isinstance(metadata, dict) else None
    if not isinstance(metadata, dict) or not isinstance(binding, dict):
        return descriptor
    if "interruptedRunId" not in binding or binding["interruptedRunId"] == run_id:
        return descriptor
    return {
        **descriptor,
        "metadata": {**metadata, BINDING_KEY: {**binding, "interruptedRunId": run_id}},
    }
