"""Text renderings of migrate results for tools: unified diffs, JSON lines, SARIF, GitHub.

Pure functions from `FileResult`s to strings; the CLI writes them to stdout.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

from codemods import RULE_TITLES, Rule, anchor
from codemods.runner import FileResult, FileStatus
from codemods.site import Action

NO_NEWLINE = "\\ No newline at end of file\n"
GIT_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
"""One line as git counts lines: up to and including a LF. A lone CR, a form feed, a
vertical tab or a 0x85 byte (in UTF-8 the last byte of Cyrillic ha, `Å`, `ą`…) is text inside
the line to git, though `str.splitlines` would cut there."""
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
GIT_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}
"""Bytes of a quoted file name git writes as a letter after a backslash (`\\n`, `\\"`)."""


def display_path(path: str, cwd: str | None = None) -> str:
    """The path relative to the working directory, with forward slashes."""
    relative = os.path.relpath(os.path.abspath(path), cwd or os.getcwd())
    return relative.replace(os.sep, "/")


def shown_path(path: str) -> str:
    """How a path appears in a message to a person: relative to the working directory
    when it lies inside it, else absolute (`../../tmp/x.py` reads worse than `/tmp/x.py`
    and means the same)."""
    relative = display_path(path)
    if relative == ".." or relative.startswith("../"):
        return os.path.abspath(path).replace(os.sep, "/")
    return relative


def repository_root(start: str | None = None) -> str:
    """The git work tree around `start` (default: the working directory), else `start`.

    `git apply` reads a patch's paths from the root of the repository wherever it is
    run, and GitHub and SARIF viewers resolve paths from there too; outside a
    repository the working directory is the only root there is.
    """
    here = os.path.abspath(start or os.getcwd())
    probe = here
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return here
        probe = parent


def unified_diff(result: FileResult, cwd: str | None = None) -> bytes:
    """A diff `git apply` accepts (a/ and b/ prefixes, paths relative to `cwd`, by
    default the repository root: see `repository_root`).

    Bytes, not text: a patch must carry the file's own bytes (any encoding, BOM, CRLF),
    so lines are diffed as latin-1, which maps every byte to one character and back,
    and cut where git cuts them (`GIT_LINE`), else the patch would not apply.
    """
    if result.original is None or result.updated is None:
        return b""
    # The name's own bytes (`os.fsencode`): one that is not UTF-8 sits in `str` as lone
    # surrogates, and the patch must name the file git finds on disk.
    path = os.fsencode(display_path(result.path, cwd or repository_root()))
    before, after = git_quoted(b"a/" + path), git_quoted(b"b/" + path)
    old = GIT_LINE.findall(result.original.decode("latin-1"))
    new = GIT_LINE.findall(result.updated.decode("latin-1"))
    out = [f"diff --git {before} {after}\n"]
    for line in difflib.unified_diff(old, new, before, after, n=3):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n" + NO_NEWLINE)
    return "".join(out).encode("latin-1")


def git_quoted(name: bytes) -> str:
    """A patch's file name as git writes it (as latin-1 text, one character a byte): as
    is, unless a control character, `"` or `\\` is in it; then in double quotes with C
    escapes (octal for other control and non-ASCII bytes), which `git apply` reads back.
    Written as is, a line break in a file name would end the header line and start a
    line of the patch's own."""
    if not any(byte < 0x20 or byte == 0x7F or byte in b'"\\' for byte in name):
        return name.decode("latin-1")
    quoted = "".join(
        "\\" + GIT_ESCAPES[byte]
        if byte in GIT_ESCAPES
        else chr(byte)
        if 0x20 <= byte < 0x7F
        else f"\\{byte:03o}"
        for byte in name
    )
    return f'"{quoted}"'


def json_lines(results: Iterable[FileResult], cwd: str | None = None) -> str:
    """One JSON object per site and per failed file, one per line."""
    lines = []
    for result in results:
        path = display_path(result.path, cwd)
        if result.status is FileStatus.FAILED:
            lines.append(
                {
                    "type": "failure",
                    "file": path,
                    "line": result.error_line,
                    "column": result.error_column,
                    "message": result.error,
                }
            )
        for site in result.sites:
            lines.append(
                {
                    "type": "site",
                    "file": path,
                    "line": site.line,
                    "column": site.column,
                    "rule": site.rule.value,
                    "title": RULE_TITLES[site.rule],
                    "message": site.message,
                    "action": site.action.value,
                    "marked": site.marked,
                }
            )
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def github_annotations(results: Iterable[FileResult], cwd: str | None = None) -> str:
    """GitHub Actions workflow commands: a warning per TODO, a notice per rewrite.

    Paths are relative to the repository root, where GitHub resolves them."""
    out = []
    root = cwd or repository_root()
    for result in results:
        # A property value: a `,` or `:` in a directory name would otherwise end it.
        path = _escape(display_path(result.path, root), True)
        if result.status is FileStatus.FAILED:
            where = f"file={path}"
            if result.error_line is not None:
                where += f",line={result.error_line},col={result.error_column}"
            out.append(f"::error {where},title=agui migrate::{_escape(result.error or '')}\n")
        for site in result.sites:
            level = "warning" if site.action is Action.TODO else "notice"
            title = f"{site.rule.value} {RULE_TITLES[site.rule]}"
            out.append(
                f"::{level} file={path},line={site.line},col={site.column},"
                f"title={_escape(title, True)}::{_escape(site.message)}\n"
            )
    return "".join(out)


def _escape(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def sarif(results: Sequence[FileResult], version: str, cwd: str | None = None) -> str:
    """A SARIF 2.1.0 log: one result per site, failed files as tool notifications."""
    rules = list(Rule)
    sarif_results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    root = cwd or repository_root()
    for result in results:
        # A URI reference: spaces, `#`, `%` and non-ASCII characters are percent-encoded,
        # from the name's own bytes (a name that is not UTF-8 cannot be encoded as UTF-8).
        uri = quote(os.fsencode(display_path(result.path, root)), safe="/")
        location = {"artifactLocation": {"uri": uri}}
        if result.status is FileStatus.FAILED:
            physical: dict[str, Any] = dict(location)
            if result.error_line is not None:
                physical["region"] = {
                    "startLine": result.error_line,
                    "startColumn": result.error_column or 1,
                }
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": result.error or "failed"},
                    "locations": [{"physicalLocation": physical}],
                }
            )
        for site in result.sites:
            sarif_results.append(
                {
                    "ruleId": site.rule.value,
                    "ruleIndex": rules.index(site.rule),
                    "level": "warning" if site.action is Action.TODO else "note",
                    "kind": "review" if site.action is Action.TODO else "informational",
                    "message": {"text": site.message},
                    "properties": {"action": site.action.value, "marked": site.marked},
                    "locations": [
                        {
                            "physicalLocation": {
                                **location,
                                "region": {"startLine": site.line, "startColumn": site.column},
                            }
                        }
                    ],
                }
            )
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agui migrate",
                        "version": version,
                        "rules": [
                            {
                                "id": rule.value,
                                "name": RULE_TITLES[rule].replace(" ", ""),
                                "shortDescription": {"text": RULE_TITLES[rule]},
                                "help": {"text": f"agui README, section {anchor(rule)}"},
                            }
                            for rule in rules
                        ],
                    }
                },
                # Columns count characters (code points), as --json and the summary do;
                # said explicitly, since SARIF readers otherwise assume UTF-16 units.
                "columnKind": "unicodeCodePoints",
                "invocations": [
                    {
                        "executionSuccessful": not notifications,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
