"""`engines.fuzz.allocator`: a campaign's processes reuse freed memory instead of faulting fresh pages in per case.

Measured by the kernel's own count of minor page faults (``getrusage``), not by time: a process that 40 times
allocates three 2 MiB arrays, touches and frees them faults in about 1,536 pages each time with glibc's default
settings (the free memory at the heap's top exceeds the trim threshold glibc derived from the block size, and goes
back to the system), and about none after the first time once freed memory is kept.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ascverify.engines.fuzz import allocator
from ascverify.engines.fuzz.targets import PythonTarget

GLIBC = hasattr(ctypes.CDLL(None), "gnu_get_libc_version")

PROBE = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from ascverify.engines.fuzz.allocator import keep_freed_memory
    applied = keep_freed_memory() if sys.argv[1] == "keep" else None
    def case():                                      # three 2 MiB arrays live at once, every page touched
        a, b, c = (np.ones(1 << 21, np.uint8) for _ in range(3))
        del a, b, c
    case()                                           # the first one faults in either way
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(40):
        case()
    print(applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _faults(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=120, check=True)
    applied, faults = out.stdout.split()
    return applied, int(faults)


@pytest.mark.skipif(not GLIBC, reason="the settings are glibc's")
def test_freed_memory_is_reused_without_page_faults():
    _, default = _faults("default")
    applied, kept = _faults("keep")
    assert applied == "True"
    pages = 40 * 3 * 512                     # 4 KiB pages
    assert default > pages // 2              # freed together, the 6 MiB at the heap's top are trimmed, then faulted in
    assert kept < pages // 20                # kept: the same heap blocks every time


def test_settings_are_applied_once_and_reported():
    first = allocator.keep_freed_memory()
    assert allocator.keep_freed_memory() is first
    assert first is GLIBC


ITEM_RUNNER = textwrap.dedent("""
    from ascverify.engines.fuzz import allocator
    from ascverify.engines.fuzz.plan import Unit
    from ascverify.engines.fuzz.runner import ItemRunner, RunOptions, Sink
    before = allocator._applied
    ItemRunner(Unit("BlockReduceMin", "atlas-a2", "invariants"), RunOptions(seed=1, examples=1), Sink())
    print(before, allocator._applied)
""")


def test_the_item_runner_applies_it():
    """Every process that runs campaign items (the campaign's own with one worker, each worker) builds ItemRunners."""
    out = subprocess.run([sys.executable, "-c", ITEM_RUNNER], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["None", str(GLIBC)]


def test_a_python_target_process_applies_it(tmp_path):
    (tmp_path / "t.py").write_text(
        "import numpy as np\n"
        "from ascverify.engines.fuzz import allocator\n"
        "def report(case, inputs):\n"
        "    return {'dst': np.array([allocator._applied is True], np.uint8)}\n")
    with PythonTarget("t.py:report", cwd=str(tmp_path)) as t:
        got = t.run({}, {}, {"dst": (np.uint8, 1)}, 60)
    assert got["dst"].tolist() == [int(GLIBC)]
