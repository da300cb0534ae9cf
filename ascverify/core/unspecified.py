"""Which elements of a tensor hold no defined value: what the hardware leaves unspecified is never a number."""

from __future__ import annotations

import numpy as np

from .memory import INITIALIZED, Memory


def unspecified_elements(memory: Memory, buffer: str, addr: int, count: int, elem_bytes: int) -> np.ndarray:
    """Per element of the ``count`` elements at ``addr``: some byte is unspecified (written as poison by a call
    whose result the hardware does not define, or never written at all)."""
    state = memory.state[buffer][addr: addr + count * elem_bytes]
    return (state != INITIALIZED).reshape(count, elem_bytes).any(axis=1)
