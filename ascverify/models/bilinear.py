"""BilinearInterpolation (page 000_f2fe3f8fa92b9dd9.txt + HARDWARE_NOTES.md BilinearInterpolation)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..case import Case
from ..logic import And, Div, If, Max, Not, Or
from ..model import ApiModel, SpecNote
from ..params import BOOL, UINT8, UINT16, Arg, MaskArg, TensorDecl
from ..registry import register
from ..rules import (
    Context,
    Values,
    data_rule,
    field_multiple,
    field_range,
    rule,
    step_for_bytes,
    tensor_min_size,
    tensors_disjoint,
)
from .vector_common import BLOCK_BYTES, lane_mask, mask_rules

SEED = "000_f2fe3f8fa92b9dd9.txt"
NOTES = "HARDWARE_NOTES.md BilinearInterpolation"
BLOCKS_PER_REPEAT = 8


def _t2(name: str) -> str:
    return f"{SEED} Table 2, {name}"


def _block_elems(ctx: Context) -> int:
    return BLOCK_BYTES // ctx.dtype.size


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """Elements from dst's start to the end of the last block written."""
    b = _block_elems(ctx)
    return (v.vRepeat - 1) * v.vROffset + (BLOCKS_PER_REPEAT - 1) * v.dstBlkStride * b + b


def vertical_overlap(v: Values, ctx: Context) -> Any:
    """Two vertical iterations write a common block (exact, any vROffset > 0).

    Block b of iteration i covers elements [i*R + b*S*B, +B). Iterations i and i+d collide iff
    |d*R - e*S*B| < B for some e in [1, 7] (e <= 0 cannot collide since d*R >= R > B); the smallest
    candidate d for a given e is floor((e*S*B - B) / R) + 1.
    """
    b = _block_elems(ctx)
    r, s = v.vROffset, v.dstBlkStride
    hits = []
    for e in range(1, BLOCKS_PER_REPEAT):
        x = e * s * b
        d = Max(1, Div(x - b, r) + 1)
        hits.append(And(d * r < x + b, d <= v.vRepeat - 1, r > 0))
    return Or(*hits)


def _tmp_bytes_needed(v: Values, ctx: Context) -> Any:
    if ctx.product.id == "atlas-inference-aicore":
        return v.src0Offset.size * 4
    return v.src0.size * 32 + v.src1.size * 32


def _offsets_in_src0(case: Case, ctx: Context) -> list[str]:
    n = BLOCKS_PER_REPEAT * int(case.env["hRepeat"]) * int(case.env["vRepeat"])
    offsets = case.data("src0Offset")
    src0_bytes = int(case.env["src0.size"]) * ctx.sizeof("src0")
    problems = []
    if offsets.size < n:
        problems.append(f"only {offsets.size} offsets given, {n} are read")
    used = offsets[:n].astype(np.int64)
    bad = np.flatnonzero((used % BLOCK_BYTES != 0) | (used + BLOCK_BYTES > src0_bytes))
    for i in bad[:5]:
        problems.append(f"src0Offset[{i}]={used[i]} is not the start of a 32-byte block inside src0 ({src0_bytes} bytes)")
    if bad.size > 5:
        problems.append(f"{bad.size - 5} more such offsets")
    return problems


@register
class BilinearInterpolation(ApiModel):
    name = "BilinearInterpolation"
    prefix = "bilinear"
    seed = SEED
    summary = "dst = sum over hRepeat of src0 blocks (picked by src0Offset) times src1 scalars, per vertical iteration"
    support = {
        "atlas-350": ("half",),
        "atlas-a3": ("half",),
        "atlas-a2": ("half",),
        "atlas-inference-aicore": ("half",),
    }
    support_source = f"{SEED} Applicability and Table 1 (T)"
    default_dtype = "half"
    args = (
        MaskArg("mask", source=_t2("mask[]/mask")),
        Arg("hRepeat", UINT8, _t2("hRepeat"), "horizontal iterations"),
        Arg("repeatMode", BOOL, _t2("repeatMode"), "false: one src1 value per iteration; true: one per block"),
        Arg("dstBlkStride", UINT16, _t2("dstBlkStride"), "dst stride between blocks of one repeat, in 32-byte units"),
        Arg("vROffset", UINT16, _t2("vROffset"), "dst offset between vertical iterations, in elements"),
        Arg("vRepeat", UINT8, _t2("vRepeat"), "vertical iterations"),
    )
    tensors = (
        TensorDecl("dst", "out", source=_t2("dst"), align=32),
        TensorDecl("src0", "in", source=_t2("src0 and src1"), align=32),
        TensorDecl("src0Offset", "in", dtype="uint32", source=_t2("src0Offset"), align=32),
        TensorDecl("src1", "in", source=_t2("src0 and src1"), align=32),
        TensorDecl("sharedTmpBuffer", "tmp", dtype="uint8", optional=True, source=_t2("sharedTmpBuffer"), align=32,
                   required_on=("atlas-a2", "atlas-a3", "atlas-inference-aicore")),
    )
    notes = (
        SpecNote("bilinear.mask-word-order", "Bitwise mask word order",
                 "mask[0] holds the low 64 elements, mask[1] the high 64: [0, 8] selects element 68, [8, 0] element 4.",
                 "Page 000's example says mask = [0, 8] selects the fourth element; page 004 says [8, 0] does. "
                 "HARDWARE_NOTES (vendor code) confirm page 004: page 000's sentence is wrong.",
                 (f"{SEED} Table 2, mask[]/mask", "004_2ad9555534615f32.txt mask", "HARDWARE_NOTES.md Masks"),
                 ("bilinear.mask.words.nonzero",)),
        SpecNote("bilinear.vROffset-max", "Largest vROffset",
                 "vROffset in [128, 65534]: 65535 is refused, as the page says.",
                 "The page gives [128, 65535); the vendor's CPU-debug check accepts 65535. The page is the contract.",
                 (_t2("vROffset"), NOTES), ("bilinear.vROffset.range",)),
        SpecNote("bilinear.dstBlkStride-zero", "dstBlkStride = 0",
                 "dstBlkStride must be at least 1; 0 is an error.",
                 "The page gives no range for dstBlkStride. With 0 all 8 blocks of a repeat land on the same 32 bytes; "
                 "HARDWARE_NOTES say dstBlkStride = 0 is undefined behaviour for vector ops.",
                 (_t2("dstBlkStride"), NOTES), ("bilinear.dstBlkStride.nonzero",)),
        SpecNote("bilinear.overwrite", "Accumulate or overwrite",
                 "dst is overwritten: each vertical iteration starts from 0, sums its hRepeat products in order "
                 "(rounded to half after every multiply and add) and stores the sum under the mask.",
                 "The page says results 'are accumulated by data block', which could mean adding into dst's old "
                 "contents; the vendor implementations (HARDWARE_NOTES) accumulate only across horizontal iterations.",
                 (f"{SEED} Function Usage", NOTES)),
        SpecNote("bilinear.example-rounding", "The page's example result",
                 "The example's dst values are reproduced with half rounding after every operation; the first "
                 "value of the second vertical iteration is 2952, not the exact 2953.",
                 "The page lists 389, 394, ..., 4096 as if computed exactly; both vendor implementations use half "
                 "vector instructions (HARDWARE_NOTES), and 2953 is not representable in half.",
                 (f"{SEED} Examples (result example)", NOTES)),
        SpecNote("bilinear.vertical-overlap-exact", "Vertical overlap, exactly",
                 "Vertical iterations i and i+d collide iff their block sets share a block: |d*vROffset - e*dstBlkStride*16| < 16 "
                 "for some d in [1, vRepeat-1], e in [1, 7]. No sufficient approximation.",
                 "The page forbids overlapping destinations of two vertical iterations without a formula; "
                 "vROffset >= (7*dstBlkStride+1)*16 is only sufficient (HARDWARE_NOTES).",
                 (f"{SEED} Restrictions", NOTES), ("bilinear.dst.vertical_overlap",)),
        SpecNote("bilinear.dst-source-overlap", "dst against the sources",
                 "dst must not overlap src0, src1 or src0Offset (error).",
                 "The page restricts only src0/src1/src0Offset among themselves. Vertical iteration v+1 reads "
                 "sources after iteration v stored its blocks, so an overlapping dst can clobber data still to be read; "
                 "which bytes are read depends on src0Offset's contents, so the whole-tensor reading is taken.",
                 (f"{SEED} Restrictions",),
                 ("bilinear.dst.src0.disjoint", "bilinear.dst.src1.disjoint", "bilinear.dst.src0Offset.disjoint")),
        SpecNote("bilinear.tmp", "sharedTmpBuffer",
                 "Required (and sized per the page) on atlas-a2, atlas-a3 and atlas-inference-aicore; may be omitted on "
                 "atlas-350. When given it must lie in its buffer, 32-byte aligned, disjoint from every operand.",
                 "The page says no temporary space is needed on Atlas 350 and is silent on overlap; a scratch buffer that "
                 "the call writes cannot share bytes with operands it reads or writes.",
                 (_t2("sharedTmpBuffer"),),
                 ("bilinear.sharedTmpBuffer.required", "bilinear.sharedTmpBuffer.size")),
        SpecNote("bilinear.src0Offset-units", "src0Offset values",
                 "Each value is a byte offset from src0's start, a multiple of 32, with offset + 32 <= src0's bytes.",
                 "The page says each value 'points to the start address of a data block in src0' without units; "
                 "HARDWARE_NOTES settle bytes.",
                 (f"{SEED} Function Usage", NOTES), ("bilinear.src0Offset.values",)),
    )

    def api_rules(self):
        p = self.prefix
        yield from mask_rules(p, _t2("mask[]/mask"))
        yield field_range(f"{p}.hRepeat.range", "hRepeat", 1, 255, _t2("hRepeat"))
        yield field_range(f"{p}.vRepeat.range", "vRepeat", 1, 255, _t2("vRepeat"))
        yield field_range(f"{p}.vROffset.range", "vROffset", 128, 65534, _t2("vROffset") + " ([128, 65535))",
                          notes=("bilinear.vROffset-max",),
                          message="vROffset={value} is outside [128, 65535)")
        yield field_multiple(f"{p}.vROffset.align", "vROffset", step_for_bytes(32), _t2("vROffset"),
                             message="vROffset={value}: vROffset x sizeof(T) must be a multiple of 32 bytes "
                                     "(vROffset a multiple of {step})")
        yield field_range(f"{p}.dstBlkStride.nonzero", "dstBlkStride", 1, 65535,
                          f"{_t2('dstBlkStride')}; HARDWARE_NOTES.md BilinearInterpolation (dstBlkStride = 0)",
                          notes=("bilinear.dstBlkStride-zero",),
                          message="dstBlkStride=0 is undefined behaviour (all 8 blocks of a repeat on one datablock)")
        yield rule(f"{p}.dst.vertical_overlap", ("dstBlkStride", "vROffset", "vRepeat"),
                   lambda v, ctx: Not(vertical_overlap(v, ctx)),
                   "vertical iterations write overlapping dst blocks (dstBlkStride={dstBlkStride}, "
                   "vROffset={vROffset}, vRepeat={vRepeat})",
                   f"{SEED} Restrictions (destinations of two vertical iterations); {NOTES}",
                   notes=("bilinear.vertical-overlap-exact",), help="vertical dst regions pairwise disjoint")
        yield tensor_min_size(f"{p}.dst.size", "dst", dst_elems_needed, f"{SEED} Function Usage; {NOTES}",
                              what="the blocks written ((vRepeat-1)*vROffset + 7*dstBlkStride*16 + 16)",
                              params=("vRepeat", "vROffset", "dstBlkStride"))
        yield tensor_min_size(f"{p}.src0Offset.size", "src0Offset", lambda v, ctx: 8 * v.hRepeat * v.vRepeat,
                              f"{SEED} Function Usage; {NOTES}", what="8 x hRepeat x vRepeat offsets",
                              params=("hRepeat", "vRepeat"))
        yield tensor_min_size(f"{p}.src1.size", "src1",
                              lambda v, ctx: If(v.repeatMode, 8 * v.hRepeat * v.vRepeat, v.hRepeat * v.vRepeat),
                              f"{_t2('repeatMode')}; {NOTES}",
                              what="hRepeat x vRepeat values (x 8 with repeatMode=true)",
                              params=("hRepeat", "vRepeat", "repeatMode"))
        yield tensor_min_size(f"{p}.src0.size", "src0", lambda v, ctx: _block_elems(ctx), f"{SEED} Function Usage; {NOTES}",
                              what="one 32-byte block")
        yield tensor_min_size(f"{p}.sharedTmpBuffer.size", "sharedTmpBuffer", _tmp_bytes_needed, _t2("sharedTmpBuffer"),
                              what="the temporary space of the page (src0.size*32 + src1.size*32 bytes on A2/A3, "
                                   "src0Offset.size*4 on the inference AI Core)",
                              params=("src0", "src1", "src0Offset"),
                              products=("atlas-a2", "atlas-a3", "atlas-inference-aicore"), notes=("bilinear.tmp",))
        src = f"{SEED} Restrictions (src0, src1 and src0Offset cannot overlap)"
        for a, b in (("src0", "src1"), ("src0", "src0Offset"), ("src1", "src0Offset")):
            yield tensors_disjoint(f"{p}.{a}.{b}.disjoint", a, b, src)
        for s in ("src0", "src1", "src0Offset"):
            yield tensors_disjoint(f"{p}.dst.{s}.disjoint", "dst", s, f"{SEED} Restrictions (page silent; spec note)",
                                   notes=("bilinear.dst-source-overlap",))
        for s in ("dst", "src0", "src1", "src0Offset"):
            yield tensors_disjoint(f"{p}.sharedTmpBuffer.{s}.disjoint", "sharedTmpBuffer", s,
                                   f"{_t2('sharedTmpBuffer')} (page silent; spec note)", notes=("bilinear.tmp",))
        yield data_rule(f"{p}.src0Offset.values", ("src0Offset",), _offsets_in_src0,
                        "every src0Offset value read must be the byte offset of a 32-byte block inside src0",
                        f"{SEED} Function Usage; {NOTES}", params=("src0", "hRepeat", "vRepeat"),
                        notes=("bilinear.src0Offset-units",))

    # -- semantics --------------------------------------------------------------------------------------------

    def tmp_bytes(self, case: Case) -> int:
        """Bytes of sharedTmpBuffer the call uses as scratch (0 where none is needed)."""
        if case.product not in ("atlas-a2", "atlas-a3", "atlas-inference-aicore"):
            return 0
        return int(_tmp_bytes_needed(case.values(), case.ctx))

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """Per tensor, the (buffer, start, stop) byte intervals the call may write."""
        dst = case.tensor("dst")
        V = int(case.env["vRepeat"])
        esize = case.ctx.sizeof("dst")
        b = BLOCK_BYTES // esize
        S, R = int(case.env["dstBlkStride"]), int(case.env["vROffset"])
        out: dict[str, list[tuple[str, int, int]]] = {"dst": []}
        for v in range(V):
            for blk in range(BLOCKS_PER_REPEAT):
                start = dst.addr + (v * R + blk * S * b) * esize
                out["dst"].append((dst.buffer, start, start + BLOCK_BYTES))
        tmp = case.tensor("sharedTmpBuffer")
        nbytes = self.tmp_bytes(case)
        if tmp.present and nbytes:
            out["sharedTmpBuffer"] = [(tmp.buffer, tmp.addr, tmp.addr + nbytes)]
        return out

    def execute(self, case: Case, trace) -> None:
        env = case.env
        H, V = int(env["hRepeat"]), int(env["vRepeat"])
        S, R = int(env["dstBlkStride"]), int(env["vROffset"])
        repeat_mode = bool(env["repeatMode"])
        dst, src0, off, src1 = (case.tensor(n) for n in ("dst", "src0", "src0Offset", "src1"))
        esize = case.ctx.sizeof("dst")
        b = BLOCK_BYTES // esize
        np_t = case.ctx.dtype.numpy
        n = BLOCKS_PER_REPEAT * H * V
        # iteration index of every (v, h, block) triple, v-major
        iters = np.repeat(np.arange(V), BLOCKS_PER_REPEAT * H)

        raw_off = trace.read(off.buffer, off.addr + 4 * np.arange(n), 4, iters, align=4, what="src0Offset entry")
        offsets = raw_off.reshape(-1).view("<u4").astype(np.int64)
        raw_blocks = trace.read(src0.buffer, src0.addr + offsets, BLOCK_BYTES, iters, align=BLOCK_BYTES,
                                what="src0 block")
        blocks = raw_blocks.reshape(-1).view(np_t).reshape(V, H, BLOCKS_PER_REPEAT, b)

        if repeat_mode:
            idx = np.arange(n)
            scal_iters = iters
        else:
            idx = np.arange(H * V)
            scal_iters = np.repeat(np.arange(V), H)
        raw_s = trace.read(src1.buffer, src1.addr + esize * idx, esize, scal_iters, align=esize, what="src1 value")
        scalars = raw_s.reshape(-1).view(np_t)
        scalars = scalars.reshape(V, H, BLOCKS_PER_REPEAT, 1) if repeat_mode else scalars.reshape(V, H, 1, 1)

        # one multiply and one add per step, each rounded to T (HARDWARE_NOTES: rounding)
        products = (blocks.astype(np.float32) * scalars.astype(np.float32)).astype(np_t)
        # the running sum over h, rounded to T after every add: numpy's accumulate adds in order, one
        # rounded T addition per step (unlike add.reduce, which may sum pairwise); 0 + p0 = p0 is exact
        acc = np.add.accumulate(products, axis=1, dtype=np_t)[:, -1]

        tmp = case.tensor("sharedTmpBuffer")
        nbytes = self.tmp_bytes(case)
        if tmp.present and nbytes:
            trace.write(tmp.buffer, np.array([tmp.addr]), nbytes, np.zeros((1, nbytes), np.uint8), 0,
                        align=BLOCK_BYTES, poison=np.array([True]), what="sharedTmpBuffer scratch")

        lanes = lane_mask(case)  # (8*b,)
        byte_mask = np.repeat(lanes, esize).reshape(BLOCKS_PER_REPEAT, BLOCK_BYTES)
        starts = dst.addr + (np.arange(V)[:, None] * R + np.arange(BLOCKS_PER_REPEAT)[None, :] * S * b) * esize
        data = acc.reshape(V * BLOCKS_PER_REPEAT, b).view(np.uint8).reshape(V * BLOCKS_PER_REPEAT, BLOCK_BYTES)
        trace.write(dst.buffer, starts.reshape(-1), BLOCK_BYTES, data, np.repeat(np.arange(V), BLOCKS_PER_REPEAT),
                    align=BLOCK_BYTES, byte_mask=np.tile(byte_mask, (V, 1)), exclusive=True, what="dst block")

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        t = case.tensor(tensor)
        if tensor == "src0Offset":
            blocks = max(1, case.tensor("src0").nbytes // BLOCK_BYTES)
            return (rng.integers(0, blocks, size=t.size) * BLOCK_BYTES).astype(np.uint32)
        if tensor in ("src0", "src1"):
            # small integers times 1/4: products and sums of the sizes used stay exact or near in half
            return (rng.integers(-8, 9, size=t.size) / 4).astype(t.dtype.numpy)
        return None


# -- invariants (run by ascverify.properties.invariants on valid cases) --------------------------------------------

def _dst_lanes(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """dst element indices of the active and of the masked-off lanes of every vertical iteration."""
    b = _block_elems(case.ctx)
    V, S, R = int(case.env["vRepeat"]), int(case.env["dstBlkStride"]), int(case.env["vROffset"])
    lanes = lane_mask(case)
    blk, lane = np.divmod(np.arange(lanes.size), b)
    idx = np.arange(V)[:, None] * R + (blk * S * b + lane)[None, :]
    on = np.broadcast_to(lanes, idx.shape)
    return idx[on], idx[~on]


def _run(case: Case, seed: int, data: Mapping[str, np.ndarray] | None = None):
    from ..core.run import run_case
    from ..properties.invariants import fresh

    c = fresh(case)
    for name, arr in (data or {}).items():
        c.set_data(name, arr)
    return run_case(c, seed=seed, strict=True)


def masked_lanes_untouched(case: Case, seed: int = 0) -> None:
    """dst elements of masked-off lanes keep their old values, bit for bit."""
    res = _run(case, seed)
    _, off = _dst_lanes(case)
    before = res.inputs["dst"].view(np.uint16)[off]
    after = res.tensors["dst"].view(np.uint16)[off]
    assert np.array_equal(before, after), "a masked-off lane of dst changed"


def scaling_src1_scales_dst(case: Case, seed: int = 0) -> None:
    """Doubling every src1 value doubles every active dst element exactly (power-of-two scaling commutes
    with rounding while nothing overflows; inputs are small quarter-integers)."""
    base = _run(case, seed)
    inputs = {k: v.copy() for k, v in base.inputs.items()}
    inputs["src1"] = (inputs["src1"].astype(np.float32) * 2).astype(inputs["src1"].dtype)
    doubled = _run(case, seed, inputs)
    on, _ = _dst_lanes(case)
    x = base.tensors["dst"][on].astype(np.float64)
    y = doubled.tensors["dst"][on].astype(np.float64)
    assert np.array_equal(2 * x, y), "dst(2*src1) != 2*dst(src1)"


def repeat_mode_equivalence(case: Case, seed: int = 0) -> None:
    """repeatMode=true with each src1 value repeated 8 times equals repeatMode=false (checked on cases
    drawn with repeatMode=true, whose src1 is large enough for both)."""
    if not case.env["repeatMode"]:
        return
    n = int(case.env["hRepeat"]) * int(case.env["vRepeat"])
    base = _run(case, seed)
    per_iter = base.inputs["src1"][:n].copy()
    inputs = {k: v.copy() for k, v in base.inputs.items()}
    src1_true = inputs["src1"].copy()
    src1_true[: 8 * n] = np.repeat(per_iter, 8)
    inputs["src1"] = src1_true
    true_mode = _run(case, seed, inputs)
    # repeatMode=false reads src1[v*hRepeat + h]: put the per-iteration values first
    src1_false = src1_true.copy()
    src1_false[:n] = per_iter
    false_mode = _run(case.with_fields(repeatMode=False), seed, {**inputs, "src1": src1_false})
    assert np.array_equal(true_mode.tensors["dst"].view(np.uint16), false_mode.tensors["dst"].view(np.uint16)), \
        "repeatMode=true with repeated src1 differs from repeatMode=false"


def vertical_overlap_matches_core(case: Case, seed: int = 0) -> None:
    """The model's vertical-overlap verdict equals the overlap the core observes between iterations' stores."""
    from ..core.run import run_case
    from ..properties.invariants import fresh

    predicted = bool(vertical_overlap(case.values(), case.ctx))
    res = run_case(fresh(case), seed=seed, strict=False)
    observed = res.trace.write_overlap(case.tensor("dst").buffer)
    assert predicted == observed, f"model says overlap={predicted}, core observed {observed}"


BilinearInterpolation.invariants = (masked_lanes_untouched, scaling_src1_scales_dst, repeat_mode_equivalence,
                                    vertical_overlap_matches_core)
