"""Every link in the project's Markdown reaches what it names: a heading, a file.

GitHub makes a heading's anchor from its text (lower case, punctuation dropped, spaces
to dashes) and numbers repeats: the second `Performance` is `#performance-1`. A link to
the bare anchor of a repeated heading silently lands on the first, which is how the
README's `migrate` section once sent its benchmark link to the proxy's figures; so such
a link must say which one it means (`-1`, `-2`, ...) or the heading must be unique.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def markdown_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    names = listed.stdout.split() if listed.returncode == 0 else []
    if not names:  # not a git checkout: the README at least
        names = ["README.md"]
    return sorted(name for name in names if "node_modules" not in Path(name).parts)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before repeats are numbered)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its words
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> tuple[set[str], set[str]]:
    """(every anchor GitHub gives the file's headings, the bare anchors used more than once)."""
    seen: Counter[str] = Counter()
    found = set()
    for _, line in prose_lines(text):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
            seen[base] += 1
    return found, {base for base, count in seen.items() if count > 1}


def links(name: str) -> list[tuple[int, str]]:
    text = (ROOT / name).read_text(encoding="utf-8")
    return [
        (number, match.group(1))
        for number, line in prose_lines(text)
        for match in LINK.finditer(line)
        if not re.match(r"[a-z][a-z+.-]*:", match.group(1))  # http:, mailto:
    ]


@pytest.mark.parametrize("name", markdown_files())
def test_every_link_reaches_a_heading_or_a_file(name: str) -> None:
    broken = []
    for number, target in links(name):
        path, _, anchor = target.partition("#")
        where = (ROOT / name).parent / path if path else ROOT / name
        if not where.exists():
            broken.append(f"{name}:{number}: {target}: no such file")
            continue
        if not anchor or where.suffix != ".md":
            continue
        found, repeated = anchors(where.read_text(encoding="utf-8"))
        if anchor not in found:
            broken.append(f"{name}:{number}: {target}: no such heading")
        elif anchor in repeated:
            broken.append(f"{name}:{number}: {target}: several headings have this anchor")
    assert not broken, "\n".join(broken)


def test_the_slug_rules_match_githubs() -> None:
    text = "# agui\n## `agui replay --html`: one page\n### Performance\n## Performance\n"
    found, repeated = anchors(text)
    assert found == {"agui", "agui-replay---html-one-page", "performance", "performance-1"}
    assert repeated == {"performance"}
    assert slug("`agui replay` — read, check and show") == "agui-replay--read-check-and-show"
    assert slug("AG004 Mark raw resume_interrupts as unsafe") == (
        "ag004-mark-raw-resume_interrupts-as-unsafe"
    )
