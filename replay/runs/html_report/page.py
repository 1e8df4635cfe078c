"""Write the page: a head with its inline style and script, one `<article>` per run as the
runs come, and the summary last (the stylesheet shows it first).

Everything taken from a recording goes through `_e` (HTML-escaped, quotes included),
and the page's Content-Security-Policy allows only its own inline style and script (by
hash) and no network at all, so even a missed escape could neither run script nor load
anything. Long texts sit in `<template>`s inside folded sections: parsed but not
rendered until opened, which keeps a page for a large recording responsive.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from functools import cache
from html import escape
from importlib.resources import files
from typing import TextIO

from replay.runs.html_report.model import (
    FindingView,
    InterruptView,
    ResumeState,
    ResumeView,
    RunCard,
    Summary,
    ToolCallView,
)
from replay.wire.problems import Severity

MAX_NAMED_SOURCES = 5
"""Recordings named in the title and header; the rest are counted (`a.sse, … and 12 more`)."""
PREVIEW_CHARS = 120
"""Characters of a folded text shown in its one-line summary."""
OUTCOME_LABELS = {
    "success": "finished",
    "interrupt": "paused",
    "error": "failed",
    "unfinished": "never finished",
}
RESUME_NOTES = {
    ResumeState.ANSWERS: "",
    ResumeState.ANSWERS_AGAIN: "answered more than once",
    ResumeState.UNKNOWN_INTERRUPT: "its parent run has no interrupt with this id",
    ResumeState.PARENT_NOT_RECORDED: "the run it resumes is not in the recording",
}


LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point: JSON's `"\\ud800"` decodes to one, and a file name that is not
UTF-8 reaches `sys.argv` as them. UTF-8 cannot encode it, so the page shows U+FFFD, as a
browser does for a lone surrogate in a string."""


def _e(value: object) -> str:
    return LONE_SURROGATE.sub("\ufffd", escape(str(value), quote=True))


@cache
def _asset(name: str) -> str:
    return (files("replay.runs.html_report") / name).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _preview(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


class PageWriter:
    """Writes one report page to a text stream, a run card at a time."""

    def __init__(self, stream: TextIO) -> None:
        self._out = stream
        self._source: str | None = None

    def begin(self, sources: Sequence[str], *, native: bool) -> None:
        """The head, the page header and the opening of the runs' list."""
        style, script = _asset("page.css"), _asset("page.js")
        policy = (
            f"default-src 'none'; style-src {_csp_hash(style)};"
            f" script-src {_csp_hash(script)}; base-uri 'none'; form-action 'none'"
        )
        names = ", ".join(sources[:MAX_NAMED_SOURCES])
        if len(sources) > MAX_NAMED_SOURCES:
            names += f" and {len(sources) - MAX_NAMED_SOURCES} more"
        mode = " · legacy events viewed as native interrupts (--native)" if native else ""
        self._out.write(
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>agui replay: {_e(names)}</title>\n<style>{style}</style>\n</head>\n"
            "<body>\n<header>\n<h1>agui replay</h1>\n"
            f'<p class="sources">{_e(names)}{_e(mode)}</p>\n</header>\n<main id="runs">\n'
        )

    def card(self, card: RunCard) -> None:
        """One run."""
        out = self._out
        if card.source != self._source:
            self._source = card.source
            out.write(f'<h2 class="source">{_e(card.source)}</h2>\n')
        label = OUTCOME_LABELS.get(card.outcome, card.outcome)
        out.write(
            f'<article class="run outcome-{_e(card.outcome)}" id="{card.anchor}"'
            f' data-run-id="{_e(card.run_id)}" data-continues="{card.continues}">\n'
            f'<h3><span class="badge outcome">{_e(label)}</span> run <code>'
            f"{_e(card.run_id or '?')}</code>"
        )
        if card.translated:
            out.write(' <span class="badge translated">translated from legacy events</span>')
        out.write('</h3>\n<dl class="ids">')
        out.write(f"<dt>thread</dt><dd><code>{_e(card.thread_id or '?')}</code></dd>")
        if card.parent_run_id:
            parent = f"<code>{_e(card.parent_run_id)}</code>"
            if card.parent_anchor:
                parent = f'<a class="parent" href="#{card.parent_anchor}">{parent}</a>'
            else:
                parent += " (not in the recording)"
            out.write(f"<dt>parent</dt><dd>{parent}</dd>")
        ending = label
        if card.finish_reason:
            ending += f" ({card.finish_reason})"
        if card.error:
            ending += f": {card.error}"
        out.write(
            f'<dt>outcome</dt><dd class="ending">{_e(ending)}</dd>'
            f"<dt>events</dt><dd>{card.event_count}</dd></dl>\n"
        )
        if card.continues and card.continues_on_thread:
            out.write(
                f'<p class="continues">Follows the <a href="#{card.continues}">paused run</a>'
                " of its thread without naming it or sending resume entries (a legacy client"
                " answers in its messages): taken as its answer, as agui resume takes it.</p>\n"
            )
        elif card.continues:
            out.write(
                f'<p class="continues">Continues the <a href="#{card.continues}">paused run</a>;'
                " its request, with the resume entries, is not recorded.</p>\n"
            )
        if card.resume:
            out.write('<section class="resume">\n<h4>Resume entries</h4>\n<ul>\n')
            for entry in card.resume:
                self._resume(entry)
            out.write("</ul>\n</section>\n")
        for message in card.messages:
            self._fold(
                "text",
                f"{message.role}: {_preview(message.text)}",
                message.text,
                f"{len(message.text)} characters",
            )
        if card.tool_calls:
            out.write('<ul class="tools">\n')
            for call in card.tool_calls:
                self._tool(call)
            out.write("</ul>\n")
        for line in card.legacy_events:
            out.write(f'<p class="legacy">legacy {_e(line)}</p>\n')
        if card.interrupts:
            count = len(card.interrupts)
            noun = "interrupt" if count == 1 else "interrupts"
            out.write(
                f'<section class="interrupts">\n<h4>Paused, waiting for {count} {noun}</h4>\n'
            )
            for interrupt in card.interrupts:
                self._interrupt(interrupt)
            out.write("</section>\n")
        if card.findings:
            out.write('<h4>Findings</h4>\n<ul class="findings">\n')
            for finding in card.findings:
                self._finding(finding)
            out.write("</ul>\n")
        out.write("</article>\n")

    def end(self, summary: Summary) -> None:
        """The summary (shown at the top), the script, and the end of the page."""
        out = self._out
        out.write('</main>\n<section id="summary">\n<h2>Summary</h2>\n<p class="totals">')
        out.write(
            f"{summary.runs} run{'' if summary.runs == 1 else 's'},"
            f" {summary.paused} paused, {summary.interrupts} interrupt"
            f"{'' if summary.interrupts == 1 else 's'}"
        )
        if summary.unanswered:
            out.write(f', <span class="alert">{summary.unanswered} unanswered</span>')
        if summary.continued:
            out.write(f", {summary.continued} continued without recorded answers")
        if summary.answered_twice:
            out.write(
                f', <span class="alert">{summary.answered_twice} answered more than once</span>'
            )
        out.write("</p>\n")
        if summary.pauses:
            out.write('<h3>Pauses</h3>\n<ol class="pauses">\n')
            for pause in summary.pauses:
                out.write(
                    f'<li><a class="pause-link" href="#{pause.anchor}">'
                    f"<code>{_e(pause.interrupt_id or '?')}</code></a> in run"
                    f" <code>{_e(pause.run_id or '?')}</code>"
                    f' <span class="status" data-of="{pause.anchor}"></span></li>\n'
                )
            if summary.interrupts > len(summary.pauses):
                out.write(f"<li>… {summary.interrupts - len(summary.pauses)} more</li>\n")
            out.write("</ol>\n")
        out.write('<fieldset class="filter"><legend>Findings</legend>')
        for severity in Severity:
            count = summary.counts.get(severity, 0)
            out.write(
                f'<label class="sev-{severity.value}"><input type="checkbox" checked'
                f' data-severity="{severity.value}"> {count} {severity.value}'
                f"{'' if count == 1 else 's'}</label> "
            )
        out.write("</fieldset>\n")
        if summary.rules:
            out.write('<table class="rules"><thead><tr><th>rule</th><th>severity</th>')
            out.write("<th>count</th></tr></thead><tbody>\n")
            for rule in summary.rules:
                name = f"<code>{_e(rule.rule)}</code>"
                if rule.first:
                    name = f'<a href="#{rule.first}">{name}</a>'
                out.write(
                    f'<tr class="finding sev-{rule.severity.value}"><td>{name}</td>'
                    f"<td>{rule.severity.value}</td><td>{rule.count}</td></tr>\n"
                )
            out.write("</tbody></table>\n")
        if summary.loose:
            out.write('<h3>Outside any run</h3>\n<ul class="findings">\n')
            for finding in summary.loose:
                self._finding(finding)
            out.write("</ul>\n")
        out.write(f"</section>\n<script>{_asset('page.js')}</script>\n</body>\n</html>\n")

    # -- parts ---------------------------------------------------------------------------

    def _fold(self, kind: str, summary: str, body: str, size: str = "") -> None:
        """A folded section; its body is only rendered when opened (`page.js`)."""
        extra = f' <span class="size">{_e(size)}</span>' if size else ""
        self._out.write(
            f'<details class="lazy {kind}"><summary>{_e(summary)}{extra}</summary>'
            f"<template><pre>{_e(body)}</pre></template></details>\n"
        )

    def _tool(self, call: ToolCallView) -> None:
        out = self._out
        out.write(
            f'<li class="tool"><span class="tool-name">tool <code>{_e(call.name or "?")}</code>'
            f'</span> <code class="call-id">{_e(call.id)}</code>\n'
        )
        self._fold("arguments", f"arguments {_preview(call.arguments)}", call.arguments)
        if call.result is not None:
            self._fold("result", f"result {_preview(call.result)}", call.result)
        out.write("</li>\n")

    def _interrupt(self, view: InterruptView) -> None:
        out = self._out
        out.write(
            f'<article class="interrupt" id="{view.anchor}" data-interrupt-id="{_e(view.id)}">\n'
            f'<h5>interrupt <code class="interrupt-id">{_e(view.id or "?")}</code>'
            f' <span class="badge kind">{_e(view.kind)}</span>'
        )
        if view.translated:
            out.write(' <span class="badge translated">translated</span>')
        out.write(' <span class="status"></span></h5>\n<dl>')
        rows = (
            ("reason", view.reason),
            ("message", view.message),
            ("toolCallId", view.tool_call_id),
            ("tool", view.tool_name),
            ("expiresAt", view.expires_at),
            ("answered by", view.answered_by),
        )
        for name, value in rows:
            if value:
                out.write(f'<dt>{name}</dt><dd class="{name.replace(" ", "-")}">{_e(value)}</dd>')
        out.write("</dl>\n")
        if view.response_schema:
            out.write(
                '<div class="schema"><span>responseSchema</span>'
                f'<pre class="outline">{_e(view.response_schema)}</pre></div>\n'
            )
        self._fold("descriptor", "whole descriptor", view.descriptor)
        out.write(
            '<p class="answers"><span>answers in this recording:</span>'
            ' <span class="answer-links"></span></p>\n</article>\n'
        )

    def _resume(self, view: ResumeView) -> None:
        out = self._out
        out.write(
            f'<li class="resume-entry state-{view.state.value}" id="{view.anchor}"'
            f' data-target="{view.target}">'
        )
        label = f"answers <code>{_e(view.interrupt_id or '?')}</code>"
        if view.target:
            label = f'<a class="to-interrupt" href="#{view.target}">{label}</a>'
        out.write(f'{label}: <strong class="resume-status">{_e(view.status or "?")}</strong>')
        note = RESUME_NOTES[view.state]
        if note:
            out.write(f' <span class="note">{_e(note)}</span>')
        for earlier in view.earlier:
            out.write(f' <a class="earlier" href="#{earlier}">earlier answer</a>')
        if view.payload:
            out.write(f'<pre class="payload">{_e(view.payload)}</pre>')
        out.write("</li>\n")

    def _finding(self, view: FindingView) -> None:
        self._out.write(
            f'<li class="finding sev-{view.severity.value}" id="{view.anchor}">'
            f'<span class="severity">{view.severity.value}</span>'
            f' <code class="rule">{_e(view.rule)}</code>'
            f' <span class="message">{_e(view.message)}</span>'
            f' <span class="where">{_e(view.where)}</span></li>\n'
        )
