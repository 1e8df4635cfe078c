"""A given `str` / `list[str]` value gets typer's own answer without pydantic
(cli/given_options.py): the direct coercion against the adapter typer builds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._coercion import build_runtime_param

from cli import given_options
from cli.app import app  # installs the shortcut, as `agui` does

ANNOTATIONS: list[Any] = [str, list[str], int, list[int], Path, tuple[str, int]]
STRINGS = st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
VALUES = st.one_of(
    STRINGS,
    st.binary(max_size=6),
    st.integers(),
    st.none(),
    st.lists(STRINGS, max_size=3),
    st.tuples(STRINGS, STRINGS),
    st.lists(st.one_of(STRINGS, st.integers(), st.binary(max_size=3)), max_size=3),
)


def one_parameter_command(annotation: Any, kind: str, parser: bool) -> Any:
    extra: dict[str, Any] = {"parser": str.upper} if parser else {}
    if kind == "argument":
        default: Any = typer.Argument(None, **extra)
    else:
        default = typer.Option(None, "--value", **extra)

    def command(value: annotation = default) -> None:  # type: ignore[valid-type]
        """One parameter."""

    command.__annotations__["value"] = annotation | None
    single = typer.Typer()
    single.command()(command)
    return typer.main.get_command(single)


def outcome(coerce: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        result = coerce(value, param=param, ctx=ctx)
    except Exception as error:  # the same error, same message, both ways
        return type(error).__name__, str(error)
    return type(result).__name__, result


@settings(max_examples=300, deadline=None)
@given(
    annotation=st.sampled_from(ANNOTATIONS),
    kind=st.sampled_from(["argument", "option"]),
    parser=st.booleans(),
    value=VALUES,
)
def test_a_given_value_gets_the_answer_typer_gives(
    annotation: Any, kind: str, parser: bool, value: Any
) -> None:
    command = one_parameter_command(annotation, kind, parser)
    param = next(p for p in command.params if p.name == "value")
    ctx = command.context_class(command)
    param._runtime_param = None
    fast = param.get_runtime_param()
    plain = build_runtime_param(param.type_descriptor)
    assert outcome(fast.coerce, value, param, ctx) == outcome(plain.coerce, value, param, ctx)


def test_only_plain_string_parameters_are_coerced_directly() -> None:
    for annotation, parser, direct in [
        (str, False, True),
        (list[str], False, True),
        (str, True, False),
        (int, False, False),
        (Path, False, False),
    ]:
        command = one_parameter_command(annotation, "option", parser)
        param = next(p for p in command.params if p.name == "value")
        param._runtime_param = None
        name = type(param.get_runtime_param()).__name__
        assert (name == "DirectStrParam") is direct, (annotation, parser, name)


def test_every_agui_string_parameter_given_gets_the_answer_typer_gives() -> None:
    group = typer.main.get_command(app)
    for command in [group, *group.commands.values()]:  # type: ignore[attr-defined]
        ctx = command.context_class(command)
        for param in command.params:
            if given_options.plain_kind(param.type_descriptor) is None:
                continue
            value: Any = ["a.sse", "-"] if param.multiple or param.nargs == -1 else "fast"
            param._runtime_param = None
            fast = param.get_runtime_param()
            plain = build_runtime_param(param.type_descriptor)
            assert outcome(fast.coerce, value, param, ctx) == outcome(
                plain.coerce, value, param, ctx
            ), f"{command.name} {param.name}"
