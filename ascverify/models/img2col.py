"""img2col for Load3DBitMode: geometry, the gather, the fractal layouts, and a direct convolution to check it by.

Everything here is plain numpy on concrete values (no trace): `ascverify.models.load3d` records the
reads and writes on the core, the tests use the same functions to decode what the core wrote.

Conventions (spec notes of the model, ``ascverify notes Load3DBitMode``):

* the feature map in L1 is NC1HWC0 with N = 1: pixel vector ``(c1, h, w)`` holds C0 = 32 / sizeof(T)
  channels and starts at element ``((c1 * l1H + h) * l1W + w) * C0``;
* the img2col matrix has M = Ho * Wo rows, row ``m = ho * Wo + wo``, and K = C1 * Kh * Kw * C0
  columns ordered ``(c1, kh, kw, c0)``, C1 = ceil(sizeChannel / C0); element (m, k) is the input at
  ``h = ho * strideH - padTop + kh * dilationH``, ``w = wo * strideW - padLeft + kw * dilationW``, or
  padValue outside the map; columns of channels ``c1 * C0 + c0 >= sizeChannel`` are unspecified;
* the window (rows mPos.., columns kPos..; with repeats, the repeats' windows assembled into one matrix W)
  is stored as O = W (L0A) or O = W transposed (L0B, and L0A with transpose) in fractals of 16 rows x C0
  columns (512 bytes, row-major inside): fractal (row block rb, column block cb) of O at fractal index
  cb * dstStride + rb, dstStride the fractal distance between O's column blocks (its row blocks when the call
  sets none: a contiguous NZ matrix). See `Output`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

FRACTAL_ROWS = 16
FRACTAL_BYTES = 512
VECTOR_BYTES = 32
EXTENSION = 256  # filterW / filterH add 256 to the kernel size


def c0_of(elem_bytes: int) -> int:
    """Elements of one 32-byte pixel vector (and columns of one fractal): 16 for half, 32 for 8-bit types."""
    return VECTOR_BYTES // elem_bytes


def ceil_to(x: int, step: int) -> int:
    return -(-x // step) * step


def out_size(size: int, pad_a: int, pad_b: int, kernel: int, dilation: int, stride: int) -> int:
    """Output positions along one axis (0 when the dilated kernel does not fit the padded input, or stride < 1)."""
    if stride < 1:
        return 0
    return max(0, (size + pad_a + pad_b - dilation * (kernel - 1) - 1) // stride + 1)


@dataclass(frozen=True)
class Geometry:
    """The img2col problem of one call (fmatrix given)."""

    c0: int
    channels: int
    l1h: int
    l1w: int
    pads: tuple[int, int, int, int]  # left, right, top, bottom
    kh: int
    kw: int
    sh: int
    sw: int
    dh: int
    dw: int

    @property
    def c1(self) -> int:
        return -(-self.channels // self.c0)

    @property
    def ho(self) -> int:
        return out_size(self.l1h, self.pads[2], self.pads[3], self.kh, self.dh, self.sh)

    @property
    def wo(self) -> int:
        return out_size(self.l1w, self.pads[0], self.pads[1], self.kw, self.dw, self.sw)

    @property
    def m_total(self) -> int:
        return self.ho * self.wo

    @property
    def k_total(self) -> int:
        return self.c1 * self.kh * self.kw * self.c0

    @property
    def src_elems(self) -> int:
        """Elements of the feature map SetFmatrix describes: C1 x l1H x l1W x C0."""
        return self.c1 * self.l1h * self.l1w * self.c0

    @classmethod
    def of(cls, f: Mapping[str, Any], elem_bytes: int) -> "Geometry":
        """From a case's fields (``fmatrix.*`` and the config fields)."""
        return cls(c0_of(elem_bytes), int(f["sizeChannel"]), int(f["fmatrix.l1H"]), int(f["fmatrix.l1W"]),
                   tuple(int(f[f"fmatrix.padList{i}"]) for i in range(4)),  # type: ignore[arg-type]
                   int(f["Hk"]) + EXTENSION * bool(f["filterH"]), int(f["Wk"]) + EXTENSION * bool(f["filterW"]),
                   int(f["strideH"]), int(f["strideW"]), int(f["dilationH"]), int(f["dilationW"]))


def source(geo: Geometry, m: np.ndarray, k: np.ndarray) -> dict[str, np.ndarray]:
    """Where img2col element (m, k) comes from: ``vector`` (pixel-vector index, valid where ``inside``),
    ``lane`` (c0), ``inside`` (inside the feature map, not padding), ``real`` (a channel < sizeChannel) and
    ``in_matrix`` (m < M and k < K). ``m`` and ``k`` broadcast against each other; ``lane`` and ``real`` depend on k
    alone and keep its shape (a column of m values and a row of k values give the whole matrix, each division done
    once per row or column)."""
    m, k = np.asarray(m, dtype=np.int64), np.asarray(k, dtype=np.int64)
    wo = max(geo.wo, 1)
    ho_i, wo_i = np.divmod(m, wo)
    group, lane = np.divmod(k, geo.c0)
    rest, kw_i = np.divmod(group, max(geo.kw, 1))  # a kernel size of 0 (an invalid case) has no columns anyway
    c1_i, kh_i = np.divmod(rest, max(geo.kh, 1))
    h = ho_i * geo.sh - geo.pads[2] + kh_i * geo.dh
    w = wo_i * geo.sw - geo.pads[0] + kw_i * geo.dw
    in_matrix = (m >= 0) & (m < geo.m_total) & (k >= 0) & (k < geo.k_total)
    inside = in_matrix & (h >= 0) & (h < geo.l1h) & (w >= 0) & (w < geo.l1w)
    vector = np.where(inside, (c1_i * geo.l1h + h) * geo.l1w + w, 0)
    return {"vector": vector, "lane": lane, "inside": inside, "real": c1_i * geo.c0 + lane < geo.channels,
            "in_matrix": in_matrix}


# -- destination layout ----------------------------------------------------------------------------------------------

def transposed_output(position: str, transpose: bool) -> bool:
    """Whether the call stores the transpose of its (assembled) window: every B2 load (the L1 -> L0B path always
    transposes), and an A2 load with transpose set."""
    return position == "B2" or bool(transpose)


def fractal_count(rows: int, cols: int, c0: int) -> int:
    """Fractals of a rows x cols matrix: both rounded up to whole fractals (16 rows, C0 columns)."""
    return (-(-max(rows, 0) // FRACTAL_ROWS)) * (-(-max(cols, 0) // c0))


def grid(rows: int, cols: int, c0: int) -> tuple[int, int]:
    """(row blocks, column blocks) of a rows x cols matrix in fractals of 16 rows x C0 columns."""
    return -(-max(rows, 0) // FRACTAL_ROWS), -(-max(cols, 0) // c0)


@dataclass(frozen=True)
class Output:
    """Where one call stores what (concrete values; spec notes load3d.output and load3d.repeat).

    The repeats' windows (``m_step`` x ``k_step`` each) are assembled into one matrix W: along M (``along_m``),
    repeat r's rows start at row r * ceil16(m_step); along K, its columns at column r * ceil_C0(k_step). The output O
    is W, or W transposed (``transposed``); O is stored in fractals of 16 rows x C0 columns (512 bytes, row-major
    inside), fractal (row block rb, column block cb) at fractal index cb * stride + rb from dst's start, where the
    stride is dstStride (None: the natural count, O's row blocks: a contiguous NZ matrix)."""

    c0: int
    m_step: int
    k_step: int
    repeats: int = 1  # 0: the call moves nothing
    along_m: bool = True
    transposed: bool = False
    stride: int | None = None

    @property
    def n(self) -> int:
        """The repeats the geometry counts (one for repeatTime = 0: the rules still check one window)."""
        return max(self.repeats, 1)

    @property
    def m_pitch(self) -> int:
        return ceil_to(self.m_step, FRACTAL_ROWS)

    @property
    def k_pitch(self) -> int:
        return ceil_to(self.k_step, self.c0)

    @property
    def w_rows(self) -> int:
        return (self.n - 1) * self.m_pitch + self.m_step if self.along_m else self.m_step

    @property
    def w_cols(self) -> int:
        return self.k_step if self.along_m else (self.n - 1) * self.k_pitch + self.k_step

    @property
    def rows(self) -> int:
        """Rows of O."""
        return self.w_cols if self.transposed else self.w_rows

    @property
    def cols(self) -> int:
        """Columns of O."""
        return self.w_rows if self.transposed else self.w_cols

    @property
    def row_blocks(self) -> int:
        return grid(self.rows, self.cols, self.c0)[0]

    @property
    def col_blocks(self) -> int:
        return grid(self.rows, self.cols, self.c0)[1]

    @property
    def dst_stride(self) -> int:
        return self.row_blocks if self.stride is None else self.stride

    @property
    def extent(self) -> int:
        """Fractals from dst's start to the end of the last one stored: (CB - 1) * stride + RB (0 when O is empty)."""
        rb, cb = self.row_blocks, self.col_blocks
        return 0 if rb * cb == 0 else (cb - 1) * self.dst_stride + rb

    @property
    def collide(self) -> bool:
        """Two fractals of O land on the same 512 bytes: at least two column blocks and a stride below the row
        blocks (fractal (stride, 0) and fractal (0, 1) meet)."""
        return self.col_blocks >= 2 and self.dst_stride < self.row_blocks

    def window_coords(self, o_row: np.ndarray, o_col: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For elements (o_row, o_col) of O: (repeat, row in that repeat's window, column in it, whether the element
        belongs to a window at all), each of the shape o_row and o_col broadcast to."""
        parts = self.window_parts(o_row, o_col)
        return tuple(np.broadcast_arrays(*parts))  # type: ignore[return-value]

    def window_parts(self, o_row: np.ndarray, o_col: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`window_coords` without the broadcast: the repeat, and the window row or column it goes with, depend on one
        of O's axes only (the window's rows along M, its columns along K), so a column of O's rows and a row of its
        columns give them as a column or a row (``inside``, of both, as the whole matrix)."""
        o_row, o_col = np.asarray(o_row, dtype=np.int64), np.asarray(o_col, dtype=np.int64)
        wr, wc = (o_col, o_row) if self.transposed else (o_row, o_col)
        if self.along_m:
            rep, wi = np.divmod(wr, max(self.m_pitch, 1))
            wj = wc
        else:
            rep, wj = np.divmod(wc, max(self.k_pitch, 1))
            wi = wr
        inside = (rep < self.n) & (wi < self.m_step) & (wj < self.k_step) & (o_row < self.rows) & (o_col < self.cols)
        return rep, wi, wj, inside


def element_index(row: np.ndarray, col: np.ndarray, c0: int, stride: int) -> np.ndarray:
    """The element offset from dst's start of element (row, col) of O: fractal (row // 16, col // C0) at index
    (col // C0) * stride + row // 16, row-major inside."""
    rb, i = np.divmod(np.asarray(row, dtype=np.int64), FRACTAL_ROWS)
    cb, j = np.divmod(np.asarray(col, dtype=np.int64), c0)
    return ((cb * stride + rb) * FRACTAL_ROWS + i) * c0 + j


def matrix_from_dst(dst: np.ndarray, rows: int, cols: int, c0: int, stride: int | None = None) -> np.ndarray:
    """The rows x cols matrix O stored in ``dst`` (elements from dst's start) in fractals of 16 x C0, fractal
    columns ``stride`` fractals apart (default: O's row blocks, a contiguous NZ matrix): the inverse of the store."""
    stride = grid(rows, cols, c0)[0] if stride is None else stride
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return np.asarray(dst)[element_index(r, c, c0, stride)]


def window_from_dst(dst: np.ndarray, rows: int, cols: int, c0: int, transposed: bool = False,
                    stride: int | None = None) -> np.ndarray:
    """The rows x cols window W a single load stored in ``dst``: O = W (or W transposed), read back and turned."""
    if transposed:
        return matrix_from_dst(dst, cols, rows, c0, stride).T
    return matrix_from_dst(dst, rows, cols, c0, stride)


def nz_matrix(dst: np.ndarray, rows: int, cols: int, c0: int) -> np.ndarray:
    """A rows x cols matrix stored contiguously in NZ fractals (16 x C0), as a plain 2-D array."""
    return matrix_from_dst(dst, rows, cols, c0)


# -- the reference: a direct convolution ------------------------------------------------------------------------

def padded(x: np.ndarray, pads: tuple[int, int, int, int], pad_value: Any) -> np.ndarray:
    """x (C, H, W) with padValue around it: left, right, top, bottom."""
    c, h, w = x.shape
    left, right, top, bottom = pads
    out = np.full((c, h + top + bottom, w + left + right), pad_value, dtype=x.dtype)
    out[:, top:top + h, left:left + w] = x
    return out


def conv2d(x: np.ndarray, weight: np.ndarray, pads: tuple[int, int, int, int], stride: tuple[int, int],
           dilation: tuple[int, int], pad_value: Any = 0) -> np.ndarray:
    """Direct 2-D convolution (cross-correlation, as in every deep-learning framework), float64:
    out[n, ho, wo] = sum over c, i, j of xpad[c, ho*sH + i*dH, wo*sW + j*dW] * weight[n, c, i, j].

    x: (C, H, W); weight: (N, C, Kh, Kw); pads: left, right, top, bottom; stride, dilation: (H, W).
    Written from the definition (a padded array and one strided slice per kernel tap), independently of
    `source` and the fractal layouts.
    """
    n_out, c, kh, kw = weight.shape
    xp = padded(np.asarray(x, dtype=np.float64), pads, float(pad_value))
    sh, sw = stride
    dh, dw = dilation
    ho = (xp.shape[1] - dh * (kh - 1) - 1) // sh + 1
    wo = (xp.shape[2] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n_out, max(ho, 0), max(wo, 0)))
    for i in range(kh):
        for j in range(kw):
            tap = xp[:, i * dh: i * dh + sh * (ho - 1) + 1: sh, j * dw: j * dw + sw * (wo - 1) + 1: sw]  # (C, Ho, Wo)
            out += np.einsum("nc,chw->nhw", weight[:, :, i, j].astype(np.float64), tap)
    return out
