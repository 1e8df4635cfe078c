"""`agui migrate` over the sample project in examples/migrate, as a new user would run it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.app import app

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "migrate"
runner = CliRunner()
DEMO = "import json, approval_desk.main as m; print(json.dumps(m.run_demo()))"


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the sample project; the working directory is its parent."""
    copy = tmp_path / "migrate"
    shutil.copytree(SAMPLE, copy)
    monkeypatch.chdir(tmp_path)
    return copy


def migrate(*args: str, input: bytes | None = None) -> Result:
    return runner.invoke(app, ["migrate", *args], input=input)


def demo(project: Path) -> object:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, approval_desk.main as m; print(json.dumps(m.run_demo()))",
        ],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_dry_run_prints_a_diff_git_applies_and_reports_the_broken_file(sample: Path) -> None:
    before = snapshot(sample)
    result = migrate("migrate")
    assert result.exit_code == 2  # drafts/half_done.py does not parse
    assert snapshot(sample) == before  # a dry run writes nothing
    assert result.stdout.startswith("diff --git a/migrate/approval_desk/batch.py ")
    assert (
        "migrate/approval_desk/drafts/half_done.py:4:38: "
        "syntax error at line 4, column 38: '(' was never closed\n"
    ) in result.stderr
    # Every site that could not be rewritten is listed, where it is in the file as read.
    assert "migrate/approval_desk/review.py:51:16: AG001 TODO: move this approval" in result.stderr
    assert "migrate/approval_desk/batch.py:15:5: AG005 TODO: answer this approval" in result.stderr
    assert "migrate/approval_desk/recovery.py:11:19: AG004 TODO: renamed" in result.stderr
    assert "policy: approved=False → resolve_interrupt(False)" in result.stderr
    if shutil.which("git") is None:
        pytest.skip("needs git")
    patch = sample.parent / "p.diff"
    patch.write_bytes(result.stdout_bytes)
    subprocess.run(["git", "apply", "p.diff"], cwd=sample.parent, check=True, capture_output=True)
    applied = snapshot(sample)
    assert applied != before
    # --write produces exactly what the applied diff produced.
    for name, data in before.items():
        (sample / name).write_bytes(data)
    assert migrate("--write", "migrate").exit_code == 2
    assert snapshot(sample) == applied


def test_write_keeps_the_app_working_and_check_passes_afterwards(sample: Path) -> None:
    expected = demo(sample)
    assert migrate("--check", "--exclude", "drafts", "migrate").exit_code == 1
    written = migrate("--write", "--exclude", "drafts", "migrate")
    assert written.exit_code == 0, written.stderr
    assert written.stdout == ""
    assert demo(sample) == expected  # same submissions, same reads, before and after
    review = (sample / "approval_desk" / "review.py").read_text(encoding="utf-8")
    assert "add_tool_approval_response(id=approval_id, approved=True) is not None" in review
    assert "# TODO(agui): AG001 " in review
    audit = (sample / "approval_desk" / "audit.py").read_text(encoding="utf-8")
    assert "audit.pending_interrupts" in audit  # not a configured receiver
    after = snapshot(sample)
    check = migrate("--check", "--exclude", "drafts", "migrate")
    assert check.exit_code == 0, check.stderr
    assert check.stdout == ""
    assert "TODO (already marked)" in check.stderr
    assert migrate("--write", "--exclude", "drafts", "migrate").exit_code == 0
    assert snapshot(sample) == after  # idempotent


def test_check_prints_nothing_on_stdout(sample: Path) -> None:
    result = migrate("--check", "migrate/approval_desk/state.py")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "would change" in result.stderr
    clean = migrate("--check", "migrate/approval_desk/util.py")
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_json_lines(sample: Path) -> None:
    result = migrate("--format", "json", "migrate")
    assert result.exit_code == 2
    records = [json.loads(line) for line in result.stdout.splitlines()]
    failures = [r for r in records if r["type"] == "failure"]
    assert [(f["file"], f["line"]) for f in failures] == [
        ("migrate/approval_desk/drafts/half_done.py", 4)
    ]
    sites = [r for r in records if r["type"] == "site"]
    assert {r["rule"] for r in sites} == {"AG001", "AG002", "AG003", "AG004", "AG005", "AG006"}
    assert {r["action"] for r in sites} == {"rewritten", "todo"}
    first = next(r for r in sites if r["file"].endswith("state.py"))
    assert (first["line"], first["column"], first["rule"]) == (9, 23, "AG002")


def test_sarif(sample: Path) -> None:
    result = migrate("--format", "sarif", "--exclude", "drafts", "migrate")
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    results = log["runs"][0]["results"]
    assert results
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] > 0 for r in results)
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_github_annotations(sample: Path) -> None:
    result = migrate("--format", "github", "migrate/approval_desk/recovery.py")
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "::warning file=migrate/approval_desk/recovery.py,line=11,col=19,title=AG004 "
    )


def annotation_properties(line: str) -> dict[str, str]:
    """The properties of one workflow command, split and unescaped the way the
    Actions runner reads them (`,` between properties, the first `=` in each)."""
    properties = line.removeprefix("::").split("::", 1)[0].split(" ", 1)[1]
    unescape = {"%3A": ":", "%2C": ",", "%0D": "\r", "%0A": "\n", "%25": "%"}
    values = {}
    for item in properties.split(","):
        key, value = item.split("=", 1)
        for code, char in unescape.items():
            value = value.replace(code, char)
        values[key] = value
    return values


def test_github_annotation_file_with_comma_and_colon(sample: Path) -> None:
    odd = sample.parent / "a,b:c"
    sample.rename(odd)
    result = migrate("--format", "github", "a,b:c/approval_desk/recovery.py")
    assert result.exit_code == 0
    first = annotation_properties(result.stdout.splitlines()[0])
    assert first["file"] == "a,b:c/approval_desk/recovery.py"
    assert (first["line"], first["col"]) == ("11", "19")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_name_that_is_not_utf8_gets_a_patch_and_a_sarif_uri(sample: Path) -> None:
    # b"\xffr.py" on disk; Python holds the name as a lone surrogate, which UTF-8 cannot
    # encode: the diff and the SARIF log used to die with a traceback.
    subprocess.run(["git", "init", "-q"], cwd=sample.parent, check=True)
    odd = sample.parent / "\udcffr.py"
    shutil.copy(sample / "approval_desk" / "recovery.py", odd)
    before = odd.read_bytes()
    diff = migrate("--format", "diff", odd.name)
    assert diff.exit_code == 0, diff.output
    assert diff.stdout_bytes.startswith(b"diff --git a/\xffr.py b/\xffr.py\n")
    (sample.parent / "p.diff").write_bytes(diff.stdout_bytes)
    subprocess.run(["git", "apply", "p.diff"], cwd=sample.parent, check=True)
    assert odd.read_bytes() != before
    odd.write_bytes(before)
    log = migrate("--format", "sarif", odd.name)
    assert log.exit_code == 0, log.output
    [uri] = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in json.loads(log.stdout)["runs"][0]["results"]
        for location in result["locations"]
    }
    assert uri == "%FFr.py"


def test_select_ignore_and_false_as(sample: Path) -> None:
    only = migrate("--select", "AG002", "--format", "json", "migrate/approval_desk")
    rules = {json.loads(line).get("rule") for line in only.stdout.splitlines()}
    assert rules == {"AG002"}  # the broken draft never mentions pending_interrupts: skipped
    ignored = migrate("--ignore", "AG001,AG005", "--format", "json", "migrate/approval_desk")
    rules = {json.loads(line).get("rule") for line in ignored.stdout.splitlines()}
    assert rules.isdisjoint({"AG001", "AG005"})
    cancel = migrate("--false-as", "cancel", "migrate/approval_desk/review.py")
    assert "interrupt.cancel()" in cancel.stdout
    assert "policy: approved=False → cancel()" in cancel.stderr


def test_stdin_to_stdout(sample: Path) -> None:
    source = b"def f(client):\r\n    return client.get_pending_interrupts()\r\n"
    result = migrate("-", input=source)
    assert result.exit_code == 0
    assert result.stdout_bytes == source.replace(b"get_pending_interrupts", b"get_interrupts")
    assert migrate("--check", "-", input=source).exit_code == 1
    assert migrate("--check", "-", input=b"x = 1\n").exit_code == 0
    broken = migrate("-", input=b"def f(:\n    client.pending_interrupts\n")
    assert broken.exit_code == 2
    assert broken.stderr.startswith("agui: <stdin>:")


TSX_ON_STDIN = b"""\
import { useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Approve({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({ connection, tools })
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>ok</button>
}
"""


def test_stdin_filename_picks_the_language(sample: Path) -> None:
    # without it a .tsx on stdin was read as Python: "skipped (no legacy names)", exit 0
    plain = migrate("--check", "-", input=TSX_ON_STDIN)
    assert plain.exit_code == 0
    named = migrate("--stdin-filename", "Approve.tsx", "-", input=TSX_ON_STDIN)
    assert named.exit_code == 0, named.stderr
    assert "addToolApprovalResponse" not in named.stdout
    assert "?.resolveInterrupt(true)" in named.stdout
    check = migrate("--check", "--stdin-filename", "Approve.tsx", "-", input=TSX_ON_STDIN)
    assert check.exit_code == 1
    sites = migrate("--json", "--stdin-filename", "Approve.tsx", "-", input=TSX_ON_STDIN)
    assert [json.loads(line)["file"] for line in sites.stdout.splitlines()] == ["Approve.tsx"]
    alone = migrate("--stdin-filename", "Approve.tsx", "migrate")
    assert alone.exit_code == 2
    assert alone.stderr == (
        "agui: --stdin-filename names what '-' (stdin) holds; read stdin with '-'\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--write", "--check", "migrate"], "--write and --check cannot be combined"),
        (["--select", "AG042", "migrate"], "--select: unknown rule 'AG042'"),
        (["nowhere"], "nowhere: no such file or directory"),
        (["-j", "-1", "migrate"], "--jobs must be 0"),
    ],
)
def test_usage_errors_are_one_line(sample: Path, args: list[str], message: str) -> None:
    result = migrate(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [f"agui: {message}"] or message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--check", "--select", "", "migrate"],
        ["--check", "--select", " , ", "migrate"],
        ["--check", "--select", "AG001", "--ignore", "AG001", "migrate"],
    ],
)
def test_no_rule_left_is_refused_not_a_vacuous_pass(sample: Path, args: list[str]) -> None:
    # an empty `--select "$RULES"` in CI used to scan every file with no rule and exit 0
    result = migrate(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "agui: no rule left to run: --select/--ignore leave none"
        " (known: AG001, AG002, AG003, AG004, AG005, AG006)\n"
    )


def test_bad_config_is_one_line(sample: Path) -> None:
    (sample / "pyproject.toml").write_text("[tool.agui.migrate]\nfalse-as = 'deny'\n")
    result = migrate("migrate")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert 'false-as: expected "denial" or "cancel"' in result.stderr


def test_summary_on_a_pipe_is_plain_lines(sample: Path) -> None:
    # piped (a CI log), the summary used to be rich tables: box drawing, and titles wrapped
    # at 80 columns ("Call get_interrupts instead of" / "get_pending_interrupts")
    agui = Path(sys.executable).with_name("agui")
    done = subprocess.run(
        [str(agui), "migrate", "--exclude", "drafts", "migrate"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not set(done.stderr) & set("│┃━─┏┡└╇"), done.stderr
    lines = done.stderr.splitlines()
    table = lines[lines.index("agui migrate") :]
    assert table[1:6] == [
        "files                      count",
        "scanned                       10",
        "skipped (no legacy names)      3",
        "would change                   5",
        "failed                         0",
    ]
    assert (
        "AG003  Call get_interrupts instead of get_pending_interrupts           1      0" in table
    )
    assert table[-1].startswith("policy: approved=False")


@pytest.mark.parametrize(
    ("files", "false_as", "expected"),
    [
        (["a.ts"], "denial", "policy: approved: false → resolveInterrupt(false), a denial"),
        (["a.ts"], "cancel", "policy: approved: false → cancel(), a payloadless cancel"),
        (["a.py"], "denial", "policy: approved=False → resolve_interrupt(False), a denial"),
        (
            ["a.py", "b.tsx"],
            "denial",
            "policy: approved=False → resolve_interrupt(False) "
            "(TS/JS: approved: false → resolveInterrupt(false)), a denial",
        ),
    ],
)
def test_the_policy_line_is_spelled_as_the_files_read_spell_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: list[str], false_as: str, expected: str
) -> None:
    # A TypeScript-only run was told about `resolve_interrupt(False)`, which it never wrote.
    monkeypatch.chdir(tmp_path)
    for name in files:
        (tmp_path / name).write_text("x = 1\n")  # valid in both languages
    result = CliRunner().invoke(app, ["migrate", "--false-as", false_as, "."])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1].startswith(expected), result.stderr
