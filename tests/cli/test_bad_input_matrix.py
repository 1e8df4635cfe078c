"""Bad input to every command: one clear line or attributed findings, the documented exit
code, never a traceback, and no file changed that should not be.

Each case runs the real command on real files (FIFOs, device nodes and symlinks
included) in a fresh directory; the directory is snapshotted before and after, and
only the files a case names as its outputs may differ.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
LEGACY = ROOT / "examples" / "legacy" / "tool-approval.0.42.0.sse"
EXAMPLE_ITEMS = ROOT / "examples" / "items.json"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
runner = CliRunner()

# Exit codes as the README documents them.
OK, FINDINGS, CANNOT_RUN = 0, 1, 2


@dataclass(frozen=True)
class Case:
    """One command line; `{name}` in an argument is a file made by `make_inputs`."""

    id: str
    args: tuple[str, ...]
    code: int
    writes: tuple[str, ...] = ()  # files the command may create or change
    says: str | None = None  # text the stderr line must contain
    fifo: str | None = None  # a FIFO fed with the native recording while the command runs
    xfail: str | None = None  # the issue item whose fix this case waits for


def make_inputs(directory: Path) -> None:
    """Every kind of bad (and a few good) inputs, by name."""
    native = NATIVE.read_bytes()
    files: dict[str, bytes] = {
        "native.sse": native,
        "legacy.sse": LEGACY.read_bytes(),
        "empty.sse": b"",
        "binary.sse": bytes((i * 7919 + 13) % 256 for i in range(4096)),
        "truncated.sse": native[: len(native) // 2],
        "invalid.sse": b"data: {not json\n\n",
        "wrong-types.sse": b'data: {"type": 5, "runId": []}\n\n',
        "list-type.sse": b'data: {"type": []}\n\n',
        "utf16.sse": native.decode().encode("utf-16"),
        "array.sse": b'[{"type":"RUN_STARTED","threadId":"t","runId":"r"}]\n',
        "huge.sse": b'data: {"type":"RAW","event":"' + b"a" * 3_000_000 + b'"}\n\n',
        "read-only.sse": LEGACY.read_bytes(),
        "har.sse": b'{"log": {"version": "1.2", "entries": []}}',
        "request.json": b'{\n  "threadId": "t",\n  "runId": "r",\n  "messages": []\n}\n',
        "event.json": b'{\n  "type": "RUN_STARTED",\n  "threadId": "t",\n  "runId": "r"\n}\n',
        "items-bad.json": b"{bad",
        "items-object.json": b'{"a": 1}',
        "messages-wrong.json": b'[{"role": 7}]',
        "items-good.json": EXAMPLE_ITEMS.read_bytes(),
        "tools-wrong.json": b"[1, 2]",
        "legacy.py": LEGACY_CODE,
        "empty.py": b"",
        "binary.py": b"client.pending_interrupts\n" + bytes(range(128, 256)),
        "truncated.py": b"def f(client):\n    return client.pending_interrupts(\n",
        "utf16.py": "client.pending_interrupts\n".encode("utf-16"),
        "huge.py": b'x = "' + b"a" * 3_000_000 + b'"; y = client.pending_interrupts\n',
        "read-only.py": LEGACY_CODE,
        "null.py": b"client.pending_interrupts\x00\n",
    }
    for name, data in files.items():
        (directory / name).write_bytes(data)
    (directory / "read-only.sse").chmod(0o444)
    (directory / "read-only.py").chmod(0o444)
    (directory / "out-read-only.sse").write_bytes(b"keep\n")
    (directory / "out-read-only.sse").chmod(0o444)
    (directory / "folder.sse").mkdir()
    (directory / "no-python").mkdir()
    (directory / "no-python" / "notes.txt").write_bytes(b"client.pending_interrupts\n")
    (directory / "link.sse").symlink_to("native.sse")
    (directory / "link-legacy.sse").symlink_to("legacy.sse")
    (directory / "link.py").symlink_to("legacy.py")
    (directory / "dangling.sse").symlink_to("nowhere.sse")
    (directory / "dangling.py").symlink_to("nowhere.py")
    os.mkfifo(directory / "fifo.sse")
    config = directory / "config-wrong"
    config.mkdir()
    (config / "pyproject.toml").write_bytes(b"[tool.agui.migrate]\nselect = 5\n")
    (config / "t.py").write_bytes(LEGACY_CODE)
    broken = directory / "config-broken"
    broken.mkdir()
    (broken / "pyproject.toml").write_bytes(b"[tool.agui\n")
    (broken / "t.py").write_bytes(LEGACY_CODE)
    try:  # a private node for /dev/null's device, never the system's /dev/null
        os.mknod(directory / "device", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        (directory / "device").symlink_to(os.devnull)


DRY = ("--approve-all", "--dry-run")
CASES = [
    # replay: unreadable inputs cannot run; readable garbage is findings.
    Case("replay-missing", ("replay", "nope.sse"), CANNOT_RUN, says="nope.sse"),
    Case("replay-directory", ("replay", "folder.sse"), CANNOT_RUN, says="folder.sse"),
    Case("replay-empty", ("replay", "--check", "empty.sse"), FINDINGS),
    Case("replay-binary", ("replay", "--check", "binary.sse"), FINDINGS),
    Case("replay-truncated", ("replay", "--check", "truncated.sse"), FINDINGS),
    Case("replay-invalid-json", ("replay", "--check", "invalid.sse"), FINDINGS),
    Case("replay-wrong-types", ("replay", "--check", "wrong-types.sse"), FINDINGS),
    Case("replay-list-type", ("replay", "--check", "list-type.sse"), FINDINGS),
    Case("replay-json-list-type", ("replay", "--json", "list-type.sse"), FINDINGS),
    Case("replay-utf16", ("replay", "--check", "utf16.sse"), CANNOT_RUN, says="UTF-16"),
    Case("replay-utf16-named", ("replay", "utf16.sse"), CANNOT_RUN, says="UTF-16"),
    Case("replay-array", ("replay", "--check", "array.sse"), CANNOT_RUN, says="array"),
    Case("replay-array-named", ("replay", "array.sse"), CANNOT_RUN, says="array"),
    Case("replay-huge-line", ("replay", "--check", "huge.sse"), FINDINGS),
    Case("replay-device", ("replay", "--check", "device"), FINDINGS),
    Case("replay-fifo", ("replay", "--check", "fifo.sse"), OK, fifo="fifo.sse"),
    Case("replay-symlink", ("replay", "--check", "link.sse"), OK),
    Case("replay-dangling", ("replay", "dangling.sse"), CANNOT_RUN, says="dangling.sse"),
    Case("replay-read-only", ("replay", "--check", "read-only.sse"), FINDINGS),
    Case("replay-serve-check", ("replay", "--serve", "0", "--check", "native.sse"), CANNOT_RUN),
    Case("replay-json-format", ("replay", "--json", "--format", "json", "native.sse"), CANNOT_RUN),
    Case("replay-tools-alone", ("replay", "--tools", "x.json", "native.sse"), CANNOT_RUN),
    Case("replay-bad-pace", ("replay", "--pace", "bogus", "native.sse"), CANNOT_RUN),
    Case("replay-unknown-option", ("replay", "--frobnicate", "native.sse"), CANNOT_RUN),
    # translate: garbage is copied with notices; what cannot be written is refused.
    Case("translate-missing", ("translate", "nope.sse"), CANNOT_RUN, says="nope.sse"),
    Case("translate-directory", ("translate", "folder.sse"), CANNOT_RUN, says="folder.sse"),
    Case("translate-empty", ("translate", "empty.sse"), OK, says="holds no events"),
    Case("translate-binary", ("translate", "binary.sse"), OK, says="holds no events"),
    Case("translate-truncated", ("translate", "truncated.sse"), OK),
    Case("translate-invalid-json", ("translate", "invalid.sse"), OK),
    Case("translate-wrong-types", ("translate", "wrong-types.sse"), OK),
    Case("translate-list-type", ("translate", "list-type.sse"), OK),
    Case("translate-utf16", ("translate", "utf16.sse"), CANNOT_RUN, says="UTF-16"),
    Case("translate-huge-line", ("translate", "huge.sse"), OK),
    Case("translate-device", ("translate", "device"), OK),
    Case("translate-fifo", ("translate", "fifo.sse"), OK, fifo="fifo.sse"),
    Case("translate-to-device", ("translate", "native.sse", "-o", "device"), OK),
    Case("translate-to-fifo", ("translate", "native.sse", "-o", "fifo.sse"), OK, fifo="fifo.sse"),
    Case("translate-har", ("translate", "har.sse"), CANNOT_RUN, says="HAR"),
    # a request body or a pretty-printed event given as the recording: said as what it
    # is (it was "not a HAR file (no log.entries)", and translate's "a HAR file")
    *(
        Case(f"{args[0]}-{stem}-json", (*args, f"{stem}.json"), CANNOT_RUN, says=said)
        for stem, said in (
            ("request", "request.json: a request body (RunAgentInput), not a recording;"),
            ("event", "event.json: one JSON event spread over several lines, not a recording;"),
        )
        for args in (("replay",), ("translate",), ("resume", *DRY, "--from"))
    ),
    Case("translate-dangling", ("translate", "dangling.sse"), CANNOT_RUN, says="dangling.sse"),
    Case(
        "translate-write-read-only",
        ("translate", "--write", "read-only.sse"),
        CANNOT_RUN,
        says="read-only.sse",
    ),
    Case(
        "translate-out-read-only",
        ("translate", "legacy.sse", "-o", "out-read-only.sse"),
        CANNOT_RUN,
        says="out-read-only.sse",
    ),
    Case(
        "translate-write-symlink",
        ("translate", "--write", "link-legacy.sse"),
        OK,
        writes=("legacy.sse",),
    ),
    Case("translate-out-missing-dir", ("translate", "native.sse", "-o", "no/x.sse"), CANNOT_RUN),
    Case("translate-out-directory", ("translate", "native.sse", "-o", "folder.sse"), CANNOT_RUN),
    Case("translate-write-and-output", ("translate", "--write", "-o", "x", "legacy.sse"), 2),
    Case("translate-check-and-output", ("translate", "--check", "-o", "x", "legacy.sse"), 2),
    Case("translate-several-to-stdout", ("translate", "native.sse", "legacy.sse"), CANNOT_RUN),
    Case("translate-write-stdin", ("translate", "--write", "-"), CANNOT_RUN),
    Case("translate-request-missing", ("translate", "--request", "no.json", "native.sse"), 2),
    Case("translate-tools-invalid", ("translate", "--tools", "items-bad.json", "native.sse"), 2),
    Case("translate-tools-wrong", ("translate", "--tools", "tools-wrong.json", "native.sse"), 2),
    # a folder or a missing file named as a JSON option: said like a recording's ("Is a
    # directory", the OS's own words, before)
    *(
        Case(f"json-option-{kind}-{n}", (*args[:-1], args[-1].format(name=name)), 2, says=said)
        for kind, name, said in (
            ("directory", "folder.sse", "folder.sse: is a directory, expected a JSON file"),
            ("missing", "no.json", "no.json: no such file\n"),
        )
        for n, args in enumerate(
            (
                ("translate", "native.sse", "--tools", "{name}"),
                ("translate", "native.sse", "--request", "{name}"),
                ("replay", "--native", "legacy.sse", "--tools", "{name}"),
                ("resume", "--from", "native.sse", *DRY, "--answers", "{name}"),
                ("resume", "--from", "native.sse", *DRY, "--answer", "transfer=@{name}"),
                ("resume", "--run-id", "r", "--thread-id", "t", *DRY, "--items", "{name}"),
            )
        )
    ),
    # resume: nothing is sent unless the paused run is found and the answers are valid.
    Case("resume-missing", ("resume", "--from", "nope.sse", *DRY), CANNOT_RUN, says="nope.sse"),
    Case("resume-directory", ("resume", "--from", "folder.sse", *DRY), CANNOT_RUN),
    Case("resume-empty", ("resume", "--from", "empty.sse", *DRY), CANNOT_RUN),
    Case("resume-binary", ("resume", "--from", "binary.sse", *DRY), CANNOT_RUN),
    Case("resume-truncated", ("resume", "--from", "truncated.sse", *DRY), CANNOT_RUN),
    Case("resume-invalid-json", ("resume", "--from", "invalid.sse", *DRY), CANNOT_RUN),
    Case("resume-wrong-types", ("resume", "--from", "wrong-types.sse", *DRY), CANNOT_RUN),
    Case("resume-list-type", ("resume", "--from", "list-type.sse", *DRY), CANNOT_RUN),
    Case("resume-utf16", ("resume", "--from", "utf16.sse", *DRY), CANNOT_RUN),
    Case("resume-huge-line", ("resume", "--from", "huge.sse", *DRY), CANNOT_RUN),
    Case("resume-device", ("resume", "--from", "device", *DRY), CANNOT_RUN),
    Case("resume-fifo", ("resume", "--from", "fifo.sse", *DRY), OK, fifo="fifo.sse"),
    Case("resume-symlink", ("resume", "--from", "link.sse", *DRY), OK),
    Case("resume-dangling", ("resume", "--from", "dangling.sse", *DRY), CANNOT_RUN),
    Case(
        "resume-items-invalid",
        ("resume", "--run-id", "r", "--thread-id", "t", "--items", "items-bad.json", *DRY),
        CANNOT_RUN,
        says="items-bad.json",
    ),
    Case(
        "resume-items-wrong-type",
        ("resume", "--run-id", "r", "--thread-id", "t", "--items", "items-object.json", *DRY),
        CANNOT_RUN,
        says="items-object.json",
    ),
    Case(
        "resume-messages-wrong-types",
        (
            "resume",
            "--run-id",
            "r",
            "--thread-id",
            "t",
            "--items",
            "items-good.json",
            "--messages",
            "messages-wrong.json",
            *DRY,
        ),
        CANNOT_RUN,
        says="messages-wrong.json",
    ),
    Case("resume-dry-run-curl", ("resume", "--from", "native.sse", *DRY, "--curl"), CANNOT_RUN),
    # An unusable --url is the one line: nothing about posting comes before it.
    *(
        Case(
            f"resume-url-{name}",
            ("resume", "--from", "native.sse", "--approve-all", "--url", url),
            CANNOT_RUN,
            says=f"{url}: not a usable http(s) URL ({why})",
        )
        for name, url, why in (
            ("words", "not a url", "it needs to start with http:// or https://"),
            ("ftp", "ftp://host/x", "it needs to start with http:// or https://"),
            ("no-host", "http://", "it names no host"),
            ("bad-port", "http://host:99999/", "Port out of range 0-65535"),
        )
    ),
    Case("resume-record-dry", ("resume", "--from", "native.sse", *DRY, "--record", "r.sse"), 2),
    Case("resume-run-id-alone", ("resume", "--run-id", "r", *DRY), 2, says="--thread-id"),
    Case(
        "resume-timeout-nan",
        ("resume", "--from", "native.sse", "--approve-all", "--timeout", "nan"),
        CANNOT_RUN,
        says="--timeout",
    ),
    # migrate: one bad file is reported and the run goes on; usage errors stop it. With
    # -q the failure is the only line (else the summary follows it).
    Case("migrate-missing", ("migrate", "nope.py"), CANNOT_RUN, says="nope.py"),
    Case("migrate-no-python", ("migrate", "no-python"), OK),
    Case("migrate-empty", ("migrate", "empty.py"), OK),
    Case("migrate-binary", ("migrate", "-q", "binary.py"), CANNOT_RUN, says="binary.py"),
    Case("migrate-truncated", ("migrate", "-q", "truncated.py"), CANNOT_RUN, says="truncated.py"),
    Case("migrate-null-byte", ("migrate", "-q", "null.py"), CANNOT_RUN, says="null.py"),
    Case("migrate-utf16", ("migrate", "utf16.py"), OK),
    Case("migrate-huge-line", ("migrate", "huge.py"), OK),
    Case("migrate-symlink", ("migrate", "--write", "link.py"), OK, writes=("legacy.py",)),
    Case("migrate-dangling", ("migrate", "dangling.py"), CANNOT_RUN, says="dangling.py"),
    Case(
        "migrate-read-only",
        ("migrate", "-q", "--write", "read-only.py"),
        CANNOT_RUN,
        says="read-only.py",
    ),
    Case("migrate-config-wrong-types", ("migrate", "config-wrong"), CANNOT_RUN, says="select"),
    Case("migrate-config-invalid", ("migrate", "config-broken"), CANNOT_RUN, says="TOML"),
    Case("migrate-write-stdin", ("migrate", "--write", "-"), CANNOT_RUN, says="--write"),
    Case("migrate-write-check", ("migrate", "--write", "--check", "legacy.py"), CANNOT_RUN),
    Case("migrate-negative-jobs", ("migrate", "--jobs", "-1", "legacy.py"), CANNOT_RUN),
    Case("migrate-unknown-rule", ("migrate", "--select", "AG999", "legacy.py"), CANNOT_RUN),
    Case("migrate-bad-format", ("migrate", "--format", "xml", "legacy.py"), CANNOT_RUN),
]


def snapshot(directory: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Every entry's mode and content (a symlink's target; a FIFO's or device's none)."""
    entries: dict[str, tuple[int, bytes | str | None]] = {}
    for path in sorted(directory.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            content: bytes | str | None = os.readlink(path)
        elif stat.S_ISREG(info.st_mode):
            content = path.read_bytes()
        else:
            content = None
        entries[str(path.relative_to(directory))] = (info.st_mode, content)
    return entries


def feed_fifo(path: Path, data: bytes) -> threading.Thread:
    """Write `data` into the FIFO once the command opens it for reading."""

    def run() -> None:
        with contextlib.suppress(OSError), open(path, "wb") as writer:
            writer.write(data)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def drain_fifo(path: Path) -> threading.Thread:
    """Read the FIFO to its end once the command opens it for writing."""

    def run() -> None:
        with contextlib.suppress(OSError), open(path, "rb") as reader:
            reader.read()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def release(path: Path, thread: threading.Thread) -> None:
    """End a FIFO thread whose command never opened the FIFO (it stopped before)."""
    thread.join(timeout=5)
    for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK):
        if not thread.is_alive():
            return
        with contextlib.suppress(OSError):
            os.close(os.open(path, flags))
        thread.join(timeout=5)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            id=case.id,
            marks=[pytest.mark.xfail(strict=True, reason=f"issue 14 item {case.xfail}")]
            if case.xfail
            else [],
        )
        for case in CASES
    ],
)
def test_bad_input(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    make_inputs(work)
    monkeypatch.chdir(work)
    before = snapshot(work)
    feeder = None
    if case.fifo is not None:
        fifo = work / case.fifo
        writes_into = "-o" in case.args  # else the command reads it
        feeder = drain_fifo(fifo) if writes_into else feed_fifo(fifo, NATIVE.read_bytes())
    result = runner.invoke(app, list(case.args), input=b"")
    if feeder is not None and case.fifo is not None:
        release(work / case.fifo, feeder)
        assert not feeder.is_alive()
    stderr = result.stderr
    assert "Traceback" not in stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == case.code, stderr
    lines = stderr.splitlines()
    if case.code == CANNOT_RUN:
        assert len(lines) == 1, stderr
        assert lines[0].startswith(("agui", case.args[-1])), stderr
    if case.says is not None:
        assert case.says in stderr
    after = snapshot(work)
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    assert changed <= set(case.writes), changed


def test_the_matrix_is_wide_enough() -> None:
    commands = {case.args[0] for case in CASES}
    assert commands == {"replay", "translate", "resume", "migrate"}
    assert len(CASES) >= 60
