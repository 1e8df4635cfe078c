"""Random Python modules full of call sites, nested in classes and functions, for the
tests that prove a fast path of the runner equals its plain twin."""

from __future__ import annotations

import random

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


def random_module(seed: int) -> bytes:
    """A module from `seed`: sites, filler, nesting, decorators, tabs or spaces, LF or CRLF."""
    rng = random.Random(seed)
    unit = rng.choice(("    ", "  ", "\t"))
    body = _block(rng, 0, "", unit)
    newline = rng.choice(("\n", "\r\n"))
    return ("import os\n\n" + "\n".join(body) + "\n").replace("\n", newline).encode()
