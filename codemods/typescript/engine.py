"""One TypeScript/JavaScript file through the selected rules: bytes in, new bytes and sites out.

The body is parsed without its BOM (the BOM goes back on unchanged); each rule that
finds its trigger bytes proposes edits on the current text, the edits are applied and
the text reparsed for the next rule. Sites are mapped back through every earlier pass
to the line and column the user sees in the file as it was read. A file that does not
parse is returned untouched with the location of the first error.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from codemods import Rule
from codemods.settings import Settings
from codemods.site import Site
from codemods.typescript import TRIGGERS
from codemods.typescript.document import Document, Edit, apply_edits, grammar_for, original_offset
from codemods.typescript.rules import RULE_ORDER


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the rules did to one file; `updated` is None when nothing changed."""

    updated: bytes | None = None
    sites: tuple[Site, ...] = ()
    error: str | None = None
    error_line: int | None = None
    error_column: int | None = None


def migrate_script(source: bytes, path: str, rules: frozenset[Rule], settings: Settings) -> Outcome:
    """Run the selected rules over one file's bytes (raises only on a rule bug)."""
    bom = codecs.BOM_UTF8 if source.startswith(codecs.BOM_UTF8) else b""
    grammar = grammar_for(path)
    original = document = Document(source[len(bom) :], grammar)
    error = original.first_error()
    if error is not None:
        line, column, detail = error
        return Outcome(error=f"syntax error: {detail}", error_line=line, error_column=column)
    passes: list[list[Edit]] = []
    sites: list[Site] = []
    for rule, command_type in RULE_ORDER:
        if rule not in rules or not any(t in document.source for t in TRIGGERS[rule]):
            continue
        command = command_type(document, settings)
        command.run()
        for finding in command.findings:
            offset = finding.offset
            for edits in reversed(passes):
                offset = original_offset(offset, edits)
            line, column = original.position(offset)
            sites.append(
                Site(finding.rule, line, column, finding.message, finding.action, finding.marked)
            )
        if command.edits:
            document = Document(apply_edits(document.source, command.edits), grammar)
            passes.append(command.edits)
            broken = document.first_error()
            if broken is not None:
                raise ValueError(f"{rule.value} produced invalid syntax: {broken[2]}")
    sites.sort(key=lambda site: (site.line, site.column, site.rule))
    updated = bom + document.source
    return Outcome(None if updated == source else updated, tuple(sites))
