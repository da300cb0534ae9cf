"""MaskGenWithRegTensor (page 001 Table 4, HARDWARE_NOTES.md Reg API): rules, the page's bit formula, coverage.

A 16-bit T reads the 16-byte chunk ``offset`` of srcReg (bytes 16*offset .. 16*offset+15) and doubles each bit;
a 32-bit T reads the 8-byte chunk (bytes 8*offset .. 8*offset+7) and repeats each bit 4 times. Golden values are
worked out in the comments (mask bit i is bit i % 8 of byte i // 8).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import check_case, get_api, parse_case, run_case
from ascverify.cli import main
from ascverify.core.memory import Fault, Memory, Trace
from ascverify.spec.products import get_product

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "reg_mask_gen.json"
MODEL = get_api("MaskGenWithRegTensor")


def case_doc(offset, *, dtype="b16", dst=0, src=3, reg=None, product="atlas-350"):
    doc = {"api": "MaskGenWithRegTensor", "product": product, "dtype": dtype,
           "args": {"dst": dst, "srcReg": src, "offset": offset}}
    if reg is not None:
        doc["registers"] = {"vreg": {str(src): list(reg)}}
    return doc


def broken(doc) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).violations]


def mask_after(doc, seed=0) -> list[int]:
    case = parse_case(doc)
    return run_case(case, seed=seed).memory.registers.get("mask", case.env["dst"]).tolist()


def test_b16_doubles_the_16_byte_chunk():
    # offset 2 -> bytes 32..47. Byte 32 = 0x01 (chunk bit 0) -> mask bits 0, 1 -> mask byte 0 = 0x03;
    # byte 47 = 0x80 (chunk bit 127) -> mask bits 254, 255 -> mask byte 31 = 0xC0;
    # byte 40 = 0x0F (chunk bits 64..67) -> mask bits 128..135 -> mask byte 16 = 0xFF.
    # Every byte outside the chunk is 0xFF: none of them may show.
    reg = [0xFF] * 256
    reg[32:48] = [0] * 16
    reg[32], reg[47], reg[40] = 0x01, 0x80, 0x0F
    want = [0] * 32
    want[0], want[31], want[16] = 0x03, 0xC0, 0xFF
    assert mask_after(case_doc(2, reg=reg)) == want


def test_b32_repeats_the_8_byte_chunk_four_times():
    # offset 5 -> bytes 40..47. Byte 40 = 0x01 -> mask bits 0..3 -> mask byte 0 = 0x0F;
    # byte 47 = 0x80 (chunk bit 63) -> mask bits 252..255 -> mask byte 31 = 0xF0;
    # byte 41 = 0x02 (chunk bit 9) -> mask bits 36..39 -> mask byte 4 = 0xF0.
    reg = [0xFF] * 256
    reg[40:48] = [0] * 8
    reg[40], reg[47], reg[41] = 0x01, 0x80, 0x02
    want = [0] * 32
    want[0], want[31], want[4] = 0x0F, 0xF0, 0xF0
    assert mask_after(case_doc(5, dtype="float", reg=reg)) == want


def test_example_golden(tmp_path):
    # the example: RegTensor 3 holds bytes 0..255, T = b16, offset 1 -> bytes 16..31 doubled into MaskReg 0.
    # byte 16 = 0x10 (bit 4) -> mask bits 8, 9 -> mask bytes (0x00, 0x03); byte 17 = 0x11 (bits 0, 4) -> (0x03, 0x03);
    # byte 31 = 0x1F (bits 0..4) -> mask bits 0..9 of its pair: (0xFF, 0x03).
    r = CliRunner().invoke(main, ["check", str(EXAMPLE)])
    assert r.exit_code == 0, r.output
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(EXAMPLE), "-o", str(out)])
    assert r.exit_code == 0, r.output
    regs = json.loads((out / "registers.json").read_text())
    mask = regs["mask"]["0"]
    assert mask[:4] == [0x00, 0x03, 0x03, 0x03] and mask[30:] == [0xFF, 0x03]
    assert regs["vreg"]["3"] == list(range(256))  # the source is unchanged
    doc = json.loads((out / "run.json").read_text())
    assert doc["registers"] == {"file": "registers.json", "loaded": {"vreg3": "given"}, "read": ["vreg3"],
                                "written": ["mask0"]}
    assert doc["tensors"] == {} and doc["faults"] == []


@pytest.mark.parametrize("dtype, offset, ok", [
    ("b16", 0, True), ("b16", 15, True), ("b16", 16, False), ("b16", -1, False),
    ("half", 15, True), ("int16", 16, False),
    ("b32", 31, True), ("b32", 32, False), ("float", 16, True), ("int32", 31, True),
])
def test_offset_range_per_type(dtype, offset, ok):
    assert broken(case_doc(offset, dtype=dtype)) == ([] if ok else ["reg_mask_gen.offset.range"])


def test_offset_type_and_message():
    assert broken(case_doc(40000)) == ["reg_mask_gen.offset.type", "reg_mask_gen.offset.range"]
    msgs = [v.message for v in check_case(parse_case(case_doc(16, dtype="half"))).violations]
    assert msgs == ["offset=16 is outside [0, 15] for T=half"]


def test_types_and_products():
    for t in ("uint8", "b8", "int64", "b64"):
        assert broken(case_doc(0, dtype=t)) == ["reg_mask_gen.dtype.support"], t
    assert broken(case_doc(0, product="atlas-a2")) == ["reg_mask_gen.product.support"]


def test_register_indices():
    assert broken(case_doc(0, dst=7, src=31)) == []
    assert broken(case_doc(0, dst=8)) == ["reg_mask_gen.dst.type"]
    assert broken(case_doc(0, src=32)) == ["reg_mask_gen.srcReg.type"]
    assert parse_case({"api": "MaskGenWithRegTensor", "product": "atlas-350", "args": {"offset": 0}}).arg("srcReg") == 0


def test_uninitialized_source_faults():
    # a core whose register file nobody filled: reading srcReg is an uninitialized fault, like memory
    case = parse_case(case_doc(0, src=5))
    memory = Memory.for_product(get_product("atlas-350"))
    with pytest.raises(Fault) as info:
        MODEL.execute(case, Trace(memory, strict=True))
    assert str(info.value) == "uninitialized: read of srcReg at vreg5+0x0 reads 256 uninitialized byte(s) of RegTensor 5"
    assert not memory.registers.initialized("mask", 0).any()  # nothing was written


def test_source_filled_from_the_seed_when_not_given():
    a = mask_after(case_doc(3), seed=1)
    assert a == mask_after(case_doc(3), seed=1)
    assert a != mask_after(case_doc(3), seed=2)
    res = run_case(parse_case(case_doc(3)), seed=1)
    assert res.register_inputs == {"vreg3": "generated"}
    src = res.memory.registers.get("vreg", 3)
    assert a == np.packbits(np.repeat(np.unpackbits(src[48:64], bitorder="little"), 2), bitorder="little").tolist()


def test_no_register_file_elsewhere():
    # atlas-a2 has no Reg API register file: the case breaks the product rule, and a run faults no_buffer
    res = run_case(parse_case(case_doc(0, product="atlas-a2")), strict=False)
    assert [f.kind for f in res.faults] == ["no_buffer", "no_buffer"]
    assert str(res.faults[0]) == "no_buffer: read of srcReg at vreg3+0x0 the product has no Reg API register file"


# -- properties ----------------------------------------------------------------------------------------------------

@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=256, max_size=256), st.sampled_from(["b16", "half", "b32", "float"]), st.integers(0, 7))
def test_offsets_together_cover_the_register(reg, dtype, dst):
    """Offsets 0..15 (16-bit) / 0..31 (32-bit): keeping every 2nd / 4th bit of each mask, in offset order, gives the
    RegTensor back, and each mask bit equals the page's formula srcReg[offset*VL_bits/16 + i/2] (VL_bits = 2048)."""
    reg = list(reg)
    bits = np.unpackbits(np.array(reg, dtype=np.uint8), bitorder="little")
    width = 16 if dtype in ("b16", "half") else 32
    chunk = 256 // width  # bytes one offset selects: 16 (16-bit T) or 8 (32-bit T)
    k, n = width // 8, 256 // chunk  # mask bits per source bit (2 or 4); offsets (16 or 32)
    parts = []
    for offset in range(n):
        mask = np.unpackbits(np.array(mask_after(case_doc(offset, dtype=dtype, dst=dst, reg=reg)), dtype=np.uint8),
                             bitorder="little")
        i = np.arange(256)
        assert np.array_equal(mask, bits[offset * 2048 // width + i // k])  # the page's formula, VL in bits
        parts.append(mask[::k])
    assert np.array_equal(np.concatenate(parts), bits)
