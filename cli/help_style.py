"""How `--help` pages and usage errors look: words for values, no Python types, one line.

Typer shows every parameter's Python type (`<bool>`, `<list[str]>`, `<path>`) and
wraps a usage error in a boxed panel under the usage line. agui's help shows nothing
after a flag, the option's metavar (`FILE`, `URL`, `SECONDS`) after a value, argument
names as they are (`RECORDING...`, not `{RECORDING...}...`), and a usage error is one
line on stderr like every other error: `agui replay: no such option --frobnicate (did
you mean --format?)`. Typer offers no hook for either, so `install()` replaces the few
methods that decide them; tests/cli/test_help.py pins the result.
"""

from __future__ import annotations

import difflib
import re
import sys
from typing import Any

from cli import help_loader

_installed = False


def install() -> None:
    """Apply agui's help and usage-error style to Typer (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    from typer import core

    typer_option_type = core.TyperOption.display_type_rich

    def option_type(self: Any, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        if self.metavar is not None:
            return str(self.metavar)
        if self.type_descriptor.is_choice:
            return str(typer_option_type(self, ctx)).strip("<>")  # `json|sarif|...`
        return str(self.name or "value").upper()

    def argument_type(self: Any, ctx: Any) -> str | None:
        return None  # the argument's own name (its metavar) already says what goes there

    def argument_usage(self: Any) -> str:
        name = str(self.display_name_raw)
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required else f"[{name}]"

    core.TyperOption.display_type_rich = option_type  # type: ignore[method-assign]
    core.TyperArgument.display_type_rich = argument_type  # type: ignore[method-assign]
    core.TyperArgument._usage_display_name = argument_usage  # type: ignore[method-assign]
    help_loader.when_loaded(_style_rich_utils)


def _style_rich_utils(rich_utils: Any) -> None:
    rich_utils.rich_format_error = one_line_error
    rich_utils._fix_linebreaks = join_lines
    rich_utils._make_command_help = _one_line_summary(rich_utils._make_command_help)
    rich_utils._get_parameter_help = _folded(rich_utils._get_parameter_help)
    rich_utils.Table = _folding_table(rich_utils.Table)


def _folding_table(table: Any) -> Any:
    """The help panels' table, whose cells fold what does not fit (option names and
    metavars included: `--reque…` at COLUMNS=40) instead of cutting it with `…`."""

    class FoldingTable(table):  # type: ignore[misc]
        def add_row(self, *renderables: Any, **options: Any) -> None:
            super().add_row(*renderables, **options)
            for column in self.columns:
                column.overflow = "fold"

    return FoldingTable


def _folded(get_parameter_help: Any) -> Any:
    """An option's help that folds a word too long for its column instead of cutting it.

    Rich ends such a word with `…`: on a narrow terminal (COLUMNS=40) the help lost 131
    words that way (`transla…`, `http://127.0.0…`), and a URL or a file name cut short
    teaches nothing. Folded, every character is still there.
    """

    def parameter_help(**kwargs: Any) -> Any:
        columns = get_parameter_help(**kwargs)
        for item in getattr(columns, "renderables", ()):
            if type(item).__name__ == "Text":
                item.overflow = "fold"
        return columns

    return parameter_help


def _one_line_summary(make_command_help: Any) -> Any:
    """`agui --help`'s row for a command, from its docstring's first paragraph re-wrapped.

    In rich markup mode Typer keeps the paragraph's own line breaks, so a summary that
    spans two source lines broke in the middle of the commands table.
    """

    def command_help(*, help_text: str, markup_mode: Any) -> Any:
        first, blank, rest = help_text.strip().partition("\n\n")
        if not first.startswith("\b"):
            first = " ".join(first.split())
        return make_command_help(help_text=first + blank + rest, markup_mode=markup_mode)

    return command_help


def join_lines(paragraphs: list[str], markup_mode: Any) -> str:
    """Paragraphs of help re-wrapped to the terminal; a `\\b` paragraph stays as written.

    A docstring's own line breaks would otherwise survive into the help page and break
    lines in the middle at any width but the one the source was written for.
    """
    out = []
    for paragraph in paragraphs:
        if paragraph.startswith("\b"):
            out.append(paragraph[2:].lstrip("\n"))
        else:
            out.append(re.sub(r"[ \t]*\n[ \t]*", " ", paragraph.strip()))
    return "\n\n".join(out)


def epilog(examples: list[tuple[str, str]], environment: list[str]) -> str:
    """A help page's closing: examples (kept line by line) and the environment it reads."""
    lines = "\n".join(f"  # {what}\n  {command}" for command, what in examples)
    return f"Examples:\n\n\b\n{lines}\n\nEnvironment: {'; '.join(environment)}."


ENVIRONMENT = [
    "AGUI_DEBUG=1 shows a traceback for errors",
    "NO_COLOR turns colour off",
]


def one_line_error(error: Any) -> None:
    """Print a usage error as `agui COMMAND: message` on one line of stderr."""
    if type(error).__name__ == "NoArgsIsHelpError":
        return
    ctx = getattr(error, "ctx", None)
    where = ctx.command_path if ctx is not None else "agui"
    sys.stderr.write(f"{where}: {usage_message(error)}\n")


def usage_message(error: Any) -> str:
    """The error's message reworded to agui's voice: lower case, no quotes, one line."""
    kind = type(error).__name__
    if kind == "NoSuchOption":
        text = f"no such option {error.option_name}"
        hint = _known_mistake(error)
        if hint is not None:
            return f"{text} ({hint})"
        possibilities = list(getattr(error, "possibilities", None) or ())
        closest = difflib.get_close_matches(error.option_name, possibilities, n=1, cutoff=0)
        if closest:
            text += f" (did you mean {closest[0]}?)"
        return text
    expected = _expected_value(error)
    if expected is not None:
        return f"invalid value for {_option_name(error)}: {expected}"
    message = " ".join(str(error.format_message()).split())
    # click's two sentences for a mistyped command, in the words used for an option
    mistyped = re.fullmatch(r"No such command '(.+)'\.(?: Did you mean '(.+)'\?)?", message)
    if mistyped is not None:
        guess = f" (did you mean {mistyped[2]}?)" if mistyped[2] else ""
        return f"no such command {mistyped[1]}{guess}"
    extra = re.fullmatch(r"Got unexpected extra argument\(s\) \((.+)\)", message)
    if extra is not None and _takes_from(error):
        # `agui resume rec.sse`: the recording is an option there, not an argument
        return f"got unexpected extra argument(s) ({extra[1]}): give a recording with --from"
    message = re.sub(r"'(-[-\w]+|[A-Z][A-Z0-9_.]*(?:\.\.\.)?)'", r"\1", message)
    # pydantic's prefix for a validator's own message (typer coerces choices through it)
    message = message.replace(": Value error, ", ": ")
    message = message.removesuffix(".")
    if kind == "MissingParameter" and getattr(error, "ctx", None) is not None:
        message += f" (see {error.ctx.command_path} --help)"
    return message[:1].lower() + message[1:]


# Options new users bring from other tools (or from another agui command), with what
# does that job here. Spelling-closeness guessed wrong for every one of them:
# `proxy --port` was asked "did you mean --format?", `replay --report` "--export?".
OPTION_HINTS: dict[tuple[str, str], str] = {
    ("replay", "--report"): "the report's format is --format text|json|sarif|junit",
    ("replay", "--output"): "--html FILE writes a page; --json > FILE the events",
    ("replay", "-o"): "--html FILE writes a page; --json > FILE the events",
    ("replay", "--port"): "--serve [HOST:]PORT serves the recording",
    ("replay", "--listen"): "--serve [HOST:]PORT serves the recording",
    ("translate", "--report"): "the notices' format is --format text|json",
    ("translate", "--dry-run"): "--check writes nothing",
    ("resume", "--check"): "--dry-run prints the body and sends nothing",
    ("resume", "--post"): "resume posts by default, to --url URL; --dry-run sends nothing",
    ("resume", "--output"): "--record OUT.sse saves the response",
    ("resume", "-o"): "--record OUT.sse saves the response",
    ("migrate", "--dry-run"): "a dry run is the default: it prints a diff; --write applies it",
    ("migrate", "--diff"): "the default output is a diff; --write applies it",
    ("migrate", "--in-place"): "--write rewrites the files",
    ("migrate", "--fix"): "--write rewrites the files",
    ("migrate", "--apply"): "--write rewrites the files",
    ("migrate", "--report"): "the report's format is --format diff|json|sarif|github",
    ("proxy", "--port"): "use --listen [HOST:]PORT",
    ("proxy", "--target"): "use --upstream URL",
    ("proxy", "--url"): "use --upstream URL",
    ("proxy", "--output"): "use --record DIR",
    ("proxy", "-o"): "use --record DIR",
    ("proxy", "--report"): "the findings' format is --format text|json, with --check",
}


def _known_mistake(error: Any) -> str | None:
    """What to type instead of an option agui does not have: a known spelling from
    another tool, or a command's option given before the command (`agui --check
    replay run.sse`, which click can only answer with "did you mean --help?")."""
    ctx = getattr(error, "ctx", None)
    command = getattr(ctx, "command", None)
    option = str(error.option_name)
    hint = OPTION_HINTS.get((str(getattr(ctx, "info_name", "")), option))
    if hint is not None:
        return hint
    subcommands = getattr(command, "commands", None)
    if not subcommands:
        return None
    owners = [
        name
        for name, sub in subcommands.items()
        if any(option in (*p.opts, *p.secondary_opts) for p in sub.params)
    ]
    if not owners:
        return None
    return (
        f"options go after the command, as in agui {owners[0]} {option} …;"
        f" {option} is an option of {', '.join(owners)}"
    )


# pydantic's words for a value typer could not coerce, as what the user should type instead
# ("Input should be a valid integer, unable to parse string as an integer" says neither
# what was typed nor what to type).
EXPECTED_BY_PYDANTIC_ERROR = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "bool_parsing": "true or false",
}


def _expected_value(error: Any) -> str | None:
    """`'many' is not a whole number` when typer's pydantic coercion refused the value."""
    cause = error.__cause__
    if type(cause).__name__ != "ValidationError":
        return None
    details = cause.errors()
    if len(details) != 1 or details[0].get("type") not in EXPECTED_BY_PYDANTIC_ERROR:
        return None
    typed = details[0].get("input")
    return f"{typed!r} is not {EXPECTED_BY_PYDANTIC_ERROR[details[0]['type']]}"


def _option_name(error: Any) -> str:
    """The option as the user may spell it (`--jobs / -j`), else `value`."""
    param = getattr(error, "param", None)
    opts = list(getattr(param, "opts", None) or ()) + list(
        getattr(param, "secondary_opts", None) or ()
    )
    return " / ".join(opts) if opts else "value"


def _takes_from(error: Any) -> bool:
    """Whether the failing command reads its recording from `--from` (it takes no
    positional arguments: a recording typed as one is the likely mistake) and was given
    none (`--from run.sse extra`: the extra argument is something else)."""
    ctx = getattr(error, "ctx", None)
    command = getattr(ctx, "command", None)
    params = getattr(command, "params", None) or ()
    given = getattr(ctx, "params", None) or {}
    return any(
        "--from" in getattr(param, "opts", ()) and not given.get(getattr(param, "name", None))
        for param in params
    )
