"""Write a synthetic Python tree for the `agui migrate` benchmark.

Realistic modules of about 200 lines (imports, dataclasses, services, loops, dict
munging); a few percent of them also call the legacy approval API, the way a real
monorepo mixes a handful of chat-client call sites into thousands of unrelated files.
Deterministic for a given seed.

The `dense` profile is shaped like issue #15's tree: longer modules with pydantic
models, classes and async methods, and the legacy call sites (1-3 per file) inside
methods of a class, so the statement that mentions them is most of the file.

    python benchmarks/generate_tree.py OUT_DIR --files 2000 [--legacy-share 0.03] [--seed 7]
    python benchmarks/generate_tree.py OUT_DIR --files 2000 --profile dense --legacy-share 0.02
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

WORDS = [
    *("account", "order", "invoice", "ledger", "payment", "refund", "customer", "shipment"),
    *("carrier", "quote", "report", "audit", "budget", "forecast", "policy", "session"),
    *("token", "profile", "billing", "tenant", "catalog", "product", "price", "stock"),
    *("warehouse", "route", "driver", "schedule", "ticket", "review"),
]

HEADER = '''"""{title} service: loading, validating and summarising {plural}."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

MAX_{upper} = {limit}

# Status codes the upstream {noun} API returns, and what we do about each.
STATUS_ACTIONS: dict[str, str] = {{
    "created": "store",
    "updated": "store",
    "deleted": "drop",
    "archived": "drop",
    "failed": "retry",
    "throttled": "retry",
    "unknown": "log",
}}
'''

RECORD = '''

@dataclass
class {cls}:
    """One {noun} as stored upstream."""

    id: str
    owner: str
    amount: int = 0
    tags: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def is_large(self) -> bool:
        return self.amount > MAX_{upper}

    def label(self) -> str:
        parts = [self.id, self.owner]
        if self.tags:
            parts.append(",".join(sorted(self.tags)))
        return " / ".join(parts)
'''

FUNCTION = '''

def {name}(items: list[{cls}], threshold: int = {n}) -> dict[str, int]:
    """Group {noun} amounts by owner, skipping the ones under `threshold`."""
    totals: dict[str, int] = defaultdict(int)
    for item in items:
        if item.amount < threshold:
            log.debug("skip %s", item.id)
            continue
        totals[item.owner] += item.amount
        if item.is_large():
            log.info("large {noun} %s", item.label())
    result = {{owner: total for owner, total in totals.items() if total}}
    return dict(sorted(result.items()))
'''

PARSER = """

def parse_{noun}(raw: str) -> {cls} | None:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        log.warning("bad {noun} payload")
        return None
    tags = [str(tag).strip().lower() for tag in data.get("tags", []) if tag]
    return {cls}(
        id=str(data["id"]),
        owner=str(data.get("owner", "unknown")),
        amount=int(data.get("amount", 0)),
        tags=tags,
        meta={{k: v for k, v in data.items() if k not in {{"id", "owner", "amount", "tags"}}}},
    )
"""

SERVICE = '''

class {cls}Service:
    """Keeps {plural} in memory for the {other} workflow."""

    def __init__(self, store: dict[str, {cls}] | None = None) -> None:
        self.store = store if store is not None else {{}}
        self.errors: list[str] = []

    def add(self, item: {cls}) -> None:
        if item.id in self.store:
            self.errors.append(f"duplicate {{item.id}}")
            return
        self.store[item.id] = item

    def by_owner(self, owner: str) -> list[{cls}]:
        return [item for item in self.store.values() if item.owner == owner]

    def total(self) -> int:
        return sum(item.amount for item in self.store.values())

    def export(self) -> str:
        rows = []
        for item in sorted(self.store.values(), key=lambda i: (i.owner, i.id)):
            rows.append({{"id": item.id, "owner": item.owner, "amount": item.amount}})
        return json.dumps(rows, indent=2)

    def prune(self, keep: int) -> int:
        removed = 0
        for key in list(self.store)[keep:]:
            del self.store[key]
            removed += 1
        return removed
'''

LEGACY = (
    """

async def answer_{noun}(client: Any, approval: Any) -> None:
    # The reviewer approved this {noun}.
    await client.add_tool_approval_response({{"id": approval.id, "approved": True}})
""",
    """

def pending_{noun}(client: Any) -> int:
    return len(client.pending_interrupts) + len(client.get_pending_interrupts())
""",
    """

def approve_all_{noun}(client: Any, approvals: list[Any]) -> None:
    for approval in approvals:
        client.add_tool_approval_response(id=approval.id, approved=True)
""",
    """

def is_{noun}_request(event: dict[str, Any]) -> bool:
    return event.get("type") == "CUSTOM" and event["name"] == "approval-requested"
""",
)

MODEL = '''

class {cls}Model(BaseModel):
    """The {noun} payload the {other} API accepts."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    owner: str = Field(alias="ownerId")
    amount: int = 0
    tags: list[str] = Field(default_factory=list)

    @field_validator("owner")
    @classmethod
    def strip_owner(cls, value: str) -> str:
        return value.strip()
'''

CLIENT_HEAD = '''

class {cls}Desk:
    """Drives the {noun} approval desk for the {other} workflow."""

    def __init__(self, client: Any, service: {cls}Service) -> None:
        self.client = client
        self.service = service
        self.seen: set[str] = set()

    async def load(self, raw: list[str]) -> list[{cls}Model]:
        models = []
        for line in raw:
            try:
                models.append({cls}Model.model_validate_json(line))
            except ValueError:
                log.warning("bad {noun} line")
        return models

    async def refresh(self, owner: str) -> int:
        count = 0
        for item in self.service.by_owner(owner):
            if item.id not in self.seen:
                self.seen.add(item.id)
                count += 1
        return count
'''

# Methods of the desk class that call the legacy API: 1-3 of them go into a module.
DESK_SITES = (
    """
    async def approve(self, approval: Any) -> None:
        # The reviewer approved this {noun}.
        await self.client.add_tool_approval_response({{"id": approval.id, "approved": True}})
""",
    """
    def pending(self) -> int:
        return len(self.client.pending_interrupts)
""",
    """
    async def approve_all(self, approvals: list[Any]) -> None:
        for approval in approvals:
            self.client.add_tool_approval_response(id=approval.id, approved=True)
""",
    """
    def waiting(self) -> list[Any]:
        return list(self.client.get_pending_interrupts())
""",
)

CLIENT_TAIL = """
    async def close(self) -> None:
        self.seen.clear()
        log.info("{noun} desk closed")
"""


def dense_module(rng: random.Random, legacy: bool) -> str:
    """A longer module with pydantic models and a desk class around the call sites."""
    noun, other = rng.sample(WORDS, 2)
    cls = noun.capitalize()
    values = {
        "noun": noun,
        "plural": noun + "s",
        "other": other,
        "cls": cls,
        "upper": noun.upper(),
        "title": cls,
        "limit": rng.randint(100, 10_000),
    }
    header = HEADER.format(**values).replace(
        "from typing import Any\n",
        "from typing import Any\n\nfrom pydantic import BaseModel, ConfigDict, Field, "
        "field_validator\n",
    )
    parts = [header, RECORD.format(**values), MODEL.format(**values)]
    parts.append(PARSER.format(**values))
    for index in range(4):
        name = f"summarise_{noun}_{index}"
        parts.append(FUNCTION.format(name=name, n=rng.randint(1, 99), **values))
    parts.append(SERVICE.format(**values))
    parts.append(CLIENT_HEAD.format(**values))
    if legacy:
        for site in rng.sample(DESK_SITES, rng.randint(1, 3)):
            parts.append(site.format(**values))
    parts.append(CLIENT_TAIL.format(**values))
    return "".join(parts)


def module(rng: random.Random, legacy: bool) -> str:
    noun, other = rng.sample(WORDS, 2)
    cls = noun.capitalize()
    values = {
        "noun": noun,
        "plural": noun + "s",
        "other": other,
        "cls": cls,
        "upper": noun.upper(),
        "title": cls,
        "limit": rng.randint(100, 10_000),
    }
    parts = [HEADER.format(**values), RECORD.format(**values), PARSER.format(**values)]
    for index in range(7):
        name = f"summarise_{noun}_{index}"
        parts.append(FUNCTION.format(name=name, n=rng.randint(1, 99), **values))
    parts.append(SERVICE.format(**values))
    if legacy:
        parts.append(rng.choice(LEGACY).format(**values))
    return "".join(parts)


def generate(
    out: Path, files: int, legacy_share: float = 0.03, seed: int = 7, profile: str = "plain"
) -> int:
    """Write `files` modules under `out`; returns how many carry legacy call sites."""
    rng = random.Random(seed)
    write = dense_module if profile == "dense" else module
    legacy_count = 0
    for index in range(files):
        package = out / f"pkg_{index // 50:04d}"
        package.mkdir(parents=True, exist_ok=True)
        legacy = rng.random() < legacy_share
        legacy_count += legacy
        (package / f"mod_{index:05d}.py").write_text(write(rng, legacy), encoding="utf-8")
    return legacy_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--legacy-share", type=float, default=0.03)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", choices=("plain", "dense"), default="plain")
    args = parser.parse_args()
    count = generate(args.out, args.files, args.legacy_share, args.seed, args.profile)
    print(f"wrote {args.files} modules to {args.out} ({count} with legacy call sites)")


if __name__ == "__main__":
    main()
