"""A rule run under LibCST's codemod machinery: the plain twin of the runner's bare rules.

The runner drives each rule as a bare transformer (`RuleCommand.transform_module`), so
its worker processes never import `libcst.codemod` and the `libcst.matchers` it loads.
`RuleCodemod` hands the same rule to LibCST's `Codemod.transform_module` instead (a
metadata wrapper over a deep copy of the tree, the codemod context, the helper
transforms that follow a command): the tests run the rules this way and prove both
give the same output, byte for byte.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext

from codemods.command import RuleCommand


class RuleCodemod(CodemodCommand):
    """One rule instance as a LibCST codemod command; its findings stay on `rule`."""

    DESCRIPTION = "One agui rule (see codemods.rules) under LibCST's codemod machinery."

    def __init__(self, context: CodemodContext, rule: RuleCommand) -> None:
        super().__init__(context)
        self.rule = rule

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        # `tree` is the copy LibCST's metadata wrapper made: the rule sees it as its module.
        self.rule.module = tree
        return self.rule.transform_module_impl(tree)


def through_codemod(rule: RuleCommand, tree: cst.Module) -> cst.Module:
    """What `rule.transform_module(tree)` returns, computed through LibCST's codemod."""
    return RuleCodemod(CodemodContext(), rule).transform_module(tree)
