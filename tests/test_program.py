"""Programs: call sequences over shared tensors, ordering rules, the state configuration calls set."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from ascverify import check_case, parse_case, strategies
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.cli import main
from ascverify.core.program import run_program
from ascverify.core.run import run_case
from ascverify.core.unspecified import unspecified_elements
from ascverify.spec.dtypes import get_dtype
from ascverify.spec.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "program_block_reduce_min.json"
BRM_ARGS = {"repeat": 1, "mask": "MASK_PLACEHOLDER", "dst_rep_stride": 1, "src_blk_stride": 1, "src_rep_stride": 8,
            "is_set_mask": False}


#: SetMaskCount: the vector unit in Counter mode for the calls after it
COUNT_MODE = {"api": "SetMaskCount"}


def program(*calls, product="atlas-a2", dtype="half"):
    return {"product": product, "dtype": dtype,
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128},
                        "z": {"position": "VECOUT", "addr": 512, "size": 16}},
            "calls": list(calls)}


def brm(**args):
    return {"api": "block_reduce_min", "args": {**BRM_ARGS, **args}, "tensors": {"dst": "z", "src": "x"}}


def set_mask(mask, dtype=None):
    call = {"api": "set_vector_mask", "args": {"mask": mask}}
    if dtype:
        call["dtype"] = dtype
    return call


def test_shipped_example_is_valid_and_runs(tmp_path):
    r = CliRunner().invoke(main, ["check", str(EXAMPLE)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["run", str(EXAMPLE), "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "run.json").read_text())
    # SetVectorMask([255, 0]) on half: lanes 0..7 on, 8..127 off (mask[0] holds the low 64 lanes)
    assert doc["special_registers"]["vector_mask"]["lanes"] == [1] * 8 + [0] * 120
    assert (tmp_path / "z.npy").exists() and (tmp_path / "x.bin").exists()
    # run.json says it is a program's, with the program and its calls (a case's run.json has "kind": "case")
    shipped = json.loads(EXAMPLE.read_text())
    assert doc["kind"] == "program" and doc["executed"] is True
    assert doc["program"] == shipped and doc["calls"] == ["SetVectorMask", "BlockReduceMin"]


def test_a_tensor_a_call_gives_inline_is_written_too(tmp_path):
    """The schema lets a call give a tensor inline instead of naming a shared one; `run` wrote only the shared
    tensors ("wrote 1 tensor": BlockReduceMin's dst lost). Written as call<i>@<param>, after the last call, with the
    same contents as when the same tensor is shared."""
    (tmp_path / "shared").mkdir()
    r = CliRunner().invoke(main, ["run", str(EXAMPLE), "-o", str(tmp_path / "shared")])
    assert r.exit_code == 0, r.output
    doc = json.loads(EXAMPLE.read_text())
    doc["calls"][1]["tensors"]["dst"] = doc["tensors"].pop("z")
    case = tmp_path / "inline.json"
    case.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["run", str(case), "-o", str(tmp_path / "inline")])
    assert r.exit_code == 0, r.output
    assert "wrote 2 tensors" in r.stderr
    written = json.loads((tmp_path / "inline" / "run.json").read_text())["tensors"]
    assert sorted(written) == ["call1@dst", "x"]
    shared, inline = (np.load(tmp_path / "shared" / "z.npy"), np.load(tmp_path / "inline" / "call1@dst.npy"))
    assert shared.tobytes() == inline.tobytes()
    assert (np.load(tmp_path / "inline" / "call1@dst.unspecified.npy")
            == np.load(tmp_path / "shared" / "z.unspecified.npy")).all()


def test_masked_op_without_a_prior_set_vector_mask_is_refused_at_its_call():
    result = check_program(parse_program(program(brm(), set_mask([255, 0]), brm())))
    assert [(v.call, v.id) for v in result.violations] == [(0, "block_reduce_min.order.vector_mask")]
    r = CliRunner().invoke(main, ["check", "-"], input=json.dumps(program(brm())))
    assert r.exit_code == 1
    assert "-:case 0: call 0: error: [block_reduce_min.order.vector_mask]" in r.stdout


def test_effective_mask_is_the_last_one_set():
    """isSetMask=false after SetVectorMask(M) computes what the op computes with mask M itself."""
    data = (np.arange(128, 0, -1) / 4).tolist()
    prog = program(set_mask(128), set_mask([0b1111_0000, 0]), brm())
    prog["tensors"]["x"]["data"] = data
    run = run_program(parse_program(prog))
    direct = parse_case({"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
                         "args": {"repeatTime": 1, "mask": [0b1111_0000, 0], "dstRepStride": 1, "srcBlkStride": 1,
                                  "srcRepStride": 8},
                         "tensors": {"dst": {"position": "VECOUT", "addr": 512, "size": 16},
                                     "src": {"position": "VECIN", "addr": 0, "size": 128, "data": data}}})
    expected = run_case(direct).tensors["dst"]
    # only lanes 4..7 of block 0 are on: the minimum of x[4..7] = (124..121)/4 -> 121/4 = 30.25
    assert run.runs[2].tensors["dst"][0] == 30.25 == expected[0]


def _direct_brm(mask, dtype, data):
    """BlockReduceMin with ``mask`` as its own argument, on the program's tensors."""
    return parse_case({"api": "BlockReduceMin", "product": "atlas-a2", "dtype": dtype,
                       "args": {"repeatTime": 1, "mask": mask, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
                       "tensors": {"dst": {"position": "VECOUT", "addr": 512, "size": 16},
                                   "src": {"position": "VECIN", "addr": 0, "size": 128, "data": data}}})


def test_the_op_reads_the_register_in_its_own_type():
    """The register holds 128 bits whatever the setter's T; an op reads the bits of its own lanes: a float op
    (64 lanes) the low word of a two-word half mask, and a half op all 128 lanes after SetMask<uint64_t>(32), which
    sets every bit (the vendor's SetMask<T>(len): len equal to T's lanes or >= 128 sets both words in full)."""
    data = (np.arange(128, 0, -1) / 4).tolist()
    prog = program(set_mask([0b1100, 2], dtype="half"), brm(), dtype="float")
    prog["tensors"]["x"]["data"] = data
    parsed = parse_program(prog)
    assert check_program(parsed).valid
    got = run_program(parsed).runs[1].tensors["dst"]
    expected = run_case(_direct_brm([0b1100], "float", data)).tensors["dst"]
    # lanes 2 and 3 of block 0: min(x[2], x[3]) = min(126/4, 125/4) = 31.25
    assert got[0] == 31.25 == expected[0]
    prog = program(set_mask(32, dtype="uint64"), brm())
    prog["tensors"]["x"]["data"] = data
    got = run_program(parse_program(prog)).runs[1].tensors["dst"]
    expected = run_case(_direct_brm(128, "half", data)).tensors["dst"]
    # every lane: each block's minimum is its last element ((128 - 15 - 16*b) / 4), as the direct run with mask 128
    assert got[:8].tolist() == expected[:8].tolist() == [(128 - 15 - 16 * b) / 4 for b in range(8)]


def test_a_counter_mode_count_of_whole_repeats_is_checked_and_run():
    """After SetVectorMask(COUNTER) the hardware ignores repeatTime and runs ceil(count / lanes) repeats (the vendor's
    Mask page). When every repeat has the same lanes the op is checked and run as such: 64 halves are one repeat of
    64 lanes (blocks 0-3 of 16 lanes), as repeatTime = 1 says (no warning). SetMaskCount puts the unit in Counter
    mode first (the COUNTER template alone writes the words; the SetMaskNorm page: Normal is the default mode)."""
    counter = {"api": "set_vector_mask", "args": {"mask": [64, 0], "mode": "COUNTER"}, "dtype": "uint8"}
    prog = program(COUNT_MODE, counter, brm())
    data = (np.arange(128, 0, -1) / 4).tolist()
    prog["tensors"]["x"]["data"] = data
    parsed = parse_program(prog)
    result = check_program(parsed)
    assert result.valid and not result.warnings
    assert not any(u.rule_id == "block_reduce_min.mask.count.range" for u in result.unchecked)
    got = run_program(parsed).runs[2].tensors["dst"]
    expected = run_case(_direct_brm(64, "half", data)).tensors["dst"]
    # blocks 0-3: each block's minimum is its last element, (128 - 15 - 16*b) / 4, as with the contiguous mask 64
    assert got[:4].tolist() == expected[:4].tolist() == [(128 - 15 - 16 * b) / 4 for b in range(4)]
    # 512 floats are ceil(512 / 64) = 8 whole repeats of 64 lanes: repeatTime=1 has no effect (a warning), and
    # src, 128 floats here, must hold 8 repeats' datablocks (8 x 64 floats): an error at the op (dst, 16 results,
    # must hold 8 x 8 too)
    counter["args"]["mask"] = [512, 0]
    wide = check_program(parse_program(program(COUNT_MODE, counter, brm(), dtype="float")))
    # z (UB byte 512) is where repeat 2 reads its block 0 (2 * 256 bytes on): repeat 0's results land there first
    # (the in-place warning: those later results are unspecified)
    warned = {w.id: w for w in wide.warnings}
    assert [(w.call, w.id) for w in wide.warnings] == [(2, "block_reduce_min.dst.src.in_place"),
                                                        (2, "block_reduce_min.counter_mode")]
    assert "ceil(512 / 64) = 8 repeat(s) of 64 lanes" in warned["block_reduce_min.counter_mode"].message
    assert "of repeat 2, which reads it later" in warned["block_reduce_min.dst.src.in_place"].message
    errors = {v.id: v for v in wide.violations}
    assert {v.call for v in wide.violations} == {2} and "block_reduce_min.src.footprint" in errors
    assert "needs 512" in errors["block_reduce_min.src.footprint"].message


def test_a_counter_mode_count_with_a_shorter_last_repeat_is_checked_and_run():
    """200 halves are ceil(200 / 128) = 2 repeats, 128 lanes then the rest, 72 (the vendor's Mask page: the hardware
    derives the repeats from the count; its example {130, 0} on half is one repeat of 128 and one of 2). x holds 256
    halves (2 repeats' datablocks); repeat 1's blocks 0-3 have 16 active lanes, block 4 has 8 (lanes 64-71), blocks
    5-7 none: on atlas-a2 a block without an active lane stores nothing (z keeps its value, HARDWARE_NOTES Masks)."""
    counter = {"api": "set_vector_mask", "args": {"mask": [200, 0], "mode": "COUNTER"}, "dtype": "uint8"}
    prog = program(COUNT_MODE, counter, brm())
    prog["tensors"]["x"]["size"] = 256
    prog["tensors"]["z"]["addr"] = 1024
    x = (np.arange(256, 0, -1) / 4)           # decreasing: a block's minimum is its last active element
    prog["tensors"]["x"]["data"] = x.tolist()
    prog["tensors"]["z"]["data"] = [7.0] * 16
    parsed = parse_program(prog)
    result = check_program(parsed)
    assert result.valid and not result.unchecked
    assert [(w.call, w.id) for w in result.warnings] == [(2, "block_reduce_min.counter_mode")]
    assert "2 repeats, 1 of 128 lanes and the last of 72" in result.warnings[0].message
    run = run_program(parsed).runs[2]
    got = run.tensors["dst"]
    want = [x[16 * b + 15] for b in range(8)] + [x[128 + 16 * b + 15] for b in range(4)] + [x[128 + 64 + 7]] + [7.0] * 3
    assert got.tolist() == want and not run.memory.poisoned("UB", 1024, 32).any()
    # checked as exactly what it reads: whole datablocks with an active lane, so repeat 1 reads up to the end of
    # block 4 (lanes 64-79), x[208]: 208 halves hold it (repeat 1's fully masked blocks 5-7 do not fit: the
    # masked-datablock warning, no error); 207 do not. Checked as repeatTime=1 says, 128 halves would have passed.
    prog["tensors"]["x"]["size"] = 208
    del prog["tensors"]["x"]["data"]
    exact = check_program(parse_program(prog))
    assert exact.valid and "block_reduce_min.src.footprint.masked" in [w.id for w in exact.warnings]
    prog["tensors"]["x"]["size"] = 207
    assert "block_reduce_min.src.footprint" in [v.id for v in check_program(parse_program(prog)).violations]


def test_an_all_zero_mask_is_a_warning_at_the_setter_and_an_error_where_it_is_used():
    # the vendor's own test sets SetVectorMask(0, 0) on purpose ("when mask both 0, do not call api will not cause
    # error"): harmless while unused; an op that then uses it selects no element (HARDWARE_NOTES Masks: the two
    # words must not both be 0) -- except on atlas-a2/a3, where the ReduceDataBlock page makes it a no-op (and on
    # atlas-350, where the hardware notes ask for a warning)
    alone = check_program(parse_program(program(set_mask([0, 0]))))
    assert alone.valid and [(w.call, w.id) for w in alone.warnings] == [(0, "set_vector_mask.mask.words.nonzero")]
    used = check_program(parse_program(program(set_mask([0, 0]), brm(), product="atlas-training")))
    assert [(v.call, v.id) for v in used.violations] == [(1, "block_reduce_min.mask.words.nonzero")]
    noop = check_program(parse_program(program(set_mask([0, 0]), brm())))  # atlas-a2
    assert noop.valid and (1, "block_reduce_min.mask.zero") in [(w.call, w.id) for w in noop.warnings]


def test_program_input_errors_name_the_call_and_field():
    bad = program(set_mask([1, 0]), {"api": "block_reduce_min", "args": {**BRM_ARGS, "repeat": "x"},
                                     "tensors": {"dst": "z", "src": "x"}})
    try:
        parse_program(bad)
        raise AssertionError("accepted")
    except InputError as exc:
        assert exc.field == "calls[1].args.repeat"
    bad = program(brm())
    bad["calls"][0]["tensors"]["src"] = "xx"
    try:
        parse_program(bad)
        raise AssertionError("accepted")
    except InputError as exc:
        assert exc.field == "calls[0].tensors.src" and "did you mean 'x'" in exc.message
    for doc in ({"product": "atlas-a2", "calls": []}, {"product": "atlas-a2", "calls": [3]},
                {"calls": [brm()]}, {"product": "atlas-a2", "calls": [brm()], "tensorz": {}}):
        r = CliRunner().invoke(main, ["check", "-"], input=json.dumps(doc))
        assert r.exit_code == 2 and "Traceback" not in r.output, doc
    # a single case's key beside "calls": read as a program, which says where the key belongs (audit 22)
    with_api = {"api": "BlockReduceMin", "product": "atlas-a2", "calls": [{"api": "SetMaskNorm"}]}
    try:
        parse_program(with_api)
        raise AssertionError("accepted")
    except InputError as exc:
        assert exc.field == "api" and "read as a program, since it has \"calls\": 'api' belongs in each call" in \
            exc.message


def _refusal(doc):
    try:
        parse_program(doc)
    except InputError as exc:
        return exc.field, exc.message
    raise AssertionError("accepted")


def test_a_calls_misplaced_key_says_where_it_goes():
    """audit 23: a call's argument given beside "api" (not under "args") got no hint, though a single case's does."""
    call = brm()
    call["repeat"] = call["args"].pop("repeat")
    assert _refusal(program(call)) == ("calls[0].repeat", "unknown key 'repeat' ('repeat' is an argument of "
                                                          "BlockReduceMin: put it under args, as args.repeat)")
    call = brm()
    call["srcc"] = call["tensors"].pop("src")  # misspelt and misplaced: the closest of the call's keys and names
    assert _refusal(program(call)) == ("calls[0].srcc", "unknown key 'srcc' (did you mean tensors.src?)")
    call = brm()
    call["product"] = "atlas-a2"  # the program's key, not a call's
    assert _refusal(program(call))[1] == "unknown key 'product' ('product' is the program's: put it beside " \
                                         "\"calls\", once for every call)"
    call = brm()
    call["argz"] = {}
    assert _refusal(program(call))[1] == "unknown key 'argz' (did you mean 'args'?)"
    # audit 24: a nested "calls" got the program's-key hint, a single case's "expect" a fuzzy `args.repeat`
    call = brm()
    call["calls"] = []
    assert _refusal(program(call))[1] == ("unknown key 'calls' (a call is one API call: a program's calls are one "
                                          "list, at its top level)")
    call = brm()
    call["expect"] = {}
    assert _refusal(program(call))[1] == ("unknown key 'expect' ('expect' is a single case's key; a program's call "
                                          "takes api, args, tensors, dtype, name, comment)")


# -- generated programs --------------------------------------------------------------------------------------------

PRODUCT = "atlas-a2"


def _inline(case):
    doc = case.to_json()
    return {"api": doc["api"], "args": doc["args"], "tensors": doc["tensors"], "dtype": doc["dtype"]}


#: SetVectorMask in Normal mode: after a Counter-mode count the hardware runs the repeats the count needs, whatever
#: the op's repeatTime, so an op valid on its own may not be valid there (the Counter-mode tests above)
NORMAL_SETTERS = strategies.cases("SetVectorMask", product=PRODUCT, dtype="half").filter(
    lambda c: c.env["mode"] == 0)


class ProgramMachine(RuleBasedStateMachine):
    """Random legal calls appended one by one; after each step the program is checked and run.

    Expected verdict, reasoned independently of the checker: every call is a valid case on its own,
    so the program is refused exactly when a BlockReduceMin with isSetMask=false comes before any call that
    writes the mask register -- a SetVectorMask, a BlockReduceMin with isSetMask=true (its own mask stays there) or
    a BilinearInterpolation (on atlas-a2 it ends with ResetMask) -- and then only with the ordering rule, at that
    call.
    """

    @initialize()
    def start(self):
        self.calls = []
        self.mask_set = False
        self.expected = []  # (call index, rule id)

    @rule(case=NORMAL_SETTERS)
    def set_vector_mask(self, case):
        self.calls.append(_inline(case))
        self.mask_set = True

    @rule(case=strategies.cases("BlockReduceMin", product=PRODUCT, dtype="half"))
    def block_reduce_min(self, case):
        if not case.env["isSetMask"] and not self.mask_set:
            self.expected.append((len(self.calls), "block_reduce_min.order.vector_mask"))
        self.mask_set = self.mask_set or bool(case.env["isSetMask"])
        self.calls.append(_inline(case))

    @rule(case=strategies.cases("BilinearInterpolation", product=PRODUCT))
    def bilinear(self, case):
        self.calls.append(_inline(case))
        self.mask_set = True

    @invariant()
    def verdict_matches_the_ordering(self):
        if not self.calls:
            return
        prog = parse_program({"product": PRODUCT, "calls": self.calls})
        result = check_program(prog)
        assert [(v.call, v.id) for v in result.violations] == self.expected
        if not self.expected:
            run = run_program(prog, seed=len(self.calls), strict=False)
            assert not run.faults, [str(f) for f in run.faults[:3]]


ProgramMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=6, deadline=None,
                                            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestPrograms = ProgramMachine.TestCase


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(strategies.cases("BlockReduceMin", product=PRODUCT, dtype="half"), min_size=1, max_size=4),
       NORMAL_SETTERS)
def test_programs_missing_only_their_set_vector_mask_break_only_the_ordering_rule(ops, setter):
    """A legal program (SetVectorMask first) minus its SetVectorMask breaks exactly the ordering rule, at
    each call with isSetMask=false that no call with isSetMask=true comes before (on atlas-a2 such a call leaves
    its own mask in the register: spec note block_reduce_min.own-mask-register)."""
    legal = parse_program({"product": PRODUCT, "calls": [_inline(setter)] + [_inline(c) for c in ops]})
    assert check_program(legal).valid
    broken = check_program(parse_program({"product": PRODUCT, "calls": [_inline(c) for c in ops]}))
    first_own = next((i for i, c in enumerate(ops) if c.env["isSetMask"]), len(ops))
    expected = [(i, "block_reduce_min.order.vector_mask") for i, c in enumerate(ops)
                if not c.env["isSetMask"] and i < first_own]
    assert [(v.call, v.id) for v in broken.violations] == expected


# -- the img2col path on atlas-350: SetFmatrix, SetLoadDataRepeatWithStride, LoadDataWithStride ---------------------

CUBE = "atlas-350"
LOAD_ORDER = "load_data_with_stride.order.load_data_repeat"
LOAD_STATE_WARNINGS = ("load_data_with_stride.fmatrix.unset", "load_data_with_stride.fmatrix.differs",
                       "load_data_with_stride.fmatrix.reset", "load_data_with_stride.repeat.differs")
#: defaultConfig of a load that reads SetFmatrix's feature map (the vendor's LOAD3D_CONFIG after a SetFmatrix)
READ_SETFMATRIX = {"isSetFMatrix": False, "isSetPadding": False}


def _repeat_setter(case):
    """The SetLoadDataRepeatWithStride call that sets the load's own repeat (the struct's defaults when it gives none)."""
    return {"api": "SetLoadDataRepeatWithStride", "dtype": "uint64",
            "args": {k: int(case.env[f"repeat.{k}"]) for k in ("repeatStride", "repeatTime", "repeatMode", "dstStride")}}


def _fmatrix_setter(case):
    return {"api": "SetFmatrix", "dtype": case.dtype.name, "args": case.arg("fmatrix")}


def _load(case, own):
    """The load as a call; without ``own`` it leaves its feature map and repeat to the setters (defaultConfig
    {false, false}: it reads SetFmatrix's feature map, as the vendor's calls after a SetFmatrix do)."""
    call = _inline(case)
    if not own:
        call["args"].pop("repeat", None)
        if call["args"].pop("fmatrix", None) is not None:
            call["args"]["defaultConfig"] = READ_SETFMATRIX
    return call


def _sets_own_map(case, own) -> bool:
    """The load as `_load` writes it sets the feature map from its own parameters (defaultConfig.isSetFMatrix)."""
    return bool(case.env["defaultConfig.isSetFMatrix"]) and (own or not case.env["fmatrix.present"])


class LoadProgramMachine(RuleBasedStateMachine):
    """Random img2col programs on atlas-350, the only product of these three APIs (a program has one product, and
    the vector machine above runs on atlas-a2): setters
    with random values, and loads, each preceded by the setters of its own feature map and repeat (unless no repeat
    was ever set and the step chooses not to), so every call is valid given the state before it.

    Expected, reasoned from the steps alone: a load with no SetLoadDataRepeatWithStride anywhere before it breaks
    exactly the ordering rule, at its call; a load with no fmatrix of its own draws fmatrix.reset when it sets the
    feature map itself (defaultConfig.isSetFMatrix, the default: it would set l1H = 0) and fmatrix.unset when it
    reads SetFmatrix's and none came before; no other error, no fmatrix/repeat mismatch (a load keeps its own
    description only where it equals the state), and the program runs without a fault (no two repeats store to one
    byte).
    """

    @initialize()
    def start(self):
        self.calls, self.expected, self.expected_warnings = [], [], []
        self.repeat_set = self.fmatrix_set = False

    @rule(case=strategies.cases("SetFmatrix", product=CUBE, dtype="half"))
    def set_fmatrix(self, case):
        self.calls.append(_inline(case))
        self.fmatrix_set = True

    @rule(case=strategies.cases("SetLoadDataRepeatWithStride", product=CUBE))
    def set_repeat(self, case):
        self.calls.append(_inline(case))
        self.repeat_set = True

    @rule(case=strategies.cases("LoadDataWithStride", product=CUBE, dtype="half"), configure=st.booleans(),
          own=st.booleans())
    def load(self, case, configure, own):
        has_map = bool(case.env["fmatrix.present"])
        sets_own = _sets_own_map(case, own)
        if not has_map and self.fmatrix_set and not sets_own:
            return  # it would read the map an earlier SetFmatrix set, for which it was not drawn
        if has_map and not sets_own:
            self.calls.append(_fmatrix_setter(case))
            self.fmatrix_set = True
        if configure or self.repeat_set:
            self.calls.append(_repeat_setter(case))
            self.repeat_set = True
        else:
            self.expected.append((len(self.calls), LOAD_ORDER))
        if not has_map:
            self.expected_warnings.append((len(self.calls), "load_data_with_stride.fmatrix.reset" if sets_own
                                           else "load_data_with_stride.fmatrix.unset"))
        # a load that sets its own feature map leaves it in the register (or, with none, an unknown one)
        self.fmatrix_set = has_map if sets_own else self.fmatrix_set
        self.calls.append(_load(case, own))

    @invariant()
    def verdict_matches_the_state(self):
        if not self.calls:
            return
        prog = parse_program({"product": CUBE, "dtype": "half", "calls": self.calls})
        result = check_program(prog)
        assert [(v.call, v.id) for v in result.violations] == self.expected
        assert [(w.call, w.id) for w in result.warnings if w.id in LOAD_STATE_WARNINGS] == self.expected_warnings
        run = run_program(prog, seed=len(self.calls), strict=False)
        assert not run.faults, [str(f) for f in run.faults[:3]]


LoadProgramMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=8, deadline=None,
                                                suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.filter_too_much])
TestLoadPrograms = LoadProgramMachine.TestCase


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(strategies.cases("LoadDataWithStride", product=CUBE, dtype="half"), st.booleans())
def test_a_load_program_missing_its_repeat_setter_breaks_only_the_ordering_rule(case, own):
    """SetFmatrix (when the load has a map), SetLoadDataRepeatWithStride, LoadDataWithStride is valid; without the
    repeat setter it breaks exactly the ordering rule at the load (the load then runs with its own repeat, or the
    struct's defaults: one window, which fits wherever its repeats did)."""
    maps = [_fmatrix_setter(case)] if case.env["fmatrix.present"] and not _sets_own_map(case, own) else []
    legal = parse_program({"product": CUBE, "dtype": "half", "calls": maps + [_repeat_setter(case), _load(case, own)]})
    assert check_program(legal).valid
    broken = check_program(parse_program({"product": CUBE, "dtype": "half", "calls": maps + [_load(case, own)]}))
    assert [(v.call, v.id) for v in broken.violations] == [(len(maps), LOAD_ORDER)]


def test_an_in_place_call_on_a_shared_tensor_without_data_reads_generated_inputs():
    """The vendor's ReduceMax / ReduceSum (asc-devkit reduce_common_util_v220_impl.h GetReduceValOnRep,
    reduce_sum_v220_impl.h ReduceSumInLargeLast) call BlockReduce*(tmp, tmp, ...): dst and src one tensor. Without
    data the tensor's inputs are generated, as for any tensor a call reads (the core once loaded it through dst,
    as an output, and faulted on reading bytes nothing wrote)."""
    prog = {"product": "atlas-a2", "dtype": "float",
            "tensors": {"t": {"position": "VECCALC", "addr": 0, "size": 64}},
            "calls": [{"api": "BlockReduceSum",
                       "args": {"repeatTime": 1, "mask": 64, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
                       "tensors": {"dst": "t", "src": "t"}}]}
    parsed = parse_program(prog)
    assert check_program(parsed).valid
    run = run_program(parsed, seed=3)
    assert not run.faults
    first = run.runs[0]
    x = np.asarray(first.case.data("src"), dtype=np.float32)  # what the run generated for the read
    assert np.isfinite(x).all() and x.size == 64
    blocks = x.reshape(8, 8)
    # each datablock's sum as the hardware adds it: neighbours, then the pair sums, then the two halves (float32)
    pairs = blocks[:, 0::2] + blocks[:, 1::2]
    quads = pairs[:, 0::2] + pairs[:, 1::2]
    expected = quads[:, 0] + quads[:, 1]
    got = first.tensors["dst"]
    assert got[:8].view(np.uint32).tolist() == expected.view(np.uint32).tolist()
    assert got[8:].view(np.uint32).tolist() == x[8:].view(np.uint32).tolist()  # the rest is the input, untouched


def _count_mask_program(product, mask):
    return {"product": product, "dtype": "half",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128, "data": list(range(128))},
                        "z": {"position": "VECOUT", "addr": 512, "size": 16}},
            "calls": [set_mask([255, 0]),
                      {"api": "BlockReduceMax", "tensors": {"dst": "z", "src": "x"},
                       "args": {"repeatTime": 1, "mask": mask, "dstRepStride": 1, "srcBlkStride": 1,
                                "srcRepStride": 8, "isSetMask": False}}]}


def test_on_the_310b_a_count_mask_with_is_set_mask_false_is_the_argument():
    """asc-devkit's dav_m300 (atlas-200i-500-a2) implementation of the int32-mask prototype builds its lanes from
    the mask argument (plt(mask)) and never reads isSetMask; elsewhere the mask is SetVectorMask's. x[i] = i, so a
    block's maximum is its last active lane: with SetVectorMask([255, 0]) (lanes 0-7) block 0 gives 7; with the
    count 16 it gives 15."""
    for product, expected, warned in (("atlas-a2", 7.0, False), ("atlas-200i-500-a2", 15.0, True)):
        parsed = parse_program(_count_mask_program(product, 16))
        result = check_program(parsed)
        assert result.valid
        assert ("block_reduce_max.mask.count_argument" in [w.id for w in result.warnings]) == warned, product
        got = run_program(parsed).runs[1].tensors["dst"]
        assert float(got[0]) == expected, product
    # MASK_PLACEHOLDER is 0 there: no lane, nothing reduced; ascverify leaves the results unspecified
    parsed = parse_program(_count_mask_program("atlas-200i-500-a2", "MASK_PLACEHOLDER"))
    result = check_program(parsed)
    assert result.valid and "block_reduce_max.mask.count_argument" in [w.id for w in result.warnings]
    run = run_program(parsed)
    assert unspecified_elements(run.memory, "UB", 512, 16, get_dtype("half")).all()
    # the bitwise prototype reads the register there as everywhere: no warning
    bitwise = _count_mask_program("atlas-200i-500-a2", [255, 0])
    result = check_program(parse_program(bitwise))
    assert "block_reduce_max.mask.count_argument" not in [w.id for w in result.warnings]


def test_a_single_count_mask_call_with_is_set_mask_false_warns_per_product():
    """One call (no program): elsewhere the count 'has no effect' (mask.ignored); on atlas-200i-500-a2 it is the
    mask (mask.count_argument), not ignored."""
    prog = _count_mask_program("atlas-a2", 16)
    one = {"api": "BlockReduceMax", "dtype": "half", "args": prog["calls"][1]["args"],
           "tensors": {"dst": prog["tensors"]["z"], "src": prog["tensors"]["x"]}}
    warned = {p: [w.id for w in check_case(parse_case(one | {"product": p})).warnings]
              for p in ("atlas-a2", "atlas-200i-500-a2")}
    assert "block_reduce_max.mask.ignored" in warned["atlas-a2"]
    assert "block_reduce_max.mask.count_argument" not in warned["atlas-a2"]
    assert "block_reduce_max.mask.count_argument" in warned["atlas-200i-500-a2"]
    assert "block_reduce_max.mask.ignored" not in warned["atlas-200i-500-a2"]


@pytest.mark.parametrize("product,mask,sets", [("atlas-a2", [255, 0], True), ("atlas-a2", 8, True),
                                               ("atlas-350", [255, 0], True), ("atlas-350", 8, False),
                                               ("atlas-200i-500-a2", [255, 0], True),
                                               ("atlas-200i-500-a2", 8, False)])
def test_a_call_s_own_mask_stays_in_the_register_where_the_vendor_writes_it(product, mask, sets):
    """The vendor's BlockReduce implementations write an own mask (isSetMask=true) to the mask register before the
    instruction -- both forms on dav_c220 (AscendCUtils::SetMask), the array form only on dav_3510 and dav_m300,
    whose contiguous form passes the count to the instruction -- so a later isSetMask=false call has a mask exactly
    where the register was written (spec note block_reduce_min.own-mask-register)."""
    doc = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    own = copy.deepcopy(doc["calls"][1])
    own["args"].update(mask=mask, is_set_mask=True)
    doc["product"], doc["calls"] = product, [own, doc["calls"][1]]
    found = [(v.call, v.id) for v in check_program(parse_program(doc)).violations]
    assert ((1, "block_reduce_min.order.vector_mask") in found) == (not sets), found
