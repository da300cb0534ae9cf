"""Which elements of a tensor hold no defined value: what the hardware leaves unspecified is never a number."""

from __future__ import annotations

import numpy as np

from ..spec.dtypes import DType
from .memory import INITIALIZED, Memory


def unspecified_elements(memory: Memory, buffer: str, addr: int, count: int, dtype: DType) -> np.ndarray:
    """Per element of the ``count`` elements of ``dtype`` at ``addr``: some byte is unspecified (written as poison
    by a call whose result the hardware does not define, or never written at all). An element of a sub-byte type
    (int4b_t) is unspecified with the byte it shares."""
    bad = memory.state[buffer][addr: addr + dtype.nbytes(count)] != INITIALIZED
    if dtype.bits < 8:
        return np.repeat(bad, 8 // dtype.bits)[:count]
    return bad.reshape(count, dtype.size).any(axis=1)


def blanked(values: np.ndarray, unspecified: np.ndarray | None) -> np.ndarray:
    """``values`` with every unspecified element's bits all set: a NaN in the float types, -1 or the largest value
    in the integer types. A file of results then holds no computed-looking number where the hardware defines none
    (the marks beside it say which elements those are). ``values`` itself is left unchanged."""
    if unspecified is None:
        return values
    marks = np.asarray(unspecified, dtype=bool).reshape(-1)
    if not marks.any() or values.dtype.itemsize not in (1, 2, 4, 8) or values.dtype == np.bool_:
        return values
    if marks.size != values.size:
        raise ValueError(f"{marks.size} marks for {values.size} elements")
    out = np.array(values, copy=True).reshape(-1)
    words = out.view(np.dtype(f"u{values.dtype.itemsize}"))
    words[marks] = np.iinfo(words.dtype).max
    return out.reshape(values.shape)
