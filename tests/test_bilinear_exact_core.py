"""BilinearInterpolation's core on calls large enough for core.half to sum in several chunks, on data that takes its
exact path, leaves it in some columns, or never takes it: dst bit for bit against an element-by-element loop over
numpy float16 scalars written here (each multiply and each add rounded to half, from +0, in hRepeat order)."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify import check_case, get_api, run_case
from ascverify.cases.case import Case
from ascverify.spec.rules import POSITION_NAMES

H, V, B = 200, 4, 16      # 4 * 128 lanes: core.half sums 128 hRepeat rows a chunk, so two chunks


def make_case(product: str) -> Case:
    """hRepeat 200, vRepeat 4, vROffset 128, dstBlkStride 1, full mask, repeatMode false; the tensors packed in
    UB (sharedTmpBuffer where the product needs it: 4 bytes per offset on atlas-inference-aicore)."""
    model = get_api("BilinearInterpolation")
    env = model.default_env()
    env.update({"hRepeat": H, "vRepeat": V, "vROffset": 128, "dstBlkStride": 1, "repeatMode": False,
                "mask.bitwise": False, "mask.count": 128})
    sizes = {"dst": (V - 1) * 128 + 8 * B, "src0Offset": 8 * H * V, "src1": H * V, "src0": 64 * B}
    addr = 0
    for name, n in sizes.items():
        env[f"{name}.position"] = POSITION_NAMES.index("VECOUT" if name == "dst" else "VECIN")
        env[f"{name}.addr"], env[f"{name}.size"] = addr, n
        addr += -(-(n * (4 if name == "src0Offset" else 2)) // 32) * 32
    tmp = 4 * sizes["src0Offset"] if product == "atlas-inference-aicore" else 0
    env.update({"sharedTmpBuffer.present": tmp > 0, "sharedTmpBuffer.position": POSITION_NAMES.index("VECCALC"),
                "sharedTmpBuffer.addr": addr if tmp else 0, "sharedTmpBuffer.size": tmp})
    case = Case(model, model.context(product, "half"), env, origin="test")
    assert check_case(case).valid, [v.message for v in check_case(case).violations]
    return case


def loop(src0: np.ndarray, offsets: np.ndarray, src1: np.ndarray, dst: np.ndarray) -> np.ndarray:
    out = dst.copy()
    for v in range(V):
        for blk in range(8):
            for lane in range(B):
                acc = np.float16(0)
                for h in range(H):
                    k = (v * H + h) * 8 + blk
                    acc = acc + src0[int(offsets[k]) // 2 + lane] * src1[v * H + h]
                out[v * 128 + blk * B + lane] = acc
    return out


def data(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if kind == "quarters":          # products multiples of 1/16 up to 4: most sums stay exact
        return ((rng.integers(-8, 9, 64 * B) / 4).astype(np.float16),
                (rng.integers(-8, 9, H * V) / 4).astype(np.float16))
    if kind == "drifting":          # all positive; lanes 0..7 of every block 1.75 or 2, lanes 8..15 0.25 or 0.5:
        x = (rng.integers(7, 9, (64, B)) / 4)                           # with src1 1/4 or 1/2 the sums of lanes
        x[:, 8:] = rng.integers(1, 3, (64, 8)) / 4                      # 0..7 pass 128 = 2**(-4 + 11), the exact
        return (x.reshape(-1).astype(np.float16),                       # range (then they are rounded), the
                (rng.integers(1, 3, H * V) / 4).astype(np.float16))     # others stay below 40
    return ((rng.standard_normal(64 * B) * 3).astype(np.float16),      # arbitrary halves: every sum rounded
            (rng.standard_normal(H * V)).astype(np.float16))


@pytest.mark.parametrize("product", ["atlas-350", "atlas-inference-aicore"])
@pytest.mark.parametrize("kind", ["quarters", "drifting", "normal"])
def test_dst_matches_the_float16_loop(product, kind):
    rng = np.random.default_rng(len(kind))
    case = make_case(product)
    src0, src1 = data(kind, rng)
    offsets = (rng.integers(0, 64, 8 * H * V) * 32).astype(np.uint32)
    dst = np.full(case.env["dst.size"], 7.0, np.float16)
    for name, arr in (("src0", src0), ("src1", src1), ("src0Offset", offsets), ("dst", dst)):
        case.set_data(name, arr)
    got = run_case(case, seed=0, strict=True).tensors["dst"]
    want = loop(src0, offsets, src1, dst)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
