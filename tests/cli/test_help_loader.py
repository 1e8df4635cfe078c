"""The help renderer loads late and light (cli/help_loader.py), and renders the same.

Whole processes, because what is under test is what a fresh `agui` imports: the fast
path (rich's Markdown and traceback modules stood in for) against the plain one (the
same process with both imported first, so nothing is stood in for).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import types

import pytest

from cli import help_loader

# Runs `agui ARGS...` in-process, then reports on stderr which heavy modules it loaded.
# With PLAIN set it first imports what the loader would stand in for.
RUNNER = """
import os, sys
if os.environ.get("PLAIN"):
    import rich.markdown, rich.traceback
from cli.app import app
sys.argv = ["agui", *sys.argv[1:]]
try:
    app()
except SystemExit as stop:
    code = stop.code
heavy = ("rich.markdown", "rich.traceback", "markdown_it", "pygments", "pydantic", "ag_ui")
loaded = [m for m in heavy if m in sys.modules]
loaded += ["hook"] * any(type(f).__name__ == "_HookedImport" for f in sys.meta_path)
sys.stderr.write("LOADED " + " ".join(loaded) + "\\n")
sys.exit(code)
"""

PAGES = [
    ["--help"],
    ["replay", "--help"],
    ["translate", "--help"],
    ["resume", "--help"],
    ["migrate", "--help"],
    ["proxy", "--help"],
    ["replay", "--formt", "x.sse"],
    ["translate"],
    [],
]


def agui(args: list[str], *, plain: bool, env: dict[str, str]) -> tuple[int, str, str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env)
    if plain:
        environment["PLAIN"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    stderr, _, loaded = done.stderr.rpartition("LOADED ")
    return done.returncode, done.stdout, stderr, loaded.strip()


def test_root_help_loads_no_markdown_traceback_or_pydantic() -> None:
    code, stdout, _, loaded = agui(["--help"], plain=False, env={"COLUMNS": "100"})
    assert code == 0
    assert "Usage: agui" in stdout
    assert loaded == ""


def test_version_loads_no_help_renderer() -> None:
    code = f"{RUNNER}".replace('heavy = ("rich.markdown"', 'heavy = ("typer.rich_utils", "rich"')
    done = subprocess.run(
        [sys.executable, "-c", code, "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert done.stdout.startswith("agui ")
    assert done.stderr.strip() == "LOADED hook"  # still waiting: nothing was rendered


def test_every_page_and_usage_error_renders_the_same_both_ways() -> None:
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    for args in PAGES:
        env = {"COLUMNS": str(rng.randrange(40, 220))}
        env["NO_COLOR" if rng.random() < 0.5 else "FORCE_COLOR"] = "1"
        fast = agui(args, plain=False, env=env)
        plain = agui(args, plain=True, env=env)
        assert fast[:3] == plain[:3], f"seed {seed}: agui {' '.join(args)} with {env}"
        assert "markdown" not in fast[3], fast[3]
        assert "rich.markdown" in plain[3]
        assert "hook" not in fast[3]


def test_a_debug_traceback_still_uses_rich() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "replay", "/nonexistent/run.sse"],
        capture_output=True,
        text=True,
        env={**os.environ, "AGUI_DEBUG": "1", "COLUMNS": "100"},
        check=False,
    )
    assert done.returncode != 0
    assert "Traceback (most recent call last)" in done.stderr
    assert "UnreadableInput" in done.stderr


def test_a_stand_in_forwards_calls_attributes_and_isinstance() -> None:
    stand_in = help_loader.deferred_class("fractions", "Fraction")
    import fractions

    assert stand_in(1, 3) == fractions.Fraction(1, 3)
    assert stand_in.from_float(0.5) == fractions.Fraction(1, 2)  # type: ignore[attr-defined]
    assert isinstance(fractions.Fraction(2), stand_in)
    assert not isinstance(2, stand_in)


def test_stand_ins_leave_no_trace_and_never_replace_a_loaded_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = types.ModuleType("rich.traceback")
    monkeypatch.setitem(sys.modules, "rich.traceback", real)
    monkeypatch.delitem(sys.modules, "rich.markdown", raising=False)
    with help_loader.stand_ins():
        assert sys.modules["rich.traceback"] is real
        assert isinstance(sys.modules["rich.markdown"].Markdown, help_loader._Deferred)
    assert "rich.markdown" not in sys.modules
    assert sys.modules["rich.traceback"] is real


def test_a_name_no_stand_in_covers_comes_from_the_real_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "rich.markdown", raising=False)
    monkeypatch.delitem(sys.modules, "rich.traceback", raising=False)
    with help_loader.stand_ins():
        from rich.markdown import Heading  # not a name typer imports today

        assert not isinstance(sys.modules["rich.markdown"], help_loader._StandInModule)
    assert Heading.__module__ == "rich.markdown"
    assert sys.modules["rich.markdown"].Heading is Heading
