"""The Reg API register file in the core, the case's ``registers`` object, its schema, and `run`'s registers.json."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import parse_case, run_case
from ascverify.cases.registers import dumps, registers_json
from ascverify.cases.schema import validate
from ascverify.cli import main
from ascverify.core.memory import Fault, Memory, Trace
from ascverify.core.registers import Registers
from ascverify.spec.errors import InputError
from ascverify.spec.products import get_product
from ascverify.spec.registers import GEOMETRIES, mask_bits, mask_bytes

A350 = get_product("atlas-350")


def mask_gen(**extra):
    doc = {"api": "MaskGenWithRegTensor", "product": "atlas-350", "dtype": "b16", "args": {"dst": 1, "srcReg": 2,
                                                                                          "offset": 0}}
    doc.update(extra)
    return doc


def load_align(**extra):
    doc = {"api": "LoadAlign", "product": "atlas-350", "dtype": "uint8", "args": {"dist": "DIST_NORM"},
           "tensors": {"srcAddr": {"addr": 0, "size": 32}}}
    doc.update(extra)
    return doc


# -- the register file ---------------------------------------------------------------------------------------------

def test_geometry_of_atlas_350_only():
    regs = Memory.for_product(A350).registers
    assert {f: a.shape for f, a in regs.values.items()} == {"vreg": (32, 256), "mask": (8, 32), "addr": (8, 4)}
    assert GEOMETRIES["atlas-350"].vl == 256
    for p in ("atlas-a2", "atlas-a3", "atlas-training", "atlas-inference-vectorcore"):
        assert Memory.for_product(get_product(p)).registers is None


def test_bit_order_is_little_endian():
    # byte 0 = 0b0000_0110: bits 1 and 2 -> mask bits 1, 2; byte 1 = 0x80 -> mask bit 15
    bits = mask_bits([0x06, 0x80])
    assert np.flatnonzero(bits).tolist() == [1, 2, 15]
    assert mask_bytes(bits).tolist() == [0x06, 0x80]


def test_reads_check_and_record():
    memory = Memory.for_product(A350)
    trace = Trace(memory, strict=False)
    out = trace.read_register("mask", 2, what="m")
    assert out.tolist() == [0] * 32
    assert [f.kind for f in trace.faults] == ["uninitialized"]
    trace.write_register("mask", 2, np.arange(32, dtype=np.uint8), what="m")
    assert trace.read_register("mask", 2).tolist() == list(range(32))
    assert len(trace.faults) == 1
    trace.read_register("mask", 8)
    trace.write_register("vreg", -1, np.zeros(256, np.uint8))
    assert [str(f) for f in trace.faults[1:]] == [
        "out_of_bounds: read at mask8+0x0 there are 8 MaskRegs (0..7)",
        "out_of_bounds: write at vreg-1+0x0 there are 32 RegTensors (0..31)"]
    assert trace.registers_touched("read") == ["mask2", "mask8"]
    assert trace.registers_touched("write") == ["mask2", "vreg-1"]
    with pytest.raises(ValueError):
        trace.read_register("sreg", 0)  # a model bug, not a fault
    with pytest.raises(ValueError):
        trace.write_register("mask", 0, np.zeros(31, np.uint8))  # a whole register, always


def test_snapshot_is_independent():
    memory = Memory.for_product(A350)
    memory.registers.fill("addr", 1, np.array([64], dtype="<u4"))
    copy = memory.snapshot()
    memory.registers.fill("addr", 1, np.array([65], dtype="<u4"))
    assert copy.registers.get("addr", 1).view("<u4")[0] == 64
    assert copy.registers.to_json() == {"addr": {"1": 64}}


# -- the case's registers object -----------------------------------------------------------------------------------

def test_registers_round_trip_through_a_case():
    regs = {"vreg": {"2": list(range(256))}, "mask": {"7": [1] * 32}, "addr": {"0": 2**32 - 1}}
    case = parse_case(mask_gen(registers=regs))
    assert case.registers["vreg"][2].tolist() == list(range(256))
    assert case.to_json()["registers"] == regs
    assert parse_case(case.to_json()).to_json() == case.to_json()
    res = run_case(case)
    assert res.register_inputs == {"vreg2": "given", "mask7": "given", "addr0": "given"}
    after = res.memory.registers.to_json()
    assert after["vreg"] == regs["vreg"] and after["addr"] == regs["addr"] and after["mask"]["7"] == [1] * 32
    assert list(after["mask"]) == ["1", "7"]  # MaskReg 1 written by the call
    assert json.loads(dumps(after)) == after


MALFORMED = [
    ("not-an-object", [1], "registers: expected an object with vreg, mask, addr, got a list"),
    ("unknown-file", {"vregs": {}}, "registers.vregs: unknown register file 'vregs' (did you mean 'vreg'?); "
                                    "expected vreg, mask, addr"),
    ("file-not-object", {"mask": [0] * 32}, "registers.mask: expected an object of MaskReg index -> contents, got a list"),
    ("index-out-of-range", {"mask": {"8": [0] * 32}}, "registers.mask.8: MaskReg index '8' is not one of 0..7"),
    ("index-not-canonical", {"vreg": {"03": [0] * 256}}, "registers.vreg.03: RegTensor index '03' is not one of 0..31"),
    ("index-negative", {"vreg": {"-1": [0] * 256}}, "registers.vreg.-1: RegTensor index '-1' is not one of 0..31"),
    ("too-short", {"mask": {"0": [0] * 31}}, "registers.mask.0: a MaskReg holds 32 bytes; 31 values given"),
    ("not-a-byte", {"mask": {"0": [0] * 31 + [256]}}, "registers.mask.0[31]: expected a byte value 0..255, got an "
                                                      "integer (256)"),
    ("bool-byte", {"mask": {"0": [True] + [0] * 31}}, "registers.mask.0[0]: expected a byte value 0..255, got a "
                                                      "boolean (True)"),
    ("addr-negative", {"addr": {"0": -1}}, "registers.addr.0: expected an integer in [0, 4294967295] (the AddrReg's "
                                           "offset), got an integer (-1)"),
    ("vreg-string", {"vreg": {"0": "00ff"}}, "registers.vreg.0: expected a list of 256 byte values or an object "
                                             "with dtype and data, got a string"),
    ("typed-short", {"vreg": {"0": {"dtype": "half", "data": [1.0] * 127}}},
     "registers.vreg.0.data: a RegTensor holds 128 half values; 127 given"),
    ("typed-long", {"vreg": {"0": {"dtype": "int32", "data": [1] * 65}}},
     "registers.vreg.0.data: 65 data values for a tensor of size 64"),
    ("typed-unknown-dtype", {"mask": {"0": {"dtype": "halff", "data": [0] * 16}}},
     "registers.mask.0.dtype: unknown element type 'halff' (did you mean 'half'?)"),
    ("typed-missing-data", {"mask": {"0": {"dtype": "half"}}}, "registers.mask.0.data: missing"),
    ("typed-unknown-key", {"mask": {"0": {"dtype": "half", "data": [0] * 16, "size": 16}}},
     "registers.mask.0.size: unknown key 'size'; expected dtype and data"),
    ("typed-not-fitting", {"mask": {"0": {"dtype": "uint8", "data": [300] + [0] * 31}}},
     "registers.mask.0.data[0]: 300 is not a uint8 value"),
    ("typed-file-missing", {"vreg": {"0": {"dtype": "half", "data": "nope.npy"}}},
     "registers.vreg.0.data: data file 'nope.npy' not found"),
]


#: what the schema cannot see, as for tensor data: element counts and values of typed data, data files
SCHEMA_BLIND = ("typed-short", "typed-long", "typed-not-fitting", "typed-file-missing")


@pytest.mark.parametrize("name, regs, line", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_registers_one_line(tmp_path, name, regs, line):
    with pytest.raises(InputError) as info:
        parse_case(mask_gen(registers=regs))
    assert info.value.line() == line
    assert bool(validate(mask_gen(registers=regs))) == (name not in SCHEMA_BLIND)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(mask_gen(registers=regs)))
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.stderr.splitlines()[0] == f"{path}:case 0: {line}"


def test_typed_register_data(tmp_path):
    # RegTensor<half> of 128 x 1.0: half 1.0 is 0x3C00, little-endian bytes (0x00, 0x3C).
    # MaskGenWithRegTensor b16, offset 0: bytes 0..15 = (0x00, 0x3C) x 8; 0x3C = bits 2..5, so source byte 2j+1
    # gives chunk bits 16j+10..16j+13, doubled to mask bits 32j+20..32j+27: mask bytes (0x00, 0x00, 0xF0, 0x0F) x 8
    case = parse_case(mask_gen(args={"dst": 0, "srcReg": 2, "offset": 0},
                               registers={"vreg": {"2": {"dtype": "half", "data": [1.0] * 128}}}))
    assert case.registers["vreg"][2][:4].tolist() == [0x00, 0x3C, 0x00, 0x3C]
    assert run_case(case).memory.registers.get("mask", 0).tolist() == [0x00, 0x00, 0xF0, 0x0F] * 8
    assert case.to_json()["registers"]["vreg"]["2"][:2] == [0x00, 0x3C]  # written back as bytes
    # from a .npy file next to the case file, as tensor data
    np.save(tmp_path / "reg.npy", np.arange(64, dtype=np.uint32))
    doc = mask_gen(registers={"vreg": {"2": {"dtype": "uint32", "data": "reg.npy"}}})
    (tmp_path / "c.json").write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["check", str(tmp_path / "c.json")])
    assert r.exit_code == 0, r.output
    assert validate(doc) == []


def test_registers_on_a_product_without_register_file():
    doc = load_align(product="atlas-a2", registers={"mask": {"0": [0] * 32}})
    with pytest.raises(InputError) as info:
        parse_case(doc)
    assert info.value.line() == "registers: atlas-a2 has no Reg API register file (only atlas-350 has one)"
    assert any(p.startswith("$.product: ") for p in validate(doc))


def test_schema_accepts_what_caseio_reads():
    ok = [mask_gen(), mask_gen(registers={"vreg": {"2": [7] * 256, "31": [0] * 256}, "mask": {}, "addr": {"7": 5}}),
          load_align(), load_align(args={"dist": "DIST_US", "addrReg": {"strides": [1, 2], "indices": [3, 4]}}),
          load_align(args={"dist": "DIST_DS", "postMode": "POST_MODE_UPDATE", "offset": -64}),
          load_align(product="ascend-950dt", registers={"mask": {"0": [255] * 32}})]
    for doc in ok:
        assert validate(doc) == [], doc
        parse_case(doc)


def test_tensors_may_be_left_out_only_without_tensor_operands():
    assert parse_case(mask_gen()).to_json()["tensors"] == {}
    doc = load_align()
    del doc["tensors"]
    with pytest.raises(InputError) as info:
        parse_case(doc)
    assert info.value.line() == "tensors: missing"
    assert "$: 'tensors' is a required property" in validate(doc)


# -- run -----------------------------------------------------------------------------------------------------------

def test_run_writes_registers_json_in_the_input_shape(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(mask_gen(args={"dst": 1, "srcReg": 2, "offset": 3})))
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(path), "--seed", "4", "-o", str(out)])
    assert r.exit_code == 0, r.output
    regs = json.loads((out / "registers.json").read_text())
    assert list(regs) == ["vreg", "mask"] and list(regs["vreg"]) == ["2"] and list(regs["mask"]) == ["1"]
    doc = json.loads((out / "run.json").read_text())
    assert doc["registers"]["loaded"] == {"vreg2": "generated"}
    # the generated source, given back as the case's registers, gives the same mask
    again = mask_gen(args={"dst": 1, "srcReg": 2, "offset": 3}, registers={"vreg": regs["vreg"]})
    path.write_text(json.dumps(again))
    r = CliRunner().invoke(main, ["run", str(path), "--seed", "9", "-o", str(tmp_path / "o2")])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "o2" / "registers.json").read_text()) == regs


def test_run_without_registers_writes_none(tmp_path):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "bilinear_interpolation.json"
    out = tmp_path / "out"
    (out).mkdir()
    (out / "registers.json").write_text("{}")  # stale, from an earlier run, which listed it in its run.json
    (out / "run.json").write_text(json.dumps({"format": "ascverify-run/1", "files": ["registers.json", "run.json"]}))
    r = CliRunner().invoke(main, ["run", str(example), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert not (out / "registers.json").exists()
    doc = json.loads((out / "run.json").read_text())
    assert doc["registers"] is None and doc["outputs"] == {}


def test_registers_json_helper_orders_files_and_indices():
    contents = {"mask": {3: np.zeros(32, np.uint8), 0: np.ones(32, np.uint8)}, "addr": {2: np.array([1, 1, 0, 0],
                                                                                                  np.uint8)}}
    assert registers_json(contents) == {"mask": {"0": [1] * 32, "3": [0] * 32}, "addr": {"2": 257}}
    assert Registers(GEOMETRIES["atlas-350"]).to_json() == {}
