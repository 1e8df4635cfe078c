"""Every binding form a rule asks about is seen by the one binding walker.

`binds` (is this name bound under here?) and the state-name scan of AG002 (bound to
`get_interrupt_state()`, or otherwise?) both walk `codemods.command.Bindings`: a form
one of them missed would let a rewrite call or read a name that no longer means what
the rule assumes.
"""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.command import Bindings, binds, target_names

FORMS = {
    "x = 1": "x",
    "a, (b, *x) = v": "x",
    "x: int = 1": "x",
    "x += 1": "x",
    "(x := 1)": "x",
    "for x in y: pass": "x",
    "[0 for x in y]": "x",
    "with f() as x: pass": "x",
    "with f() as (a, x): pass": "x",
    "try:\n    pass\nexcept E as x:\n    pass": "x",
    "import x": "x",
    "import m as x": "x",
    "from m import x": "x",
    "from m import y as x": "x",
    "def f(x): pass": "x",
    "def f(*, x=1): pass": "x",
    "lambda x: x": "x",
    "def x(): pass": "x",
    "async def x(): pass": "x",
    "class x: pass": "x",
    "def f():\n    global x": "x",
    "def f():\n    def g():\n        nonlocal x": "x",
}


@pytest.mark.parametrize("code", FORMS)
def test_each_binding_form_binds_its_name(code: str) -> None:
    module = cst.parse_module(code + "\n")
    assert binds(module, FORMS[code])
    assert not binds(module, "unrelated")


@pytest.mark.parametrize(
    "code", ["print(x)", "o.x = 1", "o[x] = 1", "f(x=1)", "import m.x", "del x", "x.y += 1"]
)
def test_reads_keys_and_attributes_bind_nothing(code: str) -> None:
    assert not binds(cst.parse_module(code + "\n"), "x")


def test_a_single_plain_assignment_tells_its_value() -> None:
    seen: list[tuple[set[str], str | None]] = []

    class Noted(Bindings):
        def bound(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
            code = None if value is None else cst.Module([]).code_for_node(value)
            seen.append((target_names(target), code))

    cst.parse_module("a = f()\nb = c = g()\nd: int = h()\n(e := i())\nk += j()\n").visit(Noted())
    assert seen == [
        ({"a"}, "f()"),
        ({"b"}, None),
        ({"c"}, None),
        ({"d"}, "h()"),
        ({"e"}, "i()"),
        ({"k"}, None),
    ]
