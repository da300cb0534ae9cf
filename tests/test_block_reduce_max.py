"""BlockReduceMax: the pyasc page's calls, per-product fills, NaN and zeros, the vendor example's formula; and the
family's claim that Max and Sum share BlockReduceMin's rules (same verdicts, messages aside from the prefix)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import InputError, check_case, get_api, parse_case
from ascverify.core.memory import INITIALIZED, POISON
from ascverify.core.run import run_case
from ascverify.core.unspecified import unspecified_elements
from ascverify.spec.products import PRODUCT_IDS

API = "BlockReduceMax"
MODEL = get_api(API)
P = MODEL.prefix
U64 = 2**64 - 1
FAMILY = ("BlockReduceMax", "BlockReduceSum")


def dst_unspecified(ran) -> np.ndarray:
    """Per element of the run's dst: the core left it unspecified."""
    dst = ran.case.tensor("dst")
    return unspecified_elements(ran.memory, dst.buffer, dst.addr, dst.size, ran.case.dtype)


def call(product="atlas-a2", dtype="half", *, api=API, repeat=1, mask=128, dst_rep=8, src_blk=1, src_rep=8,
         is_set_mask=None, dst=("VECOUT", 256, 16), src=("VECIN", 0, 128), dst_data=None, src_data=None,
         pyasc=False) -> dict:
    """A case dict (the pyasc page's call shape by default: z_local = dst, x_local = src)."""
    names = (("repeat", "dst_rep_stride", "src_blk_stride", "src_rep_stride", "is_set_mask") if pyasc else
             ("repeatTime", "dstRepStride", "srcBlkStride", "srcRepStride", "isSetMask"))
    args = {names[0]: repeat, "mask": mask, names[1]: dst_rep, names[2]: src_blk, names[3]: src_rep}
    if is_set_mask is not None:
        args[names[4]] = is_set_mask
    tensors = {"dst": {"position": dst[0], "addr": dst[1], "size": dst[2]},
               "src": {"position": src[0], "addr": src[1], "size": src[2]}}
    if dst_data is not None:
        tensors["dst"]["data"] = [float(x) for x in dst_data]
    if src_data is not None:
        tensors["src"]["data"] = [float(x) for x in src_data]
    return {"api": api, "product": product, "dtype": dtype, "args": args, "tensors": tensors}


def violations(d) -> list[str]:
    return sorted(v.id for v in check_case(parse_case(d) if isinstance(d, dict) else d).violations)


def planted_src(n_blocks: int = 8, per_block: int = 16) -> np.ndarray:
    """Block b holds -100 - lane, except ONE planted maximum (b+1)*1.5 at lane (5b+3) % per_block."""
    src = np.array([-100.0 - (i % per_block) for i in range(n_blocks * per_block)])
    for b in range(n_blocks):
        src[per_block * b + (5 * b + 3) % per_block] = (b + 1) * 1.5
    return src


#: The maxima of planted_src's 8 blocks, stated independently of the data's construction.
PAGE_MAXIMA = [1.5, 3.0, 4.5, 6.0, 7.5, 9.0, 10.5, 12.0]
OLD = 7.0  # every dst element's value before the call


# ------------------------------------------------------------------------------------------------- the page's calls
@pytest.mark.parametrize("product", ["atlas-a2", "atlas-350", "atlas-training"])
@pytest.mark.parametrize("mask", [128, [U64, U64]], ids=["contiguous", "bitwise"])
@pytest.mark.parametrize("pyasc", [True, False], ids=["pyasc", "ascendc"])
def test_page_calls(product, mask, pyasc):
    # asc.block_reduce_max(z_local, x_local, repeat=1, mask=..., dst_rep_stride=8, src_blk_stride=1, src_rep_stride=8)
    case = parse_case(call(product, mask=mask, pyasc=pyasc, api="block_reduce_max" if pyasc else API,
                           src_data=planted_src(), dst_data=[OLD] * 16))
    result = check_case(case)
    assert result.valid and not result.warnings and not result.unchecked, result.to_json()
    res = run_case(case)
    assert not res.faults
    assert res.tensors["dst"][:8].tolist() == PAGE_MAXIMA
    assert res.tensors["dst"][8:].tolist() == [OLD] * 8  # one repeat writes 8 results, nothing more
    assert MODEL.footprint(case) == {"dst": [("UB", 256, 272)]}


# ------------------------------------------------------------------------------------ masks, partial and full
# Contiguous mask 20 on half: block 0 = lanes 0..15 all active; block 1 = lanes 16..31, of which 16..19 (its lanes
# 0..3) are active; blocks 2..7 are fully off. Block 0's planted 1.5 sits at lane 3 (active) -> 1.5. Block 1's planted
# 3.0 sits at its lane 8, masked off; its active lanes hold -100, -101, -102, -103 -> -100.
PARTIAL_HEAD = [1.5, -100.0]
FULLY_MASKED_HALF = {
    "atlas-a2": OLD, "atlas-a3": OLD,          # dst untouched (ReduceDataBlock page)
    "atlas-200i-500-a2": -65504.0,             # half: the most negative finite value (page, and the pre-rename page)
    "atlas-350": -math.inf,                    # -inf for half too (page, C API page)
}


@pytest.mark.parametrize("product", ["atlas-a2", "atlas-a3", "atlas-200i-500-a2", "atlas-350",
                                     "atlas-inference-aicore", "atlas-training"])
def test_partially_and_fully_masked_blocks_half(product):
    case = parse_case(call(product, mask=20, src_data=planted_src(), dst_data=[OLD] * 16))
    assert check_case(case).valid
    res = run_case(case)
    dst = res.tensors["dst"]
    assert dst[:2].tolist() == PARTIAL_HEAD
    state = res.memory.state["UB"][256:256 + 32]
    if product in FULLY_MASKED_HALF:
        assert dst[2:8].tolist() == [FULLY_MASKED_HALF[product]] * 6
        assert (state == INITIALIZED).all()
        assert res.trace.stored("UB")[256 + 4:256 + 16].all() == (product not in ("atlas-a2", "atlas-a3"))
    else:  # not documented: unspecified, never a number
        assert (state[4:16] == POISON).all() and (state[:4] == INITIALIZED).all()


@pytest.mark.parametrize("product, expected", [("atlas-200i-500-a2", -math.inf), ("atlas-350", -math.inf),
                                               ("atlas-a2", OLD)])
def test_fully_masked_blocks_float(product, expected):
    # float: 64 lanes, 8 per block. mask = [0xFFFF] (one word for 32-bit T) -> lanes 0..15 = blocks 0 and 1.
    src = planted_src(8, 8)  # block b's maximum (b+1)*1.5 at lane (5b+3) % 8
    case = parse_case(call(product, "float", mask=[0xFFFF], src=("VECIN", 0, 64), dst=("VECOUT", 256, 8),
                           src_data=src, dst_data=[OLD] * 8))
    assert check_case(case).valid
    dst = run_case(case).tensors["dst"]
    assert dst[:2].tolist() == [1.5, 3.0]
    assert dst[2:].tolist() == [expected] * 6


def test_nan_and_signed_zero():
    src = planted_src()
    src[0 * 16 + 7] = np.nan                       # block 0: NaN among active lanes
    src[1 * 16:2 * 16] = -5.0
    src[1 * 16 + 2], src[1 * 16 + 9] = -0.0, 0.0   # block 1: -0 before +0, maximum zero
    src[2 * 16 + 4] = np.nan                       # block 2: NaN on a lane the mask turns off
    words = [U64 & ~(1 << (2 * 16 + 4)), U64]      # every lane but lane 36
    for product in ("atlas-350", "atlas-inference-aicore"):
        case = parse_case(call(product, mask=words, dst_data=[OLD] * 16))
        case.set_data("src", src)
        assert check_case(case).valid
        res = run_case(case)
        dst = res.tensors["dst"]
        assert dst[1] == 0 and not np.signbit(dst[1])  # max(-0, +0) = +0
        assert dst[2] == 4.5  # the masked-off NaN does not count
        if product == "atlas-350":
            assert np.isnan(dst[0])
        else:  # NaN handling is documented for atlas-350 only
            assert (res.memory.state["UB"][256:258] == POISON).all()


#: Rows of the vendor's boundary-values appendix (asc-devkit docs/zh/api/附录/Memory矢量计算接口边界值汇总.md, Atlas A2 /
#: A3), Tables 33 (MAX) and 34 (MIN), float, INF/NAN mode (float's only one: "float数据类型输入仅支持INF/NAN模式"):
#: one datablock of 8 floats -> (MAX, MIN).
APPENDIX_FLOAT_ROWS = {
    "all nan": ([np.nan] * 8, (np.nan, np.nan)),
    "inf, -inf, nan alternating": ([np.inf, -np.inf, np.nan] * 2 + [np.inf, -np.inf], (np.nan, np.nan)),
    "inf, nan alternating": ([np.inf, np.nan] * 4, (np.nan, np.nan)),
    "-inf, nan alternating": ([-np.inf, np.nan] * 4, (np.nan, np.nan)),
    "7 x 1.0 and a nan": ([1.0] * 7 + [np.nan], (np.nan, np.nan)),
    "inf, -inf alternating": ([np.inf, -np.inf] * 4, (np.inf, -np.inf)),
    "7 x 1.0 and an inf": ([1.0] * 7 + [np.inf], (np.inf, 1.0)),
    "7 x 1.0 and a -inf": ([1.0] * 7 + [-np.inf], (1.0, -np.inf)),
}


@pytest.mark.parametrize("row", APPENDIX_FLOAT_ROWS, ids=str)
@pytest.mark.parametrize("product", ["atlas-a2", "atlas-a3"])
def test_the_boundary_values_appendix_float_rows(product, row):
    """Each row's block in all 8 datablocks of one repeat (mask: every lane): every result is the table's value,
    NaN included (NaN is not left unspecified for float there); for half a NaN stays unspecified (its saturation
    mode gives 0)."""
    block, expected = APPENDIX_FLOAT_ROWS[row]
    for api, want in zip(("BlockReduceMax", "BlockReduceMin"), expected):
        d = call(product, "float", api=api, mask=64, dst=("VECOUT", 256, 8), src=("VECIN", 0, 64))
        case = parse_case(d)
        case.set_data("src", np.array(block * 8, dtype=np.float32))
        assert check_case(case).valid
        res = run_case(case)
        got = res.tensors["dst"]
        assert (res.memory.state["UB"][256:256 + 32] == INITIALIZED).all(), (api, row)
        assert np.array_equal(got, np.full(8, want, dtype=np.float32), equal_nan=True), (api, row, got)
    half = parse_case(call(product, "half", dst=("VECOUT", 256, 8)))
    half.set_data("src", np.array([1.0] * 15 + [np.nan] + [1.0] * 112, dtype=np.float16))
    res = run_case(half)
    assert (res.memory.state["UB"][256:258] == POISON).all() and not (res.memory.state["UB"][258:272] == POISON).any()


def test_all_active_minus_inf_beside_masked_lanes():
    # block 0: lanes 0..3 active (mask 4), all -inf. atlas-350 counts masked lanes as -inf: -inf. On
    # atlas-200i-500-a2 a fully masked half block gives -65504, so masked lanes might count as -65504: open.
    src = planted_src()
    src[:16] = -np.inf
    for product, want in (("atlas-350", -math.inf), ("atlas-200i-500-a2", None), ("atlas-a2", -math.inf)):
        case = parse_case(call(product, mask=4, src_data=src, dst_data=[OLD] * 16))
        res = run_case(case)
        if want is None:
            assert (res.memory.state["UB"][256:258] == POISON).all()
        else:
            assert res.tensors["dst"][0] == want
    # float on atlas-200i-500-a2: the fill is -inf itself, nothing is open
    fsrc = planted_src(8, 8)
    fsrc[:8] = -np.inf
    case = parse_case(call("atlas-200i-500-a2", "float", mask=4, src=("VECIN", 0, 64), dst=("VECOUT", 256, 8),
                           src_data=fsrc))
    assert run_case(case).tensors["dst"][0] == -math.inf


def test_unknown_mask_results_are_poison():
    case = parse_case(call("atlas-a2", mask="MASK_PLACEHOLDER", is_set_mask=False, src_data=planted_src()))
    res = run_case(case)
    assert (res.memory.state["UB"][256:272] == POISON).all()


def test_a_program_uses_the_mask_set_before():
    from ascverify.cases.program import parse_program
    from ascverify.core.program import run_program
    doc = {"product": "atlas-a2", "dtype": "half",
           "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128, "data": planted_src().tolist()},
                       "z": {"position": "VECOUT", "addr": 512, "size": 16, "data": [OLD] * 16}},
           "calls": [{"api": "set_vector_mask", "args": {"mask": [0xFFFF, 0]}},
                     {"api": "block_reduce_max", "args": {"repeat": 1, "mask": "MASK_PLACEHOLDER", "dst_rep_stride": 1,
                                                          "src_blk_stride": 1, "src_rep_stride": 8,
                                                          "is_set_mask": False},
                      "tensors": {"dst": "z", "src": "x"}}]}
    out = run_program(parse_program(doc)).runs[-1].tensors["dst"]
    assert out[:1].tolist() == [1.5] and out[1:8].tolist() == [OLD] * 7  # only block 0 active; a2 keeps the rest


# ------------------------------------------------------------------------------------------ the vendor's example
def test_vendor_example_scenario_1_matches_the_vendors_formula():
    # asc-devkit examples/.../reduce_data_block: ReduceDataBlock<MAX, half>(dst, src, mask 128, repeat 2, 1, 1, 8);
    # gen_data.py draws np.random.seed(9); uniform(-10, 10, 256) as float16 and takes np.max of every 16-half block.
    np.random.seed(9)
    x = np.random.uniform(-10, 10, 256).astype(np.float16)
    vendor = np.array([np.max(x[16 * i:16 * i + 16]) for i in range(16)], dtype=np.float16)
    for product in ("atlas-a2", "atlas-a3", "atlas-350"):
        case = parse_case(call(product, repeat=2, dst_rep=1, src_rep=8, dst=("VECOUT", 512, 16),
                               src=("VECIN", 0, 256), src_data=x, dst_data=[0] * 16))
        assert check_case(case).valid
        got = run_case(case).tensors["dst"]
        assert got.view(np.uint16).tolist() == vendor.view(np.uint16).tolist()


# ------------------------------------------------------------------------------------------ names and spellings
def test_aliases_and_spellings():
    ref = parse_case(call(is_set_mask=True))
    for api in ("block_reduce_max", "asc.language.basic.block_reduce_max", "BlockReduceMax"):
        c = parse_case(call(api=api, pyasc=True, is_set_mask=True))
        assert c.model is MODEL and c.env == ref.env
    d = call(pyasc=True)
    d["args"]["repeat_time"] = d["args"].pop("repeat")  # pyasc's docstring parameter list
    assert parse_case(d).env == parse_case(call()).env
    d["args"]["repeatTime"] = 1
    with pytest.raises(InputError):
        parse_case(d)


# ------------------------------------------------------------------------------- the family's rules are Min's
def _renamed(ids, prefix):
    return sorted(i.replace(prefix + ".", "block_reduce_min.", 1) for i in ids)


@pytest.mark.parametrize("api", FAMILY)
def test_the_rules_are_block_reduce_mins(api):
    model, base = get_api(api), get_api("BlockReduceMin")
    assert [r.id.split(".", 1)[1] for r in model.rules] == [r.id.split(".", 1)[1] for r in base.rules]
    for r, m in zip(model.rules, base.rules):
        assert (r.severity, r.products, r.params) == (m.severity, m.products, m.params), r.id
    assert model.support == base.support
    assert {k.replace(model.prefix, "block_reduce_min") for k in model.lint_expected} == set(base.lint_expected)


@st.composite
def wild_calls(draw):
    """Any readable case: legal values mixed with out-of-range, misplaced and unsupported ones."""
    def num(lo, hi):
        return draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo - 1, hi + 1, -2**31, 2**31 - 1, 2**31])))

    product = draw(st.sampled_from(PRODUCT_IDS))
    dtype = draw(st.sampled_from(["half", "float"]))
    mask = draw(st.one_of(st.integers(-1, 130), st.lists(st.integers(0, U64), max_size=3),
                          st.just("MASK_PLACEHOLDER")))
    pos = st.sampled_from(["VECIN", "VECCALC", "VECOUT", "VECCALC", "A1"])
    src_addr = draw(st.one_of(st.integers(0, 40).map(lambda k: 32 * k), st.integers(0, 2**20)))
    dst_addr = draw(st.one_of(st.integers(-600, 600).map(lambda d: max(0, src_addr + 16 * d)), st.integers(0, 2**20)))
    return call(product, dtype, repeat=num(0, 12), mask=mask, dst_rep=num(0, 6), src_blk=num(0, 4),
                src_rep=num(0, 12), is_set_mask=draw(st.sampled_from([None, True, False])),
                dst=(draw(pos), dst_addr, draw(st.integers(0, 900))), src=(draw(pos), src_addr, draw(st.integers(0, 1200))))


@given(wild_calls(), st.sampled_from(FAMILY))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_same_verdicts_as_block_reduce_min(d, api):
    prefix = get_api(api).prefix
    ours = check_case(parse_case({**d, "api": api}))
    mins = check_case(parse_case({**d, "api": "BlockReduceMin"}))
    assert _renamed([v.id for v in ours.violations], prefix) == sorted(v.id for v in mins.violations)
    assert _renamed([v.id for v in ours.warnings], prefix) == sorted(v.id for v in mins.warnings)
    assert _renamed([u.rule_id for u in ours.unchecked], prefix) == sorted(u.rule_id for u in mins.unchecked)
    assert [v.message.replace(api, "BlockReduceMin") for v in ours.violations] == [v.message for v in mins.violations]


@pytest.mark.parametrize("api", FAMILY)
def test_family_rules_on_examples(api):
    p = get_api(api).prefix
    assert violations(call(api=api, repeat=256)) == [f"{p}.repeatTime.range"]
    assert violations(call(api=api, mask=129)) == [f"{p}.mask.count.range"]
    assert violations(call("atlas-training", api=api, dst_rep=0)) == [f"{p}.dstRepStride.nonzero"]
    assert violations(call("atlas-training", "float", api=api, mask=64, src=("VECIN", 0, 64))) == [f"{p}.dtype.support"]
    assert violations(call("atlas-inference-vectorcore", api=api)) == [f"{p}.product.support"]
    # dst alignment: 16 bytes for half, 32 for float (the page's, not UB's 32)
    assert violations(call(api=api, mask=64, dst=("VECOUT", 272, 8))) == []
    assert violations(call(api=api, mask=64, dst=("VECOUT", 264, 8))) == [f"{p}.dst.align"]
    assert violations(call(api=api, dtype="float", mask=64, src=("VECIN", 0, 64), dst=("VECOUT", 272, 8))) == \
        [f"{p}.dst.align"]
    # footprints: 2 repeats read blocks up to (1*8 + 7)*32 + 32 = 512 bytes and write up to element 72
    assert violations(call(api=api, repeat=2, src=("VECIN", 0, 255), dst=("VECOUT", 512, 72))) == [f"{p}.src.footprint"]
    assert violations(call(api=api, repeat=2, src=("VECIN", 0, 256), dst=("VECOUT", 512, 71))) == [f"{p}.dst.footprint"]
    # in place: dst at src + 256 lands on repeat 1's source before it is read: a warning, and the core leaves
    # repeat 1's result of block 0 (the block holding bytes 256..271) unspecified, not a fault
    late = parse_case(call(api=api, repeat=2, dst_rep=1, src=("VECCALC", 0, 256), dst=("VECCALC", 256, 16)))
    assert violations(late) == [] and f"{p}.dst.src.in_place" in [w.id for w in check_case(late).warnings]
    ran = run_case(late, strict=False)
    assert not ran.faults and dst_unspecified(ran).nonzero()[0].tolist() == [8]
    same = parse_case(call(api=api, repeat=2, dst_rep=1, src=("VECCALC", 0, 256), dst=("VECCALC", 0, 16)))
    assert violations(same) == [] and not run_case(same, strict=False).faults
    # the placeholder goes with isSetMask=false only; with false any other mask has no effect (a warning; the
    # vendor's 910B1 test passes 64 there, and a value out of range is not checked either)
    assert violations(call(api=api, mask="MASK_PLACEHOLDER")) == [f"{p}.mask.placeholder"]
    for mask in (128, 500, 0):
        ignored = check_case(parse_case(call(api=api, mask=mask, is_set_mask=False)))
        assert ignored.valid and [w.id for w in ignored.warnings] == [f"{p}.mask.ignored"], mask
    ok = check_case(parse_case(call(api=api, mask="MASK_PLACEHOLDER", is_set_mask=False)))
    in_force = {r.id for r in get_api(api).rules_for("atlas-a2")}
    assert ok.valid and {u.rule_id for u in ok.unchecked} == \
        {*(r for r in get_api(api).MASK_RULES if r in in_force), f"{p}.order.vector_mask"}
    # mask 0: a no-op on atlas-a2/a3 (the ReduceDataBlock page), a warning, and on atlas-350 (HARDWARE_NOTES: warn);
    # the mask range [1, 128] elsewhere
    for mask in (0, [0, 0]):
        on_a2 = check_case(parse_case(call(api=api, mask=mask)))
        assert on_a2.valid and [w.id for w in on_a2.warnings] == [f"{p}.mask.zero"], mask
        on_350 = check_case(parse_case(call("atlas-350", api=api, mask=mask)))
        assert on_350.valid and [w.id for w in on_350.warnings] == [f"{p}.noop"], mask
        assert violations(call("atlas-training", api=api, mask=mask)) == \
            [f"{p}.mask.count.range" if mask == 0 else f"{p}.mask.words.nonzero"]
    # repeat 0: nothing happens; a warning either way (atlas-350: not a guaranteed no-op; atlas-a2: a no-op)
    for product in ("atlas-a2", "atlas-350"):
        zero = parse_case(call(product, api=api, repeat=0, src=("VECIN", 0, 0), dst=("VECOUT", 256, 0)))
        r = check_case(zero)
        assert r.valid and [w.id for w in r.warnings] == \
            ([f"{p}.noop"] if product == "atlas-350" else [f"{p}.repeatTime.zero"])
        assert not run_case(zero).trace.records


@pytest.mark.parametrize("api", FAMILY)
def test_dst_rep_stride_zero_keeps_the_last_repeat(api):
    # three repeats on the same 8 results; block b of repeat r holds r+1 at every lane: max = r+1, and a float sum
    # of 8 copies of 3 is 24 (exact)
    src = np.repeat(np.arange(1, 4, dtype=np.float64), 64)
    case = parse_case(call(api=api, dtype="float", repeat=3, mask=64, dst_rep=0, src=("VECIN", 0, 192),
                           dst=("VECOUT", 1024, 8), src_data=src))
    assert check_case(case).valid
    got = run_case(case).tensors["dst"].tolist()
    assert got == ([3.0] * 8 if api == "BlockReduceMax" else [24.0] * 8)


def test_a_bitwise_mask_of_the_wrong_length_says_what_the_type_needs():
    """16-bit T: the two words of uint64_t mask[2] (128 lanes); 32-bit: one word, or two with mask[1] unread."""
    half = check_case(parse_case(call("atlas-a2", "half", mask=[255])))
    assert [v.message for v in half.violations if v.id == f"{P}.mask.words.count"] == \
        ["bitwise mask has 1 word(s); T=half needs 2"]
    wide = check_case(parse_case(call("atlas-a2", "float", mask=[255, 0, 0], dst=("VECOUT", 256, 8),
                                      src=("VECIN", 0, 64))))
    assert [v.message for v in wide.violations if v.id == f"{P}.mask.words.count"] == \
        ["bitwise mask has 3 word(s); T=float needs 1 or 2"]
