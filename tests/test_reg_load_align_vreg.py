"""LoadAlign into a RegTensor (the vendor's contiguous aligned LoadAlign page, Tables 3 and 6): rules, bit-exact
semantics, the overload's dispatch, CLI.

Golden values are worked out here from the page: VL = 256 bytes; the UNPACK rows are the page's own examples
(src 0x00, 0x01, ... -> dst 0x00, 0x00, 0x01, 0x00, ...); every other expectation is index arithmetic written below.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis.errors import UnsatisfiedAssumption

from ascverify import check_case, get_api, parse_case, run_case
from ascverify.cases.program import parse_program
from ascverify.cli import main
from ascverify.checking.program import check_program
from ascverify.core.program import run_program
from ascverify.engines.properties import strategies as strat
from ascverify.engines.properties.seeded import SeededDraw
from ascverify.spec.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "reg_load_align_vreg.json"


def case_doc(args=None, *, dtype="uint8", addr=0, size=512, data=None, product="atlas-350"):
    """A LoadAlign case with a RegTensor destination (``dstReg``): srcAddr in VECIN at ``addr``, ``size`` elements."""
    src = {"position": "VECIN", "addr": addr, "size": size}
    if data is not None:
        data = list(data)[:size]
        src["data"] = [int(x) for x in data] if dtype.startswith(("uint", "int")) else [float(x) for x in data]
    return {"api": "LoadAlign", "product": product, "dtype": dtype, "args": {"dstReg": 0, **(args or {})},
            "tensors": {"srcAddr": src}}


def broken(doc) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).violations]


def warned(doc) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).warnings]


def vreg(doc, index=0) -> np.ndarray:
    res = run_case(parse_case(doc), seed=0, strict=True)
    return res.memory.registers.get("vreg", index)


BYTES = np.arange(512) % 256  # byte k holds k mod 256


# -- semantics, bit-exact ------------------------------------------------------------------------------------------

def test_unpack_rows_of_the_page():
    # Table 3, DIST_UNPACK_B8: src [0x00, 0x01, ..., 0xFF] -> dst [0x00, 0x00, 0x01, 0x00, ..., 0x7F, 0x00]
    got = vreg(case_doc({"dist": "DIST_UNPACK_B8"}, data=BYTES, size=512))
    assert got.tolist() == [x for k in range(128) for x in (k, 0)]
    # DIST_UNPACK_B16: u16 src [0x0000, 0x0001, ..., 0x007F] -> dst [0x0000, 0x0000, 0x0001, 0x0000, ..., 0x003F, 0x0000]
    got = vreg(case_doc({"dist": "DIST_UNPACK_B16"}, dtype="uint16", data=np.arange(128), size=128)).view("<u2")
    assert got.tolist() == [x for k in range(64) for x in (k, 0)]
    # DIST_UNPACK_B32: u32 src [0, 1, ..., 0x3F] -> dst [0, 0, 1, 0, ..., 0x1F, 0]
    got = vreg(case_doc({"dist": "DIST_UNPACK_B32"}, dtype="uint32", data=np.arange(64), size=64)).view("<u4")
    assert got.tolist() == [x for k in range(32) for x in (k, 0)]
    # DIST_UNPACK4_B8: src [0x00, 0x01, ...] -> dst [0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, ..., 0x3F, 0, 0, 0]
    got = vreg(case_doc({"dist": "DIST_UNPACK4_B8"}, data=BYTES, size=512))
    assert got.tolist() == [x for k in range(64) for x in (k, 0, 0, 0)]


def test_norm_brc_blk():
    assert vreg(case_doc({}, data=BYTES)).tolist() == list(range(256))                         # NORM: 256 bytes
    half = np.array([1.5, -2.0], dtype=np.float16)
    got = vreg(case_doc({"dist": "DIST_BRC_B16"}, dtype="half", data=half, size=2)).view(np.float16)
    assert got.tolist() == [1.5] * 128                                                         # one b16, 128 times
    got = vreg(case_doc({"dist": "DIST_BRC_B8"}, data=[7, 9], size=2))
    assert got.tolist() == [7] * 256
    got = vreg(case_doc({"dist": "DIST_BRC_B32"}, dtype="int32", data=[-5, 3], size=2)).view("<i4")
    assert got.tolist() == [-5] * 64
    got = vreg(case_doc({"dist": "DIST_BLK"}, data=BYTES, size=32))
    assert got.tolist() == list(range(32)) * 8                                                 # one DataBlock, 8 times


def test_up_and_down_sampling():
    # US_B16: 128 bytes = 64 halves, each twice; DS_B8: 512 bytes, the even-indexed ones
    got = vreg(case_doc({"dist": "DIST_US_B16"}, dtype="uint16", data=np.arange(64), size=64)).view("<u2")
    assert got.tolist() == [k for k in range(64) for _ in (0, 1)]
    got = vreg(case_doc({"dist": "DIST_US_B8"}, data=BYTES, size=128))
    assert got.tolist() == [k for k in range(128) for _ in (0, 1)]
    got = vreg(case_doc({"dist": "DIST_DS_B8"}, data=BYTES, size=512))
    assert got.tolist() == [(2 * k) % 256 for k in range(256)]
    got = vreg(case_doc({"dist": "DIST_DS_B16"}, dtype="uint16", data=np.arange(256), size=256)).view("<u2")
    assert got.tolist() == list(range(0, 256, 2))


def test_element_to_block():
    # E2B_B16: 8 halves (16 bytes), element k fills DataBlock k (16 copies); E2B_B32: 8 words, 8 copies each
    got = vreg(case_doc({"dist": "DIST_E2B_B16"}, dtype="uint16", data=np.arange(100, 108), size=8)).view("<u2")
    assert got.tolist() == [100 + k for k in range(8) for _ in range(16)]
    got = vreg(case_doc({"dist": "DIST_E2B_B32"}, dtype="uint32", data=np.arange(8) * 3, size=8)).view("<u4")
    assert got.tolist() == [3 * k for k in range(8) for _ in range(8)]


def test_dual_load_deinterleaves():
    doc = case_doc({"dstReg": 4, "dstReg1": 9, "dist": "DIST_DINTLV_B16"}, dtype="uint16", data=np.arange(256),
                   size=256)
    res = run_case(parse_case(doc), seed=0, strict=True)
    assert res.memory.registers.get("vreg", 4).view("<u2").tolist() == list(range(0, 256, 2))
    assert res.memory.registers.get("vreg", 9).view("<u2").tolist() == list(range(1, 256, 2))


def test_addr_reg_offset_counts_elements_and_post_update_moves_src():
    # AddrReg: 7 x 128 halves = 1792 bytes past srcAddr (the vendor's ld_st_reg_align scenario 3, last iteration)
    data = np.arange(1024, dtype=np.float16)
    got = vreg(case_doc({"addrReg": {"strides": [128], "indices": [7]}}, dtype="half", data=data, size=1024))
    assert got.view(np.float16).tolist() == data[896:1024].tolist()
    # PostUpdate: loads at srcAddr, then srcAddr += 64 floats = 256 bytes (cast.asc scenario 2)
    res = run_case(parse_case(case_doc({"postMode": "POST_MODE_UPDATE", "postUpdateStride": 64}, dtype="float",
                                       addr=768, size=64)), seed=0, strict=True)
    assert res.trace.outputs["srcAddr"]["addr"] == 768 + 256


def test_a_program_feeds_mask_gen():
    """LoadAlign(srcReg, srcAddr) then MaskGenWithRegTensor<half, 0>(mask, srcReg) (the MaskGenWithRegTensor page's
    own sequence): the mask's 256 bits are the low 16 bytes' 128 bits, each doubled."""
    x = np.zeros(128, dtype=np.uint16)
    x[0] = 0b1011
    prog = {"product": "atlas-350", "dtype": "half",
            "tensors": {"src": {"position": "VECIN", "addr": 0, "size": 128, "dtype": "uint16", "data": x.tolist()}},
            "calls": [{"api": "LoadAlign", "args": {"dstReg": 5}, "tensors": {"srcAddr": "src"}, "dtype": "uint16"},
                      {"api": "MaskGenWithRegTensor", "args": {"dst": 2, "srcReg": 5, "offset": 0}}]}
    res = run_program(parse_program(prog))
    bits = np.unpackbits(res.memory.registers.get("mask", 2), bitorder="little")
    assert bits[:8].tolist() == [1, 1, 1, 1, 0, 0, 1, 1] and not bits[8:].any()


# -- rules -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dist, addr, ok", [
    ("DIST_NORM", 32, True), ("DIST_NORM", 16, False), ("DIST_BRC_B8", 3, True), ("DIST_BRC_B16", 2, True),
    ("DIST_BRC_B32", 6, False), ("DIST_E2B_B16", 16, True), ("DIST_E2B_B16", 8, False), ("DIST_E2B_B32", 16, False),
    ("DIST_US_B8", 32, True), ("DIST_UNPACK4_B8", 48, False), ("DIST_BLK", 64, True),
])
def test_start_alignment_per_dist(dist, addr, ok):
    # Table 3's alignment column with VL = 256: NORM 32, BRC 1/2/4, E2B_B16 VL/16 = 16, E2B_B32 VL/8 = 32, US
    # min(32, VL/2) = 32, UNPACK4 min(32, VL/4) = 32, BLK 32 (uint8 T: the address in bytes is the element index)
    doc = case_doc({"dist": dist}, addr=addr, size=512)
    assert ("reg_load_align_vreg.srcAddr.dist_align" in broken(doc)) is not ok
    res = run_case(parse_case(doc), seed=0, strict=False)
    assert any(f.kind == "misaligned" for f in res.faults) is not ok


def test_strides_and_offsets_are_aligned_per_dist():
    # postUpdateStride 8 halves = 16 bytes: not 32-aligned for NORM, but fine for E2B_B16 (16)
    assert broken(case_doc({"postMode": "POST_MODE_UPDATE", "postUpdateStride": 8}, dtype="half", size=128)) == \
        ["reg_load_align_vreg.postUpdateStride.align"]
    assert broken(case_doc({"dist": "DIST_E2B_B16", "postMode": "POST_MODE_UPDATE", "postUpdateStride": 8},
                           dtype="half", size=128)) == []
    assert "reg_load_align_vreg.addrReg.align" in broken(
        case_doc({"addrReg": {"strides": [8], "indices": [1]}}, dtype="half", size=256))
    assert broken(case_doc({"postMode": "POST_MODE_NORMAL", "postUpdateStride": 16}, dtype="half", size=128)) == \
        ["reg_load_align_vreg.postMode.update"]


def test_forms_dists_and_types():
    assert broken(case_doc({"dist": "DIST_DINTLV_B8"})) == ["reg_load_align_vreg.dist.dual"]
    assert broken(case_doc({"dstReg1": 1, "dist": "DIST_NORM"})) == ["reg_load_align_vreg.dist.dual"]
    assert broken(case_doc({"dist": "DIST_BLK"}, dtype="int64", size=64)) == ["reg_load_align_vreg.dist.b64"]
    assert broken(case_doc({}, dtype="int64", size=32)) == []
    assert warned(case_doc({"dist": "DIST_BRC_B16"}, dtype="float", size=1)) == ["reg_load_align_vreg.dist.width"]
    # review 75: one register named twice by a dual load is two stores of one call to the same bytes (an error, as
    # docs/severity.md says and load3d.dstStride.overlap does for fractals); dstReg defaults to register 0
    assert broken(case_doc({"dstReg1": 0, "dist": "DIST_DINTLV_B8"})) == ["reg_load_align_vreg.dual.registers"]
    assert broken(case_doc({"dstReg1": 1, "dist": "DIST_DINTLV_B8"})) == []
    assert broken(case_doc({"dstReg1": 1, "dist": "DIST_DINTLV_B8", "addrReg": {"strides": [1], "indices": [0]},
                            "postMode": "POST_MODE_UPDATE", "postUpdateStride": 0})) == ["reg_load_align_vreg.form"]
    assert broken(case_doc({}, product="atlas-a2", size=256)) == ["reg_load_align_vreg.product.support"]


@pytest.mark.parametrize("dist, size, need", [("DIST_NORM", 255, 256), ("DIST_DS_B8", 511, 512),
                                              ("DIST_US_B8", 127, 128), ("DIST_BRC_B32", 3, 4)])
def test_bytes_read_inside_the_tensor(dist, size, need):
    assert "reg_load_align_vreg.srcAddr.read" in broken(case_doc({"dist": dist}, size=size))
    assert "reg_load_align_vreg.srcAddr.read" not in broken(case_doc({"dist": dist}, size=need))


def test_a_load_past_its_buffer_is_declared_over_the_bytes_it_moves():
    """The vendor's examples load a VL past a shorter buffer (simd_vf_dump.asc:40: 64 floats from a 32-float
    allocation). srcAddr declared as the buffer is refused, and the message says how to declare it; declared over
    the 256 bytes moved (UB the kernel owns), the load checks and runs clean (spec note
    reg_load_align_vreg.read-past)."""
    short = case_doc({"dist": "DIST_NORM"}, dtype="float", size=32)
    got = [v for v in check_case(parse_case(short)).violations if v.id == "reg_load_align_vreg.srcAddr.read"]
    assert len(got) == 1 and got[0].message.startswith("srcAddr.size=32 elements, but the load needs 64")
    assert "declare srcAddr over them" in got[0].message
    whole = case_doc({"dist": "DIST_NORM"}, dtype="float", size=64)
    assert broken(whole) == []
    result = run_case(parse_case(whole))
    assert not result.faults


@pytest.mark.parametrize("arg, said", [
    ("dataBlockStride", "the non-contiguous aligned LoadAlign (DATA_BLOCK_COPY) takes `dataCopyMode`, "
                        "`dataBlockStride`, `mask` (and `repeatStride`): give dataCopyMode"),
    ("offset", "the RegTensor load gives its AddrReg as `addrReg`"),
])
def test_arguments_of_other_overloads_are_said_so(arg, said):
    # hunt 18: the vendor's ld_st_reg_align scenario 4 (DATA_BLOCK_COPY, now LoadAlignDataBlock when dataCopyMode is
    # given) and the page's name of the AddrReg parameter
    with pytest.raises(InputError) as info:
        parse_case(case_doc({arg: 1}))
    assert info.value.line().startswith(f"args.{arg}: {arg!r}: {said}")


def test_run_reports_the_moved_address_in_bytes_and_elements(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(case_doc({"postMode": "POST_MODE_UPDATE", "postUpdateStride": 64}, dtype="float",
                                        addr=768, size=64)))
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "out")])
    assert got.exit_code == 0, got.output
    moved = json.loads((tmp_path / "out" / "run.json").read_text())["outputs"]["srcAddr"]
    assert moved == {"buffer": "UB", "addr": 1024, "before": 768, "offset": 256, "postUpdateStride": 64}


def test_other_load_dists_are_said_so():
    with pytest.raises(InputError) as info:
        parse_case(case_doc({"dist": "DIST_SPLT2CHN_B8"}))
    assert "not a LoadDist of LoadAlign into a RegTensor" in info.value.line()
    with pytest.raises(InputError) as info:
        parse_case(case_doc({"dist": "MaskDist::DIST_US"}))
    assert "a MaskDist value loads a MaskReg" in info.value.line()


# -- CLI ---------------------------------------------------------------------------------------------------------

def test_example_checks_and_runs(tmp_path):
    runner = CliRunner()
    got = runner.invoke(main, ["check", str(EXAMPLE)])
    assert got.exit_code == 0, got.output
    for i in range(2):
        got = runner.invoke(main, ["run", str(EXAMPLE), "--index", str(i), "-o", str(tmp_path / f"o{i}")])
        assert got.exit_code == 0, got.output
    # case 0: UNPACK_B16 of the u16 values 0, 1, ...: each followed by a zero u16; srcAddr moved by 64 x 2 bytes
    regs = json.loads((tmp_path / "o0" / "registers.json").read_text())
    assert np.array(regs["vreg"]["0"], dtype=np.uint8).view("<u2").tolist() == [x for k in range(64) for x in (k, 0)]
    run = json.loads((tmp_path / "o0" / "run.json").read_text())
    assert run["outputs"]["srcAddr"]["addr"] == 128
    # case 1: the dual load writes RegTensors 2 and 3
    regs = json.loads((tmp_path / "o1" / "registers.json").read_text())
    assert sorted(regs["vreg"]) == ["2", "3"]
    got = runner.invoke(main, ["check", str(ROOT / "examples" / "program_load_align_mask_gen.json")])
    assert got.exit_code == 0, got.output


def test_a_program_run_writes_its_registers_and_outputs(tmp_path):
    """`run` of a program writes registers.json after the last call and each call's outputs (hunt 18: the chained
    LoadAlign -> MaskGenWithRegTensor result could not be seen from the CLI)."""
    prog = {"product": "atlas-350", "dtype": "uint16",
            "tensors": {"src": {"position": "VECIN", "addr": 0, "size": 256, "data": [3] + [0] * 255}},
            "calls": [{"api": "LoadAlign", "args": {"dstReg": 5, "postMode": "POST_MODE_UPDATE", "postUpdateStride": 128},
                       "tensors": {"srcAddr": "src"}},
                      {"api": "MaskGenWithRegTensor", "args": {"dst": 1, "srcReg": 5, "offset": 0}}]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(prog))
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "out")])
    assert got.exit_code == 0, got.output
    doc = json.loads((tmp_path / "out" / "run.json").read_text())
    assert doc["registers"]["written"] == ["call 0: vreg5", "call 1: mask1"]
    assert doc["outputs"] == {"0": {"srcAddr": {"buffer": "UB", "addr": 256, "before": 0, "offset": 256,
                                                "postUpdateStride": 128}}}
    regs = json.loads((tmp_path / "out" / "registers.json").read_text())
    assert regs["vreg"]["5"][:4] == [3, 0, 0, 0]
    # the u16 3 = bits 0 and 1 of srcReg, each doubled for a 16-bit T: mask bits 0-3
    assert regs["mask"]["1"][:2] == [0b1111, 0]


def test_a_post_update_moves_the_pointer_for_the_next_call_of_a_program():
    """hunt 18's probe p11: two PostUpdate loads of one tensor both read its first 256 bytes; the vendor's loop
    (`LoadAlign<T, POST_MODE_UPDATE>(reg, src, 128)` per iteration) reads successive blocks. Now the second call
    starts where the first left srcAddr, with the elements left after it; a third runs off the tensor's end."""
    x = list(range(256))
    load = {"api": "LoadAlign", "args": {"postMode": "POST_MODE_UPDATE", "postUpdateStride": 128},
            "tensors": {"srcAddr": "x"}}
    calls = [{**load, "args": {**load["args"], "dstReg": r}} for r in range(3)]
    prog = {"product": "atlas-350", "dtype": "uint16",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 256, "data": x}}, "calls": calls[:2]}
    res = run_program(parse_program(prog))
    assert res.memory.registers.get("vreg", 0).view("<u2").tolist() == x[:128]
    assert res.memory.registers.get("vreg", 1).view("<u2").tolist() == x[128:]
    assert check_program(parse_program(prog)).valid
    prog["calls"] = calls
    over = check_program(parse_program(prog))
    assert [(v.call, v.id) for v in over.violations] == [(2, "reg_load_align_vreg.srcAddr.read")]
    assert "srcAddr.size=0 elements" in over.violations[0].message


def test_the_mask_reg_load_moves_its_pointer_too():
    """LoadAlign into a MaskReg, POST_MODE_UPDATE with offset 32 bytes (Table 3): the next call reads bytes 32..63."""
    load = {"api": "LoadAlign", "args": {"dist": "DIST_NORM", "postMode": "POST_MODE_UPDATE", "offset": 32},
            "tensors": {"srcAddr": "m"}}
    prog = {"product": "atlas-350", "dtype": "uint8",
            "tensors": {"m": {"position": "VECIN", "addr": 0, "size": 64, "data": list(range(64))}},
            "calls": [{**load, "args": {**load["args"], "mask": k}} for k in (0, 1)]}
    res = run_program(parse_program(prog))
    assert res.memory.registers.get("mask", 0).tolist() == list(range(32))
    assert res.memory.registers.get("mask", 1).tolist() == list(range(32, 64))


def test_a_pointer_stepped_before_its_tensor_is_an_error_and_a_fault():
    """review 19: a negative postUpdateStride moved the pointer down and grew the tensor, so a program read another
    tensor's bytes through it, valid and without a fault. The tensor is the region its pointer may read: a pointer
    before its start reads outside it."""
    y = {"position": "VECIN", "addr": 0, "size": 128, "data": [7] * 128}
    x = {"position": "VECIN", "addr": 256, "size": 128, "data": list(range(128))}
    back = {"api": "LoadAlign", "args": {"dstReg": 0, "postMode": "POST_MODE_UPDATE", "postUpdateStride": -128},
            "tensors": {"srcAddr": "x"}}
    prog = {"product": "atlas-350", "dtype": "uint16", "tensors": {"y": y, "x": x},
            "calls": [{"api": "LoadAlign", "args": {"dstReg": 3}, "tensors": {"srcAddr": "y"}}, back,
                      {"api": "LoadAlign", "args": {"dstReg": 1}, "tensors": {"srcAddr": "x"}}]}
    result = check_program(parse_program(prog))
    assert (2, "program.pointer.before_start") in [(v.call, v.id) for v in result.violations]
    assert "moved the pointer of tensor 'x' 256 bytes before its start" in result.violations[0].message
    run = run_program(parse_program(prog), strict=False)
    assert [f.kind for f in run.runs[2].faults] == ["out_of_bounds"]


def test_review_19_dual_loads_b64_strides_and_mask():
    # the dual load's DINTLV is run at its own width whatever T, without a warning: b64 (no DINTLV_B64 exists, the page
    # lists b64 for the dual load) and the page's LoadAlign<T, DIST_DINTLV_B8> for a 16-bit T
    assert warned(case_doc({"dstReg1": 1, "dist": "DIST_DINTLV_B32"}, dtype="int64", size=64)) == []
    assert warned(case_doc({"dstReg1": 1, "dist": "DIST_DINTLV_B8"}, dtype="half", size=256)) == []
    # b64's stride goes doubled into an int32_t: at most 2^30 - 1 elements either way
    post = {"postMode": "POST_MODE_UPDATE"}
    assert broken(case_doc({**post, "postUpdateStride": (1 << 30) - 4}, dtype="int64", size=32)) == []
    assert broken(case_doc({**post, "postUpdateStride": 1 << 30}, dtype="int64", size=32)) == \
        ["reg_load_align_vreg.postUpdateStride.b64"]
    assert broken(case_doc({**post, "postUpdateStride": 1 << 30}, dtype="int32", size=64)) == []
    with pytest.raises(InputError) as info:
        parse_case(case_doc({"mask": 0}))
    assert info.value.line().startswith("args.mask: 'mask': `mask` is the MaskReg load's destination")


def test_another_api_on_the_tensor_does_not_follow_the_pointer():
    """audit 20: a BlockReduceMin on the tensor after a PostUpdate LoadAlign read from element 128. In Ascend C the
    pointer variable moves, not the LocalTensor another API is given."""
    x = [float(i) for i in range(256)]
    prog = {"product": "atlas-350", "dtype": "half",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 256, "data": x},
                        "z": {"position": "VECOUT", "addr": 1024, "size": 16}},
            "calls": [{"api": "LoadAlign", "args": {"dstReg": 0, "postMode": "POST_MODE_UPDATE",
                                                     "postUpdateStride": 128}, "tensors": {"srcAddr": "x"}},
                      {"api": "BlockReduceMin", "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1,
                                                          "srcBlkStride": 1, "srcRepStride": 8},
                       "tensors": {"dst": "z", "src": "x"}}]}
    run = run_program(parse_program(prog))
    assert run.runs[1].tensors["dst"][:8].tolist() == [16.0 * b for b in range(8)]  # blocks of x[0:128]


@pytest.mark.parametrize("dtype", ["b64", "int64", "uint64"])
def test_the_construction_keeps_a_64_bit_post_update_stride_within_its_doubled_int32(dtype):
    """With a 64-bit T the implementation passes postUpdateStride doubled in an int32_t, so the rule
    reg_load_align_vreg.postUpdateStride.b64 allows [-2**30, 2**30 - 1]; the construction (with boundary bias: the
    int32 ends are drawn often) keeps every stride there rather than leaving ~3% of the cases to be rejected."""
    model = get_api("LoadAlignRegTensor")
    strides = []
    for seed in range(300):
        gen = strat.construction(SeededDraw(random.Random(seed)), model, ["atlas-350"], dtype, None, True, False)
        try:
            case = strat.drive(gen)
        except UnsatisfiedAssumption:
            continue
        if case.env.get("postUpdateStride.present"):
            strides.append(int(case.env["postUpdateStride"]))
            assert check_case(case).valid, (seed, case.env["postUpdateStride"])
    assert len(strides) > 30
    assert all(-2**30 <= s <= 2**30 - 1 for s in strides)
    assert min(strides) == -2**30  # the lowest end is drawn, not only values inside
