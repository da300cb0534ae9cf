"""Invariants that cross-check a model against the core, for every registered API.

Generic ones hold for any API (a case the model accepts runs without a fault and writes only
inside the footprint the model predicts); each model adds its own semantic invariants as
functions listed in its ``invariants`` attribute.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ...cases.case import Case, fresh
from ...checking.checker import check_case
from ...core.run import RunResult, run_case

Invariant = Callable[[Case, int], None]


def accepted_runs_clean(case: Case, seed: int = 0) -> RunResult:
    """A case the model accepts runs on the core without a fault."""
    verdict = check_case(case)
    assert verdict.valid, f"not a valid case: {[v.id for v in verdict.violations]}"
    result = run_case(fresh(case), seed=seed, strict=False)
    assert not result.faults, f"valid case faulted: {[str(f) for f in result.faults[:3]]}"
    return result


def writes_inside_footprint(case: Case, seed: int = 0) -> None:
    """Every byte the core stores lies inside the footprint the model predicts."""
    result = accepted_runs_clean(case, seed)
    predicted: dict[str, np.ndarray] = {b: np.zeros(result.memory.size(b), dtype=bool) for b in result.memory.buffers}
    for intervals in case.model.footprint(case).values():
        for buf, start, stop in intervals:
            predicted[buf][start:stop] = True
    for buf in result.memory.buffers:
        if result.memory.size(buf) == 0:
            continue
        stray = result.trace.stored(buf) & ~predicted[buf]
        assert not stray.any(), f"stored outside the predicted footprint in {buf} at byte {int(np.flatnonzero(stray)[0])}"


GENERIC: tuple[Invariant, ...] = (writes_inside_footprint,)


def invariants_of(case: Case) -> tuple[Invariant, ...]:
    """The generic invariants plus the model's own."""
    return GENERIC + tuple(getattr(case.model, "invariants", ()))


def check_invariants(case: Case, seed: int = 0, only: Iterable[str] | None = None) -> None:
    """Run every invariant (or those named) on a valid case; AssertionError names the first that fails."""
    names = set(only) if only is not None else None
    for inv in invariants_of(case):
        if names is not None and inv.__name__ not in names:
            continue
        try:
            inv(case, seed)
        except AssertionError as exc:
            raise AssertionError(f"{inv.__name__}: {exc}") from exc
