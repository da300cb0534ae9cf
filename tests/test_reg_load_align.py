"""LoadAlign into a MaskReg (page 001, HARDWARE_NOTES.md Reg API): rules, bit-exact semantics, properties, CLI.

Golden values are worked out by hand in the comments: mask bit i is bit i % 8 of byte i // 8 (little-endian bit
order); NORM copies the 32 bytes read, US doubles each of the 128 bits read, DS keeps the even bits of 512.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import check_case, get_api, parse_case, run_case, strategies
from ascverify.cli import main
from ascverify.core.memory import Fault
from ascverify.spec.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "reg_load_align.json"
MODEL = get_api("LoadAlign")
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def case_doc(args=None, *, dtype="uint8", addr=0, size=64, data=None, **extra):
    """A LoadAlign case dict: srcAddr in VECIN at ``addr`` with ``size`` elements (``data`` optional)."""
    src = {"position": "VECIN", "addr": addr, "size": size}
    if data is not None:
        src["data"] = list(data)
    doc = {"api": "LoadAlign", "product": "atlas-350", "dtype": dtype, "args": dict(args or {"dist": "DIST_NORM"}),
           "tensors": {"srcAddr": src}}
    doc.update(extra)
    return doc


def broken(doc) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).violations]


def mask_after(doc, index=None, seed=0, strict=True) -> list[int]:
    """The 32 bytes of MaskReg ``index`` (the case's mask argument by default) after running the case."""
    case = parse_case(doc)
    res = run_case(case, seed=seed, strict=strict)
    return res.memory.registers.get("mask", case.env["mask"] if index is None else index).tolist()


# -- semantics, bit-exact ------------------------------------------------------------------------------------------

def test_norm_copies_the_32_bytes():
    # bytes 0..63 at UB 0; NORM reads the 32 bytes at srcAddr and the 256 mask bits are exactly their bits
    doc = case_doc({"dist": "DIST_NORM", "mask": 5}, data=range(64))
    assert broken(doc) == []
    assert mask_after(doc) == list(range(32))


def test_us_doubles_each_bit():
    # 16 bytes read: byte 0 = 0x01 (bit 0) -> mask bits 0, 1 -> mask byte 0 = 0b11 = 3;
    # byte 1 = 0x80 (source bit 15) -> mask bits 30, 31 -> mask byte 3 = 0b1100_0000 = 192;
    # byte 2 = 0xFF (source bits 16..23) -> mask bits 32..47 -> mask bytes 4 and 5 = 255;
    # byte 15 = 0x0F (source bits 120..123) -> mask bits 240..247 -> mask byte 30 = 255, byte 31 = 0.
    data = [0x01, 0x80, 0xFF] + [0] * 12 + [0x0F] + [0xEE] * 16  # bytes 16..31 are not read by US
    doc = case_doc({"dist": "DIST_US"}, data=data, size=32)
    want = [3, 0, 0, 192, 255, 255] + [0] * 24 + [255, 0]
    assert mask_after(doc) == want


def test_ds_keeps_the_even_bits():
    # 64 bytes read: 0x55 has the even bits set, 0xAA the odd ones. Mask bit i is bit 2i: each byte of the
    # source gives 4 mask bits, so bytes (0x55, 0xAA) give mask byte 0b0000_1111 = 15 and (0xAA, 0x55) give 0xF0.
    data = [0x55, 0xAA] * 16 + [0xAA, 0x55] * 16
    doc = case_doc({"dist": "DIST_DS"}, data=data, size=64)
    assert mask_after(doc) == [0x0F] * 16 + [0xF0] * 16


def test_ds_of_doubled_bits_and_norm_on_a_known_pattern():
    # x = 0xA5 0x3C ...; US of x[:16] doubles: 0xA5 = 1010_0101 -> bits 0,2,5,7 -> mask bits {0,1,4,5,10,11,14,15}
    # -> bytes 0x33, 0xCC. DS of those doubled bytes keeps bits 0,2,... i.e. gives 0xA5 back.
    x = [0xA5, 0x3C] * 16
    us = mask_after(case_doc({"dist": "DIST_US"}, data=x, size=32))
    assert us[:2] == [0x33, 0xCC]
    ds = mask_after(case_doc({"dist": "DIST_DS"}, data=us + us, size=64))
    assert ds[:16] == x[:16]


def test_every_mask_bit_is_written_and_only_the_destination():
    case = parse_case(case_doc({"dist": "DIST_NORM", "mask": 3}, data=[0] * 64))
    res = run_case(case)
    regs = res.memory.registers
    assert regs.initialized("mask", 3).all() and regs.get("mask", 3).tolist() == [0] * 32
    assert [(k, f, i) for k, f, i, _ in res.trace.register_records] == [("write", "mask", 3)]
    assert not regs.initialized("mask", 2).any()
    assert not res.trace.stored("UB").any()


def test_addr_reg_offset_counts_elements():
    # half, strides [64, 8], indices [1, 2]: offset = 1*64 + 2*8 = 80 halves = 160 bytes; srcAddr at 96
    # -> the load starts at UB byte 256, 32-byte aligned for NORM; it reads srcAddr elements 80..95
    data = np.arange(128, dtype=np.uint16)  # element k holds k: bytes (k & 255, k >> 8)
    doc = case_doc({"dist": "DIST_NORM", "addrReg": {"strides": [64, 8], "indices": [1, 2]}}, dtype="half",
                   addr=96, size=128)
    case = parse_case(doc)
    case.set_data("srcAddr", data.view(np.float16))
    assert check_case(case).valid
    res = run_case(case)
    want = np.arange(80, 96, dtype=np.uint16).view(np.uint8).tolist()
    assert res.memory.registers.get("mask", 0).tolist() == want
    assert [r.starts.tolist() for r in res.trace.records if r.kind == "read"] == [[256]]


def test_four_levels_and_the_fifth():
    args = {"dist": "DIST_US", "addrReg": {"strides": [1, 2, 3, 4], "indices": [8, 0, 0, 0]}}
    # offset 8 b16 elements = 16 bytes: 16-aligned for US
    assert broken(case_doc(args, dtype="b16", size=32)) == []
    five = copy.deepcopy(args)
    five["addrReg"] = {"strides": [1, 2, 3, 4, 5], "indices": [8, 0, 0, 0, 0]}
    assert broken(case_doc(five, dtype="b16", size=32)) == ["reg_load_align.addrReg.levels"]
    zero = {"dist": "DIST_US", "addrReg": {"strides": [], "indices": []}}
    assert broken(case_doc(zero, dtype="b16", size=32)) == ["reg_load_align.addrReg.levels"]


# -- rules ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dist, addr, ok", [
    ("DIST_NORM", 32, True), ("DIST_NORM", 16, False), ("DIST_NORM", 48, False),
    ("DIST_US", 16, True), ("DIST_US", 8, False), ("DIST_US", 48, True),
    ("DIST_DS", 32, True), ("DIST_DS", 16, False), ("DIST_DS", 96, True),
])
def test_start_alignment_per_dist(dist, addr, ok):
    doc = case_doc({"dist": dist}, addr=addr, size=64)
    assert broken(doc) == ([] if ok else ["reg_load_align.srcAddr.dist_align"])
    res = run_case(parse_case(doc), strict=False)
    assert [f.kind for f in res.faults] == ([] if ok else ["misaligned"])


def test_alignment_applies_to_the_effective_address_and_to_the_addr_reg_offset():
    # the vendor's newer LoadAlign page: "the alignment of the AddrReg offset x sizeof(T): see Table 3", and the UB
    # address, the offset and the AddrReg offset x sizeof(T) are each aligned per MaskDist (US: 16 bytes)
    args = {"dist": "DIST_US", "addrReg": {"strides": [4], "indices": [4]}}
    assert broken(case_doc(args, addr=16, size=48)) == []  # 16 + 16 x 1 byte
    # srcAddr at byte 8 plus 8 uint8 elements: the load starts at 16, but the offset (8 bytes) is not 16-aligned
    args["addrReg"]["indices"] = [2]
    got = check_case(parse_case(case_doc(args, addr=8, size=32))).violations
    assert [v.id for v in got] == ["reg_load_align.addrReg.align"]
    assert got[0].message.startswith("the AddrReg offset is 8 x 1 = 8 bytes; DIST_US needs it 16-byte aligned")
    # an aligned offset from a misaligned srcAddr: the start is misaligned
    args["addrReg"]["indices"] = [4]
    assert broken(case_doc(args, addr=8, size=32)) == ["reg_load_align.srcAddr.dist_align"]
    # the same base with offset 4: the load starts at 12, and the offset is not aligned either
    args["addrReg"]["indices"] = [1]
    doc = case_doc(args, addr=8, size=32)
    case = parse_case(doc)
    msgs = [v.message for v in check_case(case).violations if v.id == "reg_load_align.srcAddr.dist_align"]
    assert msgs == ["the load starts at UB byte 12 (srcAddr.addr=8 + AddrReg offset 4 x 1 bytes); DIST_US needs a "
                    "16-byte aligned start"]
    with pytest.raises(Fault) as info:
        run_case(case)
    assert str(info.value) == "misaligned: read of srcAddr (mask bits) at UB+0xc (iteration 0) needs 16-byte alignment"


@pytest.mark.parametrize("dist, need", [("DIST_NORM", 32), ("DIST_US", 16), ("DIST_DS", 64)])
def test_bytes_read_inside_the_tensor(dist, need):
    assert broken(case_doc({"dist": dist}, size=need)) == []
    assert broken(case_doc({"dist": dist}, size=need - 1)) == ["reg_load_align.srcAddr.read"]
    # with an AddrReg offset of 2 int32 elements (8 bytes) ... 16 bytes for US need 24 bytes = 6 int32
    args = {"dist": "DIST_US", "addrReg": {"strides": [2], "indices": [2]}}  # 4 int32 = 16 bytes
    assert broken(case_doc(args, dtype="int32", size=8)) == []
    assert broken(case_doc(args, dtype="int32", size=7)) == ["reg_load_align.srcAddr.read"]


def test_bytes_read_inside_the_buffer():
    # UB is 248 KiB on atlas-350 (253952 bytes) as a kernel allocates it; the hardware has 256 KiB (262144), the top
    # 8 KiB holding the vendor library's temporaries: its own Select / GatherMask (dav_3510) load a MaskReg from
    # GetTemporaryBufferAddr(GetRuntimeUBSize()) = UB byte 253952. A NORM load at the last allocatable 32 bytes is
    # fine; in the reserved bytes it is legal with a warning; past 256 KiB it is out of bounds.
    assert broken(case_doc({"dist": "DIST_NORM"}, addr=253952 - 32, size=32)) == []
    reserved = check_case(parse_case(case_doc({"dist": "DIST_NORM"}, addr=253952, size=32)))
    assert reserved.valid and [w.id for w in reserved.warnings] == ["reg_load_align.srcAddr.reserved"]
    assert not run_case(parse_case(case_doc({"dist": "DIST_NORM"}, addr=253952, size=32))).faults
    assert broken(case_doc({"dist": "DIST_NORM"}, addr=262144 - 32, size=32)) == []
    assert broken(case_doc({"dist": "DIST_NORM"}, addr=262144, size=32)) == ["reg_load_align.srcAddr.bounds"]


def test_types_per_form():
    for t in ("b8", "half", "float", "int64", "b64", "uint64", "int8", "bfloat16", "hifloat8"):
        assert broken(case_doc({"dist": "DIST_NORM"}, dtype=t, size=32)) == [], t  # 32 elements >= 32 bytes
    addr = {"dist": "DIST_NORM", "addrReg": {"strides": [0], "indices": [0]}}
    for t in ("b8", "int16", "float", "b32"):
        assert broken(case_doc(addr, dtype=t, size=32)) == [], t
    # b64 with an AddrReg: the older page's Table 1 lists b8-b32, but the vendor's newer MaskReg LoadAlign page says
    # "the source supports b8, b16, b32, b64", its 950 implementation static_asserts b8-b64 and its own test loads a
    # MaskReg that way for uint64 and int64: valid, no warning
    for t in ("int64", "b64", "uint64"):
        got = check_case(parse_case(case_doc(addr, dtype=t, size=32)))
        assert got.valid and got.warnings == [], (t, [w.id for w in got.warnings])
        assert not run_case(parse_case(case_doc(addr, dtype=t, size=32))).faults, t
    assert broken(case_doc({"dist": "DIST_NORM"}, dtype="int4b", size=64)) == ["reg_load_align.dtype.support"]
    # bool is a b8 type (the vendor's data type page: "b8: bool, int8_t, uint8_t..."); its 950 test instantiates
    # MicroDatacopy<bool> for every mode, mode 9 being this AddrReg load
    got = check_case(parse_case(case_doc({"dist": "DIST_NORM", "addrReg": {"strides": [32], "indices": [1]}},
                                         dtype="bool", size=64)))
    assert got.valid and got.warnings == []


def test_atlas_350_only():
    for product in ("atlas-a2", "atlas-a3", "atlas-training"):
        assert broken(case_doc(product=product)) == ["reg_load_align.product.support"]
    assert broken(case_doc(product="ascend-950pr")) == []


def test_dist_values():
    assert broken(case_doc({"dist": "DIST_PACK"})) == ["reg_load_align.dist.load"]
    with pytest.raises(InputError) as info:
        parse_case(case_doc({"dist": "DIST_NROM"}))
    assert info.value.line() == ("args.dist: expected one of DIST_NORM, DIST_US, DIST_DS, DIST_PACK; got 'DIST_NROM' "
                                 "(did you mean 'DIST_NORM'?)")
    assert parse_case(case_doc({})).arg("dist") == "DIST_NORM"  # the prototype's default


@pytest.mark.parametrize("dist", ["DIST_BRC_B16", "DIST_UNPACK4_B8", "LoadDist::DIST_NORM",
                                  "AscendC::Reg::LoadDist::DIST_BLK"])
def test_a_load_dist_with_mask_names_the_regtensor_load(dist):
    # the RegTensor overload's LoadDist values (asc-devkit kernel_reg_compute_utils.h, enum class LoadDist) given with
    # the MaskReg argument `mask` say which argument the RegTensor load takes, instead of "expected one of"
    with pytest.raises(InputError) as info:
        parse_case(case_doc({"mask": 0, "dist": dist}))
    assert info.value.line() == (f"args.dist: {dist!r}: a LoadDist value; LoadAlign into a MaskReg (argument `mask`) "
                                 "takes a MaskDist, not a LoadDist: MaskDist::DIST_NORM, DIST_US or DIST_DS; a load "
                                 "into a RegTensor gives the argument `dstReg` (API LoadAlignRegTensor)")


@pytest.mark.parametrize("args", [{"dstReg": 0}, {"dstReg": 3, "dstReg1": 4, "dist": "DIST_DINTLV_B8"}])
def test_dst_reg_makes_it_the_regtensor_load(args):
    assert parse_case(case_doc(args, size=512)).model.name == "LoadAlignRegTensor"
    assert parse_case(case_doc({"mask": 1})).model.name == "LoadAlign"


def test_the_mask_dist_spelled_qualified_is_read():
    assert parse_case(case_doc({"dist": "MaskDist::DIST_US"})).arg("dist") == "DIST_US"
    assert parse_case(case_doc({"dist": "AscendC::Reg::MaskDist::DIST_DS"})).arg("dist") == "DIST_DS"


def test_forms():
    assert broken(case_doc({"dist": "DIST_NORM", "addrReg": {"strides": [1], "indices": [0]}, "offset": 32})) == \
        ["reg_load_align.form"]
    assert broken(case_doc({"dist": "DIST_NORM", "offset": 32})) == ["reg_load_align.form"]
    assert broken(case_doc({"dist": "DIST_NORM", "postMode": "POST_MODE_UPDATE"})) == ["reg_load_align.form"]
    msg = [v.message for v in check_case(parse_case(case_doc({"offset": 32}))).violations]
    assert msg == ["optional arguments given: offset; that is no prototype of LoadAlign (one of: none of addrReg, "
                   "postMode, offset; addrReg; postMode + offset)"]


def test_mask_index():
    assert broken(case_doc({"dist": "DIST_NORM", "mask": 7})) == []
    assert broken(case_doc({"dist": "DIST_NORM", "mask": 8})) == ["reg_load_align.mask.type"]
    assert parse_case(case_doc({"dist": "DIST_NORM"})).arg("mask") == 0


def test_post_update_moves_srcaddr():
    # post-update, DS: 64 bytes read at srcAddr (1024), then srcAddr += 64 bytes
    doc = case_doc({"dist": "DIST_DS", "postMode": "POST_MODE_UPDATE", "offset": 64}, addr=1024, size=64,
                   data=[0xFF] * 64)
    res = run_case(parse_case(doc))
    assert res.memory.registers.get("mask", 0).tolist() == [0xFF] * 32
    assert [r.starts.tolist() for r in res.trace.records if r.kind == "read"] == [[1024]]
    assert res.trace.outputs["srcAddr"] == {"buffer": "UB", "addr": 1088, "before": 1024, "offset": 64}
    # a negative update is fine too (walking backwards); the updated address is not checked
    doc["args"]["offset"] = -2048
    assert broken(doc) == []
    assert run_case(parse_case(doc)).trace.outputs["srcAddr"]["addr"] == -1024


def test_post_mode_normal_is_refused_and_runs_the_page_way():
    # POST_MODE_NORMAL in the offset form: the vendor refuses it; the page says: load at srcAddr + offset, no update
    doc = case_doc({"dist": "DIST_NORM", "postMode": "POST_MODE_NORMAL", "offset": 32}, size=64, data=range(64))
    assert broken(doc) == ["reg_load_align.postMode.update"]
    res = run_case(parse_case(doc))
    assert res.memory.registers.get("mask", 0).tolist() == list(range(32, 64))
    assert res.trace.outputs == {}
    # a negative offset would start before srcAddr
    doc["args"]["offset"] = -32
    doc["tensors"]["srcAddr"]["addr"] = 64
    assert broken(doc) == ["reg_load_align.postMode.update", "reg_load_align.srcAddr.read_start"]


def test_addr_reg_lists_are_read_strictly():
    def err(addr_reg):
        with pytest.raises(InputError) as info:
            parse_case(case_doc({"dist": "DIST_NORM", "addrReg": addr_reg}))
        return info.value.line()

    assert err({"strides": [1, 2], "indices": [0]}) == \
        "args.addrReg: the lists must have one entry per level; strides has 2, indices has 1"
    assert err({"strides": [1]}) == "args.addrReg.indices: missing"
    assert err({"strides": [1], "indices": [0], "stride": [2]}) == \
        "args.addrReg.stride: unknown key 'stride' (did you mean 'strides'?); expected strides and indices"
    assert err([1, 2]) == "args.addrReg: expected an object with strides and indices (lists of integers), got a list"
    assert err({"strides": [1.5], "indices": [0]}) == "args.addrReg.strides[0]: expected an integer, got a number (1.5)"
    assert err({"strides": [1] * 65, "indices": [0] * 65}) == \
        "args.addrReg.strides: a list of 65 levels (at most 64 are read)"
    # values beyond the C types are read, then refused by the type rules
    assert broken(case_doc({"dist": "DIST_NORM", "addrReg": {"strides": [2**32], "indices": [0]}})) == \
        ["reg_load_align.addrReg.stride0.type"]
    assert broken(case_doc({"dist": "DIST_NORM", "addrReg": {"strides": [0], "indices": [-1]}})) == \
        ["reg_load_align.addrReg.index0.type"]


def test_to_json_round_trip():
    for args in ({"mask": 2, "dist": "DIST_US"},
                 {"mask": 1, "dist": "DIST_DS", "addrReg": {"strides": [8, 16], "indices": [0, 4]}},
                 {"mask": 0, "dist": "DIST_NORM", "postMode": "POST_MODE_UPDATE", "offset": -96}):
        doc = case_doc(args, size=256)
        assert parse_case(doc).to_json()["args"] == args


# -- properties ----------------------------------------------------------------------------------------------------

@SETTINGS
@given(st.binary(min_size=32, max_size=32), st.sampled_from(["b8", "half", "float", "int64"]))
def test_us_then_ds_round_trip(x, dtype):
    """DS of the doubled bits of x is x: US-load each half of x, put the two masks side by side, DS-load them."""
    x = list(x)
    lo = mask_after(case_doc({"dist": "DIST_US"}, dtype="uint8", data=x[:16] + [0] * 16, size=32))
    hi = mask_after(case_doc({"dist": "DIST_US"}, dtype="uint8", data=x[16:] + [0] * 16, size=32))
    bits = np.unpackbits(np.array(x, dtype=np.uint8), bitorder="little")
    assert np.array_equal(np.unpackbits(np.array(lo + hi, dtype=np.uint8), bitorder="little"), np.repeat(bits, 2))
    elems = 64 // np.dtype({"b8": "u1", "half": "u2", "float": "u4", "int64": "u8"}[dtype]).itemsize
    case = parse_case(case_doc({"dist": "DIST_DS"}, dtype=dtype, size=elems))
    case.set_data("srcAddr", np.array(lo + hi, dtype=np.uint8).view(case.ctx.dtype.numpy))
    assert run_case(case).memory.registers.get("mask", 0).tolist() == x


@SETTINGS
@given(st.binary(min_size=32, max_size=32), st.integers(0, 7))
def test_norm_equals_the_bit_unpacking(x, index):
    got = mask_after(case_doc({"dist": "DIST_NORM", "mask": index}, data=list(x), size=32))
    assert got == list(x)
    bits = np.unpackbits(np.array(got, dtype=np.uint8), bitorder="little")
    assert all(bits[i] == (x[i // 8] >> (i % 8)) & 1 for i in range(256))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(strategies.cases("LoadAlign"), st.integers(-40, 40), st.integers(0, 3))
def test_alignment_verdict_agrees_with_core_faults(case, delta, level):
    """On drawn cases, valid and (moved by delta bytes, an AddrReg index bumped) invalid: the alignment rule refuses
    the case exactly when the core faults "misaligned"."""
    variants = [case]
    addr = case.env["srcAddr.addr"] + delta
    if addr >= 0:
        variants.append(case.with_fields(**{"srcAddr.addr": addr}))
    if case.env["addrReg.present"] and level < case.env["addrReg.levels"]:
        variants.append(case.with_fields(**{f"addrReg.index{level}": case.env[f"addrReg.index{level}"] + 1}))
    for c in variants:
        refused = "reg_load_align.srcAddr.dist_align" in [v.id for v in check_case(c).violations]
        faults = [f.kind for f in run_case(c, strict=False).faults]
        assert refused == ("misaligned" in faults), (c.to_json(), faults)


# -- command line --------------------------------------------------------------------------------------------------

def test_example_checks_and_runs(tmp_path):
    r = CliRunner().invoke(main, ["check", str(EXAMPLE)])
    assert r.exit_code == 0, r.output
    outputs = {}
    for i in range(3):
        out = tmp_path / f"o{i}"
        r = CliRunner().invoke(main, ["run", str(EXAMPLE), "--index", str(i), "-o", str(out)])
        assert r.exit_code == 0, r.output
        outputs[i] = (json.loads((out / "run.json").read_text()), json.loads((out / "registers.json").read_text()))
    # case 0: NORM of bytes 0..63 at UB 0 into MaskReg 0: the mask holds bytes 0..31
    run0, regs0 = outputs[0]
    assert regs0 == {"mask": {"0": list(range(32))}}
    assert run0["registers"] == {"file": "registers.json", "loaded": {}, "read": [], "written": ["mask0"]}
    # case 2: post-update, srcAddr 1024 moved by 64 bytes
    run2, regs2 = outputs[2]
    assert run2["outputs"] == {"srcAddr": {"buffer": "UB", "addr": 1088, "before": 1024, "offset": 64}}
    assert list(regs2["mask"]) == ["2"]


def test_run_refused_dist_is_not_executed(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(case_doc({"dist": "DIST_PACK"})))
    r = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "o")])
    assert r.exit_code == 1
    assert "error: [reg_load_align.dist.load] dist=DIST_PACK is not a load mode into a MaskReg" in r.stdout
    assert "not executed: ValueError: dist=DIST_PACK is not a load mode" in r.stdout
    assert "Traceback" not in r.output


def test_synthesis_honours_forms_and_addr_reg_fixes():
    from ascverify.engines.solver import Space, Unsatisfiable, parse_fixes

    space = Space(MODEL, MODEL.context("atlas-350", "half"))
    fixes = parse_fixes(MODEL, ['addrReg={"strides": [3, 5], "indices": [8, 16]}', "dist=DIST_US"])
    for case in space.sample(4, seed=1, fixes=fixes):
        assert check_case(case).valid
        assert case.to_json()["args"]["addrReg"] == {"strides": [3, 5], "indices": [8, 16]}
        # offset 3*8 + 5*16 = 104 halves = 208 bytes (16-aligned): srcAddr must be 16-aligned for a 16-aligned start
        assert case.env["srcAddr.addr"] % 16 == 0
    # offset 3*7 + 5*9 = 66 halves = 132 bytes: not 16-aligned, whatever srcAddr is
    fixes = parse_fixes(MODEL, ['addrReg={"strides": [3, 5], "indices": [7, 9]}', "dist=DIST_US"])
    with pytest.raises(Unsatisfiable) as info:
        space.sample(1, fixes=fixes)
    assert [r.id for r in info.value.rules] == ["reg_load_align.addrReg.align"]
    fixes = parse_fixes(MODEL, ['addrReg={"strides": [1], "indices": [1]}', "offset=4"])
    with pytest.raises(Unsatisfiable) as info:
        space.sample(1, fixes=fixes)
    assert [r.id for r in info.value.rules] == ["reg_load_align.form"]


@pytest.mark.parametrize("dist, offset, ok", [
    ("DIST_NORM", 32, True), ("DIST_NORM", 64, True), ("DIST_NORM", -32, True), ("DIST_NORM", 0, True),
    ("DIST_NORM", 16, False), ("DIST_NORM", 5, False),
    ("DIST_US", 16, True), ("DIST_US", 8, False),
    ("DIST_DS", 32, True), ("DIST_DS", 16, False),
])
def test_the_post_update_offset_is_aligned_like_the_load(dist, offset, ok):
    """The vendor's newer LoadAlign page: the offset's alignment depends on MaskDist (Table 3: VL/8 = 32 bytes for
    NORM, VL/16 = 16 for US, min(32, VL/4) = 32 for DS, VL = 256 bytes); srcAddr moves by it after the load."""
    doc = case_doc({"dist": dist, "postMode": "POST_MODE_UPDATE", "offset": offset}, addr=64, size=64)
    assert ("reg_load_align.offset.align" not in broken(doc)) == ok


def test_products_lists_the_reserved_bytes():
    """atlas-350: 8 KiB of UB above the 248 KiB a kernel allocates (the vendor's TMP_UB_OFFSET = 248 * 1024)."""
    r = CliRunner().invoke(main, ["products"])
    assert r.exit_code == 0, r.output
    assert "atlas-350: UB has 8192 bytes above its 253952" in r.output
    doc = json.loads(CliRunner().invoke(main, ["products", "--format", "json"]).output)
    reserved = {p["id"]: p["reserved"] for p in doc["products"]}
    assert reserved["atlas-350"] == {"UB": 8192} and reserved["atlas-a2"] == {}
