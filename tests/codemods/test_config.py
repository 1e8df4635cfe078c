"""`[tool.agui.migrate]` in the nearest pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import Rule
from codemods.config import ConfigError, find_pyproject, load_config
from codemods.settings import FalsePolicy


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_nearest_pyproject_upwards(tmp_path: Path) -> None:
    outer = write(tmp_path / "pyproject.toml", "")
    inner = write(tmp_path / "pkg" / "pyproject.toml", "")
    (tmp_path / "pkg" / "src" / "deep").mkdir(parents=True)
    assert find_pyproject(tmp_path / "pkg" / "src" / "deep") == inner.resolve()
    assert find_pyproject(tmp_path / "other.py") == outer.resolve()


def test_full_table(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        """
        [tool.agui.migrate]
        select = ["AG001", "ag002,AG003"]
        ignore = ["AG003"]
        exclude = ["generated/*"]
        false-as = "cancel"
        receivers = ["client"]

        [tool.agui.migrate.names]
        add_tool_approval_response = "answer_approval"
        interrupts = "items"
        """.replace("\n        ", "\n"),
    )
    config = load_config(tmp_path)
    assert config.select == (Rule.AG001, Rule.AG002, Rule.AG003)
    assert config.ignore == (Rule.AG003,)
    assert config.exclude == ("generated/*",)
    assert config.settings.false_as is FalsePolicy.CANCEL
    assert config.settings.receivers == ("client",)
    assert config.settings.names.add_tool_approval_response == "answer_approval"
    assert config.settings.names.interrupts == "items"
    assert config.settings.names.resolve_interrupt == "resolve_interrupt"


def test_no_pyproject_or_no_table_means_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path).select is None
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    config = load_config(tmp_path)
    assert config.settings.false_as is FalsePolicy.DENIAL
    assert config.source == (tmp_path / "pyproject.toml").resolve()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("select = ['AG999']", "unknown rule 'AG999'"),
        ("false_as = 'cancel'", "unknown key 'false_as'"),
        ("false-as = 'deny'", 'expected "denial" or "cancel"'),
        ("receivers = 'client'", "expected a list of strings"),
        ("names = { nope = 'x' }", "unknown name 'nope'"),
        ("names = { interrupts = 'not an id' }", "expected an identifier"),
    ],
)
def test_bad_tables_name_the_problem(tmp_path: Path, table: str, message: str) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.agui.migrate]\n{table}\n")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path)


def test_invalid_toml(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(tmp_path)
