"""The vendor's load_data_with_stride example (asc-devkit examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/
load_data_with_stride/load_data_with_stride.asc), its six scenarios translated: M = 30, N = 70, K = 40; int8 (1, 2),
half (3, 4), float (5, 6); A transposed in L1 in the even scenarios; every B load into L0B with enTranspose = true.

The vendor runs them on Ascend 950 against goldens (matrix products, scripts/gen_data.py), so every load must check
without an error, and the core must leave in L0A the matrix A (M x K) and in L0B the matrix B transposed (N x K),
each in 16 x C0 fractals whose fractal columns lie dstStride fractals apart: what Mmad consumes, so that the product
of what the loads leave is the golden. Parameters and L1 layouts are copied from the .asc file (its Nd2NzParams:
an ND matrix r x c in L1 as NZ, element (i, j) at ((j // C0) * dstNzC0Stride + i) * C0 + j % C0)."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify import check_case, parse_case, run_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.core.program import run_program

M, N, K = 30, 70, 40
TYPES = {1: "int8", 2: "int8", 3: "half", 4: "half", 5: "float", 6: "float"}
NP = {"int8": np.int8, "half": np.float16, "float": np.float32}
BLOCK_CUBE = 16


def ceil_align(x: int, a: int) -> int:
    return -(-x // a) * a


def ceil_div(x: int, a: int) -> int:
    return -(-x // a)


def nd2nz(mat: np.ndarray, c0_stride: int, c0: int, size: int) -> np.ndarray:
    """DataCopy with Nd2NzParams (ndNum 1, dstNzNStride 1): element (i, j) at ((j // C0) * c0_stride + i) * C0 + j % C0;
    the rest of the L1 tensor zero."""
    out = np.zeros(size, dtype=mat.dtype)
    i, j = np.meshgrid(np.arange(mat.shape[0]), np.arange(mat.shape[1]), indexing="ij")
    out[((j // c0) * c0_stride + i) * c0 + j % c0] = mat
    return out


def nz_read(dst: np.ndarray, rows: int, cols: int, c0: int, stride: int) -> np.ndarray:
    """A rows x cols matrix out of 16 x C0 fractals, fractal (r // 16, c // C0) at (c // C0) * stride + r // 16."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return dst[((c // c0) * stride + r // 16) * 16 * c0 + (r % 16) * c0 + c % c0]


def scenario(n: int):
    """The A load and the B load of scenario n: (case documents, the matrices, the dstStrides), as the .asc sets them."""
    t = TYPES[n]
    transposed_a = n % 2 == 0
    size = np.dtype(NP[t]).itemsize
    c0 = 32 // size
    fractal_num = 1 if size == 2 else 2
    rng = np.random.default_rng(9)
    a = rng.integers(1, 10, size=(M, K)).astype(NP[t])
    b = rng.integers(1, 10, size=(K, N)).astype(NP[t])
    int8 = t == "int8"
    # sizes (the constructor of KernelLoadData)
    if not transposed_a:
        a_l1 = ceil_align(M, BLOCK_CUBE) * ceil_align(K, c0)
        a_l0 = ceil_align(M, BLOCK_CUBE) * ceil_align(K, c0)
    elif int8:
        a_l1 = ceil_align(K, BLOCK_CUBE * fractal_num) * ceil_align(M, c0)
        a_l0 = ceil_align(M, BLOCK_CUBE * fractal_num) * ceil_align(K, c0)
    elif t == "half":
        a_l1 = ceil_align(K, BLOCK_CUBE) * ceil_align(M, c0)
        a_l0 = ceil_align(M, BLOCK_CUBE) * ceil_align(K, c0)
    else:
        a_l1 = ceil_align(K, BLOCK_CUBE) * ceil_align(M, c0 * fractal_num)
        a_l0 = ceil_align(M, BLOCK_CUBE) * ceil_align(K, c0 * fractal_num)
    b_l1 = ceil_align(K, BLOCK_CUBE * (fractal_num if int8 else 1)) * ceil_align(N, c0)
    b_l0 = ceil_align(K, c0) * ceil_align(N, BLOCK_CUBE * (fractal_num if int8 else 1)) if t != "float" else \
        ceil_align(K, BLOCK_CUBE) * ceil_align(N, c0)
    # CopyIn
    if not transposed_a:
        a_src = nd2nz(a, ceil_align(M, BLOCK_CUBE), c0, a_l1)
    else:
        a_src = nd2nz(a.T.copy(), ceil_align(K, BLOCK_CUBE * fractal_num) if int8 else ceil_align(K, BLOCK_CUBE), c0,
                      a_l1)
    b_src = nd2nz(b, ceil_align(K, BLOCK_CUBE * fractal_num) if int8 else ceil_align(K, BLOCK_CUBE), c0, b_l1)
    common = {"l1H": 1, "strideW": 1, "strideH": 1, "filterW": 1, "filterH": 1, "dilationFilterW": 1,
              "dilationFilterH": 1, "filterSizeW": False, "filterSizeH": False, "fMatrixCtrl": False}
    # SplitALoadDataWithStride / SplitATransposeLoadDataWithStride
    if not transposed_a:
        a_args = {**common, "l1W": ceil_align(M, BLOCK_CUBE), "channelSize": ceil_align(K, c0),
                  "kExtension": ceil_align(K, c0), "mExtension": ceil_align(M, BLOCK_CUBE), "enTranspose": False}
        a_stride = ceil_div(ceil_align(M, BLOCK_CUBE), BLOCK_CUBE)
    else:
        a_args = {**common, "l1W": ceil_align(K, BLOCK_CUBE), "channelSize": ceil_align(M, c0),
                  "kExtension": ceil_align(M, c0), "mExtension": ceil_align(K, BLOCK_CUBE), "enTranspose": True}
        if int8:
            a_args.update(l1W=ceil_align(K, BLOCK_CUBE * fractal_num), mExtension=ceil_align(K, BLOCK_CUBE * fractal_num))
        a_stride = ceil_div(ceil_align(M, c0), BLOCK_CUBE)
    # SplitBLoadDataWithStride
    b_args = {**common, "l1W": ceil_align(K, BLOCK_CUBE), "channelSize": ceil_align(N, c0),
              "kExtension": ceil_align(N, c0), "mExtension": ceil_align(K, BLOCK_CUBE), "enTranspose": True}
    if int8:
        b_args.update(l1W=ceil_align(K, BLOCK_CUBE * fractal_num), mExtension=ceil_align(K, BLOCK_CUBE * fractal_num))
    b_stride = ceil_div(ceil_align(N, c0), BLOCK_CUBE)
    if t == "float":
        # the .asc declares b2Local with CeilAlign(k,16) * CeilAlign(n,8) = 3456 floats, but B transposed is 72 x 48:
        # 5 fractal rows (of 16) x 6 fractal columns (of 8) = 3840 floats, and the vendor's own numpy model of the
        # load (mmad_load3dv2/load3d.py, b32 into L0B as [M1, 2, K', 8]) writes up to element 3775: the declaration
        # is harmless there only because L0B holds nothing after it. The case gives dst what the load writes.
        b_l0 = ceil_div(ceil_align(N, c0), BLOCK_CUBE) * 16 * ceil_align(K, BLOCK_CUBE)
    b1_addr = a_l1 * size

    def doc(args, stride, dst_pos, dst_size, src, addr):
        return {"api": "LoadDataWithStride", "product": "atlas-350", "dtype": t,
                "args": {**args, "repeat": {"dstStride": stride}},
                "tensors": {"dst": {"position": dst_pos, "addr": 0, "size": dst_size},
                            "src": {"position": "A1" if dst_pos == "A2" else "B1", "addr": addr, "size": src.size,
                                    "data": src.tolist()}}}

    return (doc(a_args, a_stride, "A2", a_l0, a_src, 0), doc(b_args, b_stride, "B2", b_l0, b_src, b1_addr),
            a, b, a_stride, b_stride, c0)


@pytest.mark.parametrize("n", range(1, 7))
def test_vendor_scenario_checks_without_error_and_loads_what_mmad_needs(n):
    a_doc, b_doc, a, b, a_stride, b_stride, c0 = scenario(n)
    t = TYPES[n]
    a_case, b_case = parse_case(a_doc), parse_case(b_doc)
    a_res, b_res = check_case(a_case), check_case(b_case)
    assert a_res.valid and b_res.valid, ([v.message for v in a_res.violations], [v.message for v in b_res.violations])
    p = "load_data_with_stride"
    assert [w.id for w in a_res.warnings] == []
    # the B load sets enTranspose on L0B (no effect there); int8 into L0B is outside LoadDataWithStride.md's list
    assert sorted(w.id for w in b_res.warnings) == sorted([f"{p}.transpose.no_effect"] + ([f"{p}.b8.b2"] if t == "int8"
                                                                                          else []))
    l0a = run_case(a_case).tensors["dst"]
    l0b = run_case(b_case).tensors["dst"]
    rows_a = ceil_align(M, c0) if n % 2 == 0 else ceil_align(M, BLOCK_CUBE)
    got_a = nz_read(l0a, rows_a, a_case.env["mStep"] if n % 2 == 0 else a_case.env["kStep"], c0, a_stride)
    assert np.array_equal(got_a[:M, :K], a)  # L0A: A (M x K), fractal rows 16 x C0, columns dstStride apart
    got_b = nz_read(l0b, b_case.env["kStep"], b_case.env["mStep"], c0, b_stride)
    assert np.array_equal(got_b[:N, :K], b.T)  # L0B: B transposed (N x K)
    golden = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert np.array_equal(got_a[:M, :K].astype(np.float64) @ got_b[:N, :K].astype(np.float64).T, golden)


@pytest.mark.parametrize("n", [1, 4, 6])
def test_vendor_scenario_as_a_program(n):
    """SetLoadDataRepeatWithStride then LoadDataWithStride, for A and for B, as the .asc calls them."""
    a_doc, b_doc, *_ = scenario(n)
    calls, tensors = [], {}
    for name, doc in (("a", a_doc), ("b", b_doc)):
        args = dict(doc["args"])
        repeat = args.pop("repeat")
        tensors[f"{name}1"], tensors[f"{name}2"] = doc["tensors"]["src"], doc["tensors"]["dst"]
        calls.append({"api": "SetLoadDataRepeatWithStride", "args": repeat})
        calls.append({"api": "LoadDataWithStride", "args": args,
                      "tensors": {"src": f"{name}1", "dst": f"{name}2"}})
    prog = parse_program({"product": "atlas-350", "dtype": TYPES[n], "tensors": tensors, "calls": calls})
    result = check_program(prog)
    assert result.valid, [(v.call, v.id) for v in result.violations]
    assert not run_program(prog).faults
