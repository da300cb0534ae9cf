"""The shipped examples with one integer changed to a value at the edge of what the reader takes (2**64 - 1,
-2**63, 2**31 - 1, -1): `check`, `run` and `show` answer every such file with a verdict or a one-line input error
(exit 0, 1 or 2), never an internal error, within 1 GiB of address space.

The variants are written here from the examples (every integer outside tensor data, each given the next extreme in
turn); sweeps of the same kind found 24 GB footprints, 16 GiB allocations and 33 internal errors (commits a8cea3e,
3a93f4a). `run` and `show` run on a fixed sample of the variants (each is a process of its own)."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from test_security_inputs import GiB, ROOT, run_limited

EXTREMES = (2**64 - 1, -(2**63), 2**31 - 1, -1)


def _integers(node: Any, path: tuple = ()) -> Iterator[tuple]:
    """The paths of the integers of a document, tensor data left out (lists: their first two entries)."""
    if isinstance(node, bool):
        return
    if isinstance(node, int):
        yield path
    elif isinstance(node, dict):
        for k, v in node.items():
            if k != "data":
                yield from _integers(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:2]):
            yield from _integers(v, path + (i,))


def _variants(folder: Path) -> list[Path]:
    """Every example with one integer at an extreme (the extremes in turn), written into ``folder`` with the data
    files the examples name."""
    for npy in (ROOT / "examples").glob("*.npy"):
        shutil.copy(npy, folder)
    out, turn = [], 0
    for example in sorted((ROOT / "examples").glob("*.json")):
        doc = json.loads(example.read_text())
        for path in _integers(doc):
            variant = copy.deepcopy(doc)
            node = variant
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = EXTREMES[turn % len(EXTREMES)]
            turn += 1
            target = folder / f"{example.stem}-{'.'.join(map(str, path))}.json"
            target.write_text(json.dumps(variant))
            out.append(target)
    return out


@pytest.fixture(scope="module")
def variants(tmp_path_factory) -> list[Path]:
    found = _variants(tmp_path_factory.mktemp("hostile"))
    stems = {p.stem for p in (ROOT / "examples").glob("*.json")}
    assert {next(s for s in stems if v.name.startswith(s + "-")) for v in found} == stems  # every example contributes
    return found


def _answered(r) -> None:
    text = r.stdout + r.stderr
    assert r.returncode in (0, 1, 2), text[-800:]
    assert "Traceback" not in text and "internal error" not in text and "MemoryError" not in text, text[-800:]


def test_check_answers_every_variant(variants):
    r = run_limited(["check", *variants], limit=GiB, timeout=600)
    _answered(r)
    assert r.returncode in (1, 2)
    summary = r.stderr.strip().splitlines()[-1]  # `N cases: A valid, B invalid, C unreadable`: every case answered
    m = re.fullmatch(r"(\d+) cases: (\d+) valid, (\d+) invalid, (\d+) unreadable", summary)
    assert m and int(m[1]) == int(m[2]) + int(m[3]) + int(m[4]) >= len(variants), summary


@pytest.mark.parametrize("command", ["run", "show"])
def test_run_and_show_answer_a_sample_of_the_variants(variants, tmp_path, command):
    sample = variants[::max(1, len(variants) // 12)]  # about 12, spread over every example
    for k, case in enumerate(sample):
        argv = [command, case] + (["-o", tmp_path / f"out{k}"] if command == "run" else [])
        _answered(run_limited(argv, limit=GiB, timeout=300, cwd=case.parent))
