"""BlockReduceMin: the page's calls, product-specific results, rules against the core, and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import z3
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import InputError, check_case, check_cases, get_api, parse_case
from ascverify.core.memory import INITIALIZED, POISON, Fault, Trace
from ascverify.core.run import run_case
from ascverify.core.unspecified import unspecified_elements
from ascverify.models.vector_common import lane_mask
from ascverify.spec.products import PRODUCT_IDS
from ascverify.spec.rules import Values

API = "BlockReduceMin"
MODEL = get_api(API)
P = MODEL.prefix
IN_PLACE = f"{P}.dst.src.in_place"
U64 = 2**64 - 1
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SPELLINGS = {
    "ascendc": {"repeat": "repeatTime", "dst_rep": "dstRepStride", "src_blk": "srcBlkStride",
                "src_rep": "srcRepStride", "is_set_mask": "isSetMask"},
    "pyasc": {"repeat": "repeat", "dst_rep": "dst_rep_stride", "src_blk": "src_blk_stride",
              "src_rep": "src_rep_stride", "is_set_mask": "is_set_mask"},
}


def dst_unspecified(ran) -> np.ndarray:
    """Per element of the run's dst: the core left it unspecified."""
    dst = ran.case.tensor("dst")
    return unspecified_elements(ran.memory, dst.buffer, dst.addr, dst.size, ran.case.dtype)


def call(product="atlas-a2", dtype="half", *, repeat=1, mask=128, dst_rep=8, src_blk=1, src_rep=8,
         is_set_mask=None, dst=("VECOUT", 256, 16), src=("VECIN", 0, 128), dst_data=None, src_data=None,
         spelling="ascendc", api=API, src_dtype=None) -> dict:
    """A case dict (the page's call shape by default: z_local = dst, x_local = src)."""
    n = SPELLINGS[spelling]
    args = {n["repeat"]: repeat, "mask": mask, n["dst_rep"]: dst_rep, n["src_blk"]: src_blk, n["src_rep"]: src_rep}
    if is_set_mask is not None:
        args[n["is_set_mask"]] = is_set_mask
    tensors = {"dst": {"position": dst[0], "addr": dst[1], "size": dst[2]},
               "src": {"position": src[0], "addr": src[1], "size": src[2]}}
    if dst_data is not None:
        tensors["dst"]["data"] = [float(x) for x in dst_data]
    if src_data is not None:
        tensors["src"]["data"] = [float(x) for x in src_data]
    if src_dtype is not None:
        tensors["src"]["dtype"] = src_dtype
    return {"api": api, "product": product, "dtype": dtype, "args": args, "tensors": tensors}


def violations(case) -> list[str]:
    return sorted(v.id for v in check_case(case).violations)


def warnings_of(case) -> list[str]:
    return sorted(v.id for v in check_case(case).warnings)


def planted_src(n_blocks: int = 8, per_block: int = 16) -> np.ndarray:
    """Block b holds 100 + lane, except ONE planted minimum -(b+1)*1.5 at lane (5b+3) % per_block."""
    src = np.array([100.0 + (i % per_block) for i in range(n_blocks * per_block)])
    for b in range(n_blocks):
        src[per_block * b + (5 * b + 3) % per_block] = -(b + 1) * 1.5
    return src


#: The minima of planted_src's 8 blocks, stated independently of the data's construction.
PAGE_MINIMA = [-1.5, -3.0, -4.5, -6.0, -7.5, -9.0, -10.5, -12.0]
OLD = 7.0  # every dst element's value before the call


# ------------------------------------------------------------------------------------- the page's calls
@pytest.mark.parametrize("product", ["atlas-a2", "atlas-350"])
@pytest.mark.parametrize("mask", [128, [U64, U64]], ids=["contiguous", "bitwise"])
@pytest.mark.parametrize("spelling", ["pyasc", "ascendc"])
def test_page_calls(product, mask, spelling):
    # asc.block_reduce_min(z_local, x_local, repeat=1, mask=..., dst_rep_stride=8, src_blk_stride=1, src_rep_stride=8)
    case = parse_case(call(product, mask=mask, spelling=spelling, src_data=planted_src(), dst_data=[OLD] * 16))
    result = check_case(case)
    assert result.valid and not result.warnings and not result.unchecked, result.to_json()
    res = run_case(case)
    assert not res.faults
    dst = res.tensors["dst"]
    assert dst[:8].tolist() == PAGE_MINIMA
    assert dst[8:].tolist() == [OLD] * 8  # one repeat writes 8 results, nothing more
    assert MODEL.footprint(case) == {"dst": [("UB", 256, 272)]}


# ---------------------------------------------------------------------------- masks, partial and full
# Contiguous mask 20 on half: lanes 0..19 of the repeat's 128 are active. Block 0 = lanes 0..15 (all 16
# active); block 1 = lanes 16..31, of which only 16..19 (4 lanes) are active; blocks 2..7 are fully off.
# planted_src: block 0's minimum -1.5 sits at lane 3 (active) -> -1.5. Block 1's planted -3.0 sits at its
# lane 8 = repeat lane 24, masked off; its active lanes hold 100, 101, 102, 103 -> 100.
PARTIAL_HEAD = [-1.5, 100.0]
FULLY_MASKED = {
    "atlas-a2": OLD, "atlas-a3": OLD,          # dst untouched
    "atlas-200i-500-a2": 65504.0,              # half: the largest finite value
    "atlas-350": math.inf,
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
    if product in FULLY_MASKED:
        assert dst[2:8].tolist() == [FULLY_MASKED[product]] * 6
        assert (state == INITIALIZED).all()
        assert res.trace.stored("UB")[256 + 4:256 + 16].all() == (product not in ("atlas-a2", "atlas-a3"))
    else:
        # unspecified: the core stores poison, and a later read of such an element faults "poison"
        assert (state[4:16] == POISON).all() and (state[:4] == INITIALIZED).all()
        later = Trace(res.memory)
        later.read("UB", [256], 4)  # the two defined results read fine
        with pytest.raises(Fault) as err:
            later.read("UB", [256 + 2 * 2], 2, what="dst[2]")
        assert err.value.kind == "poison"


@pytest.mark.parametrize("product, expected", [("atlas-200i-500-a2", math.inf), ("atlas-350", math.inf),
                                               ("atlas-a2", OLD)])
def test_fully_masked_blocks_float(product, expected):
    # float: 64 lanes, 8 per block. mask = [0xFFFF] (one word for 32-bit T) -> lanes 0..15 = blocks 0 and 1.
    src = planted_src(8, 8)  # block b's minimum -(b+1)*1.5 at lane (5b+3) % 8
    case = parse_case(call(product, "float", mask=[0xFFFF], src=("VECIN", 0, 64), dst=("VECOUT", 256, 8),
                           src_data=src, dst_data=[OLD] * 8))
    assert check_case(case).valid
    dst = run_case(case).tensors["dst"]
    assert dst[:2].tolist() == [-1.5, -3.0]
    assert dst[2:].tolist() == [expected] * 6


def test_nan_and_signed_zero():
    src = planted_src()
    src[0 * 16 + 7] = np.nan                   # block 0: NaN among active lanes
    src[1 * 16:2 * 16] = 5.0
    src[1 * 16 + 2], src[1 * 16 + 9] = 0.0, -0.0  # block 1: +0 before -0, minimum zero
    src[2 * 16 + 4] = np.nan                   # block 2: NaN on a lane the mask turns off
    words = [U64 & ~(1 << (2 * 16 + 4)), U64]  # every lane but lane 36
    base = call("atlas-350", mask=words, dst_data=[OLD] * 16)
    for product in ("atlas-350", "atlas-inference-aicore"):
        case = parse_case({**base, "product": product})
        case.set_data("src", src)
        assert check_case(case).valid
        res = run_case(case)
        dst = res.tensors["dst"]
        assert dst[1] == 0 and np.signbit(dst[1])  # min(+0, -0) = -0
        assert dst[2] == -4.5  # the masked-off NaN does not count
        if product == "atlas-350":
            assert np.isnan(dst[0])
        else:  # NaN handling is documented for atlas-350 only
            assert (res.memory.state["UB"][256:258] == POISON).all()


def test_unknown_mask_results_are_poison():
    case = parse_case(call("atlas-a2", mask="MASK_PLACEHOLDER", is_set_mask=False, src_data=planted_src()))
    res = run_case(case)
    assert (res.memory.state["UB"][256:272] == POISON).all()


# ------------------------------------------------------------------------------------------ single rules
def test_repeat_zero_is_a_noop_and_warns():
    for product in ("atlas-a2", "atlas-350"):
        case = parse_case(call(product, repeat=0, src=("VECIN", 0, 0), dst=("VECOUT", 256, 0)))
        assert check_case(case).valid  # footprints are empty: zero-sized tensors are fine
        # atlas-350: not a guaranteed no-op; atlas-a2: a documented one, which a warning still points out
        assert warnings_of(case) == ([f"{P}.noop"] if product == "atlas-350" else [f"{P}.repeatTime.zero"])
        res = run_case(case)
        assert not res.trace.records and not res.faults
        assert MODEL.footprint(case) == {"dst": []}
    # a mask of 0 on atlas-350: "a no-op is not guaranteed (a spec note: warn)" (HARDWARE_NOTES): every datablock is
    # fully masked and gets +inf; the hardware notes' mask range (the two words not both 0) stands elsewhere
    zero = parse_case(call("atlas-350", mask=[0, 0]))
    assert violations(zero) == [] and warnings_of(zero) == [f"{P}.noop"]
    assert np.isposinf(run_case(zero).tensors["dst"][:8]).all()
    assert violations(parse_case(call("atlas-training", mask=0))) == [f"{P}.mask.count.range"]
    # repeatTime 0: a NOP by the vendor's checks on every product
    case = parse_case(call("atlas-training", repeat=0, src=("VECIN", 0, 0), dst=("VECOUT", 256, 0)))
    assert warnings_of(case) == [f"{P}.repeatTime.zero"]


@pytest.mark.parametrize("mask", [0, [0, 0]], ids=["contiguous", "bitwise"])
def test_a_mask_of_zero_is_held_to_what_the_call_reads_and_stores(mask):
    """The ReduceDataBlock page: on atlas-a2/a3 a mask of 0 makes the call a no-op (nothing read or stored), so tensors
    too small for 3 repeats are no error there, only the warning mask.zero. On atlas-350 the call runs: no datablock
    has an active lane, so none is read (spec note masked-blocks: only active datablocks are), but 8 results per
    repeat are stored: dst.footprint still asks for them, src.footprint.masked warns for all 8 datablocks."""
    # 3 repeats of 8 datablocks 256 bytes apart need 3 x 128 half elements of src and 2*8 + 8 = 24 of dst
    small = dict(repeat=3, mask=mask, dst_rep=1, src=("VECIN", 0, 16), dst=("VECOUT", 1024, 8))
    for product in ("atlas-a2", "atlas-a3"):
        case = parse_case(call(product, **small))
        assert violations(case) == [] and warnings_of(case) == [f"{P}.mask.zero"]
        res = run_case(case)
        assert not res.faults and not res.trace.records and MODEL.footprint(case) == {"dst": []}
    case = parse_case(call("atlas-350", **small))
    assert violations(case) == [f"{P}.dst.footprint"]
    assert warnings_of(case) == sorted([f"{P}.noop", f"{P}.src.footprint.masked"])
    res = run_case(case, strict=False)
    assert {f.kind for f in res.faults} == {"out_of_bounds"}  # the stores past dst's 8 elements, no read at all
    assert not res.trace.footprint("read", "UB").any()
    # the same call with one lane: datablock 0 of each repeat is read, src.footprint is the error again
    assert violations(parse_case(call("atlas-a2", **{**small, "mask": 1}))) == [f"{P}.dst.footprint",
                                                                              f"{P}.src.footprint"]


def test_dst_rep_stride_zero_and_later_repeat_wins():
    assert violations(parse_case(call("atlas-training", dst_rep=0))) == [f"{P}.dstRepStride.nonzero"]
    # three repeats, src_rep_stride 8 (256 bytes), all storing on dst[0:8]: the last repeat's minima remain
    src = np.concatenate([planted_src(), planted_src() - 1, planted_src() - 2])
    case = parse_case(call("atlas-a2", repeat=3, dst_rep=0, src=("VECIN", 0, 384), dst=("VECOUT", 1024, 8),
                           src_data=src))
    assert check_case(case).valid
    res = run_case(case)
    assert not res.faults
    assert res.tensors["dst"].tolist() == [m - 2 for m in PAGE_MINIMA]


@pytest.mark.parametrize("dtype, addr, ok", [("half", 272, True), ("half", 264, False),
                                             ("float", 272, False), ("float", 288, True)])
def test_dst_alignment_is_the_pages_not_the_positions(dtype, addr, ok):
    src = ("VECIN", 0, 128 if dtype == "half" else 64)
    case = parse_case(call("atlas-a2", dtype, mask=64, dst=("VECOUT", addr, 8), src=src))
    assert violations(case) == ([] if ok else [f"{P}.dst.align"])


def test_products_types_positions_and_alignment():
    assert violations(parse_case(call("atlas-inference-vectorcore"))) == [f"{P}.product.support"]
    assert violations(parse_case(call("atlas-training", "float", mask=64, src=("VECIN", 0, 64)))) == [f"{P}.dtype.support"]
    assert violations(parse_case(call("atlas-training"))) == []
    assert violations(parse_case(call(src_dtype="float", src=("VECIN", 0, 64)))) == [f"{P}.src.dtype"]
    assert violations(parse_case(call(src=("A1", 0, 128)))) == [f"{P}.src.position"]
    assert violations(parse_case(call(src=("VECIN", 512, 128), dst=("VECOUT", 16, 8)))) == []
    assert violations(parse_case(call(src=("VECIN", 528, 128), dst=("VECOUT", 16, 8)))) == [f"{P}.src.align"]


def test_ranges():
    assert violations(parse_case(call(repeat=256))) == [f"{P}.repeatTime.range"]
    assert violations(parse_case(call(repeat=-1))) == [f"{P}.repeatTime.range"]
    assert violations(parse_case(call(src_blk=65536))) == [f"{P}.srcBlkStride.range"]
    assert violations(parse_case(call(src_rep=-3))) == [f"{P}.srcRepStride.range"]
    assert violations(parse_case(call(dst_rep=2**31))) == [f"{P}.dstRepStride.range", f"{P}.dstRepStride.type"]
    assert violations(parse_case(call(mask=129))) == [f"{P}.mask.count.range"]
    assert violations(parse_case(call(mask=2**31))) == [f"{P}.mask.count.range", f"{P}.mask.count.type"]
    assert violations(parse_case(call(mask=[U64]))) == [f"{P}.mask.words.count"]
    assert violations(parse_case(call("atlas-a2", "float", mask=[U64], src=("VECIN", 0, 64)))) == []
    assert violations(parse_case(call(mask=[-1, 1]))) == [f"{P}.mask.w0.type"]
    with pytest.raises(InputError):  # beyond any integer a case may hold
        parse_case(call(mask=[2**64, 1]))


def test_footprints():
    # src: 2 repeats, src_rep 8, src_blk 1: the last block read is (1*8 + 7)*32 .. +32 = bytes [480, 512)
    assert violations(parse_case(call(repeat=2, src=("VECIN", 0, 256), dst=("VECOUT", 512, 72)))) == []
    assert violations(parse_case(call(repeat=2, src=("VECIN", 0, 255), dst=("VECOUT", 512, 72)))) == \
        [f"{P}.src.footprint"]
    # dst: 2 repeats, dst_rep 8: results at elements 64..71, so 72 elements are needed
    assert violations(parse_case(call(repeat=2, src=("VECIN", 0, 256), dst=("VECOUT", 512, 71)))) == \
        [f"{P}.dst.footprint"]
    # srcBlkStride 0: all 8 blocks read one datablock; srcRepStride 0: every repeat reads the same one
    assert violations(parse_case(call(repeat=5, src_blk=0, src_rep=0, dst_rep=1, src=("VECIN", 0, 16),
                                      dst=("VECOUT", 512, 40)))) == []
    # beyond UB (192 KiB on atlas-a2)
    assert f"{P}.src.bounds" in violations(parse_case(call(src=("VECIN", 192 * 1024 - 128, 128))))


def test_placeholder_rules_and_unchecked():
    ok = parse_case(call(mask="MASK_PLACEHOLDER", is_set_mask=False))
    result = check_case(ok)
    assert result.valid
    # alone, the mask rules and the ordering rule (a SetVectorMask must come first) cannot be decided
    in_force = {r.id for r in MODEL.rules_for("atlas-a2")}  # on atlas-a2 a mask of 0 is mask.zero's (a warning)
    assert sorted(u.rule_id for u in result.unchecked) == \
        sorted([*(r for r in MODEL.MASK_RULES if r in in_force), f"{P}.order.vector_mask"])
    assert f"{P}.mask.zero" in in_force and f"{P}.mask.words.nonzero" not in in_force
    assert all(("SetVectorMask" in u.reason or "earlier calls" in u.reason) and u.source for u in result.unchecked)
    on_350 = check_case(parse_case(call("atlas-350", mask="MASK_PLACEHOLDER", is_set_mask=False)))
    assert f"{P}.noop" in {u.rule_id for u in on_350.unchecked}
    ignored = check_case(parse_case(call(mask=128, is_set_mask=False)))
    assert ignored.valid and [w.id for w in ignored.warnings] == [f"{P}.mask.ignored"]
    assert "no effect" in ignored.warnings[0].message
    assert violations(parse_case(call(mask="MASK_PLACEHOLDER"))) == [f"{P}.mask.placeholder"]
    assert violations(parse_case(call(mask="MASK_PLACEHOLDER", is_set_mask=True))) == [f"{P}.mask.placeholder"]
    msg = check_case(parse_case(call(mask="MASK_PLACEHOLDER"))).violations[0].message
    assert "MASK_PLACEHOLDER" in msg and "isSetMask=true" in msg  # as the case file writes it
    assert not check_case(parse_case(call())).unchecked
    for bad in ("MASK", "mask_placeholder", ""):
        with pytest.raises(InputError) as err:
            parse_case(call(mask=bad, is_set_mask=False))
        assert err.value.field == "args.mask"
    # an API without a placeholder keeps refusing strings
    with pytest.raises(InputError):
        parse_case({"api": "BilinearInterpolation", "product": "atlas-a2", "args": {"mask": "MASK_PLACEHOLDER"},
                    "tensors": {}})


def test_in_place_examples_rule_and_core():
    # dst == src: repeat 0's results land on repeat 0's own source (already read), repeat 1's on bytes
    # 16..31, also repeat 0's (src_rep 8 = 256 bytes per repeat): allowed.
    same = parse_case(call(repeat=2, dst_rep=1, src=("VECCALC", 0, 256), dst=("VECCALC", 0, 16)))
    assert violations(same) == []
    assert not [f for f in run_case(same, strict=False).faults if f.kind == "hazard"]
    # dst at src + 256: repeat 0 stores on bytes 256..271, which repeat 1 reads afterwards (its block 0, bytes
    # 256..287): a warning (the vendor's SoftmaxFlashV3 makes such a call, spec note in-place); the hardware may
    # read those bytes before or after the store, so repeat 1's block-0 result (dst element 8, at byte 256 + 16)
    # is unspecified, and only it: blocks 1..7 of repeat 1 read bytes 288.. that nothing stores.
    late = parse_case(call(repeat=2, dst_rep=1, src=("VECCALC", 0, 256), dst=("VECCALC", 256, 16)))
    assert violations(late) == [] and IN_PLACE in [w.id for w in check_case(late).warnings]
    ran = run_case(late, strict=False)
    assert not ran.faults
    assert dst_unspecified(ran).nonzero()[0].tolist() == [8]
    # dst just before repeat 1's source with dstRepStride 1: repeat 1 stores on 256..271 after reading: fine.
    back = parse_case(call(repeat=2, dst_rep=1, src=("VECCALC", 0, 256), dst=("VECCALC", 240, 16)))
    assert violations(back) == []
    # different buffers never clash (the position rule refuses L1 for dst anyway)
    other = parse_case(call(repeat=2, dst_rep=1, src=("VECCALC", 0, 256), dst=("A1", 256, 16)))
    assert violations(other) == [f"{P}.dst.position"]


# ---------------------------------------------------------------------------------------- spellings
def test_aliases_and_spellings():
    ref = parse_case(call(spelling="ascendc", is_set_mask=True))
    for api in ("block_reduce_min", "asc.language.basic.block_reduce_min", "BlockReduceMin"):
        for spelling in SPELLINGS:
            c = parse_case(call(spelling=spelling, api=api, is_set_mask=True))
            assert c.model is MODEL and c.env == ref.env
    assert ref.to_json()["args"] == {"repeatTime": 1, "mask": 128, "dstRepStride": 8, "srcBlkStride": 1,
                                     "srcRepStride": 8, "isSetMask": True}


@pytest.mark.parametrize("pyasc, ascend_c", [("dst_rep_stride", "dstRepStride"), (None, "isSetMask")])
def test_mixing_spellings_is_an_input_error(pyasc, ascend_c):
    d = call(spelling="pyasc")  # repeat, mask, dst_rep_stride, src_blk_stride, src_rep_stride
    if pyasc:
        d["args"].pop(pyasc)
    d["args"][ascend_c] = True if ascend_c == "isSetMask" else 8
    with pytest.raises(InputError) as err:
        parse_case(d)
    assert err.value.field == f"args.{ascend_c}"
    assert "spelling" in err.value.message and "'repeat'" in err.value.message
    # mask is spelled alike in both: it never decides a spelling
    parse_case({**d, "args": {"mask": 128, "repeatTime": 1, "dstRepStride": 8, "srcBlkStride": 1, "srcRepStride": 8}})


def test_same_argument_twice_and_did_you_mean():
    d = call(spelling="pyasc")
    d["args"]["repeatTime"] = 1
    with pytest.raises(InputError) as err:
        parse_case(d)
    assert err.value.field == "args.repeatTime"
    d = call(spelling="pyasc")
    d["args"]["src_blk_strid"] = d["args"].pop("src_blk_stride")
    with pytest.raises(InputError, match="did you mean 'src_blk_stride'"):
        parse_case(d)
    d = call()
    d["args"].pop("repeatTime")
    with pytest.raises(InputError) as err:
        parse_case(d)
    assert err.value.field == "args.repeatTime"


@given(repeat=st.integers(-5, 300), dst_rep=st.integers(-2, 70000), src_blk=st.integers(0, 9),
       src_rep=st.integers(0, 9), flag=st.booleans(), mask=st.one_of(st.integers(0, 200),
                                                                        st.lists(st.integers(0, U64), max_size=3)))
@SETTINGS
def test_both_spellings_parse_to_the_same_fields(repeat, dst_rep, src_blk, src_rep, flag, mask):
    kw = dict(repeat=repeat, dst_rep=dst_rep, src_blk=src_blk, src_rep=src_rep, is_set_mask=flag, mask=mask)
    a = parse_case(call(spelling="ascendc", **kw))
    b = parse_case(call(spelling="pyasc", api="block_reduce_min", **kw))
    assert a.env == b.env
    assert a.env["repeatTime"] == repeat and a.env["dstRepStride"] == dst_rep and a.env["isSetMask"] == flag


# ------------------------------------------------------------------------------------------ strategies
SUPPORTED = MODEL.supported_products()


def _mask(draw, dtype):
    lanes = 128 if dtype == "half" else 64
    if draw(st.booleans()):
        return draw(st.integers(1, lanes))
    if dtype == "half":
        w = draw(st.lists(st.integers(0, U64), min_size=2, max_size=2).filter(any))
        return w
    return [draw(st.integers(1, U64))]


@st.composite
def valid_calls(draw, *, overlap=False, min_repeat=0, dst_rep_min=0):
    """Cases valid by construction except, with ``overlap``, perhaps the in-place rule."""
    product = draw(st.sampled_from(SUPPORTED))
    dtype = draw(st.sampled_from(MODEL.support[product]))
    e = 2 if dtype == "half" else 4
    repeat = draw(st.integers(min_repeat, 4))
    dst_rep = draw(st.integers(max(dst_rep_min, 1 if product == "atlas-training" else 0), 4))
    src_blk, src_rep = draw(st.integers(0, 3)), draw(st.integers(0, 10))
    mask = _mask(draw, dtype)
    r = max(repeat, 1)
    src_bytes = ((r - 1) * src_rep + 7 * src_blk + 1) * 32
    dst_bytes = ((r - 1) * dst_rep + 1) * 8 * e
    pos = st.sampled_from(["VECIN", "VECCALC", "VECOUT"])
    src_size = src_bytes // e + draw(st.integers(0, 3)) * (32 // e)
    if overlap:
        src_addr = -(-dst_bytes // 32) * 32 + 32 * draw(st.integers(0, 2))
        dst_addr = src_addr + 8 * e * draw(st.integers(-(dst_bytes // (8 * e)), src_bytes // (8 * e)))
    else:
        src_addr = 32 * draw(st.integers(0, 4))
        dst_addr = -(-(src_addr + src_size * e) // (8 * e)) * 8 * e + 8 * e * draw(st.integers(0, 2))
    dst_size = dst_bytes // e + draw(st.integers(0, 8))
    return call(product, dtype, repeat=repeat, mask=mask, dst_rep=dst_rep, src_blk=src_blk, src_rep=src_rep,
                dst=(draw(pos), dst_addr, dst_size), src=(draw(pos), src_addr, src_size))


@st.composite
def wild_calls(draw):
    """Any readable case: legal values mixed with out-of-range, misplaced and unsupported ones."""
    def num(lo, hi):
        return draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo - 1, hi + 1, -2**31, 2**31 - 1, 2**31, 2**40])))

    product = draw(st.sampled_from(PRODUCT_IDS))
    dtype = draw(st.sampled_from(["half", "float"]))
    mask = draw(st.one_of(st.integers(-1, 130), st.lists(st.integers(0, U64), max_size=3),
                          st.just("MASK_PLACEHOLDER"), st.just(2**31)))
    pos = st.sampled_from(["VECIN", "VECCALC", "VECOUT", "VECCALC", "A1", "CO1"])
    src_addr = draw(st.one_of(st.integers(0, 40).map(lambda k: 32 * k), st.integers(0, 2**33)))
    near = st.integers(-600, 600).map(lambda d: max(0, src_addr + 16 * d))
    dst_addr = draw(st.one_of(near, st.integers(0, 2**33)))
    d = call(product, dtype, repeat=num(0, 12), mask=mask, dst_rep=num(0, 6), src_blk=num(0, 4),
             src_rep=num(0, 12), is_set_mask=draw(st.sampled_from([None, True, False])),
             dst=(draw(pos), dst_addr, draw(st.one_of(st.integers(0, 900), st.just(2**35)))),
             src=(draw(pos), src_addr, draw(st.one_of(st.integers(0, 1200), st.just(2**35)))),
             src_dtype=draw(st.sampled_from([None, None, None, "float", "half"])))
    return d


def _block_view(case, src: np.ndarray):
    """(repeat, block, lane) -> src element index, and the repeat's active lanes as (block, lane)."""
    env, k = case.env, 32 // case.ctx.dtype.size
    reps, blocks = np.arange(env["repeatTime"]), np.arange(8)
    first = (reps[:, None] * env["srcRepStride"] + blocks[None, :] * env["srcBlkStride"]) * k
    return first[:, :, None] + np.arange(k), lane_mask(case).reshape(8, k)


# -------------------------------------------------------------------------------------------- properties
@given(valid_calls(min_repeat=1, dst_rep_min=1))
@SETTINGS
def test_each_result_is_the_minimum_of_its_active_elements(d):
    case = parse_case(d)
    assert check_case(case).valid, check_case(case).to_json()
    res = run_case(case, seed=1)
    assert not res.faults
    src, old, dst = res.inputs["src"], res.inputs["dst"], res.tensors["dst"]
    state = res.memory.state["UB"][case.tensor("dst").addr:case.tensor("dst").end]
    e = case.ctx.dtype.size
    idx, active = _block_view(case, src)
    for r in range(case.env["repeatTime"]):
        for b in range(8):
            at = r * case.env["dstRepStride"] * 8 + b
            vals = src[idx[r, b]][active[b]]
            if vals.size:
                assert (state[at * e:(at + 1) * e] == INITIALIZED).all()
                assert np.all(dst[at] <= vals) and dst[at] in vals
            elif case.product in ("atlas-a2", "atlas-a3"):
                assert dst[at] == old[at]
            elif case.product in ("atlas-350", "atlas-200i-500-a2"):
                assert dst[at] == (65504 if case.product != "atlas-350" and e == 2 else np.inf)
            else:
                assert (state[at * e:(at + 1) * e] == POISON).all()


@given(valid_calls(min_repeat=1), st.integers(0, 2**32 - 1))
@SETTINGS
def test_masked_off_elements_never_influence_results(d, seed):
    case = parse_case(d)
    first = run_case(case, seed=seed)
    src = first.inputs["src"].copy()
    idx, active = _block_view(case, src)
    ever_active = np.zeros(src.size, dtype=bool)
    ever_active[idx[:, active]] = True  # an element may be read by several (repeat, block) pairs
    rng = np.random.default_rng(seed)
    junk = rng.choice(np.array([np.nan, -0.0, -1e4, -np.inf, 3.5], dtype=src.dtype), size=src.size)
    changed = np.where(ever_active, src, junk)
    other = parse_case(d)
    other.set_data("dst", first.inputs["dst"])
    other.set_data("src", changed)
    second = run_case(other, seed=seed)
    dst = case.tensor("dst")
    for r in (first, second):
        assert not r.faults
    assert np.array_equal(first.memory.view("UB", dst.addr, dst.nbytes), second.memory.view("UB", dst.addr, dst.nbytes))
    assert np.array_equal(first.memory.state["UB"][dst.addr:dst.end], second.memory.state["UB"][dst.addr:dst.end])


@given(valid_calls(min_repeat=1), st.data())
@SETTINGS
def test_contiguous_k_equals_bitwise_low_k_bits(d, data):
    half = d["dtype"] == "half"
    k = data.draw(st.integers(1, 128 if half else 64))
    bits = (1 << k) - 1
    words = [bits & U64, bits >> 64] if half else [bits]
    outs = []
    for mask in (k, words):
        case = parse_case({**d, "args": {**d["args"], "mask": mask}})
        assert check_case(case).valid
        res = run_case(case, seed=7)
        t = case.tensor("dst")
        outs.append((res.memory.view("UB", t.addr, t.nbytes).tobytes(), res.memory.state["UB"][t.addr:t.end].tobytes()))
    assert outs[0] == outs[1]


@given(valid_calls(overlap=True, min_repeat=2))
@SETTINGS
def test_in_place_rule_matches_the_core(d):
    case = parse_case(d)
    ids = violations(case)
    assert set(ids) <= {IN_PLACE}, ids
    res = run_case(case, strict=False)
    assert {f.kind for f in res.faults} <= {"hazard"}
    hazard = bool(res.faults)
    refused = IN_PLACE in ids
    # a block without an active lane is not read (spec note masked-blocks), and on atlas-a2/a3 not stored: the
    # footprint rule is conservative there
    every_block_active = lane_mask(case).reshape(8, -1).any(axis=1).all()
    if every_block_active:
        assert refused == hazard
    else:
        assert hazard <= refused


@given(st.lists(wild_calls(), min_size=1, max_size=12))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_batched_and_single_checks_agree(ds):
    cases = [parse_case(d) for d in ds]
    for case, batched in zip(cases, check_cases(cases)):
        single = check_case(case)
        assert [v.id for v in single.violations] == [v.id for v in batched.violations]
        assert [v.message for v in single.violations] == [v.message for v in batched.violations]
        assert [v.id for v in single.warnings] == [v.id for v in batched.warnings]
        assert [u.rule_id for u in single.unchecked] == [u.rule_id for u in batched.unchecked]


def test_batched_check_of_many_in_place_cases_agrees_with_single_checks():
    """400 repeat-255 cases whose dst slides over src: the guarded existential of the batch path gives the
    scalar path's verdict on each (speed is measured in bench/, not here)."""
    ds = [call(repeat=255, dst_rep=1, src_rep=1, src_blk=1, src=("VECCALC", 0, 16 * 262),
               dst=("VECCALC", 32 * (i % 200), 8 * 255)) for i in range(400)]
    cases = [parse_case(d) for d in ds]
    results = check_cases(cases)
    assert any(IN_PLACE in [v.id for v in r.warnings] for r in results)
    assert not any(IN_PLACE in [v.id for v in r.warnings] for r in results[:1])  # dst == src: nothing read later
    for case, batched in list(zip(cases, results))[::40]:
        single = check_case(case)
        assert [v.id for v in single.violations] == [v.id for v in batched.violations]
        assert [v.id for v in single.warnings] == [v.id for v in batched.warnings]


_Z3_TERMS: dict = {}


def _z3_terms(case):
    key = case.ctx.key
    if key not in _Z3_TERMS:
        env = {f.name: (z3.Bool(f.name) if f.type.kind == "bool" else z3.Int(f.name)) for f in MODEL.fields}
        v = Values(env, case.ctx, MODEL)
        _Z3_TERMS[key] = (env, [(r, r.holds(v, case.ctx)) for r in MODEL.rules_for(case.product) if r.predicate])
    return _Z3_TERMS[key]


def _decide(term) -> bool:
    """The truth of a closed term: simplification, or the solver for a quantified one."""
    t = z3.simplify(term)
    if z3.is_true(t) or z3.is_false(t):
        return z3.is_true(t)
    s = z3.Solver()
    s.set("timeout", 20000)
    s.add(z3.Not(t))
    verdict = s.check()
    assert verdict != z3.unknown, t
    return verdict == z3.unsat


@given(st.one_of(wild_calls(), valid_calls(overlap=True, min_repeat=2)))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_rule_evaluates_in_z3_like_on_values(d):
    case = parse_case(d)
    env, terms = _z3_terms(case)
    subs = [(var, z3.BoolVal(bool(case.env[name])) if z3.is_bool(var) else z3.IntVal(int(case.env[name])))
            for name, var in env.items()]
    values = case.values()
    for r, term in terms:
        concrete = bool(r.holds(values, case.ctx))
        symbolic = bool(term) if not z3.is_expr(term) else _decide(z3.substitute(term, *subs))
        assert symbolic == concrete, (r.id, case.env)
