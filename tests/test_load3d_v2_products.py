"""Load3DBitMode on the products where the vendor documents the LoadData3DParamsV2 load but ascverify does not model it
(spec note load3d.products-v2): accepted with a warning, checked by the rules the vendor's LoadData page states for
those products, run with all of dst unspecified.

Expected values come from the vendor's LoadData page (asc-devkit docs/.../LoadData_3D.md): Product support of the v2
interface (Ascend 950, Atlas A3, Atlas A2, Atlas 200I/500 A2, inference AI Core: supported; inference Vector Core and
the training series: not), its Data types section (A1/A2: int4b_t, int8_t, uint8_t, half, bfloat16_t, int32_t,
uint32_t, float; B1/B2: half, bfloat16_t, int32_t, uint32_t, float; inference AI Core: int4b_t, int8_t, uint8_t, half),
its Restrictions (A3/A2: L1 -> L0B takes no b4/b8, the transposed L1 -> L0A no b8; dst 512-byte aligned in L0A/L0B)
and Table 4 (kExtension, mExtension, l1H, l1W = 0: a NOP).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import InputError, check_case, check_cases, get_api, parse_case, run_case
from ascverify.cli import main
from ascverify.core.unspecified import unspecified_elements
from ascverify.spec.dtypes import get_dtype

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "load3d_example.json"
MODEL = get_api("Load3DBitMode")
V2_PRODUCTS = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")


def example(product: str = "atlas-a2", dtype: str = "half", **args) -> dict:
    """The shipped example on ``product`` with type ``dtype`` (its data dropped: the type changes), args overridden."""
    doc = json.loads(EXAMPLE.read_text())
    doc["tensors"]["src"].pop("data", None)
    doc["product"], doc["dtype"] = product, dtype
    for k, v in args.items():
        if v is None:
            doc["args"].pop(k, None)  # fmatrix=None: no feature map (its channel count depends on the type)
        else:
            doc["args"][k] = v
    return doc


def verdict(doc: dict) -> tuple[list[str], list[str]]:
    result = check_case(parse_case(doc))
    return [v.id for v in result.violations], [w.id for w in result.warnings]


def to_b2(doc: dict) -> dict:
    doc["tensors"]["dst"]["position"], doc["tensors"]["src"]["position"] = "B2", "B1"
    return doc


@pytest.mark.parametrize("product", V2_PRODUCTS)
def test_accepted_unmodelled_where_the_vendor_documents_v2(product):
    # the example's 32 half channels are not among the inference AI Core's (4, 8, 16, N*16+4, N*16+8): 36 there,
    # the same two channel groups
    channels = {"sizeChannel": 36} if product == "atlas-inference-aicore" else {}
    errors, warnings = verdict(example(product, **channels))
    assert errors == [] and "load3d.product.modelled" in warnings


def test_the_inference_ai_core_s_channel_counts_are_its_own():
    """The LoadData page (channelSize, Atlas inference series AI Core): half 4, 8, 16, N*16+4, N*16+8; int8_t / uint8_t
    4, 8, 16, 32, N*32+4, N*32+8, N*32+16; int4b_t 8, 16, 32, N*64, N*64+8, N*64+16, N*64+32 (N >= 1); the vendor's
    2002 debug check the same. Half 32 and 48, legal on the A2 family, are not there."""
    for dtype, ok, bad in (("half", (4, 8, 16, 20, 24, 36, 40), (32, 48, 12, 28)),
                           ("int8", (4, 8, 16, 32, 36, 40, 48), (64, 24, 96)),
                           ("int4b", (8, 16, 32, 64, 72, 80, 96, 128), (4, 24, 48, 100))):
        for channels in ok + bad:
            errors = verdict(example("atlas-inference-aicore", dtype, fmatrix=None, sizeChannel=channels))[0]
            assert ("load3d.v2.sizeChannel.aicore" in errors) == (channels in bad), (dtype, channels, errors)
    assert "load3d.v2.sizeChannel.aicore" not in verdict(example("atlas-a2", fmatrix=None, sizeChannel=32))[0]


def test_l1h_past_32767_is_an_error_where_l1_would_hold_it():
    """The page's Table 4: l1H, l1W in [0, 32767]; on atlas-200i-500-a2 (1 MB of L1) a 32768 x 1 map of 16 halves fits,
    so only the range says no."""
    doc = example("atlas-200i-500-a2", sizeChannel=16, fmatrix={"l1H": 32768, "l1W": 1, "padList": [0, 0, 0, 0],
                                                                "padValue": 0})
    doc["tensors"]["src"]["size"] = 32768 * 16
    errors = verdict(doc)[0]
    assert "load3d.v2.l1H.range" in errors, errors
    doc["args"]["fmatrix"]["l1H"] = 32767
    assert "load3d.v2.l1H.range" not in verdict(doc)[0]


def test_m_start_off_16_is_the_debug_check_s_warning():
    """The vendor's debug check (CheckLoadData3dv2MatrixParams) wants mStartPt % 16 == 0 for half / 8-bit types on A2,
    A3 and the inference AI Core; the page gives only the range: a warning."""
    errors, warnings = verdict(example("atlas-a2", mPos=8))
    assert errors == [] and "load3d.v2.mPos.multiple" in warnings
    assert "load3d.v2.mPos.multiple" not in verdict(example("atlas-a2", mPos=16))[1]


@pytest.mark.parametrize("product", ("atlas-inference-vectorcore", "atlas-training"))
def test_refused_where_the_vendor_marks_v2_unsupported(product):
    errors, warnings = verdict(example(product))
    assert "load3d.product.support" in errors and "load3d.product.modelled" not in warnings


def test_modelled_product_draws_no_modelled_warning():
    errors, warnings = verdict(example("atlas-350"))
    assert errors == [] and "load3d.product.modelled" not in warnings


@pytest.mark.parametrize("product,dtype,ok", [
    ("atlas-a2", "bfloat16", True), ("atlas-a2", "float", True), ("atlas-a2", "int8", True),
    ("atlas-a2", "fp8_e4m3fn", False), ("atlas-a2", "hifloat8", False), ("atlas-a3", "fp8_e5m2", False),
    ("atlas-200i-500-a2", "uint32", True),
    ("atlas-inference-aicore", "int8", True), ("atlas-inference-aicore", "bfloat16", False),
    ("atlas-inference-aicore", "float", False),
    # int4b_t: listed for A1/A2 on the A2 family and the inference AI Core; not among page 002's ten types
    ("atlas-a2", "int4b", True), ("atlas-inference-aicore", "int4b", True), ("atlas-350", "int4b", False),
])
def test_types_are_the_data_type_section_s(product, dtype, ok):
    errors, _ = verdict(example(product, dtype, fmatrix=None))
    assert ("load3d.dtype.support" not in errors) == ok


@pytest.mark.parametrize("product,dtype,ok", [
    ("atlas-a2", "int8", False), ("atlas-a3", "uint8", False), ("atlas-200i-500-a2", "int8", False),
    ("atlas-a2", "int4b", False), ("atlas-a2", "half", True), ("atlas-a2", "float", True),
    # the inference AI Core's list has no per-path split; atlas-350's bit-mode load takes 8-bit types into B2
    ("atlas-inference-aicore", "int8", True), ("atlas-350", "int8", True),
])
def test_no_8_bit_type_into_b2_on_the_a2_family(product, dtype, ok):
    errors, _ = verdict(to_b2(example(product, dtype, fmatrix=None)))
    assert ("load3d.dtype.b2" not in errors) == ok, errors


@pytest.mark.parametrize("product,dtype,ok", [
    ("atlas-a2", "int8", False), ("atlas-a3", "uint8", False),
    ("atlas-a2", "half", True), ("atlas-a2", "float", True),
    # the restriction names A3 and A2 only; atlas-350 transposes b8 into L0A (LoadData page: b8/b16/b32 on 950)
    ("atlas-200i-500-a2", "int8", True), ("atlas-350", "int8", True),
])
def test_no_transposed_8_bit_load_into_a2_on_a3_a2(product, dtype, ok):
    errors, _ = verdict(example(product, dtype, fmatrix=None, transpose=True))
    assert ("load3d.transpose.b8" not in errors) == ok, errors


def test_zero_extents_are_a_nop_on_v2_products_and_an_error_in_bit_mode():
    """Table 4: kExtension = 0 (or mExtension, l1H, l1W) makes the V2 call a NOP; page 002 gives kStep in [1, 65535]."""
    for field in ("kStep", "mStep"):
        assert verdict(example("atlas-a2", **{field: 0}))[0] == []
        assert f"load3d.{field}.range" in verdict(example("atlas-350", **{field: 0}))[0]
    doc = example("atlas-a2")
    doc["args"]["fmatrix"]["l1H"] = 0
    assert verdict(doc)[0] == []
    doc["product"] = "atlas-350"
    assert "load3d.fmatrix.l1H.range" in verdict(doc)[0]


def test_the_rules_the_page_states_still_hold_there():
    moved = example("atlas-a2")
    moved["tensors"]["dst"]["addr"] = 256  # 'the destination in L0A/L0B must be 512-byte aligned'
    assert verdict(moved)[0] == ["load3d.dst.align"]
    path = example("atlas-a2")
    path["tensors"]["src"]["position"] = "B1"  # data paths L1 -> L0A, L1 -> L0B
    assert verdict(path)[0] == ["load3d.path"]
    assert verdict(example("atlas-a2", fmatrixCtrl=True))[0] == ["load3d.fmatrixCtrl.false"]
    # half: kStartPt a multiple of 16, channelSize one of 4, 8, N*16, N*16+4, N*16+8
    assert "load3d.kPos.multiple" in verdict(example("atlas-a2", kPos=8))[0]
    assert "load3d.sizeChannel.values" in verdict(example("atlas-a2", sizeChannel=12))[0]
    # the inference AI Core lists other channel counts (4, 8, 16, N*16+4, N*16+8 for half): not checked there
    assert "load3d.sizeChannel.values" not in verdict(example("atlas-inference-aicore", sizeChannel=12))[0]


def test_layout_rules_are_not_in_force_where_the_layout_is_not_modelled():
    on_a2 = {r.id for r in MODEL.rules_for("atlas-a2")}
    on_350 = {r.id for r in MODEL.rules_for("atlas-350")}
    layout = {"load3d.dst.output_bounds", "load3d.dstStride.overlap", "load3d.window.m_bounds",
              "load3d.window.k_bounds", "load3d.repeat.partial", "load3d.dst.size"}
    assert layout <= on_350 and not layout & on_a2
    assert {"load3d.dtype.b2", "load3d.transpose.b8"} <= on_a2 and not {"load3d.dtype.b2", "load3d.transpose.b8"} & on_350


def test_run_marks_all_of_dst_unspecified_and_reads_nothing():
    doc = example("atlas-a2")
    case = parse_case(doc)
    res = run_case(case)
    dst = case.tensor("dst")
    assert not res.faults
    assert res.trace.regions("write", dst.buffer) == [(dst.addr, dst.addr + dst.nbytes)]
    assert not res.trace.regions("read", "L1")
    assert unspecified_elements(res.memory, dst.buffer, dst.addr, dst.size, dst.dtype).all()
    # on atlas-350 the same call computes its window: defined values, the feature map read
    case350 = parse_case(example("atlas-350"))
    res350 = run_case(case350)
    dst = case350.tensor("dst")
    assert res350.trace.regions("read", "L1")
    assert not unspecified_elements(res350.memory, dst.buffer, dst.addr, dst.size, dst.dtype).all()


def test_run_from_the_cli_says_why_the_output_is_unspecified(tmp_path):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(example("atlas-a2")))
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", "-o", str(out), str(path)])
    assert r.exit_code == 0, r.output
    assert "load3d.product.modelled" in r.output and "unspecified" in r.output
    marks = np.load(out / "dst.unspecified.npy")
    assert marks.all()


@pytest.mark.parametrize("command", (["gen", "--mode", "random", "-n", "1"], ["synth", "-n", "1"]))
def test_drawing_cases_there_says_not_modelled(tmp_path, command):
    r = CliRunner().invoke(main, [*command, "--product", "atlas-a2", "-o", str(tmp_path / "o"), "Load3DBitMode"])
    assert r.exit_code == 2
    assert "not modelled on atlas-a2" in r.output and "Traceback" not in r.output


def test_rules_lists_what_is_checked_there():
    r = CliRunner().invoke(main, ["rules", "Load3DBitMode", "--product", "atlas-a2", "--format", "json"])
    assert r.exit_code == 0, r.output
    ids = {x["id"] for x in json.loads(r.output)["rules"]}
    assert "load3d.product.modelled" in ids and "load3d.dst.output_bounds" not in ids
    r = CliRunner().invoke(main, ["rules", "Load3DBitMode", "--product", "atlas-training"])
    assert r.exit_code == 2 and "not supported on atlas-training" in r.output


def test_load_data_with_stride_stays_refused_off_atlas_350():
    """Page 003 documents LoadDataWithStride on Ascend 950 only; the A2 family's V2 load is LoadData, not it."""
    ldws = get_api("LoadDataWithStride")
    assert not ldws.unmodelled
    assert "load_data_with_stride.product.support" in {r.id for r in ldws.rules_for("atlas-a2")}
    assert "load_data_with_stride.product.modelled" not in {r.id for r in ldws.rules}


def test_support_lists_the_v2_products_as_not_modelled():
    r = CliRunner().invoke(main, ["support", "--format", "json"])
    assert r.exit_code == 0, r.output
    by_api = {a["api"]: a for a in json.loads(r.output)["apis"]}
    load3d = by_api["Load3DBitMode"]
    assert set(load3d["not_modelled"]) == set(V2_PRODUCTS)
    assert load3d["not_modelled"]["atlas-inference-aicore"]["types"] == ["int4b", "int8", "uint8", "half"]
    assert load3d["support"]["atlas-a2"] == [] and by_api["LoadDataWithStride"]["not_modelled"] == {}
    text = CliRunner().invoke(main, ["support"], env={"COLUMNS": "100"}).output
    block = text.split("Load3DBitMode\n", 1)[1].split("\nSetFmatrix", 1)[0]
    assert "not modelled" in block and "not supported: atlas-inference-vectorcore, atlas-training" in block


@pytest.mark.parametrize("field,value,words", [
    ("kStep", 0, "kStep=0 (kExtension)"), ("mStep", 0, "mStep=0 (mExtension)"),
    ("sizeChannel", 0, "sizeChannel=0 (channelSize)"),
    ("Wk", 0, "Wk=0 without filterW (filterW=0 without filterSizeW)"),
])
def test_a_zero_the_page_calls_a_nop_is_a_warning_and_moves_nothing(field, value, words):
    """Table 4: kExtension / mExtension / channelSize / l1H / l1W = 0, and filterW = 0 without filterSizeW, make the
    V2 call a NOP: no error, the warning v2.nop, and `run` leaves dst as it was (no store, nothing unspecified)."""
    doc = example("atlas-a2", **{field: value})
    result = check_case(parse_case(doc))
    assert result.valid
    nop = [w for w in result.warnings if w.id == "load3d.v2.nop"]
    assert len(nop) == 1 and words in nop[0].message
    res = run_case(parse_case(doc))
    assert not res.faults and not res.trace.regions("write", "L0A") and not res.trace.regions("read", "L1")
    # a NOP reads nothing: a src of one 32-byte block is no error for it (load3d.products-v2, as load3d.nop), while
    # the same src under the call that moves data is too small for the channel groups its window reads
    tiny = {**doc, "tensors": {**doc["tensors"], "src": {**doc["tensors"]["src"], "size": 16}}}
    assert verdict(tiny)[0] == [] and "load3d.v2.nop" in verdict(tiny)[1]
    moving = example("atlas-a2")
    moving["tensors"]["src"]["size"] = 16
    assert "load3d.src.footprint_window" in verdict(moving)[0]
    # with Wk = 0 and filterW set the kernel is 256 wide: not a NOP
    if field == "Wk":
        assert "load3d.v2.nop" not in verdict(example("atlas-a2", Wk=0, filterW=True))[1]


def test_a_zero_feature_map_side_is_a_nop_and_on_atlas_350_only_in_the_v2_form():
    doc = example("atlas-a2")
    doc["args"]["fmatrix"]["l1W"] = 0
    assert "load3d.v2.nop" in verdict(doc)[1]
    # atlas-350: the LoadData page's NOP for the LoadData3DParamsV2 form (defaultConfig given), page 002's range from
    # 1 for the bit-mode form (spec note load3d.zero-nop-350)
    v2 = {**doc, "product": "atlas-350", "args": {**doc["args"], "defaultConfig": {"isSetFMatrix": False}}}
    assert verdict(v2)[0] == [] and "load3d.v2.nop" in verdict(v2)[1]
    bit = {**doc, "product": "atlas-350"}
    assert "load3d.fmatrix.l1W.range" in verdict(bit)[0] and "load3d.v2.nop" not in verdict(bit)[1]


def test_int4_channel_counts_and_k_multiples_are_the_page_s():
    """int4b_t (64 elements to 32 bytes): channelSize 8, 16, 32, N*64, N*64+8, N*64+16, N*64+32; kStartPt a multiple
    of 64 (the LoadData page, V2)."""
    for channels, ok in ((8, True), (16, True), (32, True), (64, True), (72, True), (96, True), (4, False),
                         (24, False), (40, False), (48, False), (80, True), (100, False)):
        errors = verdict(example("atlas-a2", "int4b", fmatrix=None, sizeChannel=channels))[0]
        assert ("load3d.sizeChannel.values" not in errors) == ok, (channels, errors)
    assert "load3d.kPos.multiple" in verdict(example("atlas-a2", "int4b", fmatrix=None, kPos=32))[0]
    assert "load3d.kPos.multiple" not in verdict(example("atlas-a2", "int4b", fmatrix=None, kPos=64))[0]


def test_src_holds_the_channel_groups_the_k_window_reads():
    """The vendor's 910B1 / 310B loaddata tests (test_operator_loaddata.cpp) size L1 for the channel groups their
    kExtension reads, not for ceil(channelSize / C0) of them. Column k of the img2col matrix is in channel group
    k // (Kh*Kw*C0): the example (half, C0 = 16, kernel 2 x 2, 32 channels = 2 groups of 64 columns, l1H = l1W = 4)
    with kStep = 64 from kPos = 0 reads group 0 only: 1 x 4 x 4 x 16 = 256 elements; from kPos = 64, group 1 too."""
    def verdict_with(src_size, **args):
        doc = example("atlas-a2", **args)
        doc["tensors"]["src"]["size"] = src_size
        return verdict(doc)

    errors, warnings = verdict_with(256, kStep=64)
    assert "load3d.src.footprint_window" not in errors and "load3d.src.footprint.unreached" in warnings
    errors, warnings = verdict_with(255, kStep=64)
    # the window reads past src: the error says so, and the warning that "the K window reads none of the channel
    # groups past src" is not drawn beside it (hunt 17: the vendor's fixpipe tests drew both)
    assert "load3d.src.footprint_window" in errors and "load3d.src.footprint.unreached" not in warnings
    assert "load3d.src.footprint_window" in verdict_with(256, kStep=64, kPos=64)[0]
    errors, warnings = verdict_with(512, kStep=64, kPos=64)
    assert not errors and "load3d.src.footprint.unreached" not in warnings
    # atlas-350's bit-mode load keeps the whole feature map's footprint (page 002 / SetFmatrix)
    doc = example("atlas-350", kStep=64)
    doc["tensors"]["src"]["size"] = 256
    assert "load3d.src.footprint" in verdict(doc)[0]


def test_an_int4_tensor_spans_half_a_byte_per_element():
    """int4b_t packs two elements per byte (the vendor's LoadDataWithTranspose page: "two int4b_t values make one
    int8_t or uint8_t"): 2048 elements take 1024 bytes, so a dst of 2048 at L0A byte 64512 ends at 65536, the end
    of the 64 KiB L0A, and 2049 or 2050 elements (1025 bytes) leave it. Checked one case at a time and batched."""
    def doc(size):
        d = example("atlas-inference-aicore", "int4b", fmatrix=None)
        d["tensors"]["dst"].update(addr=64512, size=size)
        return d

    fits, over, odd = (parse_case(doc(n)) for n in (2048, 2050, 2049))
    assert "load3d.dst.bounds" not in [v.id for v in check_case(fits).violations]
    for case in (over, odd):
        bounds = [v for v in check_case(case).violations if v.id == "load3d.dst.bounds"]
        assert bounds and "[64512, 65537)" in bounds[0].message, bounds
    batched = check_cases([fits, over, odd])
    assert ["load3d.dst.bounds" in [v.id for v in r.violations] for r in batched] == [False, True, True]


def test_int4_elements_are_packed_low_nibble_first_in_memory_and_in_bin_files(tmp_path):
    """The page's example: 6 and 7 make 0b0111_0110 = 118 (7 in the high half, 6 in the low). Inline data of an
    int4b_t tensor is read in -8..7; run's NAME.bin holds the packed bytes a buffer holds, NAME.npy one value per
    element."""
    int4 = get_dtype("int4b")
    assert list(int4.to_bytes(np.array([6, 7]))) == [0b0111_0110]
    values = np.arange(-8, 8)
    packed = int4.to_bytes(values)
    assert list(packed) == [(lo & 0xF) | ((hi & 0xF) << 4) for lo, hi in zip(values[::2], values[1::2])]
    assert list(int4.from_bytes(packed, 16)) == list(values)
    assert int4.nbytes(5) == 3 and list(int4.from_bytes(int4.to_bytes([1, -2, 3, -4, 5]), 5)) == [1, -2, 3, -4, 5]

    d = example("atlas-inference-aicore", "int4b", fmatrix=None)
    n = d["tensors"]["src"]["size"]
    d["tensors"]["src"]["data"] = [8] + [0] * (n - 1)
    with pytest.raises(InputError) as err:
        parse_case(d).data("src")
    assert err.value.field == "tensors.src.data[0]"

    d["tensors"]["src"]["data"] = [((i % 16) - 8) for i in range(n)]
    path = tmp_path / "case.json"
    path.write_text(json.dumps(d))
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "out")])
    assert got.exit_code == 0, got.output
    src_npy = np.load(tmp_path / "out" / "src.npy")
    assert src_npy.dtype == np.int8 and list(src_npy[:16]) == list(range(-8, 8))
    raw = (tmp_path / "out" / "src.bin").read_bytes()
    assert len(raw) == (n + 1) // 2 and raw[0] == 0x98  # -8 (0x8) low, -7 (0x9) high
    # the .bin run wrote reads back as the same elements (packed, little end first)
    d["tensors"]["src"]["data"] = "out/src.bin"
    path.write_text(json.dumps(d))
    assert list(parse_case(json.loads(path.read_text()), base_dir=tmp_path).data("src")) == list(src_npy)


@pytest.mark.parametrize("field", ["strideW", "strideH", "dilationW", "dilationH"])
def test_a_zero_stride_or_dilation_is_the_page_s_but_not_the_debug_check_s(field):
    """The LoadData page's Table 4 gives strideW / strideH in [0, 63] and dilationFilterW / H in [0, 255]; the
    vendor's debug build checks [1, 63] and [1, 255] (kernel_operator_mm_check.h): a warning on the V2 products, not
    an error; atlas-350's bit-mode ranges ([1, ...], page 002) keep it an error there."""
    errors, warnings = verdict(example("atlas-a2", **{field: 0}))
    assert errors == [] and "load3d.v2.debug_range" in warnings
    assert "load3d.v2.debug_range" not in verdict(example("atlas-a2", **{field: 1}))[1]
    errors, warnings = verdict(example("atlas-350", **{field: 0}))
    assert f"load3d.{field}.range" in errors and "load3d.v2.debug_range" not in warnings
