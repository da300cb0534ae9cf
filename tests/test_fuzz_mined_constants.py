"""A campaign draws no literal Hypothesis mines from source files (`storage.without_mined_constants`).

Hypothesis (6.13x and later) mixes into its draws the literals of every imported module it takes for the user's own
(not under site-packages): ascverify's own modules when installed editable, none when installed from a wheel, and
more of them as modules are imported lazily. The same --seed drew different campaigns depending on how ascverify was
installed and which options loaded which modules; and each campaign process spent about 0.8 s mining.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis.internal.conjecture import providers

from ascverify import get_api
from ascverify.engines.fuzz import mutants, storage
from ascverify.engines.fuzz.campaign import CampaignConfig, run_campaign
from ascverify.engines.fuzz.progress import Display
from ascverify.engines.fuzz.runner import ItemRunner
from ascverify.engines.properties.strategies import cases

pytestmark = pytest.mark.skipif(storage._Constants is None, reason="this Hypothesis mines no literals")


def draws() -> list[dict]:
    """The first 40 BlockReduceMin cases a fixed seed draws (boundary-biased, as a campaign draws them)."""
    got: list[dict] = []

    @settings(max_examples=40, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @seed(7)
    @given(cases(get_api("BlockReduceMin"), product="atlas-a2", bias=True))
    def record(case):
        got.append(case.to_json())

    record()
    return got


def import_module_full_of_literals(folder: Path) -> None:
    """A module of the user's own (not under site-packages) whose source holds many integer literals."""
    path = folder / "kernel_constants_of_mine.py"
    path.write_text("VALUES = [" + ", ".join(str(v) for v in range(3, 60_000, 97)) + "]\n"
                    "SCALES = [" + ", ".join(f"{v / 7:.6g}" for v in range(1, 300)) + "]\n")
    spec = importlib.util.spec_from_file_location("kernel_constants_of_mine", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)


def test_a_seed_draws_the_same_cases_whatever_modules_are_loaded(tmp_path, monkeypatch):
    with storage.without_mined_constants():
        before = draws()
        assert len(providers._get_local_constants().integers) == 0
    monkeypatch.setitem(sys.modules, "kernel_constants_of_mine", None)
    import_module_full_of_literals(tmp_path)
    with storage.without_mined_constants():
        after = draws()
        assert len(providers._get_local_constants().integers) == 0
    assert after == before
    # outside the block Hypothesis mines again (restored): the new module's literals are among its constants
    assert len(providers._get_local_constants().integers) > 600
    assert 3 + 97 * 100 in providers._get_local_constants().integers


def test_a_campaign_and_a_selftest_job_draw_no_mined_literal(tmp_path, monkeypatch):
    """`fuzz` (`run_campaign`; its workers run `run_items` inside the same block) and each `selftest` job."""
    mined: list[int] = []
    real_body = ItemRunner.body

    def body(self, drawn):
        mined.append(len(providers._get_local_constants().integers))
        return real_body(self, drawn)

    monkeypatch.setattr(ItemRunner, "body", body)
    import_module_full_of_literals(tmp_path)  # something to mine, whatever the install
    monkeypatch.setitem(sys.modules, "kernel_constants_of_mine", sys.modules["kernel_constants_of_mine"])
    config = CampaignConfig(apis=("SetVectorMask",), products=("atlas-a2",), examples=5, seed=1,
                            findings=str(tmp_path / "f"), database="none")
    run_campaign(config, display=Display(items=2, quiet=True), print_coverage=False)
    campaign_cases = len(mined)
    mutants.run_job(("", "SetVectorMask", 5, 1))  # a selftest's control run
    assert campaign_cases > 0 and len(mined) > campaign_cases
    assert set(mined) == {0}
    assert len(providers._get_local_constants().integers) > 600  # outside them, Hypothesis mines as before
