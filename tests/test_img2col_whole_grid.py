"""The img2col core computes O's whole fractal grid with one division per row and per column of O (the repeat and the
window row depend on one axis of O, the window column on the other): that path must store exactly what the path
over the list of fractals stores (one row per fractal, every element's coordinates divided out), which the core
keeps for outputs far larger than the buffer. Both paths run on drawn cases of both APIs (transposed or not, repeats
along M and K, with and without a feature map) and must leave the same bytes, the same unspecified bytes and the same
faults."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import run_case
from ascverify.cases.case import fresh
from ascverify.models import load3d
from ascverify.strategies import cases


def _run(case, seed):
    res = run_case(fresh(case), seed=seed, strict=False)
    dst = case.tensor("dst")
    memory = res.memory
    return (memory.buffers[dst.buffer][dst.addr:dst.end].tobytes(), memory.state[dst.buffer][dst.addr:dst.end].tobytes(),
            [str(f) for f in res.faults])


@pytest.mark.parametrize("api", ["Load3DBitMode", "LoadDataWithStride"])
def test_the_whole_grid_path_stores_what_the_fractal_list_path_stores(api, monkeypatch):
    seen = {"whole": 0, "transposed": 0, "along_k": 0, "no_fmatrix": 0}

    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(cases(api, bias=True, specified=True), cases(api, bias=True)), st.integers(0, 1000))
    def compare(case, seed):
        out = load3d.output_of(case)
        whole = _run(case, seed)
        with monkeypatch.context() as m:
            m.setattr(load3d, "_every_fractal", lambda out, rb: False)
            listed = _run(case, seed)
        assert whole == listed
        if out.repeats and out.extent:
            seen["whole"] += 1
            seen["transposed"] += out.transposed
            seen["along_k"] += not out.along_m and out.n > 1
            seen["no_fmatrix"] += not case.env["fmatrix.present"]

    compare()
    assert seen["whole"] >= 20 and seen["transposed"] and seen["no_fmatrix"], seen
    if api == "LoadDataWithStride":
        assert seen["along_k"], seen
