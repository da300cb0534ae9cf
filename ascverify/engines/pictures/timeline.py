"""A campaign over time: cases so far and rule coverage, sampled from what the campaign tells its display.

`Timeline` wraps the campaign's display (`ascverify.engines.fuzz.progress.Display`, or anything with its
interface): every call goes through to it unchanged, and the timeline notes the time of each batch of cases
(at most one sample per `SAMPLE_SECONDS`), of each finding, and, when an item ends, the rule coverage the
campaign has reached so far (an item's coverage is known when it ends). Nothing in the campaign changes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..fuzz.coverage import BOUNDARY, INTERIOR, NA, VIOLATED, Coverage

#: Seconds between two samples of the case count.
SAMPLE_SECONDS = 0.2


def coverage_point(coverage: Mapping[str, Mapping[str, Mapping[str, int]]]) -> dict[str, int]:
    """Rules (type rules aside) classified so far, and how many of them were seen inside, at the boundary, broken."""
    rules = interior = boundary = violated = 0
    for per_api in coverage.values():
        for rid, counts in per_api.items():
            if rid.endswith(".type"):
                continue
            seen = sum(int(n) for s, n in counts.items() if s != NA)
            if not seen:
                continue
            rules += 1
            interior += counts.get(INTERIOR, 0) > 0
            boundary += counts.get(BOUNDARY, 0) > 0
            violated += counts.get(VIOLATED, 0) > 0
    return {"rules": rules, "interior": interior, "boundary": boundary, "violated": violated}


@dataclass
class Record:
    """What a timeline holds."""

    #: (seconds since the start, cases so far)
    samples: list[tuple[float, int]] = field(default_factory=lambda: [(0.0, 0)])
    #: (seconds, cases so far, coverage_point(...)) each time an item ended
    coverage: list[tuple[float, int, dict[str, int]]] = field(default_factory=list)
    #: (seconds, finding id)
    findings: list[tuple[float, str]] = field(default_factory=list)
    cases: int = 0


class Timeline:
    """The display of a campaign, recording cases and coverage over time (see the module's docstring).

    Every attribute but ``record`` and the private ones is the display's: the campaign reads ``findings``,
    ``results``, ``quiet``... from it as before."""

    def __init__(self, display: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self._display = display
        self._clock = clock
        self._t0 = clock()
        self._last = -1.0
        self._coverage = Coverage()
        self.record = Record()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._display, name)

    def _now(self) -> float:
        return self._clock() - self._t0

    def start(self, unit: Any, total: Any, seconds: Any) -> None:
        self._display.start(unit, total, seconds)

    def advance(self, unit: Any, n: int = 1) -> None:
        self._display.advance(unit, n)
        rec = self.record
        rec.cases += n
        now = self._now()
        if now - self._last >= SAMPLE_SECONDS:
            rec.samples.append((now, rec.cases))
            self._last = now

    def finding(self, summary: Mapping[str, Any]) -> None:
        self._display.finding(summary)
        self.record.findings.append((self._now(), str(summary.get("id"))))

    def done(self, result: Any) -> None:
        self._display.done(result)
        rec = self.record
        now = self._now()
        self._coverage.merge(getattr(result, "coverage", {}) or {})
        rec.samples.append((now, rec.cases))
        rec.coverage.append((now, rec.cases, coverage_point(self._coverage.to_json())))

    def to_json(self) -> dict[str, Any]:
        rec = self.record
        return {"samples": [[round(t, 3), n] for t, n in rec.samples],
                "coverage": [[round(t, 3), n, p] for t, n, p in rec.coverage],
                "findings": [[round(t, 3), f] for t, f in rec.findings]}
