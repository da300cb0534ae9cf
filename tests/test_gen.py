"""`ascverify gen`: random, boundary and negative cases with inputs, goldens and a manifest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import apis, check_case, get_api, parse_case
from ascverify.cli import main
from ascverify.engines.gen import GenCase, data_seed, generate, materialize_many
from ascverify.engines import interrupts
from ascverify.engines.gen import output
from ascverify.engines.gen.output import write_generation

MODELS = apis()


def invoke(*argv: str):
    return CliRunner().invoke(main, list(argv))


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def target(doc: dict, tid: str) -> dict:
    return next(t for t in doc["coverage"]["all"] if t["id"] == tid)


def case_of(doc: dict, name: str) -> dict:
    return next(c for c in doc["cases"] if c["case_name"] == name)


# -- random ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_random_cases_are_valid_distinct_and_spread(model):
    product = model.supported_products()[0]
    ctx = model.context(product, model.support[product][0])
    g = generate(model, ctx, "random", 30, seed=3)
    want = 30 if model.args else 1   # SetMaskCount / SetMaskNorm: one case per product and type, and gen says so
    assert len(g.cases) == want
    assert ("shortfall" in g.report) == (want < 30)
    assert len({tuple(sorted(c.case.env.items())) for c in g.cases}) == want
    for c in g.cases:
        assert check_case(c.case).valid, [v.id for v in check_case(c.case).violations]
        assert c.expect == "success"
    div = g.report["diversity"]
    assert div["cases"] == want and div["domain_ends_hit"] <= div["domain_ends"]
    varying = [f.name for f in model.fields if div["distinct_values"][f.name] > 1]
    assert varying or not model.fields, "nothing varies"


def test_random_cases_do_not_depend_on_the_number_of_processes():
    model = get_api("SetVectorMask")
    ctx = model.context("atlas-a2", "half")
    one = generate(model, ctx, "random", 600, seed=4, jobs=1)
    two = generate(model, ctx, "random", 600, seed=4, jobs=2)
    assert [c.case.env for c in one.cases] == [c.case.env for c in two.cases]
    assert len(one.cases) == 600


def test_random_construction_spreads_over_arguments_and_buffer():
    model = get_api("BilinearInterpolation")
    g = generate(model, model.context("atlas-a2", "half"), "random", 300, seed=1)
    assert g.report["technique"] == "construction"
    div = g.report["diversity"]["distinct_values"]
    # uniform draws over hRepeat's 255 values: 300 draws leave few of them out
    assert div["hRepeat"] >= 120 and div["vROffset"] >= 100 and div["mask.bitwise"] == 2
    # placement spread over the 192 KiB UB, not packed at its start
    addrs = [c.case.env["dst.addr"] for c in g.cases]
    assert max(addrs) > 96 * 1024 and len(set(addrs)) > 150


def _brm_golden(case, src: np.ndarray, dst_before: np.ndarray) -> np.ndarray:
    """BlockReduceMin by hand (HARDWARE_NOTES: one result per datablock, 8 per repeat at r*dstRepStride*8; a fully
    masked block keeps dst on atlas-a2)."""
    env = case.env
    out = dst_before.copy()
    lanes = 128 if case.dtype.name == "half" else 64
    per_block = 32 // case.dtype.size
    if env["mask.bitwise"]:
        bits = env["mask.w0"] | (env["mask.w1"] << 64)
        active = np.array([(bits >> i) & 1 for i in range(lanes)], dtype=bool)
    else:
        active = np.arange(lanes) < env["mask.count"]
    for r in range(env["repeatTime"]):
        for b in range(8):
            start = (r * env["srcRepStride"] + b * env["srcBlkStride"]) * per_block
            vals = src[start:start + per_block][active[b * per_block:(b + 1) * per_block]]
            if vals.size:
                out[r * env["dstRepStride"] * 8 + b] = vals.min()
    return out


def test_gen_random_cli_writes_inputs_goldens_and_manifest(tmp_path):
    out = tmp_path / "cases"
    r = invoke("gen", "BlockReduceMin", "--product", "atlas-a2", "-n", "12", "--seed", "7", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = manifest(out)
    assert doc["op"] == "BlockReduceMin" and doc["mode"] == "random" and doc["complete"] is True
    assert doc["counts"] == {"cases": 12, "success": 12, "failed": 0}
    assert "diversity" in doc and doc["technique"].startswith("construction")
    checked = 0
    for entry in doc["cases"]:
        d = out / entry["case_name"]
        case_doc = json.loads((d / "case.json").read_text())
        case = parse_case(case_doc, base_dir=d)
        assert check_case(case).valid
        desc = {x["name"]: x for x in entry["input_desc"]}
        src = np.fromfile(d / "inputs" / "src.bin", dtype="<f2")
        assert desc["src"]["type"] == "float16" and desc["src"]["shape"] == [src.size] and desc["src"]["format"] == "ND"
        assert desc["src"]["value_range"] == [float(src.min()), float(src.max())]
        assert desc["dst"]["initial_contents"] is True
        outd = {x["name"]: x for x in entry["output_desc"]}["dst"]
        golden = np.fromfile(d / "golden" / "dst.bin", dtype="<f2")
        dst0 = np.fromfile(d / "inputs" / "dst.bin", dtype="<f2")
        assert golden.size == dst0.size == outd["shape"][0]
        if case.env["isSetMask"]:
            assert np.array_equal(golden, _brm_golden(case, src, dst0)), entry["case_name"]
            assert "unspecified_file" not in outd
            checked += 1
        else:  # the mask comes from an earlier SetVectorMask: every result is unspecified
            unspec = np.fromfile(d / "golden" / "dst.unspecified.bin", dtype=np.uint8)
            assert unspec.size == golden.size and unspec.any()
            # no computed-looking number where the hardware defines none: every bit set (a half NaN, 0xFFFF)
            assert np.all(golden.view("<u2")[unspec == 1] == 0xFFFF)
    assert checked >= 3


def test_gen_case_json_reruns_to_the_golden(tmp_path):
    out = tmp_path / "cases"
    assert invoke("gen", "BilinearInterpolation", "--product", "atlas-a2", "-n", "2", "-o", str(out)).exit_code == 0
    d = out / "case_0001"
    run_dir = tmp_path / "run"
    r = invoke("run", str(d / "case.json"), "-o", str(run_dir))
    assert r.exit_code == 0, r.output
    assert (run_dir / "dst.bin").read_bytes() == (d / "golden" / "dst.bin").read_bytes()


# -- boundary --------------------------------------------------------------------------------------------------------

def test_boundary_covers_both_sides_of_each_rule(tmp_path):
    out = tmp_path / "b"
    r = invoke("gen", "SetVectorMask", "--product", "atlas-a2", "--mode", "boundary", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = manifest(out)
    # half: 128 lanes, contiguous mask in [0, 128] (the vendor's SetVectorMask page; 0 is legal, a warning); past it
    # SetMask<T>(len) sets every lane (a warning at the setter): each side of a warning is a valid case
    for side, value, warns in (("lower bound", 0, ["set_vector_mask.mask.count.nonzero"]), ("upper bound", 128, []),
                               ("above", 129, ["set_vector_mask.mask.count.range"])):
        t = target(doc, f"rule:set_vector_mask.mask.count.range:mask.count = {value} ({side})")
        assert t["status"] == "covered"
        c = case_of(doc, t["cases"][0])
        assert c["expect"] == "success" and c["attr"][0]["value"] == value
        assert c["breaks"] == [] and c["warns"] == warns
    # SetVectorMask(int32_t len): 2^31 - 1 is the largest len, 2^31 breaks the error rule alone
    for tid, value, expect in (("broken, everything else kept", 2**31, "failed"),
                               ("the valid case nearest to the broken one", 2**31 - 1, "success")):
        c = case_of(doc, target(doc, f"rule:set_vector_mask.len.int32:{tid}")["cases"][0])
        assert c["expect"] == expect and c["attr"][0]["value"] == value
        assert c["breaks"] == ([] if expect == "success" else ["set_vector_mask.len.int32"])
    # below 0 is below the uint64 type (in the Normal mode the range, a warning, is broken too; the Counter mode
    # reads no lane count)
    t = target(doc, "rule:set_vector_mask.mask.count.type:mask.count = -1 (below)")
    c = case_of(doc, t["cases"][0])
    normal = c["attr"][1]["value"] == "NORMAL"
    assert c["breaks"] == ["set_vector_mask.mask.count.type"]
    assert c["warns"] == (["set_vector_mask.mask.count.range"] if normal else [])
    # a uint64 count of 2^64 is outside its type, and outside what a case file can hold ([-2^63, 2^64 - 1]): no case
    # file breaks the type at that end, so there is no case for it (one would be unreadable)
    t = target(doc, "rule:set_vector_mask.mask.count.type:mask.count = 18446744073709551616 (above)")
    assert t["status"] == "skipped" and t["cases"] == [] and "beyond what a case file can hold" in t["reason"]
    # the type's top value is legal for the type but not for len's int32: impossible, and why
    t = target(doc, "rule:set_vector_mask.mask.count.type:mask.count = 18446744073709551615 (upper bound)")
    assert t["status"] == "impossible" and "set_vector_mask.len.int32" in t["reason"]
    # nwords is a uint8 field, but the setter's list is (maskLow, maskHigh): the legal extreme is 2
    t = target(doc, "field:mask.nwords:max")
    assert t["status"] == "clipped" and t["legal_extreme"] == 2
    # rules about the type alone (half): the 32/64-bit maskHigh and width warnings, the 8-bit Normal-mode warning
    assert {x["rule"] for x in doc["coverage"]["not_covered"] if x["status"] == "context"} == {
        "set_vector_mask.product.support", "set_vector_mask.dtype.support", "set_vector_mask.mask.words.width",
        "set_vector_mask.mask.words.high", "set_vector_mask.normal.width"}


def test_a_warning_s_legal_side_is_a_case_it_is_silent_on(tmp_path):
    """A warning's broken side is a valid case already (expect success, the warning fires); its legal side is a case
    where the rule is in force and silent (it was reported 'impossible: no case breaks the rule')."""
    out = tmp_path / "b"
    r = invoke("gen", "SetVectorMask", "--product", "atlas-a2", "--mode", "boundary", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = manifest(out)
    for rule in ("set_vector_mask.mask.count.nonzero", "set_vector_mask.mask.words.nonzero"):
        broken = target(doc, f"rule:{rule}:broken, everything else kept")
        silent = target(doc, f"rule:{rule}:in force and silent")
        assert broken["status"] == silent["status"] == "covered", (broken, silent)
        assert case_of(doc, broken["cases"][0])["warns"] == [rule]
        quiet = case_of(doc, silent["cases"][0])
        assert quiet["expect"] == "success" and rule not in quiet["warns"]
        # in force: the mask of the silent case is in the rule's mode (contiguous: an int; bitwise: a list)
        assert isinstance(quiet["attr"][0]["value"], int if "count" in rule else list)


def test_boundary_rule_kinds_on_block_reduce_min():
    model = get_api("BlockReduceMin")
    g = generate(model, model.context("atlas-a2", "half"), "boundary", None, seed=0)
    by_id = {t.id: t for t in g.report["targets"]}
    case = lambda t: g.cases[t.cases[0]].case  # noqa: E731
    # repeatTime in [0, 255]: 0 and 255 legal, 256 breaks the range only (int32 holds it)
    assert case(by_id["rule:block_reduce_min.repeatTime.range:repeatTime = 255 (upper bound)"]).env["repeatTime"] == 255
    c = case(by_id["rule:block_reduce_min.repeatTime.range:repeatTime = 256 (above)"])
    assert [v.id for v in check_case(c).violations] == ["block_reduce_min.repeatTime.range"]
    # dst alignment is 16 bytes for half (the page's exact rule): element-aligned but not 16-aligned breaks it alone
    c = case(by_id["rule:block_reduce_min.dst.align:dst.addr element-aligned but not start-aligned"])
    assert c.env["dst.addr"] % 2 == 0 and c.env["dst.addr"] % 16 != 0
    assert [v.id for v in check_case(c).violations] == ["block_reduce_min.dst.align"]
    # the minimum size exactly, and one element less
    c = case(by_id["rule:block_reduce_min.dst.footprint:dst.size = the minimum"])
    need = ((c.env["repeatTime"] - 1) * c.env["dstRepStride"] + 1) * 8
    assert c.env["dst.size"] == need and check_case(c).valid
    c = case(by_id["rule:block_reduce_min.dst.footprint:dst.size = the minimum - 1"])
    assert [v.id for v in check_case(c).violations] == ["block_reduce_min.dst.footprint"]
    # a tensor that ends exactly at the end of the 192 KiB UB
    c = case(by_id["rule:block_reduce_min.src.bounds:src ends at its buffer's last byte"])
    assert c.env["src.addr"] + 2 * c.env["src.size"] == 192 * 1024 and check_case(c).valid
    for t in g.report["targets"]:
        assert t.status in ("covered", "clipped", "impossible", "context", "unknown", "skipped"), t.id
        if t.status in ("impossible", "unknown", "skipped"):
            assert t.reason, t.id
    # a uint64 mask word of 2^64: past its type, and past what a case file can hold (the only targets skipped)
    assert sorted(t.id for t in g.report["targets"] if t.status == "skipped") == [
        f"rule:block_reduce_min.mask.w{k}.type:mask.w{k} = 18446744073709551616 (above)" for k in (0, 1)]


def test_boundary_n_caps_the_cases(tmp_path):
    out = tmp_path / "b"
    assert invoke("gen", "SetVectorMask", "--product", "atlas-a2", "--mode", "boundary", "-n", "3",
                  "-o", str(out)).exit_code == 0
    doc = manifest(out)
    assert len(doc["cases"]) == 3 and sorted(p.name for p in out.iterdir()) == [
        "case_0000", "case_0001", "case_0002", "manifest.json"]
    assert doc["coverage"].get("not_written", 0) > 0


# -- negative --------------------------------------------------------------------------------------------------------

def test_negative_breaks_one_rule_each_or_names_what_it_drags(tmp_path):
    out = tmp_path / "n"
    r = invoke("gen", "BlockReduceMin", "--product", "atlas-training", "--mode", "negative", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = manifest(out)
    cov = doc["coverage"]
    for t in cov["all"]:
        if t["status"] != "covered":
            continue
        warning = get_api("BlockReduceMin").rule_by_id[t["rule"]].severity == "warning"
        for name in t["cases"]:
            c = case_of(doc, name)
            if warning:  # a warning negated: a valid case on which it fires
                assert c["expect"] == "success" and t["rule"] in c["warns"] and c["breaks"] == [], t["id"]
                continue
            assert sorted(c["breaks"]) == sorted([t["rule"]] + t.get("drags_along", [])), t["id"]
            assert c["expect"] == "failed"
    dragged = {x["rule"]: x["drags_along"] for x in cov["not_alone"]}
    # beyond int32 is beyond [0, 255]
    assert dragged["block_reduce_min.repeatTime.type"] == ["block_reduce_min.repeatTime.range"]
    # on atlas-training dstRepStride is in [1, 65535] and in [0, 65535]: leaving [0, 65535] leaves both
    assert dragged["block_reduce_min.dstRepStride.range"] == ["block_reduce_min.dstRepStride.nonzero"]
    assert sorted(dragged["block_reduce_min.dstRepStride.type"]) == [
        "block_reduce_min.dstRepStride.nonzero", "block_reduce_min.dstRepStride.range"]
    # rules that break alone
    for rid in ("block_reduce_min.dstRepStride.nonzero", "block_reduce_min.dst.src.in_place",
                "block_reduce_min.mask.placeholder", "block_reduce_min.src.footprint"):
        assert target(doc, f"negate:{rid}")["status"] == "covered" and rid not in dragged
    assert "not alone: [block_reduce_min.repeatTime.type] drags along block_reduce_min.repeatTime.range" in r.stderr
    assert target(doc, "negate:block_reduce_min.product.support")["status"] == "context"


def test_negative_breaks_data_rules_with_data():
    model = get_api("BilinearInterpolation")
    # -n 1: one rule negated by the solver, the rest not solved; the rules on tensor contents come after
    g = generate(model, model.context("atlas-a2", "half"), "negative", 1, seed=0)
    t = next(t for t in g.report["targets"] if t.rule == "bilinear.src0Offset.values")
    assert t.status == "covered"
    c = g.cases[t.cases[0]].case
    assert [v.id for v in check_case(c).violations] == ["bilinear.src0Offset.values"]


# -- determinism, atomicity, bad input ---------------------------------------------------------------------------------

def _tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_same_seed_same_files_in_fresh_processes(tmp_path):
    def run(mode: str, seed: int, name: str) -> dict[str, bytes]:
        d = tmp_path / name
        argv = [sys.executable, "-m", "ascverify", "gen", "BlockReduceMin", "--product", "atlas-a2", "--mode", mode,
                "--seed", str(seed), "-o", str(d)] + (["-n", "15"] if mode == "random" else [])
        subprocess.run(argv, check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        return _tree(d)

    a, b = run("boundary", 5, "b1"), run("boundary", 5, "b2")
    assert a == b and len(a) > 20
    r1, r2, r3 = run("random", 5, "r1"), run("random", 5, "r2"), run("random", 6, "r3")
    assert r1 == r2
    assert r1["manifest.json"] != r3["manifest.json"]


def test_interrupted_write_leaves_whole_cases_and_a_manifest(tmp_path, monkeypatch):
    model = get_api("SetVectorMask")
    out = tmp_path / "cases"
    out.mkdir()
    # an earlier, larger run in the same folder (its manifest lists the files it wrote)
    for i in range(6):
        (out / f"case_{i:04d}").mkdir()
        (out / f"case_{i:04d}" / "case.json").write_text("{}")
    (out / "manifest.json").write_text(json.dumps({
        "format": "ascverify-gen/1", "cases": [{"case_name": f"case_{i:04d}"} for i in range(6)],
        "files": ["manifest.json"] + [f"case_{i:04d}/case.json" for i in range(6)]}))
    g = generate(model, model.context("atlas-a2", "half"), "random", 5, seed=1)
    real = output._write_case_dir
    calls = []

    def flaky(tmp, gc, name):
        calls.append(name)
        if len(calls) == 3:
            (tmp / "inputs").mkdir(parents=True)
            (tmp / "case.json").write_text("{\"half\": ")  # half-written, then Ctrl-C
            raise KeyboardInterrupt
        real(tmp, gc, name)

    monkeypatch.setattr(output, "_write_case_dir", flaky)
    with pytest.raises(KeyboardInterrupt):
        write_generation(g, out)
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.startswith(".")], names  # no temporary left
    doc = manifest(out)
    assert doc["complete"] is False and [c["case_name"] for c in doc["cases"]] == ["case_0000", "case_0001"]
    for name in ("case_0000", "case_0001"):
        json.loads((out / name / "case.json").read_text())  # whole
    monkeypatch.setattr(output, "_write_case_dir", real)
    write_generation(generate(model, model.context("atlas-a2", "half"), "random", 3, seed=1), out)
    # the earlier run's case_0003..5 are gone; the manifest lists exactly what is there
    assert sorted(p.name for p in out.iterdir()) == ["case_0000", "case_0001", "case_0002", "manifest.json"]
    assert manifest(out)["complete"] is True


@pytest.mark.parametrize("argv, message", [
    (["gen", "BilinearInterpolation", "--product", "atlas-training", "-o", "{out}"],
     "--product: BilinearInterpolation is not supported on atlas-training (supported: atlas-350, atlas-a3, atlas-a2, "
     "atlas-inference-aicore)"),
    (["gen", "BlockReduceMin", "--product", "atlas-training", "--dtype", "float", "-o", "{out}"],
     "--dtype: BlockReduceMin does not support T=float on atlas-training (supported: half)"),
    (["gen", "BlockReduceMin", "--product", "atlas-a2", "--dtype", "flaot", "-o", "{out}"],
     "unknown element type 'flaot' (did you mean 'float'?)"),
    (["gen", "BilinearInterpolaton", "--product", "atlas-a2", "-o", "{out}"], "did you mean 'BilinearInterpolation'?"),
    (["gen", "BlockReduceMin", "--product", "atlas-a2", "-o", "{file}"], "exists and is not a directory"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, argv, message):
    f = tmp_path / "file.txt"
    f.write_text("x")
    r = invoke(*[a.format(out=str(tmp_path / "o"), file=str(f)) for a in argv])
    assert r.exit_code == 2, r.output
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


# BlockReduceSum's first boundary cases are the fields' extremes, no-ops on atlas-a2 (repeatTime 0, mask 0: nothing
# stored, no golden): 16 reach one that stores
@pytest.mark.parametrize("api, mode, n", [("BlockReduceMin", "negative", 12), ("BilinearInterpolation", "random", 6),
                                          ("BlockReduceSum", "boundary", 16)])
def test_cases_materialized_together_are_those_materialized_one_by_one(api, mode, n):
    """`write_generation` gives cases their data, runs and verdicts a chunk at a time (the rules checked on the
    chunk at once): each case must come out as when it is the only one."""
    model = get_api(api)
    g = generate(model, model.context("atlas-a2", "half"), mode, n, seed=2)
    alone = [GenCase(parse_case(gc.case.to_json()), gc.expect) for gc in g.cases]  # the same cases, read anew
    assert [gc.case.env for gc in alone] == [gc.case.env for gc in g.cases]
    seeds = [data_seed(g.seed, i) for i in range(len(g.cases))]
    materialize_many(g.cases, seeds)
    for gc, seed in zip(alone, seeds):
        materialize_many([gc], [seed])
    assert len(g.cases) >= 6
    # negative targets break a rule (or draw a warning); the other modes' cases are legal, but for boundary's targets
    # just outside a type's range (which of them come first depends on Z3's history in the process: seen under xdist)
    assert any(gc.breaks for gc in g.cases) or mode != "negative"
    assert all(gc.expect == "failed" and not gc.problem for gc in g.cases if gc.breaks)
    assert any(gc.golden for gc in g.cases) or mode == "negative"
    for together, one in zip(g.cases, alone):
        assert (together.breaks, together.warns, together.faults, together.not_run, together.problem) == \
               (one.breaks, one.warns, one.faults, one.not_run, one.problem)
        for mine, theirs in ((together.inputs, one.inputs), (together.golden, one.golden),
                             (together.unspecified, one.unspecified)):
            assert mine.keys() == theirs.keys()
            assert all(np.array_equal(mine[k], theirs[k], equal_nan=True) for k in mine)


@pytest.mark.parametrize("keep_data", [False, True])
def test_written_cases_hold_no_arrays(tmp_path, keep_data):
    """`gen` keeps no case's inputs or goldens once the case is written (memory flat however many cases); the cases'
    own contents stay only when asked for (`--html` classifies the cases with them)."""
    model = get_api("BlockReduceMin")
    g = generate(model, model.context("atlas-a2", "half"), "random", 20, seed=1)
    doc = write_generation(g, tmp_path / "out", keep_data=keep_data)
    assert len(doc["cases"]) == 20
    for gc, entry in zip(g.cases, doc["cases"]):
        assert not gc.inputs and not gc.golden and not gc.unspecified
        assert (gc.case.data("src") is not None) == keep_data
        golden = tmp_path / "out" / entry["case_name"] / "golden" / "dst.bin"
        assert golden.stat().st_size == gc.case.tensor("dst").nbytes  # written before it was dropped


def test_a_ctrl_c_as_a_case_folder_is_placed_still_lists_it(tmp_path, monkeypatch):
    """Ctrl-C right after a case folder is renamed into place: the manifest lists it (before, the folder was on
    disk but not among the manifest's cases)."""
    model = get_api("SetVectorMask")
    g = generate(model, model.context("atlas-a2", "half"), "random", 5, seed=1)
    real = output._place
    placed = []

    def place_then_ctrl_c(tmp, final, earlier=None):
        real(tmp, final, earlier)
        placed.append(final.name)
        if len(placed) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as the user presses Ctrl-C

    monkeypatch.setattr(output, "_place", place_then_ctrl_c)
    out = tmp_path / "cases"
    with pytest.raises(KeyboardInterrupt), interrupts.command_signals():
        write_generation(g, out)
    doc = manifest(out)
    assert doc["complete"] is False
    assert [c["case_name"] for c in doc["cases"]] == placed == sorted(p.name for p in out.iterdir() if p.is_dir())


def test_random_mode_says_when_it_writes_fewer_cases_than_asked(tmp_path):
    """SetMaskNorm has no argument: on one product and type there is one distinct case, so -n 5 writes 1 and says so
    (the help promises N otherwise); an API with arguments writes the 5 asked for without that line."""
    got = CliRunner().invoke(main, ["gen", "SetMaskNorm", "-p", "atlas-a2", "-n", "5", "-o", str(tmp_path / "a")])
    assert got.exit_code == 0, got.output
    assert len(json.loads((tmp_path / "a" / "manifest.json").read_text())["cases"]) == 1
    assert "gen: 1 of the 5 cases asked for: no more distinct valid cases were found" in got.stderr
    got = CliRunner().invoke(main, ["gen", "SetVectorMask", "-p", "atlas-a2", "-n", "5", "-o", str(tmp_path / "b")])
    assert got.exit_code == 0 and "asked for" not in got.stderr, got.output
    assert len(json.loads((tmp_path / "b" / "manifest.json").read_text())["cases"]) == 5
