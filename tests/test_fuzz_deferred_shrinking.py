"""A failure a campaign's first look finds is shrunk in the second pass, after every item had its look.

Before, the look shrank it at once, for at least `SHRINK_MIN` seconds: under a short --time over many items, the
first failing item's shrinking took the time the looks of the items after it needed (`fuzz BilinearInterpolation
BlockReduceSum --time 10` with a target wrong on every product: one finding, cut short, and five items that drew no
case at all), and the shrinking it got was too short to make the case small (16,448 elements of dst).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis.database import InMemoryExampleDatabase

from ascverify.engines.fuzz.campaign import CampaignConfig, plan, run_campaign
from ascverify.engines.fuzz.database import DeferredShrinking
from ascverify.engines.fuzz.progress import Display
from ascverify.engines.fuzz.runner import ItemRunner

from bilinear_targets import write_wrong_on

WRONG_ON = ("atlas-350", "atlas-inference-aicore")


def write_target(folder: Path) -> str:
    """A BilinearInterpolation that adds one to every element of dst on two products (a bug any case shows)."""
    return write_wrong_on(folder, WRONG_ON, "wrong_on_two")


@pytest.mark.parametrize("database", ["none", "dir"])
def test_every_item_looks_before_any_failure_shrinks_and_the_findings_are_shrunk(tmp_path, monkeypatch, database):
    monkeypatch.chdir(tmp_path)
    calls: list[tuple[str, str]] = []
    real_look, real_run = ItemRunner.first_look, ItemRunner.run

    def first_look(self, time_share=None):
        calls.append(("look", self.unit.product))
        return real_look(self, time_share)

    def run(self):
        calls.append(("run", self.unit.product))
        return real_run(self)

    monkeypatch.setattr(ItemRunner, "first_look", first_look)
    monkeypatch.setattr(ItemRunner, "run", run)
    db = "none" if database == "none" else str(tmp_path / "examples")
    config = CampaignConfig(apis=("BilinearInterpolation",), target={"kind": "python", "spec": write_target(tmp_path)},
                            examples=24, seed=3, findings=str(tmp_path / "f"), database=db)
    items = plan(config)
    assert {u.product for u in items} >= set(WRONG_ON)
    result = run_campaign(config, display=Display(items=len(items), quiet=True), print_coverage=False)
    assert result.exit_status == 1
    assert sorted(f["product"] for f in result.findings) == sorted(WRONG_ON)
    looks = [p for k, p in calls if k == "look"]
    assert looks == [u.product for u in items]  # every item looked ...
    assert all(k == "look" for k, _ in calls[:len(items)])  # ... before any second run
    runs = [p for k, p in calls if k == "run"]
    assert sorted(runs[:2]) == sorted(WRONG_ON)  # the failing items shrink first
    for f in result.findings:
        assert f["shrunk"] is True and not f["shrink_off"]
        args = f["case"]["args"]
        # any case shows the bug, so a shrunk one is the smallest call: one repeat each way, one lane of the mask
        assert (args["hRepeat"], args["vRepeat"]) == (1, 1) and args["mask"] in (1, [1, 0], [0, 1]), args


def test_a_failure_seen_in_a_look_is_saved_unshrunk_when_the_campaign_stops_before_shrinking_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    real_batch = ItemRunner._batch

    def batch(self, n, index, shrink_only=False):
        if shrink_only:
            raise KeyboardInterrupt  # Ctrl-C as the first failing item's shrinking begins
        return real_batch(self, n, index, shrink_only)

    monkeypatch.setattr(ItemRunner, "_batch", batch)
    config = CampaignConfig(apis=("BilinearInterpolation",), target={"kind": "python", "spec": write_target(tmp_path)},
                            examples=24, seed=3, findings=str(tmp_path / "f"), database="none")
    items = plan(config)
    result = run_campaign(config, display=Display(items=len(items), quiet=True), print_coverage=False)
    assert result.interrupted
    assert sorted(f["product"] for f in result.findings) == sorted(WRONG_ON)
    for f in result.findings:
        assert f["shrunk"] is False and not f["shrink_off"]  # "shrinking cut short"
        assert Path(f["path"], "case.json").is_file()


def test_the_deferral_database_holds_a_looks_failures_as_ones_to_shrink():
    campaign = InMemoryExampleDatabase()
    key = b"k" * 48
    campaign.save(key, b"an older failure")
    d = DeferredShrinking(campaign)
    assert list(d.fetch(key)) == [b"an older failure"]  # the look replays the campaign's failures
    d.save(key, b"new")  # a failure found by the look
    d.save(key + b".pareto", b"front")
    assert sorted(campaign.fetch(key)) == [b"an older failure", b"new"]  # kept for later campaigns, as before
    assert list(d.held.fetch(key + b".secondary")) == [b"new"]  # held as a failure not yet shrunk
    d.replaying = True
    assert list(d.fetch(key)) == [] and list(d.fetch(key + b".secondary")) == [b"new"]  # not the older failure
    d.save(key, b"smaller")
    assert b"smaller" in set(campaign.fetch(key)) and list(d.fetch(key)) == [b"smaller"]
    without = DeferredShrinking(None)  # --database none
    without.save(key, b"new")
    assert list(without.fetch(key)) == [] and list(without.held.fetch(key + b".secondary")) == [b"new"]
