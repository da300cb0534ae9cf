"""The C allocator's settings for a campaign's processes: freed memory kept for the next case.

A differential case allocates and frees arrays of up to a few MiB (a feature map filling L1, the core's buffers, the
copies a target's pipe makes). glibc serves such sizes with fresh memory mappings (or trims them off the heap when
freed), so every case touches new pages and pays a page fault per 4 KiB: on this project's 2-core machine (a virtual
machine) about 470 faults and 0.7 ms of a Load3DBitMode target call's 1.7-2.4 ms (bench/RESULTS.md). With a fixed
mapping threshold and a trim threshold above a case's working set, freed blocks stay in the heap and are reused.

Applied once per process, in the processes that run campaign items and in a Python target's process; a no-op where
the C library is not glibc (its ``mallopt`` parameters are glibc's).
"""

from __future__ import annotations

import ctypes

#: glibc's ``mallopt`` parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: blocks up to this size come from the heap, not from mappings of their own (glibc's largest allowed value)
MMAP_THRESHOLD = 32 << 20
#: free memory at the heap's top kept, not returned to the system, up to this size
TRIM_THRESHOLD = 64 << 20

_applied: bool | None = None


def keep_freed_memory() -> bool:
    """Set the allocator to keep freed blocks of up to 32 MiB for reuse (once per process). True when glibc took
    the settings, False where it is not glibc or refused them."""
    global _applied
    if _applied is not None:
        return _applied
    _applied = False
    try:
        libc = ctypes.CDLL(None)
        glibc = hasattr(libc, "gnu_get_libc_version")
        mallopt = getattr(libc, "mallopt", None)
    except OSError:
        return False
    if not glibc or mallopt is None:
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _applied = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
