"""Checking a program: every rule each call breaks, with the state the earlier calls set.

Order rules (`ascverify.spec.rules.order_rule`) are decided here: a call breaks one when no earlier call set
the state key it needs; state rules come from `ApiModel.state_warnings`.
"""

from __future__ import annotations

from typing import Any

from ..cases.program import Program, moved_case, pointer_problems, record_moves
from .checker import Result, Unchecked, Violation, check_cases


def check_program(program: Program, *, file: str = "", index: int = 0) -> Result:
    """Every rule each call breaks (with the state the earlier calls set), each tagged with its call.

    The calls are put in their state first, call after call; then every call's cases are checked together
    (`check_cases`, batched by API and context: a program of thousands of calls checks at the pace of a file of
    cases, not one case at a time), and their findings merged call by call in program order."""
    result = Result(file, index, None, program=program)
    state: dict[str, Any] = {}
    moved: dict[str, int] = {}  # tensor name -> bytes earlier PostUpdate calls moved its pointer
    planned: list[tuple[Any, list, tuple, list, list]] = []
    for call in program.calls:
        model = call.case.model
        case = moved_case(call, moved)
        pointers = pointer_problems(call, moved)
        variants = tuple(model.check_variants(model.with_state(case, state)))
        orders = [rule for rule in model.rules_for(case.product)
                  if rule.domain.get("kind") == "order" and rule.domain["key"] not in state
                  and (rule.when is None or rule.when(case.values(), case.ctx))]
        warnings = list(model.state_warnings(case, state))
        model.apply_state(case, state)
        record_moves(call, case, moved)
        planned.append((call, pointers, variants, orders, warnings))
    verdicts = iter(check_cases([v for _, _, variants, _, _ in planned for v in variants]))
    for call, pointers, variants, orders, warnings in planned:
        model = call.case.model
        for found_rule, message in pointers:
            result.violations.append(Violation(found_rule, message, call.index))
        seen: set[tuple[str, str]] = set()  # a rule found by several of the call's variants is reported once
        for _ in variants:
            verdict = next(verdicts)
            if verdict.error is not None:
                raise verdict.error
            for kind, found in (("error", verdict.violations), ("warning", verdict.warnings)):
                target = result.violations if kind == "error" else result.warnings
                for v in found:
                    if (kind, v.id) not in seen:
                        seen.add((kind, v.id))
                        target.append(Violation(v.rule, v.message, call.index))
            for u in verdict.unchecked:
                rule = model.rule_by_id.get(u.rule_id)
                if (rule is not None and rule.domain.get("kind") == "order") or ("unchecked", u.rule_id) in seen:
                    continue  # order rules are decided here, with the program's state
                seen.add(("unchecked", u.rule_id))
                result.unchecked.append(Unchecked(u.rule_id, u.reason, u.source, call.index))
        for rule in orders:
            target = result.warnings if rule.severity == "warning" else result.violations
            target.append(Violation(rule, rule.message, call.index))
        for found_rule, message in warnings:  # a state rule's severity says where it goes (most are warnings)
            target = result.warnings if found_rule.severity == "warning" else result.violations
            target.append(Violation(found_rule, message, call.index))
    return result
