"""LoadAlign with DataCopyMode::DATA_BLOCK_COPY (the vendor's non-contiguous aligned LoadAlign page, Table 2): 8
DataBlocks dataBlockStride apart into a RegTensor, a MaskReg picking the blocks. Expected values are index arithmetic
written here: block k of the register is the 32 bytes at srcAddr + k * dataBlockStride * 32, or zeros when none of
its elements is active (element i of a b16 type: MaskReg bit 2i, the MaskReg page)."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify import check_case, parse_case, run_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.core.program import run_program


def block_case(args=None, *, dtype="uint16", addr=0, size=1024, data=None, registers=None):
    src = {"position": "VECIN", "addr": addr, "size": size}
    if data is not None:
        src["data"] = [int(v) for v in data]
    doc = {"api": "LoadAlign", "product": "atlas-350", "dtype": dtype,
           "args": {"dstReg": 0, "dataCopyMode": "DATA_BLOCK_COPY", "dataBlockStride": 1, "mask": 0, **(args or {})},
           "tensors": {"srcAddr": src}}
    if registers is not None:
        doc["registers"] = registers
    return doc


ALL = [255] * 32


def test_the_vendors_strided_loop_as_a_program():
    """ld_st_reg_align.asc scenario 4 (the page's example): LoadAlign<half, DATA_BLOCK_COPY, POST_MODE_UPDATE>(reg,
    src, 2, 16, mask) four times over 1024 halves, every element active: iteration i reads blocks i*16 + 2k, k 0..7."""
    x = list(range(1024))
    calls = [{"api": "LoadAlign", "args": {"mask": 0, "dist": "DIST_NORM"}, "tensors": {"srcAddr": "m"}}]
    calls += [{"api": "LoadAlign", "args": {"dstReg": i, "dataCopyMode": "DATA_BLOCK_COPY", "dataBlockStride": 2,
                                            "mask": 0, "postMode": "POST_MODE_UPDATE", "repeatStride": 16},
               "tensors": {"srcAddr": "x"}} for i in range(4)]
    prog = {"product": "atlas-350", "dtype": "uint16",
            "tensors": {"m": {"position": "VECIN", "addr": 4096, "size": 16, "dtype": "uint16", "data": [0xFFFF] * 16},
                        "x": {"position": "VECIN", "addr": 0, "size": 1024, "data": x}},
            "calls": calls}
    assert check_program(parse_program(prog)).valid
    res = run_program(parse_program(prog))
    assert not res.faults
    for i in range(4):
        want = [x[(i * 16 + 2 * k) * 16 + e] for k in range(8) for e in range(16)]
        assert res.memory.registers.get("vreg", i).view("<u2").tolist() == want, i
    # a fifth iteration would start at block 64: past the 64 blocks of x. The rules cannot read the MaskReg, so
    # check warns (the page: an inactive block is not read); with every element active, run faults on the read.
    prog["calls"].append(dict(calls[1], args={**calls[1]["args"], "dstReg": 4}))
    checked = check_program(parse_program(prog))
    assert checked.valid and [(w.call, w.id) for w in checked.warnings] == [(5, "reg_load_align_block.srcAddr.read")]
    assert [f.kind for f in run_program(parse_program(prog), strict=False).faults][:1] == ["out_of_bounds"]


def test_inactive_blocks_are_zero_and_not_read():
    # b16: element i is MaskReg bit 2i; block k holds elements 16k..16k+15, i.e. bits 32k..32k+31 (bytes 4k..4k+3).
    # Only bit 2 * 49 = 98 (element 49, block 3) set: block 3 alone is read.
    mask = [0] * 32
    mask[98 // 8] = 1 << (98 % 8)
    x = np.arange(128, dtype=np.uint16)
    res = run_case(parse_case(block_case(data=x, size=128, registers={"mask": {"0": mask}})), strict=True)
    got = res.memory.registers.get("vreg", 0).view("<u2")
    assert got[48:64].tolist() == x[48:64].tolist() and not got[:48].any() and not got[64:].any()
    reads = [r for r in res.trace.records if r.kind == "read"]
    assert len(reads) == 1 and reads[0].starts.tolist() == [3 * 32]  # block 3 alone is read
    # an odd bit (bit 99, the high half of element 49's 2 bits) does not count for a b16 element
    mask[98 // 8] = 1 << (99 % 8)
    res = run_case(parse_case(block_case(data=x, size=128, registers={"mask": {"0": mask}})), strict=True)
    assert not res.memory.registers.get("vreg", 0).any()


def test_post_mode_normal_reads_repeat_stride_blocks_in_and_does_not_move():
    x = np.arange(512, dtype=np.uint16)
    doc = block_case({"postMode": "POST_MODE_NORMAL", "repeatStride": 4}, data=x, size=512,
                     registers={"mask": {"0": ALL}})
    res = run_case(parse_case(doc), strict=True)
    assert res.memory.registers.get("vreg", 0).view("<u2").tolist() == x[64:192].tolist()
    assert "srcAddr" not in res.trace.outputs
    doc = block_case({"postMode": "POST_MODE_UPDATE", "repeatStride": 4}, data=x, size=512,
                     registers={"mask": {"0": ALL}})
    res = run_case(parse_case(doc), strict=True)
    assert res.memory.registers.get("vreg", 0).view("<u2").tolist() == x[:128].tolist()
    assert res.trace.outputs["srcAddr"]["addr"] == 4 * 32


@pytest.mark.parametrize("addr, ok", [(0, True), (32, True), (16, False), (2, False)])
def test_the_ub_address_is_32_byte_aligned(addr, ok):
    doc = block_case(addr=addr, size=128, registers={"mask": {"0": ALL}})
    assert ("reg_load_align_block.srcAddr.align32" not in [v.id for v in check_case(parse_case(doc)).violations]) is ok
    res = run_case(parse_case(doc), strict=False)
    assert any(f.kind == "misaligned" for f in res.faults) is not ok


def test_the_overload_and_its_rules():
    assert parse_case(block_case()).model.name == "LoadAlignDataBlock"
    doc = block_case(size=127)  # 8 blocks of one DataBlock apart span 128 halves
    result = check_case(parse_case(doc))
    assert result.valid and [w.id for w in result.warnings] == ["reg_load_align_block.srcAddr.read"]
    doc = block_case({"dataBlockStride": 0}, size=16)
    result = check_case(parse_case(doc))
    assert result.valid and [w.id for w in result.warnings] == ["reg_load_align_block.dataBlockStride.zero"]
    assert [v.id for v in check_case(parse_case(block_case(dtype="int64", size=64))).violations] == \
        ["reg_load_align_block.dtype.support"]


@pytest.mark.parametrize("last_block_active", [False, True])
def test_a_source_short_of_the_8_blocks_is_legal_when_the_mask_leaves_the_rest_out(last_block_active):
    """The page (mask): an inactive DataBlock 'is not moved ... no error is raised even past UB'. srcAddr holds 7
    blocks of 16 halves (112); the MaskReg activates blocks 0..6 (b16: element i is bit 2i, block k bits 32k..32k+31),
    and block 7 too when ``last_block_active``. check can only warn (the mask is a register); run is exact: a
    fault reading block 7 exactly when it is active, else block k of the register is x[16k:16k+16] and block 7 zeros."""
    mask = [0] * 32
    for e in range(7 * 16 + (16 if last_block_active else 0)):
        mask[(2 * e) // 8] |= 1 << ((2 * e) % 8)
    x = np.arange(1, 113, dtype=np.uint16)
    doc = block_case(data=x, size=112, registers={"mask": {"0": mask}})
    result = check_case(parse_case(doc))
    assert result.valid and [w.id for w in result.warnings] == ["reg_load_align_block.srcAddr.read"]
    res = run_case(parse_case(doc), strict=False)
    if last_block_active:
        assert [f.kind for f in res.faults][:1] == ["out_of_bounds"]
    else:
        assert not res.faults
        got = res.memory.registers.get("vreg", 0).view("<u2")
        assert got[:112].tolist() == x.tolist() and not got[112:].any()


@pytest.mark.parametrize("size, stride", [(112, 1), (16, 1), (200, 2), (1024, 1)])
def test_a_drawn_mask_leaves_the_blocks_past_the_source_inactive(size, stride):
    """With no register given, run draws the MaskReg: blocks that do not lie whole inside srcAddr (block k at
    k * stride * 32 bytes) are drawn inactive (their register bytes 0), so a case check only warns of runs without a
    fault; the blocks inside keep their random bits (over seeds, each is read now and then)."""
    inside = [k for k in range(8) if k * stride * 32 + 32 <= size * 2]
    doc = block_case({"dataBlockStride": stride}, size=size)
    seen = set()
    for seed in range(12):
        res = run_case(parse_case(doc), seed=seed, strict=True)  # strict: a fault raises
        got = res.memory.registers.get("vreg", 0).reshape(8, 32)
        seen |= {k for k in range(8) if got[k].any()}
        assert all(not got[k].any() for k in range(8) if k not in inside), seed
    assert seen == set(inside)
