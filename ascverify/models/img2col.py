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
* the window (rows mPos.., columns kPos..) is stored in fractals of 16 rows x C0 columns (512 bytes):
  NZ in L0A (fractal (m1, k1) at index k1 * M1 + m1, row-major inside), ZN in L0B and for a transposed
  L0A destination (fractal index m1 * K1 + k1, column-major inside), M1 and K1 the window's rows and
  columns in fractals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

FRACTAL_ROWS = 16
FRACTAL_BYTES = 512
VECTOR_BYTES = 32
EXTENSION = 256  # filterW / filterH add 256 to the kernel size

NZ, ZN = "NZ", "ZN"


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
    ``in_matrix`` (m < M and k < K)."""
    m, k = np.broadcast_arrays(np.asarray(m, dtype=np.int64), np.asarray(k, dtype=np.int64))
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


# -- destination layout --------------------------------------------------------------------------------------------

def layout_of(position: str, transpose: bool) -> str:
    """NZ for an L0A destination, ZN for L0B and for a transposed L0A destination."""
    return ZN if (position == "B2" or transpose) else NZ


def fractal_count(rows: int, cols: int, c0: int) -> int:
    """Fractals of a rows x cols window: both rounded up to whole fractals (16 rows, C0 columns)."""
    return (-(-max(rows, 0) // FRACTAL_ROWS)) * (-(-max(cols, 0) // c0))


def fractal_elements(fractals: np.ndarray, layout: str, rows: int, cols: int, c0: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) in the window of every element of the given fractals, in memory order: two arrays of shape
    (len(fractals), 16 * C0)."""
    f = np.asarray(fractals, dtype=np.int64)[:, None]
    j = np.arange(FRACTAL_ROWS * c0, dtype=np.int64)[None, :]
    m1_count = max(1, -(-rows // FRACTAL_ROWS))
    k1_count = max(1, -(-cols // c0))
    if layout == NZ:
        k1, m1 = np.divmod(f, m1_count)
        jr, jc = np.divmod(j, c0)
    else:
        m1, k1 = np.divmod(f, k1_count)
        jc, jr = np.divmod(j, FRACTAL_ROWS)
    return m1 * FRACTAL_ROWS + jr, k1 * c0 + jc


def window_from_dst(dst: np.ndarray, layout: str, rows: int, cols: int, c0: int) -> np.ndarray:
    """The rows x cols window stored in ``dst`` (elements) in ``layout``: the inverse of the store."""
    n = fractal_count(rows, cols, c0)
    r, c = fractal_elements(np.arange(n), layout, rows, cols, c0)
    flat = np.asarray(dst)[: n * FRACTAL_ROWS * c0].reshape(n, FRACTAL_ROWS * c0)
    full = np.zeros((ceil_to(rows, FRACTAL_ROWS), ceil_to(cols, c0)), dtype=flat.dtype)
    full[r, c] = flat
    return full[:rows, :cols]


def nz_matrix(dst: np.ndarray, rows: int, cols: int, c0: int) -> np.ndarray:
    """A rows x cols matrix stored in NZ fractals (16 x C0), as a plain 2-D array (for transposed windows)."""
    return window_from_dst(dst, NZ, rows, cols, c0)


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
