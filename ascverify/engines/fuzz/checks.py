"""The checks a campaign runs on each drawn case; a failed check raises a `Failure`.

- ``invariants``: every invariant of `ascverify.engines.properties.invariants.invariants_of` (the generic ones and
  the model's own) on a valid case; the check is named after the invariant.
- ``negative``: on a case built to break exactly one rule: the concrete checker reports exactly that
  rule (the solver that built the case, the rule's Z3 term, and its plain evaluation agree) and the
  batched checker agrees with the scalar one. The core then runs the case; how it reacts (a memory
  fault, a refusal, or silence) is recorded per rule, as a Hypothesis event ``RULE: core faults`` and
  in the report, not judged: the core may refuse an invalid case (as ``ascverify run`` allows), and a
  rule the core never notices marks where the core is looser than the documented contract.
- ``differential``: the core's outputs against a target's, for the same inputs (`compare`).

Each failure's *key* tells Hypothesis's failures apart (it raises a distinct exception type per key,
so Hypothesis shrinks each bug separately) and, with the shrunk case, identifies a finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, NoReturn

import numpy as np

from ...cases.case import Case, fresh
from ...checking.checker import check_case, check_cases
from ...core.memory import Fault, Trace
from ...core.run import prepare, run_case
from ..properties.invariants import GENERIC, invariants_of
from .compare import Diff, Tolerance, compare_tensor, defined_elements, tolerance_for
from .targets import Malformed, Target, TargetError

#: Rule kinds whose violation keeps the core from running a case (values beyond their C type would make
#: it allocate absurd ranges; the same reading as `ascverify run`).
UNRUNNABLE_KINDS = ("type", "fits")

NEGATIVE_CHECKS = ("rejects_exactly_the_broken_rule", "batched_and_scalar_checks_agree")
DIFFERENTIAL_CHECK = "differential"


class Failure(AssertionError):
    """A check failed on a case. ``key`` identifies the bug, ``check`` the check (a JUnit testcase)."""

    def __init__(self, key: str, check: str, message: str, *, diffs: tuple[Diff, ...] = (),
                 expected: Mapping[str, np.ndarray] | None = None, actual: Mapping[str, Any] | None = None,
                 defined: Mapping[str, np.ndarray] | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail
        self.key = key
        self.check = check
        self.message = message
        self.diffs = diffs
        self.expected = dict(expected or {})
        self.actual = dict(actual or {})
        self.defined = dict(defined or {})


_TYPES: dict[str, type[Failure]] = {}


def failure_type(key: str) -> type[Failure]:
    """A subclass of Failure per key: Hypothesis tells bugs apart by exception type."""
    got = _TYPES.get(key)
    if got is None:
        name = "Failure_" + "".join(ch if ch.isalnum() else "_" for ch in key)
        got = _TYPES[key] = type(name, (Failure,), {"__module__": __name__})
    return got


def fail(key: str, check: str, message: str, **kw: Any) -> NoReturn:
    raise failure_type(key)(key, check, message, **kw)


def _short(text: str, n: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


# -- invariants ----------------------------------------------------------------------------------------------------

def invariant_names(case_or_model: Any) -> list[str]:
    """The invariants' names (the checks of an ``invariants`` unit)."""
    model = getattr(case_or_model, "model", case_or_model)
    return [inv.__name__ for inv in (*GENERIC, *getattr(model, "invariants", ()))]


def run_invariants(case: Case, seed: int, counts: dict[str, int] | None = None) -> None:
    """Every invariant on a valid case, in order; the first that fails raises its Failure."""
    for inv in invariants_of(case):
        name = inv.__name__
        if counts is not None:
            counts[name] = counts.get(name, 0) + 1
        try:
            inv(case, seed)
        except AssertionError as exc:
            fail(name, name, f"{name}: {_short(exc)}")
        except Exception as exc:  # noqa: BLE001 - a Fault or a crash inside an invariant is a finding too
            fail(f"{name}!{type(exc).__name__}", name, f"{name} raised {type(exc).__name__}: {_short(exc)}")


def core_outputs(case: Case, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray], list[Fault]]:
    """Run the case (non-strict): its inputs, every output tensor after the call, the defined elements, the faults."""
    c = fresh(case)
    memory, inputs = prepare(c, seed=seed)
    trace = Trace(memory, strict=False)
    c.model.execute(c, trace)
    outputs: dict[str, np.ndarray] = {}
    defined: dict[str, np.ndarray] = {}
    for decl in c.model.tensors:
        if decl.role not in ("out", "inout"):
            continue
        t = c.tensor(decl.name)
        if not t.present or t.end > memory.size(t.buffer):
            continue
        outputs[decl.name] = memory.typed(t.buffer, t.addr, t.size, t.dtype.numpy)
        defined[decl.name] = defined_elements(memory.state[t.buffer][t.addr:t.end], t.dtype.numpy.itemsize)
    return {k: v.copy() for k, v in inputs.items()}, outputs, defined, list(trace.faults)


# -- negative ------------------------------------------------------------------------------------------------------

@dataclass
class NegativeOutcome:
    """How the core reacted: ``faults`` (a memory fault), ``refuses`` (raised), ``silent`` (ran cleanly), ``not run``."""

    observed: str


def run_negative(rule_id: str, case: Case, seed: int, counts: dict[str, int] | None = None) -> NegativeOutcome:
    """The checks on a case built to break exactly ``rule_id``."""
    def count(name: str) -> None:
        if counts is not None:
            counts[name] = counts.get(name, 0) + 1

    count(NEGATIVE_CHECKS[0])
    verdict = check_case(case)
    ids = [v.id for v in verdict.violations]
    if ids != [rule_id]:
        fail("negative.exactly", NEGATIVE_CHECKS[0],
             f"a case built (by the solver) to break only {rule_id} breaks {ids or 'no rule'} by the checker")
    count(NEGATIVE_CHECKS[1])
    batched = check_cases([case])[0]
    if [(v.id, v.message) for v in batched.violations] != [(v.id, v.message) for v in verdict.violations] \
            or [v.id for v in batched.warnings] != [v.id for v in verdict.warnings]:
        fail("negative.batched", NEGATIVE_CHECKS[1],
             f"batched check says {[v.id for v in batched.violations]}, scalar check says {ids}")
    rule = case.model.rule_by_id[rule_id]
    if rule.domain.get("kind") in UNRUNNABLE_KINDS:
        return NegativeOutcome("not run")

    try:
        res = run_case(fresh(case), seed=seed, strict=False)
        return NegativeOutcome("faults" if res.faults else "silent")
    except Fault:
        return NegativeOutcome("faults")
    except Exception:  # noqa: BLE001 - the core may refuse an invalid case outright (as `ascverify run` allows)
        return NegativeOutcome("refuses")


# -- differential --------------------------------------------------------------------------------------------------

@dataclass
class Differential:
    """Compares a target with the core. Cases that timed out once are not run again (a shrink would wait on each)."""

    target: Target
    timeout: float = 10.0
    rtol: float | None = None
    atol: float | None = None
    error_ratio: float | None = None
    _timed_out: dict = field(default_factory=dict)

    def tolerance(self, case: Case, tensor: str) -> Tolerance | None:
        return tolerance_for(case.ctx.tensor_dtype(tensor), self.rtol, self.atol, self.error_ratio)

    def tolerances(self, case: Case) -> dict[str, Any]:
        out = {}
        for decl in case.model.tensors:
            if decl.role in ("out", "inout"):
                t = self.tolerance(case, decl.name)
                out[decl.name] = t.to_json() if t else "bit-exact"
        return out

    def run(self, case: Case, seed: int, counts: dict[str, int] | None = None) -> list[Diff]:
        """Compare; raise a Failure on a crash, timeout, malformed or differing output. Returns the diffs."""
        import json

        if counts is not None:
            counts[DIFFERENTIAL_CHECK] = counts.get(DIFFERENTIAL_CHECK, 0) + 1
        inputs, expected, defined, faults = core_outputs(case, seed)
        if faults:
            fail("core.fault", DIFFERENTIAL_CHECK,
                 f"the core faulted on a valid case: {_short('; '.join(str(f) for f in faults[:3]))}",
                 expected=expected, defined=defined)
        doc = case.to_json()
        spec = {name: (arr.dtype, arr.size) for name, arr in expected.items()}
        memo = (json.dumps(doc, sort_keys=True), int(seed))
        kw = {"expected": expected, "defined": defined}
        if memo in self._timed_out:
            fail("differential.timeout", DIFFERENTIAL_CHECK, self._timed_out[memo], **kw)
        try:
            actual = self.target.run(doc, inputs, spec, self.timeout)
        except TargetError as exc:
            first = exc.message.strip().splitlines()[0] if exc.message.strip() else exc.kind
            message = f"the target {'timed out' if exc.kind == 'timeout' else 'failed'}: {_short(first, 600)}"
            if exc.kind == "timeout":
                self._timed_out[memo] = message
            fail(f"differential.{exc.kind}", DIFFERENTIAL_CHECK, message, detail=exc.message, **kw)
        diffs: list[Diff] = []
        for name, exp in expected.items():
            got = actual.get(name)
            dtype = case.ctx.tensor_dtype(name)
            if isinstance(got, Malformed):
                diffs.append(Diff(name, False, "shape", got.message))
                continue
            diffs.append(compare_tensor(name, dtype, exp, got, defined.get(name), self.tolerance(case, name)))
        bad = [d for d in diffs if not d.ok]
        if bad:
            first = bad[0]
            fail(f"differential.{first.kind}:{first.tensor}", DIFFERENTIAL_CHECK,
                 "; ".join(d.message for d in bad), diffs=tuple(diffs), actual=actual, **kw)
        return diffs
