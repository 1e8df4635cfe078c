"""One TypeScript/JavaScript file, or the scripts of one Vue/Svelte component, through the
selected rules: bytes in, new bytes and sites out.

A script body is parsed without its BOM (the BOM goes back on unchanged); each rule that
finds its trigger bytes proposes edits on the current text, the edits are applied and
the text reparsed for the next rule. Sites are mapped back through every earlier pass
to the line and column the user sees in the file as it was read. A file that does not
parse is returned untouched with the location of the first error. A component's
script bodies go through the same steps one by one (`components` finds them); its
markup is never rewritten, only reported and marked where it names the legacy API.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, replace

from codemods import Rule
from codemods.settings import Settings
from codemods.site import Action, Site
from codemods.typescript import TRIGGERS, accessors, is_component, markup
from codemods.typescript.command import comment as script_comment
from codemods.typescript.components import Layout, ScriptBlock, UnclosedBlock, scan, splice
from codemods.typescript.document import (
    REFERENCES,
    Document,
    Edit,
    apply_edits,
    grammar_for,
    line_starts,
    original_offset,
    position_in,
)
from codemods.typescript.rules import RULE_ORDER

# A word of the markup that could name a script binding (`{{ x }}`, `@click="x(…)"`).
_WORD = re.compile(rb"[A-Za-z_$][\w$]*")
# Identifier nodes that declare or read a binding; what the markup may rely on.
_BINDINGS = REFERENCES | {"shorthand_property_identifier_pattern"}


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
    if is_component(path):
        return migrate_component(source, rules, settings, svelte=path.endswith(".svelte"))
    bom = codecs.BOM_UTF8 if source.startswith(codecs.BOM_UTF8) else b""
    outcome = migrate_body(source[len(bom) :], grammar_for(path), rules, settings)
    if outcome.updated is None:
        return outcome
    return replace(outcome, updated=bom + outcome.updated)


def migrate_body(body: bytes, grammar: str, rules: frozenset[Rule], settings: Settings) -> Outcome:
    """Run the selected rules over one script body (no BOM) parsed with `grammar`; sites
    and errors are at lines and columns of the body."""
    return _migrate(Document(body, grammar), grammar, rules, settings).outcome


@dataclass(frozen=True, slots=True)
class _Migrated:
    """`migrate_body`'s outcome with what a component needs besides: the parse the
    rules read (`original`, accessor keywords blanked) and the parse of the result
    (`final`), so the check of the names its markup uses reads both without parsing
    again, and each site's byte offset in the body (`offsets`, in the order of
    `outcome.sites`), where a held-back rewrite's TODO marker goes."""

    outcome: Outcome
    original: Document
    final: Document
    offsets: tuple[int, ...] = ()


def _migrate(
    original: Document, grammar: str, rules: frozenset[Rule], settings: Settings
) -> _Migrated:
    """`migrate_body` on a parsed body, with the parses and offsets a component needs."""
    error = unblanked = original.first_error()
    keywords: tuple[int, ...] = ()
    if error is not None:
        blanked = accessors.blank(original, grammar)  # `accessor` fields a grammar lacks
        if blanked is not None:
            original, keywords = blanked.document, blanked.keywords
            error = original.first_error()
    if error is not None:
        return _Migrated(_failed(error), original, original)
    body = original.source
    document = original
    passes: list[list[Edit]] = []
    found: list[tuple[Site, int]] = []  # each site and its offset in the body
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
            site = Site(finding.rule, line, column, finding.message, finding.action, finding.marked)
            found.append((site, offset))
        if command.edits:
            document = Document(apply_edits(document.source, command.edits), grammar)
            passes.append(command.edits)
            broken = document.first_error()
            if broken is not None:
                raise ValueError(f"{rule.value} produced invalid syntax: {broken[2]}")
    found.sort(key=lambda pair: (pair[0].line, pair[0].column, pair[0].rule))
    sites = tuple(site for site, _ in found)
    offsets = tuple(offset for _, offset in found)
    if document.source == body:
        return _Migrated(Outcome(None, sites), original, document, offsets)
    updated = document.source
    if keywords:
        restored = accessors.restore(updated, keywords, passes)
        if restored is None:  # a rule edited a blanked keyword: report the body as it was
            assert unblanked is not None  # keywords are only blanked in a body with errors
            return _Migrated(_failed(unblanked), original, original)
        updated = restored
    return _Migrated(Outcome(updated, sites), original, document, offsets)


def _failed(error: tuple[int, int, str]) -> Outcome:
    """The outcome for a body that does not parse: `error` is its first error."""
    line, column, detail = error
    return Outcome(error=f"syntax error: {detail}", error_line=line, error_column=column)


def migrate_component(
    source: bytes, rules: frozenset[Rule], settings: Settings, *, svelte: bool = False
) -> Outcome:
    """Migrate a `.vue` file's (or with `svelte`, a `.svelte` file's) script bodies and
    report the legacy names its markup uses.

    The markup is not rewritten (its expression syntax is the framework's own), so a
    trigger name there is a TODO site, marked by an HTML comment where one can go. And a
    script rewrite that would take away a binding the markup reads (AG002 renaming an
    unused `pendingInterrupts` in a destructuring, say) is not applied, since half a
    migration would break the template: its script sites become TODOs, and the file
    gets only the TODO markers (script and markup), so it shows where to work and
    `--check` passes once they are there, as for any other TODO.
    """
    bom = len(codecs.BOM_UTF8) if source.startswith(codecs.BOM_UTF8) else 0
    starts = line_starts(source, bom)  # the BOM is no column
    try:
        layout = scan(source, svelte=svelte)
    except UnclosedBlock as unclosed:
        line, column = position_in(source, starts, unclosed.offset)
        return Outcome(error=f"syntax error: {unclosed}", error_line=line, error_column=column)
    markup_sites, markers = _markup_sites(source, layout, rules, starts)
    sites = list(markup_sites)
    bodies: list[tuple[ScriptBlock, bytes]] = []
    parses: list[tuple[Document, Document]] = []  # each changed body before and after
    # Each script site as the file shows it, with its block, parse and body offset.
    script_sites: list[tuple[Site, ScriptBlock, Document, int]] = []
    for block in layout.blocks:
        if block.grammar is None:
            continue
        original = Document(source[block.start : block.end], block.grammar)
        migrated = _migrate(original, block.grammar, rules, settings)
        outcome = migrated.outcome
        first_line, first_column = position_in(source, starts, block.start)
        if outcome.error is not None:
            at = (outcome.error_line or 1, outcome.error_column or 1)
            line, column = _shifted(*at, first_line, first_column)
            return Outcome(error=outcome.error, error_line=line, error_column=column)
        for site, offset in zip(outcome.sites, migrated.offsets, strict=True):
            line, column = _shifted(site.line, site.column, first_line, first_column)
            shifted = replace(site, line=line, column=column)
            script_sites.append((shifted, block, migrated.original, offset))
        if outcome.updated is not None:
            bodies.append((block, outcome.updated))
            parses.append((original, migrated.final))
    dropped = _dropped_names(source, layout, parses)
    if dropped:
        names = ", ".join(sorted(dropped))
        note = f"; not applied: the markup uses {names}, migrate markup and script together"
        held, script_markers = _held_back(script_sites, note)
        sites.extend(held)
        bodies = []  # no rewrite: only the markers go in
        markers = markers + script_markers
    else:
        sites.extend(site for site, _, _, _ in script_sites)
    sites.sort(key=lambda site: (site.line, site.column, site.rule))
    if not markers:
        return Outcome(splice(source, bodies) if bodies else None, tuple(sites))
    edits = [Edit(block.start, block.end, body) for block, body in bodies] + markers
    return Outcome(apply_edits(source, edits), tuple(sites))


def _held_back(
    script_sites: list[tuple[Site, ScriptBlock, Document, int]], note: str
) -> tuple[list[Site], list[Edit]]:
    """The script sites of a component whose rewrite is held back, all TODOs now (a
    rewritten one with `note` added), and the insertions (file offsets) of the `//`
    markers they lack, placed in the body as it was the way a rule places its own."""
    sites: list[Site] = []
    edits: dict[tuple[int, bytes], Edit] = {}  # one marker per line and text
    for site, block, document, offset in script_sites:
        if site.action is not Action.TODO:
            site = replace(site, action=Action.TODO, message=site.message + note)
        elif site.marked:
            sites.append(site)
            continue
        node = document.root.descendant_for_byte_range(offset, offset) or document.root
        edit = document.marker_edit(node, script_comment(site.rule, site.message), jsx=True)
        if edit is not None:
            moved = Edit(block.start + edit.start, block.start + edit.end, edit.text)
            edits.setdefault((moved.start, moved.text), moved)
        sites.append(replace(site, marked=edit is None))
    return sites, list(edits.values())


def _shifted(line: int, column: int, first_line: int, first_column: int) -> tuple[int, int]:
    """A body's line and column as the file's: the body starts at `first_line`, and its
    first line at `first_column` (after the `<script …>` tag)."""
    if line == 1:
        return first_line, first_column + column - 1
    return first_line + line - 1, column


def _markup_sites(
    source: bytes, layout: Layout, rules: frozenset[Rule], starts: list[int]
) -> tuple[list[Site], list[Edit]]:
    """A TODO for each whole-word trigger name in the markup (comments aside), and the
    insertions of the HTML comment markers that are not there yet (one per line and
    text). A site where no comment can go stays unmarked."""
    owners: dict[bytes, Rule] = {}
    for rule in Rule:  # a name two rules share is reported once, by the first
        if rule in rules:
            for trigger in TRIGGERS[rule]:
                owners.setdefault(trigger, rule)
    if not owners:
        return [], []
    pattern = re.compile(rb"(?<![\w$])(" + b"|".join(re.escape(t) for t in owners) + rb")(?![\w$])")
    sites = []
    placed: dict[tuple[int, str], markup.Placement] = {}
    for start, end in layout.markup(len(source)):
        for match in pattern.finditer(source, start, end):
            name = match.group(1)
            line, column = position_in(source, starts, match.start())
            message = (
                f"{name.decode()} in the markup: agui rewrites only the script, change this by hand"
            )
            rule = owners[name]
            index = markup.marker_line(layout, starts, match.start())
            present = False
            if index is not None:
                text = markup.comment(rule, message)
                if (index, text) not in placed:  # one look above a line per marker text
                    placed[index, text] = markup.place(source, starts, index, text)
                placement = placed[index, text]
                present = placement.present
            sites.append(Site(rule, line, column, message, Action.TODO, present))
    markers = [Edit(p.at, p.at, p.text) for p in placed.values() if not p.present]
    return sites, markers


def _dropped_names(
    source: bytes, layout: Layout, parses: list[tuple[Document, Document]]
) -> set[str]:
    """Names the markup mentions that a rewritten body (before, after) no longer binds or
    reads. Only markup words that are also words of the body can be such a name."""
    if not parses:
        return set()
    markup = layout.markup(len(source))
    words = {word for start, end in markup for word in _WORD.findall(source, start, end)}
    dropped: set[str] = set()
    for before, after in parses:
        for word in words & set(_WORD.findall(before.source)):
            name = word.decode()  # `_WORD` is ASCII
            if _binds(before, name) and not _binds(after, name):
                dropped.add(name)
    return dropped


def _binds(document: Document, name: str) -> bool:
    """Whether `name` occurs in the body as a variable (declared or read), not as a key,
    a member or inside a string."""
    return any(node.type in _BINDINGS for node in document.occurrences(name))
