"""Differential campaigns: what is compared (written elements, NaN and infinities, ULP, --exact, registers), what the
target is handed (in-place contents, registers), which cases run (specified outputs), and the time budget and seed
of a timed campaign."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ascverify import check_case, get_api, parse_case
from ascverify.engines.fuzz.campaign import CampaignConfig, run_campaign
from ascverify.engines.fuzz.checks import Differential, Failure, compare_registers, core_outputs, target_doc
from ascverify.engines.fuzz.compare import compare_tensor, tolerance_for, ulp_distance
from ascverify.engines.fuzz.plan import Unit, has_outputs
from ascverify.engines.fuzz.progress import Display
from ascverify.engines.fuzz.runner import ItemRunner, RunOptions
from ascverify.engines.fuzz.targets import ANY_INDEX, REGISTERS, CommandTarget, Target, limit_answer, read_registers, registers_answer
from ascverify.spec.dtypes import get_dtype

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "bench" / "mutants"
HALF = get_dtype("half")


def _load(file: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_test_mutants_{Path(file).stem}", MUTANTS / file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class InProcess(Target):
    """A target function called in this process (the tests' fast stand-in for a PythonTarget)."""

    kind = "python"

    def __init__(self, fn):
        self.fn = fn
        self.spec = getattr(fn, "__name__", "fn")
        self.calls = []

    def run(self, case_doc, inputs, outputs, timeout):
        from ascverify.engines.fuzz.targets import _check_outputs

        self.calls.append(case_doc)
        return _check_outputs(limit_answer(self.fn(json.loads(json.dumps(case_doc)), dict(inputs)), outputs), outputs)


class Quiet:
    def start(self, *a): ...
    def advance(self, *a, **k): ...
    def finding(self, *a): ...
    def done(self, *a): ...


# -- the comparison --------------------------------------------------------------------------------------------------

def test_the_error_ratio_counts_only_the_written_elements():
    # the example: 22 of 22 written elements wrong in a 60,000-element dst
    exp = np.zeros(60000, dtype=np.float16)
    got = exp.copy()
    written = np.zeros(60000, dtype=bool)
    written[1000:1022] = True
    exp[1000:1022] = 3.0
    got[1000:1022] = 4.0
    tol = tolerance_for(HALF)
    d = compare_tensor("dst", HALF, exp, got, None, tol, written=written)
    assert not d.ok and d.written == 22 and d.mismatches == 22 and "22 of 22 written" in d.message
    # counted over every element (no written mask), 22 of 60,000 is within the allowed share: the old blind spot
    assert compare_tensor("dst", HALF, exp, got, None, tol).ok


def test_elements_the_call_does_not_write_must_keep_their_contents():
    exp = np.arange(64, dtype=np.float16)
    got = exp.copy()
    got[40] = np.float16(40.03125)          # within rtol, but the call never writes element 40
    written = np.arange(64) < 32
    d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF), written=written)
    assert not d.ok and d.kept_differ == 1 and d.first[0]["kept"] is True


def test_a_zero_of_the_other_sign_is_wrong_where_the_outputs_are_chosen():
    """np.isclose takes -0 for +0: a max that keeps -0 of max(-0, +0) passed every campaign (audit 21: 3,310 cases).
    With ``signed_zero`` (BlockReduceMax/Min: each result is one of the inputs) it is a wrong value like a wrong NaN;
    without it (a sum, where a rounding path may legitimately end on the other zero) it passes as before."""
    exp = np.array([0.0, 1.0, -0.0, 2.0], dtype=np.float16)
    got = np.array([-0.0, 1.0, -0.0, 2.0], dtype=np.float16)
    d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF, signed_zero=True))
    assert not d.ok and d.mismatches == 1 and d.special_differ == 1 and d.first[0]["index"] == 0
    assert "1 with a wrong NaN, infinity or sign of zero" in d.message
    assert compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF)).ok


def _first_operand_min(case, inputs):
    """BlockReduceMin of one datablock's active lanes, keeping the first of two equal values (min(+0, -0) = +0)."""
    ref = _load("block_reduce.py").block_reduce_min(case, inputs)
    src, dst = inputs["src"], ref["dst"].copy()
    best = src[0]
    for i in range(1, int(case["args"]["mask"])):  # a contiguous mask: lanes 0 .. mask-1 of datablock 0
        if src[i] < best:
            best = src[i]
    dst[0] = best
    return {"dst": dst}


def test_a_min_keeping_the_wrong_zero_is_a_finding_without_exact():
    """audit 21's repro: BlockReduceMin over lanes 0 and 1 holding +0 and -0 is -0 (the model's masked-block note:
    min(+0, -0) = -0); a target returning +0 is found by the default comparison, not only with --exact."""
    doc = {"api": "BlockReduceMin", "product": "atlas-350", "dtype": "half",
           "args": {"repeatTime": 1, "mask": 2, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
           "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 8, "data": [1.0] * 8},
                       "src": {"position": "VECIN", "addr": 256, "size": 128, "data": [0.0, -0.0] + [5.0] * 126}}}
    case = parse_case(doc)
    assert np.signbit(core_outputs(case, seed=0).outputs["dst"][0])         # the core: -0
    Differential(InProcess(_load("block_reduce.py").block_reduce_min)).run(case, 0)
    with pytest.raises(Failure) as err:
        Differential(InProcess(_first_operand_min)).run(case, 0)
    assert "sign of zero" in str(err.value)


def test_a_load_is_compared_bit_for_bit():
    """A load copies bytes: a target off by one unit in the last place, within half's rtol, is wrong (it passed);
    a sum keeps its tolerance; zero signs count where the notes fix them."""
    assert get_api("Load3DBitMode").output_comparison == get_api("LoadDataWithStride").output_comparison == "moves"
    assert get_api("BlockReduceSum").output_comparison == "arithmetic"
    case = parse_case(json.loads((ROOT / "examples" / "load3d_example.json").read_text()), base_dir=ROOT / "examples")
    run = core_outputs(case, seed=2)
    (name, out), = run.outputs.items()
    assert case.ctx.tensor_dtype(name).name == "half" and Differential(None).tolerance(case, name) is None
    off = out.copy()
    off.view(np.uint16)[0] += 1                                               # one ULP: within rtol 1e-3
    assert not compare_tensor(name, HALF, out, off, None, Differential(None).tolerance(case, name)).ok
    assert compare_tensor(name, HALF, out, off, None, tolerance_for(HALF)).ok  # as it was compared before
    # review 76: a zero's sign counts where the spec notes fix it. BlockReduceMin/Max: atlas-350 and float on
    # atlas-a2/a3 (the nan-zero note); which zero half on atlas-a2 keeps is not documented. BlockReduceSum adds
    # under IEEE rules (its zero-sign note leaves only a poisoned case open); BilinearInterpolation stores +0.
    def signed(doc):
        return Differential(None).tolerance(parse_case(doc), "dst").signed_zero
    assert not signed(IN_PLACE)
    assert signed(dict(IN_PLACE, dtype="float")) and signed(dict(IN_PLACE, product="atlas-350"))
    assert signed(dict(IN_PLACE, api="BlockReduceSum"))
    bilinear = parse_case(json.loads((ROOT / "examples" / "bilinear_interpolation.json").read_text()),
                          base_dir=ROOT / "examples")
    assert Differential(None).tolerance(bilinear, "dst").signed_zero


def test_a_bit_exact_difference_between_two_nans_shows_their_bits():
    # two half NaNs of other payloads print alike ("nan"): bit-exact, the message must show what differs
    exp = np.ones(8, dtype=np.float16)
    got = exp.copy()
    exp[3] = np.array(0x7E00, dtype=np.uint16).view(np.float16)
    got[3] = np.array(0x7FFF, dtype=np.uint16).view(np.float16)
    d = compare_tensor("dst", HALF, exp, got, None, None, nan_bits=True)  # a load: the NaN's bits were copied
    assert not d.ok and d.first[0]["expected_bits"] == "0x7e00" and d.first[0]["actual_bits"] == "0x7fff"
    assert "expected nan (0x7e00) got nan (0x7fff)" in d.message
    assert d.max_abs_error is None  # no difference is a finite number: not "inf"


def test_exact_takes_any_nan_for_a_computed_nan_and_a_zero_whose_sign_is_open():
    """review 76: with --exact a correct BilinearInterpolation failed on every product, `expected nan (0x7e00) got
    nan (0xfe00)` (numpy's inf - inf is the negative default NaN): which NaN the hardware computes is not documented,
    so a computed NaN matches any NaN; a zero's sign counts only where the notes fix it (``zero_sign``)."""
    exp = np.ones(8, dtype=np.float16)
    got = exp.copy()
    exp[3] = np.array(0x7E00, dtype=np.uint16).view(np.float16)
    got[3] = np.array(0xFE00, dtype=np.uint16).view(np.float16)
    assert compare_tensor("dst", HALF, exp, got, None, None).ok
    got[3] = 1.0  # a number where the core has a NaN is still wrong
    assert not compare_tensor("dst", HALF, exp, got, None, None).ok
    exp[3], got[3] = 0.0, -0.0
    assert not compare_tensor("dst", HALF, exp, got, None, None).ok
    assert compare_tensor("dst", HALF, exp, got, None, None, zero_sign=False).ok
    assert not compare_tensor("dst", HALF, exp, got, None, None, zero_sign=False, nan_bits=True).ok  # bytes moved


def test_diff_statistics_count_the_written_elements_and_name_changed_old_contents_first():
    """review 76: '0 differ, max abs error 35.125, max rel error 7.86e+307' -- the errors came from elements the call
    does not write, and the relative error divided by a zero expectation."""
    exp = np.zeros(16, dtype=np.float16)
    got = exp.copy()
    written = np.arange(16) < 8
    got[12] = 35.125  # not written by the call: its old contents changed
    d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF), written=written)
    assert not d.ok and d.kept_differ == 1 and d.mismatches == 0
    assert d.message.startswith("dst: 1 of 8 elements the call does not write changed")
    assert d.max_abs_error is None and d.max_rel_error is None
    got[2] = 1.0  # a written element against an expected 0: an absolute error, no relative one
    d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF), written=written)
    assert d.max_abs_error == 1.0 and d.max_rel_error is None


def test_values_that_print_differently_show_no_bits():
    exp = np.ones(4, dtype=np.float16)
    got = exp.copy()
    got[1] = 2.0
    d = compare_tensor("dst", HALF, exp, got, None, None)
    assert "expected 1.0 got 2.0" in d.message and "expected_bits" not in d.first[0]
    assert d.max_abs_error == 1.0


def test_a_wrong_nan_or_infinity_fails_whatever_the_share():
    exp = np.ones(10000, dtype=np.float16)
    for bad in (np.nan, np.inf, -np.inf):
        got = exp.copy()
        got[7] = bad
        d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF))
        assert not d.ok and d.special_differ == 1, bad
    got = exp.copy()
    got[7] = 1.5                              # one ordinary mismatch in 10,000: within the allowed share
    assert compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF)).ok


def test_exact_mode_and_ulp_distances():
    one_ulp = np.array([0x3C01], dtype=np.uint16).view(np.float16)  # 1 + 2^-10
    exp = np.ones(4, dtype=np.float16)
    got = np.concatenate([one_ulp, exp[1:]])
    d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF))
    assert d.ok and d.max_ulp == 1
    d = compare_tensor("dst", HALF, exp, got, None, tolerance_for(HALF, exact=True))
    assert not d.ok and "bit-exact" in d.message and d.max_ulp == 1
    # IEEE ordering: +0 and -0 are 0 apart; the largest finite half and +inf are neighbours; the two smallest
    # subnormals of opposite sign are 2 apart (through zero)
    bits = lambda *b: np.array(b, dtype=np.uint16).view(np.float16)  # noqa: E731
    assert ulp_distance(bits(0x0000, 0x3C00, 0x7BFF, 0x0001), bits(0x8000, 0x3C02, 0x7C00, 0x8001)).tolist() == \
        [0, 2, 1, 2]
    assert ulp_distance(bits(0x7E00), bits(0x3C00)).tolist() == [-1]           # NaN: no distance


def test_registers_compare_bit_for_bit_in_every_answer_form():
    exp = np.arange(32, dtype=np.uint8)
    expected = {"mask": {3: exp}}
    bits = np.unpackbits(exp, bitorder="little").astype(bool)
    for answer in ({"mask": {3: exp}}, {"mask": {ANY_INDEX: exp}}, {"mask": {3: bits}}):
        (d,) = compare_registers(expected, answer)
        assert d.ok, answer
    flipped = exp.copy()
    flipped[1] ^= 0x04                                                         # bit 10
    (d,) = compare_registers(expected, {"mask": {3: flipped}})
    assert not d.ok and d.mismatches == 1 and d.first[0]["index"] == 10
    (d,) = compare_registers(expected, {"mask": {2: exp}})
    assert d.kind == "missing"
    # a target answers {"MaskReg": bytes}, {"MaskReg": {index: bytes}} or {"registers": {"mask": {"3": bytes}}}
    assert registers_answer({"MaskReg": exp})["mask"][ANY_INDEX].tolist() == exp.tolist()
    assert registers_answer({"registers": {"mask": {"3": exp.tolist()}}})["mask"][3].tolist() == exp.tolist()
    assert REGISTERS in limit_answer({"MaskReg": {3: exp}}, {})
    # ... bytes as Python bytes too (audit 21: the documented {"MaskReg": bytes} was refused as "an array of |S32")
    for raw in (exp.tobytes(), bytearray(exp.tobytes()), memoryview(exp.tobytes())):
        got = registers_answer({"MaskReg": {3: raw}})["mask"][3]
        assert got.dtype == np.uint8 and got.tolist() == exp.tolist()
        (d,) = compare_registers(expected, {"mask": {3: got}})
        assert d.ok


def test_a_vector_register_is_shown_by_its_bytes():
    """review 76: a RegTensor diff read '392 of 2048 bits differ ... bit 40 expected 0 got 1', hiding that a
    sign extension wrote 0xff where 0x00 belongs; a MaskReg keeps its bits (one per lane)."""
    exp = np.zeros(256, dtype=np.uint8)
    got = exp.copy()
    got[1::2] = 0xFF  # the high byte of every 16-bit element sign-extended
    (d,) = compare_registers({"vreg": {0: exp}}, {"vreg": {0: got}})
    assert not d.ok and d.mismatches == 128 and d.first[0]["unit"] == "byte"
    assert "128 of 256 bytes differ" in d.message and "byte 1 expected 0x00 got 0xff" in d.message
    (m,) = compare_registers({"mask": {0: exp[:32]}}, {"mask": {0: got[:32]}})
    assert m.first[0]["unit"] == "bit" and "bits differ" in m.message


def test_a_command_target_answers_registers_in_registers_json(tmp_path):
    (tmp_path / "registers.json").write_text(json.dumps({"mask": {"5": list(range(32))}}))
    assert read_registers(tmp_path)["mask"][5].tolist() == list(range(32))
    assert read_registers(tmp_path / "none") is None


# -- what the target is handed ---------------------------------------------------------------------------------------

IN_PLACE = {  # valid on atlas-a2: dst at src's start, results of repeat r land on bytes repeat r read already
    "api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
    "args": {"repeatTime": 2, "mask": [0xFFFF_FFFF_FFFF_0000, 0xFFFF_FFFF_FFFF_FFFF], "dstRepStride": 1,
             "srcBlkStride": 1, "srcRepStride": 8, "isSetMask": True},
    "tensors": {"dst": {"position": "VECCALC", "addr": 0, "size": 16},
                "src": {"position": "VECCALC", "addr": 0, "size": 256}},
}


def test_in_place_dst_handed_to_the_target_is_what_the_core_memory_holds():
    case = parse_case(IN_PLACE)
    assert check_case(case).valid
    run = core_outputs(case, seed=3)
    # dst and src share their first 32 bytes: what a target gets as dst's old contents is src's bytes there
    assert run.inputs["dst"].view(np.uint16).tolist() == run.inputs["src"][:16].view(np.uint16).tolist()
    # block 0 of repeat 0 is fully masked off: atlas-a2 keeps dst, and dst there holds src's bytes
    assert run.outputs["dst"][0].view(np.uint16) == run.inputs["src"][0].view(np.uint16)
    ref = _load("block_reduce.py").block_reduce_min
    Differential(InProcess(ref), exact=True).run(case, 3)                    # no false finding, even bit-exact


def test_register_apis_are_targets_and_get_their_input_registers():
    assert has_outputs(get_api("LoadAlign")) and has_outputs(get_api("MaskGenWithRegTensor"))
    assert not has_outputs(get_api("SetVectorMask"))
    reg = _load("reg.py")
    doc = {"api": "MaskGenWithRegTensor", "product": "atlas-350", "dtype": "b16",
           "args": {"dst": 2, "srcReg": 5, "offset": 3}, "tensors": {}}
    case = parse_case(doc)
    run = core_outputs(case, seed=1)
    assert list(run.registers_out) == ["mask"] and list(run.registers_out["mask"]) == [2]
    handed = target_doc(case, run)
    assert len(handed["registers"]["vreg"]["5"]) == 256                      # the RegTensor the call reads
    Differential(InProcess(reg.mask_gen)).run(case, 1)
    with pytest.raises(Failure) as err:
        Differential(InProcess(reg.mask_gen_msb_first)).run(case, 1)
    assert err.value.key == "differential.mismatch:mask"


@pytest.mark.parametrize("doc, good, bad", [
    ({"api": "MaskGenWithRegTensor", "product": "atlas-350", "dtype": "b16",
      "args": {"dst": 2, "srcReg": 5, "offset": 3}, "tensors": {}}, "mask_gen", "mask_gen_msb_first"),
    ({"api": "LoadAlign", "product": "atlas-350", "dtype": "bool", "args": {"mask": 7, "dist": "DIST_US"},
      "tensors": {"srcAddr": {"position": "VECIN", "addr": 32, "size": 16}}}, "load_align", "load_align_us_tiles"),
])
def test_the_folder_protocol_example_hands_over_registers(doc, good, bad):
    """examples/targets/case_dir.py (the --target-cmd protocol shown in the README) passes the registers of case.json
    to a Python target and writes its MaskReg to outputs/registers.json (it wrote only tensors: a register-writing
    call's answer was missing, and a T of bool or b16 was an unknown type to it)."""
    case = parse_case(doc)
    assert check_case(case).valid
    script = ROOT / "examples" / "targets" / "case_dir.py"
    Differential(CommandTarget(f"{sys.executable} {script} {MUTANTS / 'reg.py'}:{good} {{dir}}")).run(case, 1)
    with pytest.raises(Failure) as err:
        Differential(CommandTarget(f"{sys.executable} {script} {MUTANTS / 'reg.py'}:{bad} {{dir}}")).run(case, 1)
    assert err.value.key == "differential.mismatch:mask"


# -- which cases run, the time budget, the seed ----------------------------------------------------------------------

def _item(api, product, fn, examples=40, seed=2, **kw):
    opts = RunOptions(seed=seed, examples=examples, findings=None, database="none", shrink=False, **kw)
    target = InProcess(fn)
    res = ItemRunner(Unit(api, product, "differential"), opts, Quiet(), target).run()
    return res, target


@pytest.mark.parametrize("api, product", [("BlockReduceMin", "atlas-inference-aicore"), ("Load3DBitMode", "atlas-350")])
def test_nine_in_ten_cases_drawn_compare_something(api, product):
    fn = _load("block_reduce.py").block_reduce_min if api == "BlockReduceMin" else _load("img2col.py").core
    # 80 cases: with 30 the share was 86 % or 91 % depending on which tests had run before in the same process
    res, _ = _item(api, product, fn, examples=80)
    assert not res.findings and res.status == "passed", res.error
    assert res.cases == 80 and res.cases / (res.cases + res.unspecified) >= 0.9


def test_time_budget_bounds_the_campaign_while_it_shrinks(tmp_path, monkeypatch):
    # the budget covers the campaign's setup and its first case too: 4 s once ran out before the first case on a
    # machine running 4 busy processes on its 2 cores (no finding at all), so 8. Unbounded, this campaign takes
    # about 25 calls of the target (18 s with 0.5 s per call here, 12 s with 0.25 s): the sleeps alone outlast 8 s
    # on any machine, so the budget is what ends it.
    BUDGET = 8
    monkeypatch.chdir(tmp_path)
    (tmp_path / "slow.py").write_text(
        "import time\n"
        "def wrong(case, inputs):\n"
        "    time.sleep(0.5)\n"
        "    return {'dst': inputs['dst'] + 1}\n")
    config = CampaignConfig(apis=("BlockReduceMin",), products=("atlas-a2",), target={"kind": "python",
                            "spec": "slow.py:wrong"}, examples=None, time_budget=BUDGET, seed=1,
                            findings=str(tmp_path / "f"), database="none", report=str(tmp_path / "r.json"))
    t0 = time.monotonic()
    result = run_campaign(config, display=Display(items=1, quiet=True), print_coverage=False)
    wall = time.monotonic() - t0
    assert result.findings and result.exit_status == 1, "no finding within the budget: the first case came too late"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["items"][0]["time_up"] is True
    # review 76: `cases` counts the shrinker's attempts too; the case that first failed is reported apart
    assert report["items"][0]["first_failed_at"] == 1 <= report["items"][0]["cases"]
    # shrinking this failure takes dozens of 0.5 s calls: without the bound it runs far past the budget
    assert wall < BUDGET + 10, wall


def test_a_seed_reproduces_a_timed_campaign(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "log.py").write_text(
        "import json, hashlib, os\n"
        "from ascverify.engines.fuzz.mutants import run_as_target\n"
        "def core(case, inputs):\n"
        "    digest = hashlib.sha256(b''.join(inputs[k].tobytes() for k in sorted(inputs))).hexdigest()\n"
        "    with open(os.environ['CASE_LOG'], 'a') as f:\n"
        "        f.write(json.dumps([case, digest], sort_keys=True) + '\\n')\n"
        "    return run_as_target(case, inputs)\n")
    logs = []
    for i in range(2):
        log = tmp_path / f"log{i}.jsonl"
        monkeypatch.setenv("CASE_LOG", str(log))
        config = CampaignConfig(apis=("BlockReduceMin",), products=("atlas-a2",), target={"kind": "python",
                                "spec": "log.py:core"}, examples=None, time_budget=6 + 3 * i, seed=7,
                                findings=str(tmp_path / f"f{i}"), database="none")
        result = run_campaign(config, display=Display(items=1, quiet=True), print_coverage=False)
        assert result.exit_status == 0, result.findings
        logs.append(log.read_text().splitlines())
    short, long = sorted(logs, key=len)
    assert len(short) >= 5 and long[:len(short)] == short     # the same cases, with the same inputs, in order


def test_a_pass_the_tolerance_made_is_reported(tmp_path, capsys):
    """review 76: a flush-to-zero bug survived on one product inside half's atol, silently. A campaign now says how
    many passing cases had written elements whose bits differ from the core's within the tolerance, and the report
    gives each item's counts (a target one ULP off on every element of magnitude >= 1: within rtol 1e-3)."""
    (tmp_path / "near.py").write_text(
        "import numpy as np, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'bench' / 'mutants')!r})\n"
        "from block_reduce import block_reduce_sum\n"
        "def near(case, inputs):\n"
        "    d = block_reduce_sum(case, inputs)['dst'].copy()\n"
        "    u = 'u%d' % d.dtype.itemsize\n"
        "    wrote = d.view(u) != np.asarray(inputs['dst']).view(u)  # the results that changed an element\n"
        "    m = np.abs(d.astype(np.float64))\n"
        "    big = wrote & np.isfinite(d) & (m >= 1) & (m < np.finfo(d.dtype).max)  # not into infinity\n"
        "    d.view(u)[big] += 1\n"
        "    return {'dst': d}\n")
    config = CampaignConfig(apis=("BlockReduceSum",), products=("atlas-a2",), target={"kind": "python",
                            "spec": str(tmp_path / "near.py") + ":near"}, examples=40, seed=1,
                            findings=str(tmp_path / "f"), database="none", report=str(tmp_path / "r.json"))
    result = run_campaign(config, display=Display(items=1), print_coverage=False)
    assert result.exit_status == 0 and not result.findings
    item = json.loads((tmp_path / "r.json").read_text())["items"][0]
    assert item["within_tolerance"]["cases"] >= 1 and item["within_tolerance"]["max_ulp"] == 1
    assert "within the tolerance" in capsys.readouterr().err
