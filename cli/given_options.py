"""A given string option is coerced without pydantic: it already is the string typer returns.

Typer coerces every given value through a pydantic `TypeAdapter` it builds on first use
(`typer._coercion.AdapterRuntimeParam`). For a `str` parameter (or `list[str]`) and the
exact `str` values its command line delivers, that adapter's answer is the value itself
(`list(values)` for a list): `agui replay --check FILE` paid about 50 ms of pydantic
imports and adapter building to get its own arguments back. `install()` gives such
parameters a runtime coercion that returns those values directly and hands anything
else (bytes, other types, a custom parser, file types) to the adapter typer would have
built, its plain twin. tests/cli/test_given_options.py checks both agree on random values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_installed = False
typer_get_runtime_param: Any = None  # typer's own `get_runtime_param`


def install() -> None:
    """Give plain `str` and `list[str]` parameters the direct coercion (idempotent)."""
    global _installed, typer_get_runtime_param
    if _installed:
        return
    _installed = True
    from typer import _coercion, core

    parameter_class = getattr(core, "_TyperParameter", None)
    runtime_param = getattr(_coercion, "RuntimeParam", None)
    if (
        parameter_class is None
        or runtime_param is None
        or not hasattr(parameter_class, "get_runtime_param")
        or not hasattr(_coercion, "build_runtime_param")
    ):
        return  # a typer without lazily built coercion: nothing to skip
    typer_get_runtime_param = parameter_class.get_runtime_param
    direct = _direct_class(runtime_param)

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            kind = plain_kind(self.type_descriptor)
            if kind is not None:
                descriptor = self.type_descriptor
                self._runtime_param = direct(
                    parameter_info=descriptor.parameter_info,
                    annotation=descriptor.annotation,
                    descriptor=descriptor,
                    is_list=kind == "list",
                )
        return typer_get_runtime_param(self)

    parameter_class.get_runtime_param = get_runtime_param


def plain_kind(descriptor: Any) -> str | None:
    """`"str"` or `"list"` for a parameter typer coerces with its plain string adapter."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or getattr(info, "parser", None) is not None:
        return None
    if descriptor.annotation is str:
        return "str"
    if descriptor.annotation == list[str]:
        return "list"
    return None


def _direct_class(runtime_param: type[Any]) -> type[Any]:
    """The direct coercion, a `RuntimeParam` so typer's None and iterable checks stay."""
    from typer._coercion import build_runtime_param

    @dataclass(frozen=True)
    class DirectStrParam(runtime_param):  # type: ignore[misc]
        descriptor: Any = None
        is_list: bool = False

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.is_list:
                if type(value) in (list, tuple) and all(type(item) is str for item in value):
                    return list(value)
            elif type(value) is str:
                return value
            # Anything else: the adapter typer builds (once a run: one value per parameter).
            plain = build_runtime_param(self.descriptor)
            return plain._coerce_value(value, param=param, ctx=ctx)

    return DirectStrParam
