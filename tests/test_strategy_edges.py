"""Biased strategies reach the values where narrow integer variables wrap (review 76 of campaign power).

A hostile reviewer wrote realistic bugs into independent implementations; three survived campaigns because the
strategies never drew what would show them: BlockReduceSum's srcRepStride held in a uint8 (over 1,264 cases a
stride past 255 came with two or more repeats twice), and BilinearInterpolation's src0Offset in 16 bits (src0 never
held more than 144 halves, so no offset passed 256 bytes).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from ascverify.core.run import prepare
from ascverify.engines.properties.strategies import _edge_or_small
from ascverify.spec.domains import Domain
from ascverify.strategies import cases

MANY = settings(max_examples=300, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def _drawn(strategy) -> list:
    seen = []

    @MANY
    @given(strategy)
    def collect(case):
        seen.append(case)
    collect()
    return seen


def test_strides_past_a_byte_come_with_several_repeats():
    drawn = _drawn(cases("BlockReduceSum", product="atlas-a2", bias=True))
    wide = [c for c in drawn if int(c.env["srcRepStride"]) > 255 and int(c.env["repeatTime"]) >= 2]
    assert len(wide) >= 3, len(wide)  # was about 1 in 600 draws


def test_bilinear_offsets_reach_past_two_to_the_sixteen_bytes():
    drawn = _drawn(cases("BilinearInterpolation", product="atlas-350", bias=True))
    far = 0
    for case in drawn:
        _, inputs = prepare(case, seed=1)
        far += int(np.asarray(inputs["src0Offset"]).max()) >= 2**16
    assert far >= 5, far  # offsets were at most 256 bytes


class _Script:
    """A stand-in for Hypothesis's ``draw``: returns the scripted answers in turn."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)

    def __call__(self, _strategy) -> int:
        return self.answers.pop(0)


def test_edges_and_small_counts_are_the_top_modes():
    d = Domain("stride", 0, 65535, 1)
    assert _edge_or_small(_Script(13), d, None) is None           # the usual draw (shrinking goes there)
    assert _edge_or_small(_Script(14, 1), d, None) == 256          # edges: 255, 256, 32767, 32768 (65535 is the end)
    assert _edge_or_small(_Script(14, 0), d, 1000) == 255          # only edges below the fitting top
    assert _edge_or_small(_Script(15, 2), d, None) == 2            # the third value: two repeats
    assert _edge_or_small(_Script(14, 0), Domain("even", 0, 65535, 2), None) == 256  # on the domain's step
    assert _edge_or_small(_Script(14), Domain("tiny", 0, 100, 1), None) is None  # no edge inside
