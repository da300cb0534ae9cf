"""`active_lanes_matter`, the block reductions' invariant that every block's last active lane counts: with that
element made a value that decides the block (-1024 for Min, +1024 for Max and Sum, the other elements within
[-16, 16]), every block with an active lane stores a result that counted it. It passes on the core and catches a mask
one lane short (``ascverify selftest``'s contiguous-mask-one-lane-short) on any case with a contiguous mask, where the
other invariants need the dropped lane to hold its block's extreme by chance."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, given, settings

from ascverify import get_api
from ascverify.engines.fuzz.mutants import all_mutants
from ascverify.models.block_reduce_family import active_lanes_matter, block_reads
from ascverify.strategies import cases

APIS = ["BlockReduceMin", "BlockReduceMax", "BlockReduceSum"]


@pytest.mark.parametrize("api", APIS)
def test_the_core_passes(api):
    model = get_api(api)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cases(model, specified=True))
    def run(case):
        active_lanes_matter(case, seed=3)

    run()


@pytest.mark.parametrize("api", APIS)
def test_a_mask_one_lane_short_is_caught(api):
    """A contiguous mask of 100 lanes: lane 99 is the last active lane of its block (block 6 in half: lanes 96-111),
    and a core that stops at lane 98 stores that block without the probe."""
    model = get_api(api)
    case = find(cases(model, product="atlas-a2", dtype="half", args={"mask": 100, "repeatTime": 1}),
                lambda c: block_reads(c).size > 0)
    active_lanes_matter(case)  # the core
    mutant = next(m for m in all_mutants() if m.name == "contiguous-mask-one-lane-short")
    with mutant.installed(model):
        with pytest.raises(AssertionError, match="repeat 0, block 6: stores .* active lane"):
            active_lanes_matter(case)
