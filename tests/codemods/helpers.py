"""Run one rule command over a source string through LibCST's codemod API, byte-exact."""

from __future__ import annotations

from textwrap import dedent

from libcst.codemod import CodemodContext, TransformSuccess, transform_module

from codemods.command import RuleCommand
from codemods.libcst_command import RuleCodemod
from codemods.settings import Settings
from codemods.site import Site


def apply(
    command: type[RuleCommand], source: str, settings: Settings | None = None, *, strip: bool = True
) -> tuple[str, list[Site]]:
    """The transformed code and the sites; asserts a second run changes nothing."""
    code = dedent(source) if strip else source
    first = command(settings)
    result = transform_module(RuleCodemod(CodemodContext(), first), code)
    assert isinstance(result, TransformSuccess), getattr(result, "traceback_str", result)
    second = command(settings)
    again = transform_module(RuleCodemod(CodemodContext(), second), result.code)
    assert isinstance(again, TransformSuccess)
    assert again.code == result.code, "a second run changed the file"
    assert not second.changed
    return result.code, first.sites


def same(source: str) -> str:
    return dedent(source)
