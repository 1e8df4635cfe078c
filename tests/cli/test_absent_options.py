"""An option not given gets typer's own answer without pydantic (cli/absent_options.py)."""

from __future__ import annotations

import enum
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from cli import absent_options
from cli.app import app  # installs the shortcut, as `agui` does


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


ANNOTATIONS: list[Any] = [
    str,
    int,
    float,
    bool,
    Path,
    Colour,
    list[str],
    list[int],
    list[Path],
    tuple[str, int],
]


def one_parameter_command(annotation: Any, kind: str, required: bool) -> Any:
    if kind == "argument":
        default: Any = typer.Argument(... if required else None)
    else:
        default = typer.Option(... if required else None, "--value")

    def command(value: annotation = default) -> None:  # type: ignore[valid-type]
        """One parameter."""

    command.__annotations__["value"] = annotation | None if not required else annotation
    single = typer.Typer()
    single.command()(command)
    return typer.main.get_command(single)


def answer(process: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    param._runtime_param = None
    try:
        return "value", process(param, ctx, None)
    except Exception as error:  # the same error, same message, both ways
        return type(error).__name__, str(error)
    finally:
        param._runtime_param = None


@settings(max_examples=60, deadline=None)
@given(
    annotation=st.sampled_from(ANNOTATIONS),
    kind=st.sampled_from(["argument", "option"]),
    required=st.booleans(),
)
def test_none_gets_the_answer_typer_gives(annotation: Any, kind: str, required: bool) -> None:
    command = one_parameter_command(annotation, kind, required)
    param = next(p for p in command.params if p.name == "value")
    ctx = command.context_class(command)
    fast = answer(type(param).process_value, param, ctx)
    plain = answer(absent_options.typer_process_value, param, ctx)
    assert fast == plain


def test_every_agui_parameter_left_out_gets_the_answer_typer_gives() -> None:
    group = typer.main.get_command(app)
    commands = [group, *group.commands.values()]  # type: ignore[attr-defined]
    for command in commands:
        ctx = command.context_class(command)
        for param in command.params:
            fast = answer(type(param).process_value, param, ctx)
            plain = answer(absent_options.typer_process_value, param, ctx)
            assert fast == plain, f"{command.name} {param.name}"


def test_a_given_value_still_goes_through_typer() -> None:
    command = one_parameter_command(int, "option", required=False)
    param = next(p for p in command.params if p.name == "value")
    ctx = command.context_class(command)
    assert type(param).process_value(param, ctx, "7") == 7


def test_a_subcommand_help_page_loads_no_pydantic() -> None:
    code = (
        "import sys\nfrom cli.app import app\nsys.argv = ['agui', 'replay', '--help']\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(str('pydantic' in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "agui replay" in done.stdout
    assert done.stderr == "False"
