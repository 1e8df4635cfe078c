"""`[tool.agui.migrate]` in the target project's nearest `pyproject.toml`.

Teams that wrapped the client can restrict receivers and rename the old and new
methods; command-line options override the file.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from codemods import Rule
from codemods.settings import ApiNames, FalsePolicy, Settings

# Key → what it holds, for the error message on a typo.
KNOWN_KEYS: dict[str, str] = {
    "select": "rule codes to run",
    "ignore": "rule codes to skip",
    "exclude": "extra glob patterns to skip",
    "false-as": '"denial" or "cancel"',
    "receivers": "receiver names that count (default: any)",
    "names": "a table renaming the old and new methods",
}


class ConfigError(ValueError):
    """The `[tool.agui.migrate]` table cannot be used as written."""


@dataclass(frozen=True, slots=True)
class MigrateConfig:
    """The table as read; `None` and empty mean "not set"."""

    settings: Settings = field(default_factory=Settings)
    select: tuple[Rule, ...] | None = None
    ignore: tuple[Rule, ...] = ()
    exclude: tuple[str, ...] = ()
    source: Path | None = None


def find_pyproject(start: Path) -> Path | None:
    """The nearest `pyproject.toml` in `start` (or its directory) and its ancestors."""
    try:
        here = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def parse_rules(values: object, where: str) -> tuple[Rule, ...]:
    """Rule codes from a list (or comma-separated strings), or ConfigError naming `where`."""
    items = [values] if isinstance(values, str) else values
    if not isinstance(items, list | tuple):
        raise ConfigError(f"{where}: expected a list of rule codes like ['AG001']")
    rules: list[Rule] = []
    for item in items:
        for code in str(item).split(","):
            code = code.strip().upper()
            if not code:
                continue
            try:
                rules.append(Rule(code))
            except ValueError:
                known = ", ".join(rule.value for rule in Rule)
                raise ConfigError(f"{where}: unknown rule {code!r} (known: {known})") from None
    return tuple(rules)


def load_config(start: Path) -> MigrateConfig:
    """Read the nearest pyproject's `[tool.agui.migrate]`; defaults when there is none."""
    path = find_pyproject(start)
    if path is None:
        return MigrateConfig()
    try:
        document = tomllib.loads(path.read_bytes().decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    table = document.get("tool", {}).get("agui", {}).get("migrate")
    if table is None:
        return MigrateConfig(source=path)
    return _from_table(table, path)


def _from_table(table: object, path: Path) -> MigrateConfig:
    where = f"{path}: [tool.agui.migrate]"
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        expected = ", ".join(f"{key} ({what})" for key, what in KNOWN_KEYS.items())
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; expected one of {expected}")
    select = parse_rules(table["select"], f"{where} select") if "select" in table else None
    ignore = parse_rules(table.get("ignore", []), f"{where} ignore")
    exclude = _strings(table.get("exclude", []), f"{where} exclude")
    receivers = _strings(table.get("receivers", []), f"{where} receivers")
    try:
        false_as = FalsePolicy(table.get("false-as", FalsePolicy.DENIAL.value))
    except ValueError:
        raise ConfigError(f'{where} false-as: expected "denial" or "cancel"') from None
    names_table = table.get("names", {})
    if not isinstance(names_table, Mapping):
        raise ConfigError(f"{where} names: expected a table like {{resolve_interrupt = ...}}")
    bad = sorted(set(names_table) - set(ApiNames.keys()))
    if bad:
        raise ConfigError(
            f"{where} names: unknown name {bad[0]!r}; expected {', '.join(ApiNames.keys())}"
        )
    for key, value in names_table.items():
        if not isinstance(value, str) or not value.isidentifier():
            raise ConfigError(f"{where} names.{key}: expected an identifier, got {value!r}")
    settings = Settings(ApiNames(**names_table), receivers, false_as)
    return MigrateConfig(settings, select, ignore, exclude, path)


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return tuple(value)
