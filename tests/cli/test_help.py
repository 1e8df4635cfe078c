"""Help pages that teach and usage errors in one line (cli/help_style.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli.app import app

COMMANDS = ["replay", "translate", "resume", "migrate", "proxy"]
runner = CliRunner()


def help_page(command: str, width: int = 100) -> str:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": str(width), "NO_COLOR": "1"})
    assert result.exit_code == 0
    return result.stdout


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("width", [80, 200])
def test_no_python_types_and_plain_usage(command: str, width: int) -> None:
    page = help_page(command, width)
    for leak in ("<bool>", "<str>", "<int>", "<float>", "<path>", "<list", "list[", "{"):
        assert leak not in page, leak
    usage = next(line for line in page.splitlines() if "Usage:" in line)
    assert "..." not in usage or re.search(r"[A-Z]+\.\.\.", usage)


@pytest.mark.parametrize("command", COMMANDS)
def test_values_have_a_word_flags_none_and_repeatable_options_say_so(command: str) -> None:
    group = typer.main.get_command(app)
    cli_command = group.commands[command]  # type: ignore[attr-defined]
    page = help_page(command, 200)
    for param in cli_command.params:
        if param.param_type_name != "option" or param.hidden or param.name == "help":
            continue
        name = max(param.opts, key=len)
        row = next(
            line for line in page.splitlines() if re.match(rf"│[ *]+{re.escape(name)} ", line)
        )
        if param.is_flag:  # the help text follows the option names directly
            first = re.escape(" ".join((param.help or "").split()[:2]))
            assert re.search(rf"{re.escape(name)}\s+(-\w\s+)?{first}", row), row
        else:
            assert param.metavar or "|" in row, f"{name} has no metavar"
            assert not re.search(r"\b[A-Z]+_[A-Z_]+\b", row), row  # not a variable name
        if param.multiple:
            assert "repeatable" in (param.help or ""), name


@pytest.mark.parametrize("command", COMMANDS)
def test_every_page_ends_with_examples_and_the_environment(command: str) -> None:
    page = help_page(command)
    examples = page[page.index("Examples:") :]
    assert len(re.findall(rf"^\s+agui {command}\b", examples, re.MULTILINE)) >= 2
    for name in ("AGUI_DEBUG", "NO_COLOR"):
        assert name in examples
    if command == "resume":
        assert "AGUI_TOKEN" in examples


def root_help_page(width: int) -> str:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": str(width), "NO_COLOR": "1"})
    assert result.exit_code == 0
    return result.stdout


def test_the_root_page_names_every_command_and_ends_with_examples_and_the_environment() -> None:
    # The README promises examples and the environment at the end of every --help; the
    # root page had neither, no exit codes, and a summary that left out proxy.
    page = root_help_page(100)
    summary = " ".join(page[: page.index("╭")].split())
    for job in ("replay", "translate", "resume", "migrate", "proxy"):
        assert job in summary, job
    assert "Exit codes: 0 success, 1 found something" in summary
    examples = page[page.index("Examples:") :]
    for command in COMMANDS:
        assert re.search(rf"^\s+agui {command}\b", examples, re.MULTILINE), command
    for name in ("AGUI_TOKEN", "AGUI_DEBUG", "NO_COLOR"):
        assert name in examples


def test_root_page_rows_break_only_where_the_table_wraps() -> None:
    # migrate's summary spans two source lines; Typer kept that line break inside the
    # commands table, so the row broke mid-sentence whatever the width.
    page = root_help_page(200)
    rows = {line.split()[1]: line for line in page.splitlines() if re.match(r"│ [a-z]+ ", line)}
    assert set(rows) == set(COMMANDS)
    assert "pending_interrupts, resume_interrupts, ...) to the interrupt API." in rows["migrate"]


def test_docstring_paragraphs_rewrap_to_the_terminal() -> None:
    page = help_page("translate", 200)
    paragraph = "Everything that is not legacy is copied byte for byte; a native stream comes"
    assert f"{paragraph} out unchanged." in page


def test_old_spellings_are_hidden_aliases(tmp_path: Path) -> None:
    assert "--in-place" not in help_page("translate")
    assert "--write" in help_page("translate")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["replay", "--formt", "x.sse"],
            "agui replay: no such option --formt (did you mean --format?)",
        ),
        (["migrat", "x.py"], "agui: no such command migrat (did you mean migrate?)"),
        # a command's option typed before the command: click guessed "--help"
        (
            ["--check", "replay", "x.sse"],
            "agui: no such option --check (options go after the command, as in agui replay"
            " --check …; --check is an option of replay, translate, migrate, proxy)\n",
        ),
        # other tools' spellings: closeness guessed --format for --port, --export for --report
        (
            ["proxy", "--port", "8000", "--upstream", "http://127.0.0.1:9"],
            "agui proxy: no such option --port (use --listen [HOST:]PORT)\n",
        ),
        (
            ["replay", "--report", "json", "x.sse"],
            "agui replay: no such option --report (the report's format is --format"
            " text|json|sarif|junit)\n",
        ),
        (
            ["migrate", "--dry-run", "x.py"],
            "agui migrate: no such option --dry-run (a dry run is the default: it prints a"
            " diff; --write applies it)\n",
        ),
        (["--formt", "replay"], "agui: no such option --formt\n"),
        (["frobnicate"], "agui: no such command frobnicate\n"),
        (
            ["resume", "rec.sse"],
            "agui resume: got unexpected extra argument(s) (rec.sse): give a recording with"
            " --from\n",
        ),
        (
            ["resume", "--from", "rec.sse", "more.sse"],
            "agui resume: got unexpected extra argument(s) (more.sse)\n",
        ),
        (
            ["proxy", "--upstream", "http://127.0.0.1:9", "up"],
            "agui proxy: got unexpected extra argument(s) (up)\n",
        ),
        (
            ["translate"],
            "agui translate: missing argument RECORDING... (see agui translate --help)",
        ),
        (["resume", "--run-id", "r", "--approve", "a"], "agui: --run-id needs --thread-id"),
        (["resume", "--thread-id", "t", "--approve", "a"], "agui: --thread-id needs --run-id"),
        (
            ["migrate", "--format", "xml", "x.py"],
            "agui migrate: invalid value for --format: 'xml' is not one of 'diff', 'json',"
            " 'sarif', 'github'",
        ),
        (
            ["translate", "--format", "xml", "x.sse"],
            "agui translate: invalid value for --format: 'xml' is not one of 'text', 'json'",
        ),
        (
            ["migrate", "--jobs", "many", "x.py"],
            "agui migrate: invalid value for --jobs / -j: 'many' is not a whole number\n",
        ),
        (
            ["migrate", "-j", "1.5", "x.py"],
            "agui migrate: invalid value for --jobs / -j: '1.5' is not a whole number\n",
        ),
        (
            ["resume", "--from", "run.sse", "--timeout", "abc", "--dry-run"],
            "agui resume: invalid value for --timeout: 'abc' is not a number\n",
        ),
        (
            ["resume", "--from", "run.sse", "--max-time", "", "--dry-run"],
            "agui resume: invalid value for --max-time: '' is not a number\n",
        ),
        # stdin is read to its end the first time: a second '-' read nothing, and was
        # reported as an empty recording
        *(
            (args, "agui: '-' (stdin) is named more than once; stdin can be read only once\n")
            for args in (
                ["replay", "--check", "-", "-"],
                ["replay", "-", "x.sse", "-"],
                ["translate", "--check", "-", "-"],
                ["resume", "--from", "-", "--from", "-", "--approve-all", "--dry-run"],
            )
        ),
        (
            ["resume", "--from", "run.sse", "--approve-all", "--dry-run", "--new-run-id", " "],
            "agui: --new-run-id: an empty id; give one, or leave it out\n",
        ),
    ],
)
def test_usage_errors_are_one_line(args: list[str], line: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(line), result.stderr
    assert "╭" not in result.stderr


def test_migrate_quiet_prints_only_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(
        "def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=a.ok)\n"
    )
    (tmp_path / "broken.py").write_text("def f(:\n    client.pending_interrupts\n")
    result = runner.invoke(app, ["migrate", "--quiet", "."])
    assert result.exit_code == 2
    assert result.stderr == "broken.py:1:7: syntax error at line 1, column 7: invalid syntax\n"


# The vocabulary every command shares (README "Conventions"): `--json` is the command's
# primary result as JSON lines on stdout; `--format FMT` is the findings report's format.
JSON_RESULT = {"replay": "events", "resume": "events", "migrate": "site", "proxy": "exchange"}
FINDINGS_FORMAT = {
    "replay": ["text", "json", "sarif", "junit"],
    "translate": ["text", "json"],
    "migrate": ["diff", "json", "sarif", "github"],
    "proxy": ["text", "json"],
}


def _options(command: str) -> dict[str, typer.core.TyperOption]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return {
        opt: param
        for param in group.commands[command].params
        if isinstance(param, typer.core.TyperOption)
        for opt in param.opts
    }


@pytest.mark.parametrize("command", COMMANDS)
def test_json_and_format_mean_the_same_in_every_command(command: str) -> None:
    options = _options(command)
    json_flag, report = options.get("--json"), options.get("--format")
    if command in JSON_RESULT:
        assert json_flag is not None
        assert not json_flag.hidden
        assert "JSON lines" in (json_flag.help or "")
        assert "on stdout" in (json_flag.help or "")
        assert JSON_RESULT[command] in (json_flag.help or "")
    else:  # translate: its result is a stream already; `--json` is the old `--format json`
        assert json_flag is None or json_flag.hidden
    if command in FINDINGS_FORMAT:
        assert report is not None
        assert "indings report format" in (report.help or "")
        choices = re.search(r"--format\s+(\S+)", help_page(command, 200))
        assert choices is not None
        assert choices[1].split("|") == FINDINGS_FORMAT[command]
    else:
        assert report is None
    for option in options.values():  # no third spelling of either idea
        assert not {"--output-format", "--ndjson", "--report"} & set(option.opts)


def test_json_is_spelled_the_same_everywhere(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(
        "def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
    )
    spelled = runner.invoke(app, ["migrate", "--json", str(tmp_path)])
    long = runner.invoke(app, ["migrate", "--format", "json", str(tmp_path)])
    assert (spelled.exit_code, spelled.stdout) == (long.exit_code, long.stdout)
    assert spelled.stdout.startswith("{")
    clash = runner.invoke(app, ["migrate", "--json", "--format", "sarif", str(tmp_path)])
    assert clash.exit_code == 2


def test_translate_json_is_a_hidden_alias_of_format_json() -> None:
    legacy = (
        Path(__file__).resolve().parents[2] / "examples" / "legacy" / "tool-approval.0.42.0.sse"
    )
    old = runner.invoke(app, ["translate", "--check", "--json", str(legacy)])
    new = runner.invoke(app, ["translate", "--check", "--format", "json", str(legacy)])
    assert (old.exit_code, old.stdout, old.stderr) == (new.exit_code, new.stdout, new.stderr)
    assert old.exit_code == 1
    assert [json.loads(line)["rule"] for line in new.stdout.splitlines()]
    assert "--json" not in help_page("translate", 200)
    clash = runner.invoke(app, ["translate", "--json", "--format", "text", str(legacy)])
    assert clash.exit_code == 2
    assert clash.stderr == "agui: --json and --format text cannot be combined\n"


def test_replay_json_help_does_not_promise_normalised_events() -> None:
    # it said "The events, normalised, as JSON lines", yet ids and timestamps stay as
    # recorded unless --normalize is given
    recording = Path(__file__).resolve().parents[2] / "examples" / "transfer-approval.sse"
    result = runner.invoke(app, ["replay", "--json", str(recording)])
    first = json.loads(result.stdout.split("\n")[0])
    assert first["runId"] == "run-1796035060821-bckiun"
    help_text = _options("replay")["--json"].help or ""
    assert "normalis" not in help_text
    assert "--normalize" in help_text


def test_migrate_exclude_help_names_every_default_exclude() -> None:
    # It named six of the thirteen (no __pycache__, no .next and the other build folders).
    from codemods.discovery import DEFAULT_EXCLUDES

    row = " ".join(help_page("migrate", 300).split())
    for name in DEFAULT_EXCLUDES:
        assert re.search(rf"(?<![\w.]){re.escape(name)}[,\s]", row), name


def test_translate_request_help_names_the_test_bed_pairs_too(tmp_path: Path) -> None:
    # The help named only NAME.request.json, though CASE.run2.sse is translated with
    # CASE.resume.json beside it (and CASE.run1.sse with CASE.request.json).
    page = " ".join(help_page("translate", 300).split())
    assert "CASE.request.json / CASE.resume.json beside CASE.run1.sse / CASE.run2.sse" in page
    legacy = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "legacy"
    run2 = tmp_path / "case.run2.sse"
    run2.write_bytes((legacy / "tool-approval.approve.run1.sse").read_bytes())
    body = json.loads((legacy / "tool-approval.approve.request.json").read_text("utf-8"))
    body["messages"][0]["content"] = "only in the resume body"
    (tmp_path / "case.resume.json").write_text(json.dumps(body), "utf-8")
    result = runner.invoke(app, ["translate", str(run2)])
    assert result.exit_code == 0, result.stderr
    assert "only in the resume body" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_page_says_where_its_output_goes_and_its_exit_codes(command: str) -> None:
    # replay, translate, resume and proxy said what they do but not what they print.
    page = help_page(command, 300)
    description = " ".join(page[: page.index("╭")].split())
    assert "stdout" in description or "prints a diff" in description
    assert "Exit codes: 0 " in description


def test_resume_page_does_not_say_a_transport_failure_sent_nothing() -> None:
    # A timeout or a non-2xx answer comes after the POST went out; only usage and
    # validation errors are refused before anything is sent.
    page = " ".join(help_page("resume", 300).split())
    assert "2 usage or validation (nothing sent) or transport" in page


def test_resume_record_help_names_the_files_it_writes(tmp_path: Path) -> None:
    # The help read "the response (FILE.sse) and FILE.request.json": given `next.sse`
    # that promised next.sse.sse; the response goes to the name given, the body beside it
    # under the name's stem.
    from tests.resume_http import Route, scripted_server

    page = " ".join(help_page("resume", 300).split())
    assert "--record OUT.sse Save the response to OUT.sse and the request body to" in page
    native = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
    answer = (native / "tool-approval.approve.run2.sse").read_bytes()
    out = tmp_path / "next.sse"
    with scripted_server({"/chat": Route(answer)}) as server:
        result = runner.invoke(
            app,
            [
                "resume",
                "--from",
                str(native / "tool-approval.approve.run1.sse"),
                "--approve-all",
                "--url",
                server.url("/chat"),
                "--record",
                str(out),
            ],
        )
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["next.request.json", "next.sse"]
    assert out.read_bytes() == answer


def test_replay_check_help_says_what_exits_1(tmp_path: Path) -> None:
    # "(exit 1 if any)", though a warning alone exits 0 unless --strict.
    assert "(exit 1 on errors)" in help_page("replay", 300)
    warned = tmp_path / "warned.sse"
    warned.write_text(
        'data: {"type":"RUN_STARTED","threadId":"t",\ndata: "runId":"r"}\n\n'
        'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
    )
    result = runner.invoke(app, ["replay", "--check", str(warned)])
    assert (result.exit_code, "[multiline-data]" in result.stdout) == (0, True)
    assert runner.invoke(app, ["replay", "--check", "--strict", str(warned)]).exit_code == 1


def test_resume_payload_and_answers_do_what_their_help_says(tmp_path: Path) -> None:
    # --payload ID=@FILE and --answers keyed by a tool name, as the help now says.
    page = " ".join(help_page("resume", 300).split())
    assert "@FILE reads a file" in page
    assert "keyed by id, tool name or definition id" in page
    native = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
    (tmp_path / "reason.json").write_text('{"reason": "limit"}')
    result = runner.invoke(
        app,
        [
            "resume",
            "--from",
            str(native / "tool-approval-schema.reject.run1.sse"),
            "--reject",
            "transfer",
            "--payload",
            f"transfer=@{tmp_path / 'reason.json'}",
            "--dry-run",
        ],
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)["resume"]
    assert entry["payload"] == {"approved": False, "payload": {"reason": "limit"}}
    (tmp_path / "answers.json").write_text('{"transfer": {"approved": true}}')
    result = runner.invoke(
        app,
        [
            "resume",
            "--from",
            str(native / "tool-approval.approve.run1.sse"),
            "--answers",
            str(tmp_path / "answers.json"),
            "--dry-run",
        ],
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)["resume"]
    assert (entry["interruptId"], entry["payload"]) == (
        "approval_call_transfer_1",
        {"approved": True},
    )


def test_option_hints_name_real_options_for_missing_ones() -> None:
    """Each hint answers an option the command lacks with options it has."""
    from cli.help_style import OPTION_HINTS

    group = typer.main.get_command(app)
    for (command, wrong), hint in OPTION_HINTS.items():
        params = group.commands[command].params  # type: ignore[attr-defined]
        options = {opt for param in params for opt in (*param.opts, *param.secondary_opts)}
        assert wrong not in options, (command, wrong)
        named = re.findall(r"(?<![\w-])(--?[a-z][-a-z]*)", hint)
        assert named, hint
        assert set(named) <= options, (command, hint)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_narrow_terminal_folds_help_instead_of_cutting_it(command: str) -> None:
    # At COLUMNS=40 rich cut 131 words and option names with "…" (`--reque…`,
    # `transla…`, `http://127.0.0…`): help that cannot be read teaches nothing.
    narrow = help_page(command, 40)
    assert "…" not in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 40
    letters = re.compile(r"[^\w]")  # a folded sentence keeps every letter, in order
    assert letters.sub("", "Show this message and exit") in letters.sub("", narrow)
