"""Check results as text, JSON, SARIF 2.1.0 or JUnit XML: pure functions from findings to strings.

Each report lists every finding with its rule, severity, message and location. SARIF
carries the rule catalog and file/line/column regions (a finding inside a HAR entry
points at the line where that entry starts in the HAR file, since its own line numbers
count inside the embedded response body).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from replay.runs.rules import RULES, RULES_BY_ID, effective_severity
from replay.wire.problems import Problem, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTICE: "note"}
TOOL_NAME = "agui"


def summary(problems: Sequence[Problem], *, strict: bool = False) -> dict[str, int]:
    """How many findings of each effective severity."""
    counts = Counter(effective_severity(p, strict=strict).value for p in problems)
    return {severity.value: counts.get(severity.value, 0) for severity in Severity}


def summary_line(counts: Mapping[Severity, int]) -> str:
    """`2 errors, 1 warning, 0 notices` (effective severities counted) — for stderr."""
    parts = []
    for severity in Severity:
        count = counts.get(severity, 0)
        parts.append(f"{count} {severity.value}{'' if count == 1 else 's'}")
    return ", ".join(parts)


def sort_findings(problems: Sequence[Problem], sources: Sequence[str]) -> list[Problem]:
    """Findings in reading order: by recording (as given), then byte offset; stable."""
    rank = {source: position for position, source in enumerate(sources)}

    def key(problem: Problem) -> tuple[int, int]:
        location = problem.location
        if location is None:
            return (len(rank), 0)
        base = location.source.split("#entry", 1)[0]
        entry = location.source[len(base) :]
        number = int(entry[len("#entry") :]) if entry[len("#entry") :].isdigit() else 0
        return (rank.get(base, len(rank)), number * (1 << 40) + location.offset)

    return sorted(problems, key=key)


def text_report(problems: Sequence[Problem], *, strict: bool = False) -> str:
    """One line per finding: `file:line: event N: severity: message [rule]`."""
    lines = []
    for problem in problems:
        severity = effective_severity(problem, strict=strict).value
        where = f"{problem.location}: " if problem.location is not None else ""
        lines.append(f"{where}{severity}: {problem.message} [{problem.rule}]\n")
    return "".join(lines)


def _finding_json(problem: Problem, *, strict: bool) -> dict[str, Any]:
    location = problem.location
    return {
        "rule": problem.rule,
        "severity": effective_severity(problem, strict=strict).value,
        "message": problem.message,
        "source": location.source if location else None,
        "line": location.line if location and location.line else None,
        "offset": location.offset if location else None,
        "index": location.index if location and location.index >= 0 else None,
    }


def json_report(
    problems: Sequence[Problem], sources: Sequence[str], *, strict: bool = False
) -> str:
    """A JSON document: sources, summary counts and every finding."""
    document = {
        "version": 1,
        "sources": list(sources),
        "strict": strict,
        "summary": summary(problems, strict=strict),
        "findings": [_finding_json(p, strict=strict) for p in problems],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _artifact(source: str) -> tuple[str, bool]:
    """The file a location's source names, and whether its lines are the file's lines."""
    if "#entry" in source:
        return source.split("#entry", 1)[0], False
    return source, True


def _uri_reference(path: str) -> str:
    """`path` as a URI reference: every byte but letters, digits, `-._~` and `/`
    percent-encoded. The bytes are the file name's own (`os.fsencode`), so a name that is
    not UTF-8 (argv holds it as lone surrogates) still names its file; a `:` is encoded
    too, since in a first segment (`run:1.sse`) it would read as a URI scheme."""
    return quote(os.fsencode(path), safe="/")


def har_entry_lines(text: str) -> list[int]:
    """The 1-based line on which each element of a HAR's `log.entries` starts.

    A finding inside a HAR entry counts lines inside the entry's embedded response
    body; in the HAR file itself the entry's own position is the region a viewer can
    open. A scan rather than a parse, because `json` reports no positions.
    """
    lines: list[int] = []
    line = 1
    # Per open container: "[" or "{", and for an object the last key read in it.
    stack: list[list[str]] = []
    key: str | None = None
    expect_key = False
    position = 0
    while (found := _HAR_TOKEN.search(text, position)) is not None:
        token = found.group()
        line += text.count("\n", position, found.start())
        position = found.end()
        if token.startswith('"'):
            line += token.count("\n")
            if stack and stack[-1][0] == "{" and expect_key:
                key = token[1:-1]
            continue
        if token == ":":
            expect_key = False
            if stack and key is not None:
                stack[-1][1:] = [key]
        elif token == ",":
            expect_key = bool(stack) and stack[-1][0] == "{"
        elif token in "{[":
            if (
                token == "{"
                and len(stack) == 3
                and stack[0][1:] == ["log"]
                and stack[1][1:] == ["entries"]
                and stack[2][0] == "["
            ):
                lines.append(line)
            stack.append([token])
            expect_key = token == "{"
            key = None
        elif token in "}]" and stack:
            stack.pop()
            expect_key = False
    return lines


_HAR_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def sarif_report(
    problems: Sequence[Problem],
    *,
    strict: bool = False,
    version: str = "",
    entry_lines: Mapping[str, Sequence[int]] | None = None,
) -> str:
    """SARIF 2.1.0: the rule catalog plus one result per finding with its region.

    `entry_lines` (a HAR file → `har_entry_lines` of it) gives a finding inside a HAR
    entry the entry's line in the HAR file as its region."""
    rule_index = {rule.id: position for position, rule in enumerate(RULES)}
    results = []
    for problem in problems:
        result: dict[str, Any] = {
            "ruleId": problem.rule,
            "level": SARIF_LEVELS[effective_severity(problem, strict=strict)],
            "message": {"text": problem.message},
        }
        if problem.rule in rule_index:
            result["ruleIndex"] = rule_index[problem.rule]
        location = problem.location
        if location is not None:
            uri, has_lines = _artifact(location.source)
            physical: dict[str, Any] = {"artifactLocation": {"uri": _uri_reference(uri)}}
            if has_lines and location.line:
                physical["region"] = {
                    "startLine": location.line,
                    "startColumn": 1,
                    "byteOffset": location.offset,
                }
            elif not has_lines and entry_lines is not None:
                number = location.source.rsplit("#entry", 1)[1]
                starts = entry_lines.get(uri, ())
                if number.isdigit() and int(number) < len(starts):
                    physical["region"] = {"startLine": starts[int(number)]}
            result["locations"] = [{"physicalLocation": physical}]
            if location.index >= 0:
                result["properties"] = {"eventIndex": location.index, "source": location.source}
        results.append(result)
    driver: dict[str, Any] = {
        "name": TOOL_NAME,
        "rules": [
            {
                "id": rule.id,
                "shortDescription": {"text": rule.title},
                "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity]},
                "properties": {"group": rule.group.value},
            }
            for rule in RULES
        ],
    }
    if version:
        driver["version"] = version
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot carry at all, not even as character references."""


def _xml_text(text: str) -> str:
    """`text` with what XML 1.0 forbids written as a visible escape (`\\x1b`, `\\ud800`):
    a message quotes the recording, which may hold an ESC, and one such character would
    make the whole report unreadable to every JUnit consumer."""
    return _NOT_XML.sub(lambda found: _escape(found.group()), text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def junit_report(
    problems: Sequence[Problem], sources: Sequence[str], *, strict: bool = False
) -> str:
    """JUnit XML: one test case per recording; failing findings become its failures."""
    from xml.etree import ElementTree  # only this report needs it (about 1.5 ms to import)

    by_source: dict[str, list[Problem]] = {source: [] for source in sources}
    rank = {source: position for position, source in reversed(list(enumerate(sources)))}
    for problem in problems:
        source = problem.location.source if problem.location else ""
        by_source.setdefault(_owner(source, rank), []).append(problem)
    suite = ElementTree.Element("testsuite", name="agui replay --check")
    failures = 0
    for source, found in by_source.items():
        case = ElementTree.SubElement(
            suite, "testcase", classname="agui.replay", name=_xml_text(source)
        )
        # One pass, no membership tests: linear in the number of findings.
        failing: list[Problem] = []
        others: list[Problem] = []
        for problem in found:
            is_error = effective_severity(problem, strict=strict) is Severity.ERROR
            (failing if is_error else others).append(problem)
        if failing:
            failures += 1
            failure = ElementTree.SubElement(
                case,
                "failure",
                # What fails the case (errors; warnings too under --strict): the
                # other findings are its output, not counted here.
                message=f"{len(failing)} error{'s' if len(failing) != 1 else ''}",
                type=failing[0].rule,
            )
            failure.text = _xml_text("\n".join(str(p) for p in failing))
        if others:
            out = ElementTree.SubElement(case, "system-out")
            out.text = _xml_text("\n".join(f"{p.severity.value}: {p}" for p in others))
    suite.set("tests", str(len(by_source)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    root = ElementTree.Element("testsuites")
    root.append(suite)
    ElementTree.indent(root)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + ElementTree.tostring(root, encoding="unicode")
        + "\n"
    )


def _owner(source: str, rank: dict[str, int]) -> str:
    """The first recording (in `rank`'s order) a finding's source names: itself, or the
    part before a `#` (a HAR entry: `session.har#entry3`)."""
    candidates = [source] + [source[:at] for at, char in enumerate(source) if char == "#"]
    known = [name for name in candidates if name in rank]
    if not known:
        return source or "agui"
    return min(known, key=rank.__getitem__)


def rule_title(rule_id: str) -> str:
    """The catalog title of a rule, or an empty string for an unknown id."""
    found = RULES_BY_ID.get(rule_id)
    return found.title if found else ""
