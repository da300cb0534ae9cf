"""LoadDataWithStride: the img2col load of Load3DBitMode, repeated (page 003_6cb328d34acb8cee.txt + HARDWARE_NOTES.md
SetLoadDataRepeatWithStride).

``LoadDataWithStride(dst, src, LoadData3DParamsV2)`` (page 003's example) loads the img2col window of
Load3DBitMode (same arguments, same rules, same core: `ascverify.models.load3d`) repeatTime times: repeat r moves
the window r*repeatStride fractal rows down (repeatMode 0) or fractal columns right (repeatMode 1) and stores it
r*dstStride fractals further in dst. The repeat parameters are those the last SetLoadDataRepeatWithStride set; a
single case may give them as ``repeat`` (spec notes load_data_with_stride.*).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..case import Case
from ..codec import SEED as SEED_LOAD3D
from ..logic import Div, If, Max, Or
from ..model import SpecNote
from ..params import StructArg, TensorDecl
from ..program import state_rule
from ..registry import get_api, register
from ..rules import POSITION_NAMES, WARNING, Context, Values, field_multiple, field_range, order_rule, rule, \
    tensor_min_size
from .img2col import FRACTAL_BYTES, FRACTAL_ROWS, Geometry, ceil_to, fractal_count
from .load3d import Load3DBitMode, _run, c0_of, construct, core_agrees, inherited_notes, load_window, \
    normalize_args
from .set_load_data_repeat import FIELDS as REPEAT_FIELDS
from .set_load_data_repeat import STATE_KEY as REPEAT_STATE
from .set_load_data_repeat import SetLoadDataRepeatWithStride

SEED = "003_6cb328d34acb8cee.txt"
NOTES = "HARDWARE_NOTES.md SetLoadDataRepeatWithStride"
T2 = f"{SEED} 表2 LoadDataRepeatParamWithStride"
CONSTRAINTS = f"{SEED} 约束说明"
#: the rules of Load3DBitMode this API replaces by its own (ids without the prefix)
REPLACED = ("kPos.multiple", "kStep.multiple", "mPos.multiple", "mStep.multiple", "dst.size")
#: the spec notes of Load3DBitMode that hold here as they stand (the img2col core, the arguments, the feature map)
INHERITED_NOTES = ("load3d.namings", "load3d.omitted", "load3d.bit-widths", "load3d.sizeChannel", "load3d.mPos-range",
                   "load3d.transpose", "load3d.no-fmatrix", "load3d.fmatrix", "load3d.program-fmatrix",
                   "load3d.k-order", "load3d.m-order", "load3d.layout", "load3d.kernel", "load3d.padValue",
                   "load3d.path")

REPEAT = StructArg("repeat", SetLoadDataRepeatWithStride.args,
                   source=f"{T2}; {CONSTRAINTS}; {NOTES}",
                   doc="the repeat parameters SetLoadDataRepeatWithStride set before the call: {repeatStride, "
                       "repeatTime, repeatMode, dstStride} (absent: the struct's defaults, one load)")


# -- the repeats, on values, columns or terms ---------------------------------------------------------------------

def repeats(v: Values) -> Any:
    """The repeats the rules check: repeatTime, and one for repeatTime = 0 (load_data_with_stride.nop)."""
    return Max(v.repeat.repeatTime, 1)


def m_shift(v: Values, ctx: Context) -> Any:
    """Rows the last repeat's window lies below the first: (repeats - 1) * repeatStride * 16 with repeatMode 0."""
    return If(v.repeat.repeatMode == 0, (repeats(v) - 1) * v.repeat.repeatStride * FRACTAL_ROWS, 0)


def k_shift(v: Values, ctx: Context) -> Any:
    """Columns the last repeat's window lies right of the first: (repeats - 1) * repeatStride * C0 with repeatMode 1."""
    return If(v.repeat.repeatMode == 1, (repeats(v) - 1) * v.repeat.repeatStride * c0_of(ctx), 0)


def window_fractals(v: Values, ctx: Context) -> Any:
    """Fractals one repeat stores: ceil(mStep / 16) x ceil(kStep / C0)."""
    c0 = c0_of(ctx)
    return Div(v.mStep + FRACTAL_ROWS - 1, FRACTAL_ROWS) * Div(v.kStep + c0 - 1, c0)


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """Every repeat's fractals: ((repeats - 1) * dstStride + the window's fractals) x 512 bytes, in elements."""
    return ((repeats(v) - 1) * v.repeat.dstStride + window_fractals(v, ctx)) * (FRACTAL_BYTES // ctx.dtype.size)


def _disjoint(v: Values, ctx: Context) -> Any:
    return Or(repeats(v) <= 1, v.repeat.dstStride >= window_fractals(v, ctx))


def _m_start(v: Values, ctx: Context) -> Any:
    return v.mPos + m_shift(v, ctx)


def _k_start(v: Values, ctx: Context) -> Any:
    return v.kPos + k_shift(v, ctx)


def repeat_offsets(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per repeat r < repeatTime: the window's first row, first column and dst byte address (concrete values)."""
    env = case.env
    r = np.arange(int(env["repeat.repeatTime"]), dtype=np.int64)
    mode, stride = int(env["repeat.repeatMode"]), int(env["repeat.repeatStride"])
    m = int(env["mPos"]) + (r * stride * FRACTAL_ROWS if mode == 0 else 0 * r)
    k = int(env["kPos"]) + (r * stride * c0_of(case.ctx) if mode == 1 else 0 * r)
    return m, k, case.tensor("dst").addr + r * int(env["repeat.dstStride"]) * FRACTAL_BYTES


@register
class LoadDataWithStride(Load3DBitMode):
    name = "LoadDataWithStride"
    aliases = ("load_data_with_stride",)
    prefix = "load_data_with_stride"
    seed = SEED
    summary = ("img2col with repeats: Load3DBitMode's window, repeatTime times, moved repeatStride fractal rows "
               "(repeatMode 0) or columns (1) per repeat, each stored dstStride fractals further in dst")
    support = Load3DBitMode.support
    support_source = (f"{SEED} 产品支持情况 (Ascend 950PR/950DT = atlas-350, HARDWARE_NOTES.md Products); types: "
                      f"{SEED_LOAD3D} Table 1 (T), as Load3DBitMode")
    args = (*Load3DBitMode.args, REPEAT)
    tensors = (
        TensorDecl("dst", "out", positions=("A2", "B2"),
                   source=f"{NOTES} (dst in L0A/L0B, 512-byte aligned); {SEED_LOAD3D} Table 2, dst",
                   doc="every repeat's window in fractals: NZ in A2, ZN in B2"),
        TensorDecl("src", "in", positions=("A1", "B1"), source=f"{NOTES} (src in L1); {SEED_LOAD3D} Table 2, src",
                   doc="the feature map, NC1HWC0 (C1 x l1H x l1W x C0)"),
    )
    notes = (
        SpecNote("load_data_with_stride.inherits", "Load3DBitMode's arguments, rules and core",
                 "The call takes Load3DBitMode's arguments in its three forms (LoadData3DParamsV2 members as in page "
                 "003's example, page 002's field names, or the packed config0/config1 words) and its fmatrix, with "
                 "the same rules and readings (the load3d.* notes listed here) and the same img2col core; rule ids "
                 "start with load_data_with_stride. Its own: the multiples without exception, the repeat rules, dst's "
                 "size over every repeat, the ordering rule.",
                 "Page 003's example passes a LoadData3DParamsV2 to LoadDataWithStride, whose members 'have the same "
                 "meaning' as Load3DBitModeParam's fields (page 002 Tables 4-5); HARDWARE_NOTES list the call's own "
                 "checks on top of them.", (f"{SEED} 调用示例", f"{SEED_LOAD3D} Tables 4-5", NOTES)),
        SpecNote("load_data_with_stride.products", "Products and types",
                 "atlas-350 only, with Load3DBitMode's ten types.",
                 "Page 003 supports SetLoadDataRepeatWithStride, without which the call cannot be made, on Ascend "
                 "950PR/950DT (= atlas-350) only; no page lists LoadDataWithStride's types, and LoadData3DParamsV2<T> "
                 "is the struct Load3DBitModeParam is built from (page 002 Table 1 lists its T).",
                 (f"{SEED} 产品支持情况", f"{SEED_LOAD3D} Table 1, T"),
                 ("load_data_with_stride.product.support", "load_data_with_stride.dtype.support")),
        SpecNote("load_data_with_stride.multiples", "Multiples without exception",
                 "kStep (kExtension) and kPos (kStartPt) are multiples of C0 = 32 bytes / sizeof(T); mStep "
                 "(mExtension) and mPos (mStartPt) multiples of 16, whether or not the window covers the matrix's "
                 "last fractal (Load3DBitMode's 'covered' exception does not apply).",
                 "HARDWARE_NOTES give LoadDataWithStride's own checks without exception: kExtension*sizeof(T) % 32 == "
                 "0, mExtension % 16 == 0, kStartPt*sizeof(T) % 32 == 0, mStartPt % 16 == 0.", (NOTES,),
                 tuple(f"load_data_with_stride.{r}" for r in REPLACED[:4])),
        SpecNote("load_data_with_stride.repeat", "What a repeat moves",
                 "Repeat r (0 <= r < repeatTime) loads the window of Load3DBitMode moved r*repeatStride*16 rows "
                 "(mPos + r*repeatStride*16; repeatMode 0, 'along height') or r*repeatStride*C0 columns (kPos + "
                 "r*repeatStride*C0, C0 = 32/sizeof(T); repeatMode 1, 'along width') of the img2col matrix; every "
                 "repeat's window must lie inside the matrix (the window-bound rules check the last one). The "
                 "feature map, the kernel and the strides stay as they are.",
                 "Page 003 gives repeatStride's unit as 16 elements (mode 0) or 32/sizeof(T) elements (mode 1): "
                 "exactly one fractal's rows and one fractal's columns, i.e. the granularity of mPos and kPos; page "
                 "002 calls M 'the height dimension of the destination operand' and K its 'width dimension'. A shift "
                 "of the feature map itself (its W start, in pixel vectors) would have a unit that depends on T in "
                 "both modes, which mode 0's does not; that reading is not taken.",
                 (f"{T2}, repeatStride", f"{T2}, repeatMode", f"{SEED_LOAD3D} Table 4, kStep/mStep"),
                 ("load_data_with_stride.window.m_bounds", "load_data_with_stride.window.k_bounds")),
        SpecNote("load_data_with_stride.dstStride", "Where a repeat stores",
                 "Repeat r stores its window (whole fractals, in dst's layout) from dst + r*dstStride*512 bytes on. "
                 "dst must hold every repeat's fractals ((repeatTime-1)*dstStride + F fractals, F = ceil(mStep/16) * "
                 "ceil(kStep/C0)), and with repeatTime > 1 the repeats must not overlap: dstStride >= F (an error: "
                 "later repeats would overwrite earlier ones, an order the page does not define).",
                 "Page 003: dstStride is the 'output matrix's offset along K, in 512-byte fractals', which issue 6 "
                 "reads as the distance between repeats' outputs. Another reading, that dstStride is the distance "
                 "between consecutive fractal columns of the output (its NZ leading dimension; page 003's example "
                 "sets dstStride = CeilDivision(m, 16) with repeatTime = 1), would place a window's fractal columns "
                 "dstStride fractals apart and leave open where repeats go; for one repeat of a one-column window the "
                 "two readings store the same bytes.",
                 (f"{T2}, dstStride", f"{SEED} 调用示例", NOTES),
                 ("load_data_with_stride.dst.size", "load_data_with_stride.repeat.overlap")),
        SpecNote("load_data_with_stride.nop", "repeatTime = 0",
                 "repeatTime = 0 moves nothing (the core reads and writes nothing) and draws the warning repeat.noop, "
                 "in a program at the load (from the repeat SetLoadDataRepeatWithStride set) as well as at the setter. "
                 "The other rules still check the call as one repeat (its window, dst for one window).",
                 "约束说明: 'repeatTime=0表示不执行搬运，LoadDataWithStride接口将被视为NOP'. The call's parameters are "
                 "still its own to get right: the next setter may enable the repeats again.",
                 (CONSTRAINTS,), ("load_data_with_stride.repeat.noop",)),
        SpecNote("load_data_with_stride.single-case", "The repeat parameters in a single case",
                 "A single case may give repeat = {repeatStride, repeatTime, repeatMode, dstStride} (dstStride "
                 "required, the others default 0, 1, 0, as in SetLoadDataRepeatWithStride); without it the call is "
                 "checked and run with the struct's defaults (one load, dstStride 0). The ordering rule is then "
                 "reported as not checked.",
                 "约束说明: without the repeat mode enabled 'repeatTime、repeatStride、repeatMode使用默认构造值'. A case "
                 "describes one call; what an earlier call set is an assumption it states, like fmatrix.",
                 (CONSTRAINTS, NOTES), ("load_data_with_stride.order.load_data_repeat",)),
        SpecNote("load_data_with_stride.program", "In a program",
                 "The call needs an earlier SetLoadDataRepeatWithStride (error order.load_data_repeat at the call) and "
                 "is checked and run with the repeat parameters the last one set, also when it gives repeat itself "
                 "(warning repeat.differs when they differ: the hardware reads the register). The feature map comes "
                 "from the last SetFmatrix as for Load3DBitMode (load3d.program-fmatrix).",
                 "约束说明: '调用LoadDataWithStride接口时，必须配置本接口中的dstStride参数'; 功能说明: "
                 "SetLoadDataRepeatWithStride sets LoadDataWithStride's repeat parameters.",
                 (CONSTRAINTS, f"{SEED} 功能说明"),
                 ("load_data_with_stride.order.load_data_repeat", "load_data_with_stride.repeat.differs")),
        *inherited_notes(INHERITED_NOTES, "load_data_with_stride"),
    )

    # -- rules ------------------------------------------------------------------------------------------------

    def api_rules(self):
        p = self.prefix
        replaced = {f"{p}.{name}" for name in REPLACED}
        for r in self.img2col_rules(p, m_start=_m_start, k_start=_k_start, window_params=("repeat",),
                                    window_what="the last repeat's window"):
            if r.id not in replaced:
                yield r
        own = ("load_data_with_stride.multiples",)
        yield field_multiple(f"{p}.kPos.multiple", "kPos", c0_of, f"{NOTES} (kStartPt*sizeof(T) % 32 == 0)",
                             message="kPos={value} (kStartPt) is not a multiple of {step}: kStartPt*sizeof(T) must be "
                                     "a multiple of 32 bytes", notes=own)
        yield field_multiple(f"{p}.kStep.multiple", "kStep", c0_of, f"{NOTES} (kExtension*sizeof(T) % 32 == 0)",
                             message="kStep={value} (kExtension) is not a multiple of {step}: kExtension*sizeof(T) "
                                     "must be a multiple of 32 bytes", notes=own)
        yield field_multiple(f"{p}.mPos.multiple", "mPos", FRACTAL_ROWS, f"{NOTES} (mStartPt % 16 == 0)",
                             message="mPos={value} (mStartPt) is not a multiple of 16", notes=own)
        yield field_multiple(f"{p}.mStep.multiple", "mStep", FRACTAL_ROWS, f"{NOTES} (mExtension % 16 == 0)",
                             message="mStep={value} (mExtension) is not a multiple of 16", notes=own)
        yield field_range(f"{p}.repeat.repeatMode.range", "repeat.repeatMode", 0, 1, f"{T2}, repeatMode ([0, 1])")
        yield tensor_min_size(f"{p}.dst.size", "dst", dst_elems_needed,
                              f"{T2}, dstStride (in 512-byte fractals); {SEED_LOAD3D} Table 2, dst",
                              what="every repeat's fractals ((repeatTime-1)*dstStride + ceil(mStep/16)*ceil(kStep/C0) "
                                   "fractals of 512 bytes)",
                              params=("mStep", "kStep", "repeat"), notes=("load_data_with_stride.dstStride",))
        yield rule(f"{p}.repeat.overlap", ("repeat", "mStep", "kStep"), _disjoint,
                   "repeatTime={n} repeats overlap in dst: each stores {f} fractals but dstStride={stride} moves the "
                   "next only {stride} fractals on", f"{T2}, dstStride (in 512-byte fractals); {NOTES}",
                   facts=lambda v, ctx: {"n": v.repeat.repeatTime, "f": window_fractals(v, ctx),
                                         "stride": v.repeat.dstStride},
                   notes=("load_data_with_stride.dstStride",),
                   help="repeatTime <= 1 or dstStride >= the fractals of one window (repeats do not overlap)")
        yield rule(f"{p}.repeat.noop", ("repeat",), lambda v, ctx: v.repeat.repeatTime != 0,
                   "repeatTime=0: LoadDataWithStride is a NOP, it moves nothing", f"{CONSTRAINTS} (repeatTime=0: NOP)",
                   severity=WARNING, notes=("load_data_with_stride.nop",), help="repeatTime > 0 (0 makes the call a NOP)")
        yield order_rule(f"{p}.order.load_data_repeat", REPEAT_STATE,
                         "no SetLoadDataRepeatWithStride before the call: LoadDataWithStride needs the dstStride it sets",
                         f"{CONSTRAINTS} (调用LoadDataWithStride接口时，必须配置本接口中的dstStride参数); {NOTES}",
                         params=("repeat",), notes=("load_data_with_stride.single-case", "load_data_with_stride.program"))
        yield state_rule(f"{p}.repeat.differs", "the call's repeat differs from the one the last "
                         "SetLoadDataRepeatWithStride set", f"{SEED} 功能说明 (it sets LoadDataWithStride's repeat "
                         "parameters); {CONSTRAINTS}", params=("repeat",), notes=("load_data_with_stride.program",))

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        return normalize_args(args, self.name, extra=("repeat",))

    # -- programs -----------------------------------------------------------------------------------------------

    def with_state(self, case: Case, state: Mapping[str, Any]) -> Case:
        """The feature map of the last SetFmatrix and the repeat of the last SetLoadDataRepeatWithStride."""
        case = super().with_state(case, state)
        got = state.get(REPEAT_STATE)
        if got is None:
            return case
        return case.with_fields(**{"repeat.present": True, **{f"repeat.{k}": got[k] for k in REPEAT_FIELDS}})

    def state_warnings(self, case: Case, state: Mapping[str, Any]) -> list[tuple[Any, str]]:
        out = super().state_warnings(case, state)
        got = state.get(REPEAT_STATE)
        if got is None or not case.env["repeat.present"]:
            return out
        given = {k: int(case.env[f"repeat.{k}"]) for k in REPEAT_FIELDS}
        if given != {k: int(got[k]) for k in REPEAT_FIELDS}:
            r = self.rule_by_id[f"{self.prefix}.repeat.differs"]
            out.append((r, f"the call's repeat {given} differs from the one the last SetLoadDataRepeatWithStride set "
                           f"{ {k: int(got[k]) for k in REPEAT_FIELDS} }; the load uses the latter"))
        return out

    # -- construction -------------------------------------------------------------------------------------------

    def construct_args(self, draw: Any, ctx: Context, env: dict[str, Any]) -> None:
        """Load3DBitMode's construction for a window that leaves room for every repeat (whole fractals), then the
        repeat: dstStride at least one window's fractals, repeatStride small enough that the last window stays in
        the matrix."""
        from hypothesis import strategies as st

        dst_buffer = "L0A" if POSITION_NAMES[int(env["src.position"])] == "A1" else "L0B"
        # fractals for the repeats: the buffer less one, which the strategies' slack after dst may take
        cap = ctx.product.buffer_size(dst_buffer) // FRACTAL_BYTES - 1
        given = env["repeat.present"] = draw(st.integers(0, 3)) > 0
        n = min(draw(st.one_of(st.integers(1, 4), st.integers(0, 8), st.integers(0, 255))), cap) if given else 1
        k = max(n, 1)
        construct(draw, ctx, env, dst_fractals=cap // k, whole_fractals=True)
        if not given:
            env.update({f"repeat.{f}": d for f, d in zip(REPEAT_FIELDS, (0, 1, 0, 0))})
            return
        c0 = c0_of(ctx)
        f = fractal_count(int(env["mStep"]), int(env["kStep"]), c0)
        small = lambda lo, hi: lo if hi <= lo else draw(  # noqa: E731 - mostly near lo, sometimes anywhere, or hi
            st.one_of(st.integers(lo, min(hi, lo + 3)), st.integers(lo, hi), st.just(hi)))
        env["repeat.repeatTime"] = n
        env["repeat.dstStride"] = small(f, min((cap - f) // (k - 1), 65535)) if k > 1 else small(0, 65535)
        mode = env["repeat.repeatMode"] = draw(st.integers(0, 1))
        top = 65535
        if env["fmatrix.present"] and k > 1:
            geo = Geometry.of(env, ctx.dtype.size)
            if mode == 0:
                top = (ceil_to(geo.m_total, FRACTAL_ROWS) - int(env["mPos"]) - int(env["mStep"])) // ((k - 1) * FRACTAL_ROWS)
            else:
                top = (geo.k_total - int(env["kPos"]) - int(env["kStep"])) // ((k - 1) * c0)
        env["repeat.repeatStride"] = small(0, min(top, 65535))

    # -- semantics ----------------------------------------------------------------------------------------------

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """Each repeat's whole fractals in dst."""
        dst = case.tensor("dst")
        f = fractal_count(int(case.env["mStep"]), int(case.env["kStep"]), c0_of(case.ctx))
        _, _, addrs = repeat_offsets(case)
        return {"dst": [(dst.buffer, int(a), int(a) + f * FRACTAL_BYTES) for a in addrs] if f else []}

    def execute(self, case: Case, trace: Any) -> None:
        """Every repeat's window, repeat r as iteration r; two repeats that store to the same bytes fault."""
        m, k, addrs = repeat_offsets(case)
        load_window(case, trace, m, k, addrs, exclusive=True)


# -- invariants ---------------------------------------------------------------------------------------------------------

def single_loads(case: Case) -> list[Case]:
    """The Load3DBitMode calls the case's repeats are: call r with mPos + r*repeatStride*16 (repeatMode 0) or
    kPos + r*repeatStride*C0 (repeatMode 1), and dst r*dstStride*512 bytes further (written out here, apart from
    `repeat_offsets`)."""
    load3d = get_api("Load3DBitMode")
    env = case.env
    e, c0 = case.ctx.dtype.size, 32 // case.ctx.dtype.size
    ctx = load3d.context(case.ctx.product, case.ctx.dtype.name)
    out = []
    for r in range(int(env["repeat.repeatTime"])):
        fields = {f.name: env[f.name] for f in load3d.fields}
        if env["repeat.repeatMode"] == 0:
            fields["mPos"] += r * env["repeat.repeatStride"] * 16
        else:
            fields["kPos"] += r * env["repeat.repeatStride"] * c0
        moved = r * env["repeat.dstStride"] * 512
        fields["dst.addr"] += moved
        fields["dst.size"] = max(env["dst.size"] - moved // e, 0)
        out.append(Case(load3d, ctx, fields, case.data_sources, case.origin, case.base_dir))
    return out


def repeats_equal_single_loads(case: Case, seed: int = 0) -> None:
    """repeatTime = n stores what n single Load3DBitMode loads with the shifted windows store, one after the other
    on the same memory: every byte of dst's buffer, and whether it is unspecified."""
    from ..core.memory import Trace
    from ..core.run import prepare
    from ..properties.invariants import fresh

    c = fresh(case)
    memory, _ = prepare(c, seed=seed)
    other = memory.snapshot()
    case.model.execute(c, Trace(memory))
    for single in single_loads(c):
        single.model.execute(single, Trace(other))
    buf = c.tensor("dst").buffer
    assert np.array_equal(memory.state[buf], other.state[buf]), "repeats and single loads differ in what they define"
    assert np.array_equal(memory.buffers[buf], other.buffers[buf]), "repeats and single loads store other values"


def no_repeats_write_nothing(case: Case, seed: int = 0) -> None:
    """With repeatTime = 0 the call reads and writes nothing, and check warns that it is a NOP."""
    from ..checker import check_case

    nop = case.with_fields(**{"repeat.present": True, "repeat.repeatTime": 0})
    res = _run(nop, seed)
    for buf in res.memory.buffers:
        if res.memory.size(buf):
            assert not res.trace.stored(buf).any() and not res.trace.footprint("read", buf).any(), buf
    assert "load_data_with_stride.repeat.noop" in [w.id for w in check_case(nop).warnings]


def repeat_destinations_disjoint(case: Case, seed: int = 0) -> None:
    """The repeats of an accepted call store to disjoint fractals: the model's intervals do not meet and the core sees
    no two repeats store to one byte."""
    res = _run(case, seed, strict=False)
    assert not res.faults, [str(f) for f in res.faults[:3]]
    spans = sorted((a, b) for _, a, b in case.model.footprint(case)["dst"])
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:])), f"repeat destinations overlap: {spans[:4]}"
    assert not res.trace.write_overlap(case.tensor("dst").buffer), "two repeats stored to the same bytes"


def memory_rules_match_core(case: Case, seed: int = 0) -> None:
    """Valid: no fault, reads inside src, stores inside dst. Variants that break exactly one memory rule draw the
    core's matching complaint: dst off its 512-byte alignment (a misaligned store), dst one fractal short (a store
    past dst's end), dstStride one fractal short of a window with two repeats or more (two repeats store to the
    same bytes: overlap)."""
    p, env, e = case.model.prefix, case.env, case.ctx.dtype.size
    dst = case.tensor("dst")
    f = fractal_count(int(env["mStep"]), int(env["kStep"]), c0_of(case.ctx))
    n = int(env["repeat.repeatTime"])
    variants = []
    if n and dst.end + 32 <= case.ctx.product.buffer_size(dst.buffer):
        variants.append((f"{p}.dst.align", case.with_fields(**{"dst.addr": dst.addr + 32}), "misaligned"))
    short = int(dst_elems_needed(case.values(), case.ctx)) - FRACTAL_BYTES // e
    if n and short >= 0:
        variants.append((f"{p}.dst.size", case.with_fields(**{"dst.size": short}), "escape"))
    if n >= 2 and f >= 1:
        variants.append((f"{p}.repeat.overlap", case.with_fields(**{"repeat.dstStride": f - 1}), "overlap"))
    core_agrees(case, seed, variants)


LoadDataWithStride.invariants = (repeats_equal_single_loads, no_repeats_write_nothing, repeat_destinations_disjoint,
                                 memory_rules_match_core)
