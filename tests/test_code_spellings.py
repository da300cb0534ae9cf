"""Names as kernel code spells them: enum values qualified by their type (Ascend C's ``AscendC::MaskMode::COUNTER``,
``TPosition::VECIN``; pyasc's ``asc.MaskMode.COUNTER``) and pyasc's element types (``asc.float16``) read as the bare
names; anything else stays bad input naming the field."""

from __future__ import annotations

import pytest

from ascverify import InputError, parse_case

BRM = {"api": "BlockReduceMax", "product": "atlas-a2", "dtype": "half",
       "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
       "tensors": {"dst": {"position": "VECOUT", "addr": 512, "size": 16},
                   "src": {"position": "VECIN", "addr": 0, "size": 128}}}


def svm(mode, dtype="half"):
    return {"api": "set_vector_mask", "product": "atlas-a2", "dtype": dtype, "args": {"mask": 8, "mode": mode}}


@pytest.mark.parametrize("spelled", ["COUNTER", "MaskMode::COUNTER", "AscendC::MaskMode::COUNTER",
                                     "asc.MaskMode.COUNTER"])
def test_a_qualified_enum_value_is_the_value(spelled):
    assert parse_case(svm(spelled)).env == parse_case(svm("COUNTER")).env


@pytest.mark.parametrize("spelled", ["Foo::COUNTER", "MaskMode::BOTH", "MaskMode.", "counter", 1])
def test_anything_else_is_bad_input_naming_the_field(spelled):
    with pytest.raises(InputError) as err:
        parse_case(svm(spelled))
    assert err.value.field == "args.mode"


def test_positions_and_pyasc_types():
    doc = {**BRM, "tensors": {"dst": {**BRM["tensors"]["dst"], "position": "TPosition::VECOUT"},
                              "src": {**BRM["tensors"]["src"], "position": "AscendC::TPosition::VECIN"}}}
    assert parse_case(doc).env == parse_case(BRM).env
    assert parse_case(svm("NORMAL", dtype="asc.float16")).ctx.dtype.name == "half"
    with pytest.raises(InputError) as err:
        parse_case({**BRM, "tensors": {**BRM["tensors"], "dst": {**BRM["tensors"]["dst"], "position": "Pos::VECOUT"}}})
    assert err.value.field == "tensors.dst.position"
