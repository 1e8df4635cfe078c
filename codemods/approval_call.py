"""Reading the arguments of a legacy `add_tool_approval_response` call (shared by AG001, AG005).

The legacy call takes `{"id": …, "approved": …}` (the TypeScript object; also spelled
`dict(id=…, approved=…)`) or, in Python ports, `id=…, approved=…`; anything else cannot
be rewritten without guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True, slots=True)
class ApprovalArguments:
    """The two expressions of one approval answer."""

    id: cst.BaseExpression
    approved: cst.BaseExpression


UNREADABLE = (
    "pass the answer as {'id': ..., 'approved': ...} or id=..., approved=... "
    "and rerun, or resolve the bound interrupt by hand"
)


def approval_arguments(call: cst.Call) -> ApprovalArguments | None:
    """The id and approved expressions, or None when the arguments are not literal."""
    args = call.args
    if len(args) == 1 and args[0].keyword is None and not args[0].star:
        value = args[0].value
        if _is_dict_call(value):
            # `dict(id=..., approved=...)`: the keyword form, spelled as a dict.
            assert isinstance(value, cst.Call)
            return approval_arguments(value)
        if not isinstance(value, cst.Dict):
            return None
        found: dict[str, cst.BaseExpression] = {}
        for element in value.elements:
            if not isinstance(element, cst.DictElement):
                return None
            key = _string(element.key)
            if key is None or key in found:
                return None
            found[key] = element.value
        return _pair(found)
    found = {}
    for arg in args:
        if arg.keyword is None or arg.star:
            return None
        found[arg.keyword.value] = arg.value
    return _pair(found)


def _is_dict_call(node: cst.BaseExpression) -> bool:
    """`dict(...)` with keyword arguments only."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "dict"
        and bool(node.args)
        and all(arg.keyword is not None for arg in node.args)
    )


def _pair(found: dict[str, cst.BaseExpression]) -> ApprovalArguments | None:
    if set(found) != {"id", "approved"}:
        return None
    return ApprovalArguments(found["id"], found["approved"])


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def literal_bool(node: cst.BaseExpression) -> bool | None:
    """True/False for the literal names, None for anything else."""
    if isinstance(node, cst.Name) and node.value in {"True", "False"}:
        return node.value == "True"
    return None


def awaited_call(statement: cst.SimpleStatementLine) -> tuple[cst.Call, bool] | None:
    """The call when the statement is exactly `call` or `await call`, and whether awaited."""
    if len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Expr):
        return None
    value = small.value
    if isinstance(value, cst.Await) and isinstance(value.expression, cst.Call):
        return value.expression, True
    if isinstance(value, cst.Call):
        return value, False
    return None
