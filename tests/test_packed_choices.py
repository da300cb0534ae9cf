"""Several small indices drawn as one Hypothesis choice (`models.drawing.packed_indices`): the positions and
presence of tensors, a buffer's order and gaps, Load3D's branches of `_SmallDraws`.

Each packing must give every combination of indices exactly once over the values of its choices (so the indices
are as even and independent as the choice), zero indices at choice 0 (what shrinking goes to), and make fewer
choices than separate draws. The Hypothesis behaviour it relies on, an integer range of up to 128 values drawn
evenly, is checked here too: a Hypothesis that drew small ranges on a log scale would skew the packed indices."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from ascverify.engines.properties.seeded import SeededDraw
from ascverify.engines.properties.strategies import _draw_order, _roomy
from ascverify.models.drawing import PACKED, packed_indices
from ascverify.models.load3d import _SmallDraws


class Scripted:
    """A ``draw`` answering each ``st.integers(lo, hi)`` with the next scripted value; records the ranges."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.ranges: list[tuple[int, int]] = []

    def __call__(self, strategy: Any) -> int:
        lo, hi = _bounds(strategy)
        self.ranges.append((lo, hi))
        v = self.values.pop(0)
        assert lo <= v <= hi
        return v


def _bounds(strategy: Any) -> tuple[int, int]:
    inner = getattr(strategy, "wrapped_strategy", strategy)
    return inner.start, inner.end


def _every_script(ranges: list[tuple[int, int]]) -> list[list[int]]:
    return [list(p) for p in itertools.product(*(range(lo, hi + 1) for lo, hi in ranges))]


def _ranges_of(counts: list[int]) -> list[tuple[int, int]]:
    probe = Scripted([0] * len(counts))
    packed_indices(probe, counts)
    return probe.ranges


@pytest.mark.parametrize("counts", [[3, 3, 3, 3, 3], [5, 5, 5, 5, 5], [2, 3, 5, 7], [120], [1, 4, 1, 2], [129, 2],
                                    [2] * 9])
def test_every_combination_once(counts: list[int]) -> None:
    ranges = _ranges_of(counts)
    seen = []
    for script in _every_script(ranges):
        got = packed_indices(Scripted(script), counts)
        assert len(got) == len(counts) and all(0 <= d < c for d, c in zip(got, counts))
        seen.append(tuple(got))
    assert len(seen) == len(set(seen)) == math.prod(counts)
    # each choice is a range of at most PACKED values (wider only for a single count that is wider itself)
    assert all(hi - lo + 1 <= max(PACKED, max(counts)) for lo, hi in ranges)


def test_choice_counts_and_order() -> None:
    # independent reasoning: 3^4 = 81 <= 128 < 243, so five ternary indices take two choices; 5^3 = 125 <= 128
    assert _ranges_of([3] * 5) == [(0, 80), (0, 2)]
    assert _ranges_of([5] * 5) == [(0, 124), (0, 24)]
    assert _ranges_of([1, 1, 1]) == []  # nothing to choose: no choice
    # a smaller choice is a lexicographically smaller tuple (the first index most significant): shrinking a
    # packed choice towards 0 goes where shrinking the first of separate choices would
    tuples = [tuple(packed_indices(Scripted([k]), [3, 5, 7])) for k in range(105)]
    assert tuples == sorted(tuples) and tuples[0] == (0, 0, 0)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_order_is_every_permutation_once(n: int) -> None:
    names = [f"t{i}" for i in range(n)]
    probe = Scripted([0] * n)
    assert _draw_order(probe, names) == names  # choice 0: the order declared (Hypothesis's permutations too)
    orders = [tuple(_draw_order(Scripted(s), names)) for s in _every_script(probe.ranges)]
    assert len(orders) == len(set(orders)) == math.factorial(n)
    assert len(probe.ranges) == (1 if n <= 5 else 2)  # 5! = 120 fits one choice, 6! does not


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5000), st.sampled_from([1, 2, 32, 64, 512])), min_size=1, max_size=6),
       st.data())
def test_roomy_buffer_takes_any_gaps(tensors: list[tuple[int, int]], data: Any) -> None:
    """When `_roomy` says so, gaps of 0..4 alignment units each, in any combination, keep every tensor aligned and
    inside the buffer, with room for the tensors after it (as the construction's sequential draw would allow)."""
    spans = [s for s, _ in tensors]
    aligns = [a for _, a in tensors]
    cap = sum(spans) + data.draw(st.integers(0, 6 * sum(aligns)))  # around the least roomy capacity
    if not _roomy(cap, spans, aligns):
        return
    # the widest gaps before a tensor leave it the least room: every gap 4 units, else any
    units = data.draw(st.one_of(st.just([4] * len(tensors)),
                                st.lists(st.integers(0, 4), min_size=len(tensors), max_size=len(tensors))))
    used = 0
    for i, (nbytes, a) in enumerate(tensors):
        start = -(-used // a) * a
        rest = sum(s + al for s, al in tensors[i + 1:])
        assert cap - rest - start - nbytes >= 4 * a  # a sequential draw would have offered 0..4 units here
        used = start + units[i] * a + nbytes
    assert used <= cap


def test_small_draws_branches() -> None:
    """Load3D's small draws: a branch per draw with something to choose, four branches to a choice; near lo draws
    its value from lo..lo+near, hi draws none."""
    # branches 0,0,0,0 (choice 0), then 2,2,2,2 (choice 80 = 2222 in base 3)
    probe = Scripted([0, 11, 12, 13, 10, 80])
    small = _SmallDraws(probe)
    assert small(10, 10) == 10 and probe.ranges == []  # nothing to choose: no choice at all
    assert [small(10, 1000) for _ in range(4)] == [11, 12, 13, 10]
    assert [small(10, 1000) for _ in range(4)] == [1000] * 4
    assert probe.ranges == [(0, 80)] + [(10, 13)] * 4 + [(0, 80)]


def test_small_draws_distribution() -> None:
    small = _SmallDraws(SeededDraw(random.Random(7)))
    lo, hi, near = 100, 100_000, 3
    kinds: Counter = Counter()
    for _ in range(30_000):
        v = small(lo, hi, near)
        assert lo <= v <= hi
        kinds["hi" if v == hi else "near" if v <= lo + near else "other"] += 1
    # a third each for hi and near lo; "anywhere" adds a little to both (seeded draws favour the ends 5% each)
    assert 0.30 < kinds["hi"] / 30_000 < 0.40
    assert 0.30 < kinds["near"] / 30_000 < 0.40
    assert 0.25 < kinds["other"] / 30_000 < 0.34


def test_hypothesis_draws_a_small_range_evenly() -> None:
    """What `PACKED` relies on: within one example, Hypothesis draws ``st.integers(0, 127)`` evenly (apart from a few
    values its pool of constants favours), not on a log scale as it draws wide ranges."""
    seen: Counter = Counter()

    @settings(max_examples=300, database=None, deadline=None)
    @given(st.lists(st.integers(0, PACKED - 1), min_size=50, max_size=50))
    def collect(xs: list[int]) -> None:
        seen.update(xs)

    collect()
    n = sum(seen.values())
    per_quarter = [sum(seen[k] for k in range(q * PACKED // 4, (q + 1) * PACKED // 4)) / n for q in range(4)]
    assert all(0.18 < share < 0.32 for share in per_quarter), per_quarter
    expected = n / PACKED
    even = sum(1 for k in range(PACKED) if 0.4 * expected <= seen[k] <= 2.0 * expected)
    assert even >= 0.9 * PACKED
