"""The construction of valid cases: the largest fitting value of a field, and the choices it spends.

`_max_feasible_search` finds, for one field with the others fixed, the value where the tensors at their minimum
sizes stop fitting the buffers. The expectations here are computed independently: by trying every value of a
small domain, or of a synthetic slack whose crossing is known in closed form.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis.errors import UnsatisfiedAssumption

from ascverify import get_api
from ascverify.engines.properties import strategies as strat
from ascverify.engines.properties.seeded import SeededDraw
from ascverify.spec.domains import Domain
from ascverify.spec.registry import apis


class _SlackOf:
    """A stand-in layout whose slack is a given function of one field (the search reads nothing else)."""

    def __init__(self, name: str, slack: Any) -> None:
        self.name, self.fn, self.calls = name, slack, 0

    def slack(self, env: dict[str, Any], positions: Any) -> int:
        self.calls += 1
        return self.fn(env[self.name])


def _last_fitting(d: Domain, slack: Any) -> int | None:
    """The end of the run of fitting values that starts at the domain's first value, by trying every value."""
    top = None
    for i in range(d.values_count()):
        if slack(d.nth(i)) < 0:
            break
        top = d.nth(i)
    return top


@pytest.mark.parametrize("seed", range(40))
def test_the_search_finds_the_end_of_the_fitting_values(seed):
    rng = random.Random(seed)
    lo, step = rng.randint(0, 5), rng.choice([1, 1, 2, 16, 32])
    d = Domain("x", lo, lo + rng.randint(0, 70_000), step)
    cap, per, align = rng.randint(0, 1 << 22), rng.randint(1, 4096), rng.choice([1, 32, 512])

    def slack(x: int) -> int:  # bytes left: a fixed part plus x elements, rounded up to the alignment
        return cap - -(-(64 + x * per) // align) * align

    layout = _SlackOf("x", slack)
    got = strat._max_feasible_search(layout, {"x": 0}, "x", d, {})
    assert got == _last_fitting(d, slack)
    assert layout.calls <= 2 * d.values_count().bit_length() + 6   # the secant closes in a few steps


def test_the_search_on_choices_and_on_a_slack_far_from_affine():
    d = Domain("x", 0, 0, 1, choices=tuple(sorted({3 * i * i for i in range(400)})))
    for cut in (-1, 0, 5, 47, 12_000, 300_000, 478_800, 10**7):
        def slack(x: int, cut: int = cut) -> int:
            return cut - x if x < 1000 else (cut - x) // 1000   # two regimes: no single secant fits both
        assert strat._max_feasible_search(_SlackOf("x", slack), {"x": 0}, "x", d, {}) == _last_fitting(d, slack)


def _needs(api: str, n: int) -> list[tuple[Any, dict[str, Any], str, Domain, dict[str, str]]]:
    """The (layout, env, field, domain, positions) of every largest-value question `n` seeded constructions ask."""
    asked = []
    search = strat._max_feasible_search

    def recording(layout: Any, env: Any, name: str, d: Domain, positions: Any) -> Any:
        asked.append((layout, dict(env), name, d, dict(positions)))
        return search(layout, env, name, d, positions)

    model = get_api(api)
    rng = random.Random(api)
    strat._max_feasible_search = recording
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(n):
                product = rng.choice(list(model.supported_products()))
                try:
                    strat.drive(strat.construction(SeededDraw(rng), model, [product], None, None, bias=i % 2 == 0))
                except UnsatisfiedAssumption:
                    pass
    finally:
        strat._max_feasible_search = search
    return asked


@pytest.mark.parametrize("api", [m.name for m in apis()])
def test_every_models_questions_get_the_end_of_the_fitting_values(api):
    """On the models' own minimum sizes: the answer fits and the next value does not. Where the domain is small
    enough to try every value, the answer ends the run of fitting values from the first one, except where a minimum
    size does not grow with the field (then the answer is a value that fits followed by one that does not)."""
    for layout, env, name, d, positions in _needs(api, 60)[:150]:
        got = strat._max_feasible_search(layout, env, name, d, positions)

        def fits(x: int) -> bool:
            trial = dict(env)
            trial[name] = x
            return layout.fits(trial, positions)

        count = d.values_count()
        if got is None:
            assert not fits(d.nth(0))
            continue
        assert fits(got)
        at = strat._choices(d).index(got) if d.choices is not None else (got - d._first()) // d.step
        if at < count - 1:
            assert not fits(d.nth(at + 1))
        if count <= 300:
            flags = [fits(d.nth(i)) for i in range(count)]
            if flags == sorted(flags, reverse=True):  # a prefix: exactly its end
                assert at == flags.count(True) - 1


def test_a_mask_set_by_an_earlier_call_is_not_drawn():
    """BlockReduceMin with isSetMask false uses the mask an earlier SetVectorMask set (the placeholder): the
    construction makes no choice for the mask then (its bitwise flag is the only Boolean it would draw)."""
    model = get_api("BlockReduceMin")

    class Counting(SeededDraw):
        booleans = 0

        def __call__(self, strategy: Any) -> Any:
            Counting.booleans += repr(strategy) == "booleans()"
            return super().__call__(strategy)

    seen = set()
    for i in range(200):
        Counting.booleans = 0
        case = strat.drive(strat.construction(Counting(random.Random(i)), model, ["atlas-a2"], "half", None))
        set_here = bool(case.env["isSetMask"])
        assert Counting.booleans == (2 if set_here else 1)  # isSetMask, and the mask's bitwise flag when set here
        assert case.env["mask.placeholder"] == (not set_here)
        seen.add(set_here)
    assert seen == {True, False}


def test_levels_the_hook_sets_are_not_drawn():
    """LoadAlign's hook draws each AddrReg index itself (a multiple that keeps the address aligned), and for 64-bit
    types replaces the AddrReg form altogether: the construction leaves those fields to it."""
    model = get_api("LoadAlign")
    half = strat._layout("LoadAlign", model.context("atlas-350", "half")).skip()
    assert {f"addrReg.index{k}" for k in range(4)} <= half
    assert not {f"addrReg.stride{k}" for k in range(4)} & half   # the hook keeps a drawn stride now and then
    wide = strat._layout("LoadAlign", model.context("atlas-350", "b64")).skip()
    assert {"addrReg.levels", *(f"addrReg.{f}{k}" for f in ("index", "stride") for k in range(4))} <= wide


def test_a_minimum_size_that_raises_on_plain_values_is_searched_on_columns():
    """A rule dividing by a field raises ZeroDivisionError on a plain 0, where numpy's columns give a value: the
    search then falls back to the probes on columns, with the same answer."""
    cap = 1000

    class Layout:
        def slack(self, env: dict[str, Any], positions: Any) -> int:
            x = env["x"]
            return cap - (3 * x + x * x // x)  # 4x elements, written so that it raises at x = 0

        def fits(self, env: dict[str, Any], positions: Any) -> bool:
            return self.slack(env, positions) >= 0

        def fits_many(self, env: dict[str, Any], name: str, values: np.ndarray, positions: Any) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                need = 3 * values + np.where(values == 0, 0, values * values // np.where(values == 0, 1, values))
            return need <= cap

    d = Domain("x", 0, 1000)
    assert strat._max_feasible_search(Layout(), {"x": 5}, "x", d, {}) == 250  # 4 * 250 = 1000
