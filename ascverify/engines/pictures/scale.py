"""Scales shared by the text and the image renderers: bytes to cells, byte counts and addresses as text."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def cell_bytes(span: int, cells: int) -> int:
    """The smallest power of two of bytes per cell that fits ``span`` bytes in ``cells`` cells (so that alignment
    boundaries fall on cell boundaries)."""
    need = max(1, -(-max(span, 1) // max(cells, 1)))
    return 1 << (need - 1).bit_length()


def cells_hit(intervals: Sequence[tuple[int, int]], lo: float, per_cell: float, n: int) -> np.ndarray:
    """Per cell of ``n`` (cell i holds bytes [lo + i*per_cell, lo + (i+1)*per_cell)): some interval touches it."""
    diff = np.zeros(n + 1, np.int64)
    for a, z in intervals:
        if z <= a:
            continue
        first = int((a - lo) // per_cell)
        last = int(-(-(z - lo) // per_cell)) - 1
        first, last = max(first, 0), min(last, n - 1)
        if first <= last:
            diff[first] += 1
            diff[last + 1] -= 1
    return np.cumsum(diff[:n]) > 0


def nbytes_text(n: float) -> str:
    """``512 B``, ``3 KiB``, ``1.5 MiB``."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n:.0f} B" if n == int(n) else f"{n:.1f} B"


def addr_text(addr: int, width: int = 0) -> str:
    """``0x1f40`` (zero-padded to ``width`` hex digits)."""
    return f"-0x{-addr:0{width}x}" if addr < 0 else f"0x{addr:0{width}x}"


def hex_width(*values: int) -> int:
    return max(1, *(len(f"{abs(v):x}") for v in values))
