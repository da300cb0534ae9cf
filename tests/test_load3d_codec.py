"""Load3DBitModeParam's bit fields (ascverify.models.codec) and the `decode` / `encode` commands."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from ascverify.cli import main
from ascverify.models.codec import (
    BITFIELDS,
    CONFIG0,
    CONFIG1,
    CodecError,
    Load3DBitModeParam,
    decode,
    encode,
    from_v2_names,
)

# The page example's fields (C1 = 2 -> 32 channels, Kh = Kw = 2, dilation 2, stride 1, the whole 16 x 128 matrix).
EXAMPLE = {"kStep": 128, "mStep": 16, "kPos": 0, "mPos": 0, "strideW": 1, "strideH": 1, "Wk": 2, "Hk": 2,
           "dilationW": 2, "dilationH": 2, "filterW": False, "filterH": False, "transpose": False,
           "fmatrixCtrl": False, "sizeChannel": 32}
# config0 = kStep | mStep << 16 = 128 + 16 * 65536
EXAMPLE_C0 = 128 + (16 << 16)
# config1 = strideW | strideH << 6 | Wk << 12 | Hk << 20 | dilationW << 28 | dilationH << 36 | sizeChannel << 48
EXAMPLE_C1 = 1 + (1 << 6) + (2 << 12) + (2 << 20) + (2 << 28) + (2 << 36) + (32 << 48)


def invoke(*argv: str):
    return CliRunner().invoke(main, list(argv))


def test_layout_fills_each_word_exactly_once():
    for word in (CONFIG0, CONFIG1):
        masks = [f.mask for f in word]
        assert sum(masks) == 2**64 - 1  # all 64 bits ...
        for i, a in enumerate(masks):
            assert all(a & b == 0 for b in masks[i + 1:])  # ... each in one field
    assert [f.width for f in CONFIG1] == [6, 6, 8, 8, 8, 8, 1, 1, 1, 1, 16]
    assert [(f.name, f.lo) for f in CONFIG0] == [("kStep", 0), ("mStep", 16), ("kPos", 32), ("mPos", 48)]


def test_example_words_by_hand():
    assert EXAMPLE_C0 == 0x100080 and EXAMPLE_C1 == 0x0020_0020_2020_2041
    assert encode(EXAMPLE) == (EXAMPLE_C0, EXAMPLE_C1)
    assert decode(EXAMPLE_C0, EXAMPLE_C1) == EXAMPLE


def test_flags_and_the_top_field():
    # filterW is bit 44, filterH 45, transpose 46, fmatrixCtrl 47 of config1; sizeChannel = 65535 fills bits 48..63
    assert encode({"filterW": True}) == (0, 1 << 44)
    assert encode({"fmatrixCtrl": True, "transpose": True}) == (0, (1 << 47) | (1 << 46))
    assert encode({"sizeChannel": 65535, "mPos": 65535}) == (0xFFFF << 48, 0xFFFF << 48)
    assert decode(0, 1 << 45)["filterH"] is True and decode(0, 1 << 45)["filterW"] is False


field_values = st.fixed_dictionaries({f.name: (st.booleans() if f.is_flag else st.integers(0, f.hi)) for f in BITFIELDS})


@settings(max_examples=300, deadline=None)
@given(field_values)
def test_decode_encode_round_trip(fields):
    assert decode(*encode(fields)) == fields


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_every_pair_of_words_decodes_within_the_widths(c0, c1):
    fields = decode(c0, c1)
    for f in BITFIELDS:
        v = fields[f.name]
        assert isinstance(v, bool) if f.is_flag else 0 <= v <= f.hi
    assert encode(fields) == (c0, c1)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([f for f in BITFIELDS if not f.is_flag]), st.integers(1, 2**20))
def test_values_beyond_a_width_are_refused(f, extra):
    with pytest.raises(CodecError, match=f"{f.name}="):
        encode({f.name: f.hi + extra})
    with pytest.raises(CodecError):
        Load3DBitModeParam().set(f.name, -extra)


def test_words_outside_uint64_are_refused():
    for bad in (-1, 2**64, True, "1"):
        with pytest.raises(CodecError):
            decode(bad, 0)
        with pytest.raises(CodecError):
            Load3DBitModeParam(0, bad)


def test_page_accessors_touch_only_their_bits():
    p = Load3DBitModeParam(2**64 - 1, 2**64 - 1)
    p.SetKStartPt(0x1234)  # kPos: config0 bits 32..47
    assert p.GetKStartPt() == 0x1234
    assert p.GetConfig0() == (2**64 - 1) & ~(0xFFFF << 32) | (0x1234 << 32)
    p.SetFilterSizeW(False)  # filterW flag: config1 bit 44
    assert p.config1 == (2**64 - 1) & ~(1 << 44)
    p.SetFilterW(3)  # Wk (kernel width): config1 bits 12..19
    assert p.GetFilterW() == 3 and p.get("Wk") == 3
    names = {n for n in dir(Load3DBitModeParam) if n.startswith(("Get", "Set"))}
    for stem in ("KExtension", "MExtension", "KStartPt", "MStartPt", "StrideW", "StrideH", "FilterW", "FilterH",
                 "DilationFilterW", "DilationFilterH", "FilterSizeW", "FilterSizeH", "Transpose", "FmatrixCtrl",
                 "ChannelSize"):
        assert {f"Get{stem}", f"Set{stem}"} <= names


def test_from_v2_uses_the_struct_defaults():
    # all defaults: strideW = strideH = filterW = filterH = dilationFilterW = dilationFilterH = 1, the rest 0
    p = Load3DBitModeParam.from_v2({})
    assert p.config0 == 0
    assert p.config1 == 1 + (1 << 6) + (1 << 12) + (1 << 20) + (1 << 28) + (1 << 36)
    # the example through the LoadData3DParamsV2 names; l1H/l1W/padList/padValue have no bit field
    v2 = {"kExtension": 128, "mExtension": 16, "filterW": 2, "filterH": 2, "dilationFilterW": 2,
          "dilationFilterH": 2, "channelSize": 32, "l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1], "padValue": 0}
    p = Load3DBitModeParam.from_v2(v2)
    assert (p.config0, p.config1) == (EXAMPLE_C0, EXAMPLE_C1)
    assert p.to_v2()["filterSizeW"] is False and p.to_v2()["filterW"] == 2
    assert Load3DBitModeParam.from_fields(**EXAMPLE) == p
    with pytest.raises(CodecError):
        from_v2_names({"kStep": 1})  # a page name is not a LoadData3DParamsV2 member


# -- the commands ---------------------------------------------------------------------------------------------------

def test_decode_prints_every_field():
    r = invoke("decode", "load3d", hex(EXAMPLE_C0), str(EXAMPLE_C1))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "config0 = 0x0000000000100080 (1048704)"
    rows = {ln.split()[0]: ln.split()[1] for ln in lines[2:]}
    assert rows == {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in EXAMPLE.items()}
    doc = json.loads(invoke("decode", "Load3DBitModeParam", "1048704", hex(EXAMPLE_C1), "--format", "json").stdout)
    assert doc["fields"] == EXAMPLE and doc["config1"] == EXAMPLE_C1 and doc["v2_names"]["Wk"] == "filterW"


def test_encode_prints_both_words():
    r = invoke("encode", "load3d", *(f"{k}={str(v).lower()}" for k, v in EXAMPLE.items()))
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["config0 = 0x0000000000100080 (1048704)",
                                     f"config1 = 0x0020002020202041 ({EXAMPLE_C1})"]
    # LoadData3DParamsV2 names: the struct's defaults fill the rest (strides 1), filterW is the kernel width
    r = invoke("encode", "load3d", "kExtension=0x80", "mExtension=16", "filterW=2", "filterH=2", "dilationFilterW=2",
               "dilationFilterH=2", "channelSize=32", "--format", "json")
    doc = json.loads(r.stdout)
    assert (doc["config0"], doc["config1"], doc["naming"]) == (EXAMPLE_C0, EXAMPLE_C1, "LoadData3DParamsV2")
    # only shared names: filterW=3 is a kernel width, filterW=true the +256 flag
    assert json.loads(invoke("encode", "load3d", "filterW=3", "--format", "json").stdout)["naming"] == "LoadData3DParamsV2"
    assert json.loads(invoke("encode", "load3d", "filterW=true", "--format", "json").stdout)["config1"] == 1 << 44


@pytest.mark.parametrize("argv, says", [
    (["decode", "load3d", "0x1", "zz"], "CONFIG1: expected an integer"),
    (["decode", "load3d", "0", str(2**64)], "outside uint64"),
    (["decode", "lod3d", "0", "0"], "did you mean 'load3d'?"),
    (["encode", "load3d", "kStep=65536"], "kStep=65536 does not fit its 16 bits"),
    (["encode", "load3d", "strideW=64"], "strideW=64 does not fit its 6 bits"),
    (["encode", "load3d", "kStpe=1"], "did you mean 'kStep'?"),
    (["encode", "load3d", "kStep=1", "kExtension=2"], "use one naming"),
    (["encode", "load3d", "kStep"], "expected NAME=VALUE"),
    (["encode", "load3d", "transpose=2"], "1-bit flag"),
    (["encode", "load3d", "kStep=1", "kStep=2"], "given twice"),
    # no field at all: which naming (zeros or the struct's defaults) is meant is unknown (audit 16 printed zeros)
    (["encode", "load3d"], "Missing argument 'NAME=VALUE...'"),
])
def test_bad_input_is_one_line_exit_2(argv, says):
    r = invoke(*argv)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr
