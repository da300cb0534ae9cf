"""core: the vectorized `execute` of each API against a Python loop written here, and against a numpy copy.

Per API, the largest case that fits the product's buffers (built by hand, checked valid with
`check_case`): the most block reads the buffers allow. The Python loop implements the same
semantics element by element with numpy float16 scalars (each multiply and add rounded to half);
its output must be bit-identical to the core's (a line is printed if not). The memory-bandwidth
bound is a numpy copy of as many bytes as the call reads plus writes (summed from the trace).
`execute` (on freshly prepared memory, preparation untimed), `run_case` and the loop are timed in
alternation; medians of ``repeats`` runs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .common import (Config, Figure, at_least, at_most, fmt_time, interleaved, load_models, median_time, note,
                     safe_ratio, skip)

NAME = "core"
PRODUCT = "atlas-a2"


# -- largest cases --------------------------------------------------------------------------------------------------

def _up(x: int, a: int = 32) -> int:
    return -(-x // a) * a


def bilinear_case(product: str = PRODUCT, *, max_h: int = 255, src0_blocks: int = 4) -> Any:
    """The BilinearInterpolation case with the most block reads (8*hRepeat*vRepeat) that fits UB.

    vROffset = 128 and dstBlkStride = 1 (the densest dst without vertical overlap), repeatMode
    false, full mask; the tensors packed in UB: dst, src0Offset, src1, src0, sharedTmpBuffer.
    """
    from ascverify import check_case, get_api
    from ascverify.cases.case import Case
    from ascverify.spec.rules import POSITION_NAMES

    model = get_api("BilinearInterpolation")
    ctx = model.context(product, "half")
    cap = ctx.product.buffer_size("UB")
    b = 16
    best = None
    for h in range(max_h, 0, -1):
        for v in range(255, 0, -1):
            sizes = {"dst": (v - 1) * 128 + 8 * b, "src0Offset": 8 * h * v, "src1": h * v, "src0": src0_blocks * b}
            tmp = sizes["src0"] * 32 + sizes["src1"] * 32 if product in ("atlas-a2", "atlas-a3") else \
                (sizes["src0Offset"] * 4 if product == "atlas-inference-aicore" else 0)
            total = sum(_up(n * (4 if k == "src0Offset" else 2)) for k, n in sizes.items()) + _up(tmp)
            if total <= cap:
                if best is None or h * v > best[0] * best[1]:
                    best = (h, v, sizes, tmp)
                break
    h, v, sizes, tmp = best
    env = model.default_env()
    env.update({"hRepeat": h, "vRepeat": v, "vROffset": 128, "dstBlkStride": 1, "repeatMode": False,
                "mask.bitwise": False, "mask.count": 128})
    addr = 0
    for name in ("dst", "src0Offset", "src1", "src0"):
        env[f"{name}.position"] = POSITION_NAMES.index("VECOUT" if name == "dst" else "VECIN")
        env[f"{name}.addr"] = addr
        env[f"{name}.size"] = sizes[name]
        addr = _up(addr + sizes[name] * (4 if name == "src0Offset" else 2))
    env["sharedTmpBuffer.present"] = tmp > 0
    env["sharedTmpBuffer.position"] = POSITION_NAMES.index("VECCALC")
    env["sharedTmpBuffer.addr"] = addr if tmp else 0
    env["sharedTmpBuffer.size"] = tmp
    case = Case(model, ctx, env, origin="bench:largest")
    res = check_case(case)
    if not res.valid:
        raise RuntimeError(f"bench: the largest BilinearInterpolation case is invalid: "
                           f"{[v.message for v in res.violations]}")
    return case


def block_reduce_min_case(product: str = PRODUCT, dtype: str = "half") -> Any:
    """The BlockReduceMin case with the most block reads: repeatTime 255, contiguous blocks, full mask."""
    from ascverify import check_case, get_api
    from ascverify.cases.case import Case
    from ascverify.spec.rules import POSITION_NAMES

    model = get_api("BlockReduceMin")
    ctx = model.context(product, dtype)
    e = ctx.sizeof("src")
    per_block = 32 // e
    n = 255
    env = model.default_env()
    env.update({"repeatTime": n, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8, "isSetMask": True,
                "mask.bitwise": False, "mask.count": 8 * per_block, "mask.placeholder": False})
    dst_elems = n * 8
    env.update({"dst.position": POSITION_NAMES.index("VECOUT"), "dst.addr": 0, "dst.size": dst_elems,
                "src.position": POSITION_NAMES.index("VECIN"), "src.addr": _up(dst_elems * e),
                "src.size": n * 8 * per_block})
    case = Case(model, ctx, env, origin="bench:largest")
    res = check_case(case)
    if not res.valid:
        raise RuntimeError(f"bench: the largest BlockReduceMin case is invalid: {[v.message for v in res.violations]}")
    return case


# -- Python loops (the baselines) -----------------------------------------------------------------------------------

def bilinear_loop(case: Any, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """dst after the call, element by element: per vertical iteration, block and lane, sum over hRepeat
    of src0[offset/2 + lane] * src1[...] with each multiply and add rounded to half (numpy float16 scalars)."""
    from ascverify.models.vector_common import lane_mask

    env = case.env
    H, V = int(env["hRepeat"]), int(env["vRepeat"])
    S, R = int(env["dstBlkStride"]), int(env["vROffset"])
    mode = bool(env["repeatMode"])
    b = 16
    src0, off, src1 = inputs["src0"], inputs["src0Offset"], inputs["src1"]
    dst = inputs["dst"].copy()
    lanes = lane_mask(case).tolist()
    zero = np.float16(0)
    for v in range(V):
        for blk in range(8):
            for lane in range(b):
                if not lanes[blk * b + lane]:
                    continue
                acc = zero
                for h in range(H):
                    k = (v * H + h) * 8 + blk
                    x = src0[int(off[k]) // 2 + lane]
                    s = src1[k] if mode else src1[v * H + h]
                    acc = acc + x * s
                dst[v * R + blk * S * b + lane] = acc
    return dst


def block_reduce_min_loop(case: Any, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """dst after the call, element by element (atlas-a2/a3 semantics: a fully masked block stores nothing;
    a zero minimum is -0 when an active -0 is present; inputs hold no NaN)."""
    from ascverify.models.vector_common import lane_mask

    env = case.env
    n = int(env["repeatTime"])
    dst_rep, blk_s, src_rep = int(env["dstRepStride"]), int(env["srcBlkStride"]), int(env["srcRepStride"])
    per_block = 32 // case.ctx.sizeof("src")
    src = inputs["src"]
    dst = inputs["dst"].copy()
    lanes = lane_mask(case).tolist()
    for r in range(n):
        for blk in range(8):
            m = None
            base = (r * src_rep + blk * blk_s) * per_block
            for lane in range(per_block):
                if not lanes[blk * per_block + lane]:
                    continue
                x = src[base + lane]
                if m is None or x < m or (x == 0 and m == 0 and np.signbit(x)):
                    m = x
            if m is not None:
                dst[r * dst_rep * 8 + blk] = m
    return dst


LOOPS: dict[str, Callable[[Any, dict[str, np.ndarray]], np.ndarray]] = {
    "BilinearInterpolation": bilinear_loop,
    "BlockReduceMin": block_reduce_min_loop,
}
BUILDERS: dict[str, Callable[[], Any]] = {
    # atlas-350: the largest legal call of all products (A2/A3 cap hRepeat*vRepeat at 255: the uint8 repeat counts of
    # their Gatherb/Brcb implementation, spec note bilinear.c220-implementation)
    "BilinearInterpolation": lambda: bilinear_case("atlas-350"),
    "BlockReduceMin": block_reduce_min_case,
}


# -- the benchmark --------------------------------------------------------------------------------------------------

def _traffic(trace: Any) -> int:
    """Bytes the call reads plus writes, from its trace."""
    return int(sum(r.starts.size * r.length for r in trace.records))


def bench_api(api: str, cfg: Config) -> list[Figure]:
    from ascverify.core.memory import Trace
    from ascverify.core.run import prepare, run_case
    from ascverify.cases.case import fresh

    case = BUILDERS[api]()
    reps = cfg.repeats
    memory_holder: dict[str, Any] = {}

    batch = {"k": 1}

    def vectorized() -> Any:
        # ``k`` calls on one prepared memory, each with a fresh Trace: the case stores no byte that it reads, so
        # every call does the same work; the per-call time is the batch's time / k (sub-millisecond calls are
        # otherwise dominated by timer and scheduling noise on a shared machine)
        trace = None
        for _ in range(batch["k"]):
            trace = Trace(memory_holder["m"], strict=True)
            case.model.execute(case_holder["c"], trace)
        return trace

    case_holder = {"c": fresh(case)}
    _, inputs = prepare(case_holder["c"], seed=0)  # fills case_holder's data: the same inputs for every run
    inputs = {k: v.copy() for k, v in inputs.items()}

    def setup_same() -> None:
        memory_holder["m"], _ = prepare(case_holder["c"], seed=0)

    loop = LOOPS[api]
    setup_same()
    pilot, _, _ = median_time(vectorized, 3, setup=setup_same, warmup=True)
    batch["k"] = max(1, min(200, int(0.02 / max(pilot, 1e-6))))
    got = interleaved({"vec": (vectorized, setup_same), "run": (lambda: run_case(case_holder["c"], seed=0), None),
                       "loop": (lambda: loop(case, inputs), None)}, reps, warmup=True)
    t_vec, s_vec, trace = got["vec"]
    t_vec, s_vec = t_vec / batch["k"], [x / batch["k"] for x in s_vec]
    t_run, s_run, result = got["run"]
    t_loop, s_loop, looped = got["loop"]
    got = result.tensors["dst"]
    same = np.array_equal(np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(looped).view(np.uint8))
    if not same:
        diff = np.flatnonzero(got.view(np.uint16) != looped.view(np.uint16)) if got.dtype.itemsize == 2 else []
        note(f"core: {api}: the Python loop and the vectorized core DIFFER ({len(diff)} elements, first at "
             f"{list(diff[:5])})")
    nbytes = _traffic(trace)
    src = np.random.default_rng(0).integers(0, 256, size=nbytes, dtype=np.uint8)
    dst = np.empty_like(src)
    copies = max(1, min(10_000, int(0.002 / max(median_time(lambda: np.copyto(dst, src), 5, warmup=True)[0], 1e-8))))

    def copy_batch() -> None:
        for _ in range(copies):
            np.copyto(dst, src)

    t_copy, s_copy, _ = median_time(copy_batch, max(reps, 5), warmup=True)
    t_copy, s_copy = t_copy / copies, [x / copies for x in s_copy]
    k = batch["k"]
    batch["k"] = 1
    t_single, _, _ = median_time(vectorized, max(reps, 5), setup=setup_same)
    batch["k"] = k

    env = case.env
    shape = (f"hRepeat={env['hRepeat']} vRepeat={env['vRepeat']}" if api == "BilinearInterpolation"
             else f"repeatTime={env['repeatTime']}")
    where = f"{api} on {case.product} ({case.dtype.name}, {shape}, {nbytes:,} bytes read+written)"
    out = [
        at_least(Figure(NAME, f"{api}: execute vs Python loop", t_vec, "s", "Python loop (float16 scalars)",
                        t_loop, "s",
                        safe_ratio(t_loop, t_vec),
                        detail=f"{where}; bit-identical: {'yes' if same else 'NO'}; ratio = loop / vectorized; "
                               f"vectorized timed per batch of {k} calls on one prepared memory (a single call on "
                               f"freshly prepared memory: median {fmt_time(t_single)})",
                        samples=s_vec, baseline_samples=s_loop), 50),
        Figure(NAME, f"{api}: run_case (prepare+execute) vs Python loop", t_run, "s", "Python loop (float16 scalars)",
               t_loop, "s", safe_ratio(t_loop, t_run), detail="run_case includes allocating memory and drawing inputs",
               samples=s_run, baseline_samples=s_loop),
        at_most(Figure(NAME, f"{api}: execute vs numpy copy (bandwidth bound)", t_vec, "s",
                       f"np.copyto of {nbytes:,} B", t_copy, "s", safe_ratio(t_vec, t_copy),
                       detail=f"ratio = vectorized / copy (how far above the memory-bandwidth bound; lower is "
                              f"better); the copy timed per batch of {copies}",
                       samples=s_vec, baseline_samples=s_copy), 100),
        Figure(NAME, f"{api}: bit-identical to the loop", 100.0 if same else 0.0, "%", detail=where,
               target="100%", target_of="value", met=same),
    ]
    return out


def run(cfg: Config) -> list[Figure]:
    figures: list[Figure] = []
    for model in load_models():
        if model.name not in LOOPS:
            note(f"core: {model.name}: no Python-loop baseline in bench/core_bench.py (yet): skipped")
            continue
        try:
            figures.extend(bench_api(model.name, cfg))
        except Exception as exc:  # noqa: BLE001 - a model in progress elsewhere must not stop the benchmark
            skip(NAME, model.name, f"{type(exc).__name__}: {str(exc)[:200]}")
    return figures
