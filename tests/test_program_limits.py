"""A program's total work is bounded (audit 16, H1): `run` and `show` of a file of thousands of legal calls held
about 160 KB per call (1.6 GB at 10,000 calls, an internal error under a memory limit). The limits are reasoned
here: `CALL_WORK` per call caps the calls at PROGRAM_MAX_WORK / CALL_WORK before anything runs; the bytes each
call reads, writes and keeps count towards the same budget, beyond the largest call."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cases.program import parse_program
from ascverify.cli import main, program_run
from ascverify.cli.show_cmd import MAX_PICTURE_MAPS
from ascverify.core import program as core_program
from ascverify.core.faults import CoreLimit
from ascverify.core.program import CALL_WORK, PROGRAM_MAX_WORK, run_program
from ascverify.engines.pictures.memory_map import MAX_DRAWN_CALLS, program_maps

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())


def repeated(n: int, *, heavy: bool = False) -> dict:
    """The shipped program with its BlockReduceMin call repeated ``n`` times (``heavy``: 255 repeats over 64 Ki
    halves, each call reading 255 x 8 x 32 bytes)."""
    doc = copy.deepcopy(SHIPPED)
    call = doc["calls"][1]
    if heavy:
        doc["tensors"] = {"x": {"position": "VECIN", "addr": 0, "size": 65536},
                          "z": {"position": "VECOUT", "addr": 131072, "size": 4096}}
        call["args"].update(repeat=255, src_rep_stride=1, src_blk_stride=0)
    doc["calls"] = [doc["calls"][0]] + [call] * n
    return doc


def test_too_many_calls_are_refused_before_anything_runs(tmp_path):
    calls = PROGRAM_MAX_WORK // CALL_WORK  # 4,096 calls at most (each at least CALL_WORK)
    assert len(run_program(parse_program(repeated(calls // 2))).runs) == calls // 2 + 1
    with pytest.raises(CoreLimit, match=f"has {calls + 1:,} calls; the core runs at most {calls:,}"):
        run_program(parse_program(repeated(calls)))
    path = tmp_path / "many.json"
    path.write_text(json.dumps(repeated(calls)))
    # `run` refuses it as input beyond its bounds before checking it (audit 20: 100,000 calls were checked for 29 s
    # first): one line naming the file, the case and the field, exit 2, nothing written
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "out")])
    assert got.exit_code == 2, got.output
    assert got.output.strip().splitlines() == [
        f"ascverify: {path}:case 0: calls: the program has 4,097 calls; the core runs at most 4,096 in one program "
        "(no shipped or vendor program needs more); `ascverify check` checks it"]
    assert not (tmp_path / "out").exists()


def test_run_refuses_a_long_program_without_checking_it(tmp_path, monkeypatch):
    """The refusal comes before the program is checked (checking is what took half a minute)."""
    def no_check(*args, **kwargs):
        raise AssertionError("checked")

    monkeypatch.setattr(program_run, "check_program", no_check)
    path = tmp_path / "many.json"
    path.write_text(json.dumps(repeated(PROGRAM_MAX_WORK // CALL_WORK)))
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "out")])
    assert got.exit_code == 2 and "4,097 calls" in got.output


def test_the_bytes_calls_touch_and_keep_count(monkeypatch):
    # each heavy call reads 255 x 8 x 32 = 65,280 bytes and keeps x (128 KiB) and z (8 KiB) after it, plus CALL_WORK:
    # with a budget of 1 MiB beyond the largest call the fifth call is past it
    per_call = 255 * 8 * 32 + 255 * 8 * 2 + (65536 + 4096) * 2 + CALL_WORK
    monkeypatch.setattr(core_program, "PROGRAM_MAX_WORK", 1 << 20)
    calls = (1 << 20) // per_call + 2  # the setter's work is CALL_WORK alone
    with pytest.raises(CoreLimit, match="bytes of work"):
        run_program(parse_program(repeated(calls + 2, heavy=True)))
    assert len(run_program(parse_program(repeated(calls - 3, heavy=True))).runs) == calls - 2


def test_show_draws_the_first_calls_of_a_long_program():
    maps = program_maps(parse_program(repeated(MAX_DRAWN_CALLS + 10)))
    assert len(maps) == MAX_DRAWN_CALLS
    assert "the program's other 11 calls are not drawn" in maps[-1].run_note


def test_show_all_of_a_long_file_is_bounded(tmp_path):
    """audit 20: `show --all --png` of 600 cases held 1.6 GB (every map with its run, one picture of them all): the
    maps stop at MAX_DRAWN_CALLS and a picture holds at most MAX_PICTURE_MAPS of them."""
    case = {"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
            "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
            "tensors": {"dst": {"position": "VECOUT", "addr": 512, "size": 16},
                        "src": {"position": "VECIN", "addr": 0, "size": 128}}}
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps(case) for _ in range(MAX_DRAWN_CALLS + 20)) + "\n")
    got = CliRunner().invoke(main, ["show", "--all", "--svg", str(tmp_path / "m.svg"), str(path)])
    assert got.exit_code == 0, got.output[-300:]
    assert f"show draws at most {MAX_DRAWN_CALLS} maps" in got.output
    assert f"the picture holds the first {MAX_PICTURE_MAPS} of the {MAX_DRAWN_CALLS} maps" in got.output
