"""`ascverify selftest`: mutants of the core are killed by the invariants; a mutant that survives fails it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ascverify import apis, get_api
from ascverify.cli import main
from ascverify.engines.fuzz import mutants as mutants_mod
from ascverify.engines.fuzz.mutants import Mutant, all_mutants, api_mutants, generic_mutants, kill_rate, run_selftest


def test_the_named_mutants_are_shipped():
    names = {m.name for m in all_mutants()}
    for expected in ("mask-words-swapped", "write-one-block-late", "accumulate-instead-of-overwrite",
                     "byte-mask-ignored", "dstBlkStride-ignored", "masked-block-fill-zero"):
        assert expected in names
    assert len(names) == len(all_mutants())
    registered = {m.name for m in apis()}
    for m in api_mutants():
        assert set(m.apis) <= registered, m.name
    assert any(m.for_api(model) for m in generic_mutants() for model in apis())


def test_mutants_restore_the_model():
    model = get_api("BlockReduceMin")
    before = type(model).__dict__.get("execute")  # None: the model inherits execute (BlockReduceFamily's)
    for m in all_mutants():
        if m.for_api(model):
            with m.installed(model):
                assert type(model).__dict__.get("execute") not in (None, before)
    assert type(model).__dict__.get("execute") is before


def test_cli_kills_the_selected_mutants(tmp_path):
    report = tmp_path / "selftest.json"
    r = CliRunner().invoke(main, ["selftest", "BlockReduceMin", "--mutant", "masked-block-fill-zero",
                                  "--mutant", "max-instead-of-min", "--mutant", "mask-words-swapped",
                                  "--examples", "60", "--report", str(report)])
    assert r.exit_code == 0, r.output
    assert "kill rate: 3/3 (100%)" in r.stdout
    doc = json.loads(report.read_text())
    assert doc["controls_pass"] and doc["killed"] == doc["counted"] == 3
    assert all(o["status"] == "killed" and o["killed_by"] for o in doc["outcomes"] if o["mutant"] != "(none)")


def _keep(model, original, probe):
    def execute(self_, case, trace):
        probe.touched = True  # "changes" nothing: an equivalent mutant, which no check can kill
        return original(self_, case, trace)
    return execute


def test_a_surviving_mutant_fails_the_selftest(monkeypatch):
    extra = Mutant("equivalent", "changes nothing", _keep, ("SetVectorMask",))
    monkeypatch.setattr(mutants_mod, "api_mutants", lambda: [extra])
    outcomes = run_selftest(["SetVectorMask"], mutant_names=["equivalent"], examples=5, control_examples=3)
    (o,) = [o for o in outcomes if o.mutant == "equivalent"]
    assert o.status == "survived" and kill_rate(outcomes) == (0, 1)
    r = CliRunner().invoke(main, ["selftest", "SetVectorMask", "--mutant", "equivalent", "--examples", "5"])
    assert r.exit_code == 1 and "kill rate: 0/1" in r.stdout


def test_a_mutant_found_by_a_core_campaign_replays_until_the_core_is_fixed(tmp_path):
    from ascverify.engines.fuzz import CampaignConfig, replay, run_campaign
    from ascverify.engines.fuzz.progress import Display

    model = get_api("BlockReduceMin")
    mutant = next(m for m in all_mutants() if m.name == "max-instead-of-min")
    config = CampaignConfig(apis=("BlockReduceMin",), products=("atlas-a2",), kinds=("invariants",), examples=30,
                            seed=2, findings=str(tmp_path / "f"), database="none", report=str(tmp_path / "r.json"))
    with mutant.installed(model):
        result = run_campaign(config, display=Display(quiet=True), print_coverage=False)
        assert result.exit_status == 1 and result.findings
        folder = tmp_path / "f" / json.loads((tmp_path / "r.json").read_text())["findings"][0]["path"].split("/")[-1]
        meta = json.loads((folder / "finding.json").read_text())
        assert meta["kind"] == "invariants" and meta["check"] == "results_are_block_minima" and meta["shrunk"]
        assert replay(folder).failing
    assert not replay(folder).failing  # the unmutated core passes the same case


def test_list_and_unknown_mutant():
    r = CliRunner().invoke(main, ["selftest", "--list"])
    assert r.exit_code == 0 and "masked-block-fill-zero" in r.stdout
    r = CliRunner().invoke(main, ["selftest", "--mutant", "mask-word-swapped"])
    assert r.exit_code == 2 and "did you mean 'mask-words-swapped'" in r.stderr


def test_a_generic_mutant_untouched_by_the_first_short_run_goes_on(monkeypatch):
    """byte-mask-ignored applies to BlockReduceMin (a masked-off block is not stored on atlas-a2), but a short first
    run may draw only cases whose stores mask no byte. It used to stop there and count the mutant "not exercised"
    on BlockReduceMin; it now runs the rest of its examples, where a partly masked store comes and kills it. With a
    first run of one case (the least case, whose store masks no byte), the outcome is the second run's."""
    monkeypatch.setattr(mutants_mod, "PROBE_EXAMPLES", 1)
    out = mutants_mod.run_job(("byte-mask-ignored", "BlockReduceMin", 60, 0))
    assert out.status == "killed", (out.status, out.cases, out.message)
    assert out.cases > 1


def test_stride_mutants_leave_an_ignored_argument_alone():
    # SetLoadDataRepeat's dstStride is no member of the vendor's struct (spec note set_load_data_repeat_v2.dstStride):
    # ignoring it changes nothing, so its mutant would survive as an equivalent one; SetLoadDataRepeatWithStride's
    # dstStride is packed into the register and its mutant is built (and killed)
    dst_stride = next(m for m in generic_mutants() if m.name == "dstStride-ignored")
    assert get_api("SetLoadDataRepeat").ignored_args == ("dstStride",)
    assert not dst_stride.for_api(get_api("SetLoadDataRepeat"))
    assert dst_stride.for_api(get_api("SetLoadDataRepeatWithStride"))
    repeat_stride = next(m for m in generic_mutants() if m.name == "repeatStride-ignored")
    assert repeat_stride.for_api(get_api("SetLoadDataRepeat"))
