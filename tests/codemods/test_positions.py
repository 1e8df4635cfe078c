"""Sites located on their innermost statement equal sites located on the whole top statement."""

from __future__ import annotations

import random

import pytest

from codemods.command import RuleCommand
from codemods.runner import FileResult, Options, migrate_bytes

# Statements that hold a site of some rule (rewrites and TODOs alike).
SITES = (
    "await self.client.add_tool_approval_response({'id': a.id, 'approved': True})",
    "self.client.add_tool_approval_response(id=a.id, approved=False)  # no",
    "n = len(self.client.pending_interrupts)",
    "x = (\n{i}    self.client.get_pending_interrupts()\n{i})",
    "self.client.resume_interrupts([])",
    "ok = event.name == 'approval-requested'",
    "for a in todo:\n{i}    client.add_tool_approval_response(id=a.id, approved=True)",
    "y = 1; z = client.pending_interrupts",
)
FILLER = ("x = 1", "# a comment", "return None", "log.info('%s', value)", "pass")


def _block(rng: random.Random, depth: int, indent: str, unit: str) -> list[str]:
    """Random statements at `indent`, some nested classes and functions, some sites."""
    lines: list[str] = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.3 and depth < 3:
            if rng.random() < 0.3:
                lines.append(f"{indent}@decorate(\n{indent}    1)")
            head = rng.choice(("class K{n}(Base):", "def f{n}(self, a):", "async def g{n}(a):"))
            lines.append(indent + head.format(n=rng.randint(0, 99)))
            if rng.random() < 0.3:
                lines.append(f'{indent}{unit}"""Doc."""')
            lines.extend(_block(rng, depth + 1, indent + unit, unit))
        elif roll < 0.6:
            lines.append(indent + rng.choice(SITES).replace("{i}", indent))
        else:
            lines.append(indent + rng.choice(FILLER))
        if rng.random() < 0.2:
            lines.append("")
    return lines


def _module(seed: int) -> bytes:
    rng = random.Random(seed)
    unit = rng.choice(("    ", "  ", "\t"))
    body = _block(rng, 0, "", unit)
    newline = rng.choice(("\n", "\r\n"))
    return ("import os\n\n" + "\n".join(body) + "\n").replace("\n", newline).encode()


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.sites)


@pytest.mark.parametrize("seed", range(300))
def test_innermost_statement_positions_equal_top_statement_positions(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    source = _module(seed)
    fast = migrate_bytes(source, "x.py", Options())
    with monkeypatch.context() as patch:
        patch.setattr(RuleCommand, "position", RuleCommand._top_position)
        plain = migrate_bytes(source, "x.py", Options())
    assert _key(fast) == _key(plain)


def test_the_random_modules_have_nested_sites() -> None:
    """The test above would prove nothing if sites never sat inside a class or function."""
    nested = 0
    for seed in range(300):
        result = migrate_bytes(_module(seed), "x.py", Options())
        nested += sum(1 for site in result.sites if site.column > 1)
    assert nested > 300
