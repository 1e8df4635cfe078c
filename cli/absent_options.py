"""An option that was not given is not coerced: typer would load pydantic to return None.

Typer coerces each parameter's value through a pydantic `TypeAdapter` it builds on first
use, and it builds one even when the value is `None` (the option was not given), where
`RuntimeParam.coerce` returns `None` (or `()` for a repeatable option) without using it.
The root command's `--help` is such an option on every `agui COMMAND` run, so every
command, `agui replay --help` included, paid for importing pydantic and building an
adapter before doing anything. `install()` answers `None` the way typer does, without
the adapter; any other value goes through typer unchanged.
tests/cli/test_absent_options.py checks the answer equals typer's own.
"""

from __future__ import annotations

from typing import Any

_installed = False
typer_process_value: Any = None  # typer's own `process_value`, the plain twin


def install() -> None:
    """Skip building a coercion adapter for a value that is `None` (idempotent)."""
    global _installed, typer_process_value
    if _installed:
        return
    _installed = True
    from typer import core

    parameter_class = getattr(core, "_TyperParameter", None)
    if parameter_class is None or not hasattr(parameter_class, "get_runtime_param"):
        return  # a typer without lazily built adapters: nothing to skip
    typer_process_value = parameter_class.process_value

    def process_value(self: Any, ctx: Any, value: Any) -> Any:
        if value is not None or self._runtime_param is not None:
            return typer_process_value(self, ctx, value)
        self._runtime_param = _ABSENT  # typer's own steps, with None's coercion answered here
        try:
            return typer_process_value(self, ctx, value)
        finally:
            self._runtime_param = None

    parameter_class.process_value = process_value


def absent_value(param: Any) -> tuple[()] | None:
    """What typer's coercion makes of `None` for `param`: `()` when repeatable, else None."""
    return () if param.multiple or param.nargs == -1 else None


class _Absent:
    """Stands in for typer's runtime coercion of one parameter while its value is None."""

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        return absent_value(param)


_ABSENT = _Absent()
