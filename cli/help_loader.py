"""Loads typer's help renderer when help or an error is shown, without rich's unused parts.

`typer.rich_utils` renders every help page and usage error, and at import it pulls in
`rich.markdown` (markdown-it) and `rich.traceback` (pygments): a third of `agui --help`'s
time, for help written in rich markup (never Markdown) and a traceback shown only when
`AGUI_DEBUG=1` lets an error through. Typer imports `rich_utils` at the moment it needs
it, so `when_loaded` hooks that import: the hook runs the caller's styling on the fresh
module, and while `rich_utils` executes, the two modules it takes one class each from
are stood in for by classes that import the real one on first use. Once `rich_utils`
is loaded the stand-ins leave `sys.modules`, so any later `import rich.markdown` gets
the real module. tests/cli/test_help_loader.py renders every help page both ways.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

RICH_UTILS = "typer.rich_utils"

# Module → the one name `typer.rich_utils` imports from it.
DEFERRED: dict[str, str] = {
    "rich.markdown": "Markdown",
    "rich.traceback": "Traceback",
}


def when_loaded(style: Callable[[types.ModuleType], None]) -> None:
    """Run `style` on `typer.rich_utils`: now if it is loaded, else as soon as it is."""
    loaded = sys.modules.get(RICH_UTILS)
    if loaded is not None:
        style(loaded)
    else:
        sys.meta_path.insert(0, _HookedImport(style))


class _HookedImport:
    """A `sys.meta_path` finder for `typer.rich_utils` alone, once; it leaves when used."""

    def __init__(self, style: Callable[[types.ModuleType], None]) -> None:
        self.style = style
        self.used = False

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != RICH_UTILS or self.used:
            return None
        # Not removed from sys.meta_path here: the import system is iterating over it.
        self.used = True
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module
        style = self.style

        def exec_module(module: types.ModuleType) -> None:
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            with stand_ins():
                load(module)
            style(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


@contextmanager
def stand_ins() -> Iterator[None]:
    """While inside, each of `DEFERRED` not yet imported is a module of one stand-in class."""
    placed = {}
    for module_name, class_name in DEFERRED.items():
        if module_name not in sys.modules:
            module = _StandInModule(module_name)
            setattr(module, class_name, deferred_class(module_name, class_name))
            placed[module_name] = module
    sys.modules.update(placed)
    try:
        yield
    finally:
        for module_name, module in placed.items():
            if sys.modules.get(module_name) is module:
                del sys.modules[module_name]


class _StandInModule(types.ModuleType):
    """A stand-in module; any name it does not stand in for comes from the real one."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system probing (`__path__`, `__file__`...)
            raise AttributeError(name)
        return getattr(real_module(self.__name__), name)


def real_module(name: str) -> types.ModuleType:
    """The real module `name`, imported now if a stand-in holds its place."""
    if isinstance(sys.modules.get(name), _StandInModule):
        del sys.modules[name]
    return importlib.import_module(name)


class _Deferred(type):
    """Metaclass of a stand-in: attributes, calls and `isinstance` go to the real class."""

    _module: str
    _name: str

    def real(cls) -> Any:
        return getattr(real_module(cls._module), cls._name)

    def __getattr__(cls, attribute: str) -> Any:
        return getattr(cls.real(), attribute)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.real()(*args, **kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.real())


def deferred_class(module_name: str, class_name: str) -> type:
    """A class standing in for `module_name.class_name`, imported on first use."""
    return _Deferred(class_name, (), {"_module": module_name, "_name": class_name})
