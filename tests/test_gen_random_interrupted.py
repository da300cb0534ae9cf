"""`gen --mode random` stopped by Ctrl-C or SIGTERM writes the cases it found (a hostile review: `gen BlockReduceMin
-n 20000`, Ctrl-C after 5 s, wrote a manifest of 0 cases and said "no more distinct valid cases were found" and "the
cases found are written": the chunks of cases were built all at once, and the signal dropped every one of them; a
Ctrl-C once the generation was done, before the first case folder, wrote nothing at all).

The unit tests stop the generation by raising the interrupt from its chunk builder (no timing involved); the last one
sends real signals to a run with worker processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import ascverify.engines.gen as gen_engine
from ascverify import get_api
from ascverify.cli import main
from ascverify.engines.gen import output
from ascverify.engines.interrupts import Interrupted

CHUNK = gen_engine.CHUNK


def interrupted_at_chunk(monkeypatch, k: int, signum: int = signal.SIGINT) -> None:
    """The random generation is stopped by ``signum`` when it builds chunk ``k`` (chunks 0 .. k-1 are done)."""
    real = gen_engine._chunk

    def chunk(model_name, product, dtype, seed, index):
        if index >= k:
            raise Interrupted(signum)
        return real(model_name, product, dtype, seed, index)

    monkeypatch.setattr(gen_engine, "_chunk", chunk)


def test_the_chunks_built_before_the_signal_are_kept(monkeypatch):
    model = get_api("BlockReduceMin")
    ctx = model.context("atlas-a2", "half")
    whole = gen_engine.generate(model, ctx, "random", 2 * CHUNK, seed=4)
    assert len(whole.cases) == 2 * CHUNK  # BlockReduceMin: every constructed case is valid and distinct
    interrupted_at_chunk(monkeypatch, 2)
    g = gen_engine.generate(model, ctx, "random", 5000, seed=4, on_interrupt="return")
    assert g.report["interrupted"] == "SIGINT" and g.report["stopped"] == "interrupted (SIGINT)"
    # the same cases, in the same order, as a run that asked for just the two chunks
    assert [c.case.env for c in g.cases] == [c.case.env for c in whole.cases]
    assert g.report["constructed"]["kept"] == 2 * CHUNK and "shortfall" not in g.report


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_gen_writes_the_cases_found_with_goldens_and_says_it_was_stopped(tmp_path, monkeypatch, signum):
    interrupted_at_chunk(monkeypatch, 1, signum)
    # every case found is written: the bound on writing after a stop (tested below) must not cut a loaded machine's
    # slower writing short (a full suite with other work running wrote 196 of the 256 in 10 s)
    monkeypatch.setattr(output, "WRITE_AFTER_STOP_SECONDS", 600.0)
    out = tmp_path / "cases"
    r = CliRunner().invoke(main, ["gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "5000", "--workers", "1",
                                  "-o", str(out)])
    name = signal.Signals(signum).name
    assert r.exit_code == 130, r.output
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["complete"] is False and doc["stopped"] == f"interrupted ({name})"
    assert len(doc["cases"]) == CHUNK
    # the manifest lists exactly the case folders written, each whole: its case file, inputs and (for an output of
    # some elements) its golden
    assert sorted(c["case_name"] for c in doc["cases"]) == sorted(p.name for p in out.iterdir() if p.is_dir())
    for c in doc["cases"]:
        assert c["expect"] == "success" and not c.get("problem")
        assert (out / c["case_file"]).is_file()
        for d in c["input_desc"]:
            assert (out / d["data_file"]).is_file()
        dst = next(d for d in c["output_desc"] if d["name"] == "dst")
        if dst["shape"] != [0]:
            assert (out / dst["golden_file"]).stat().st_size == 2 * dst["shape"][0]  # half
    assert f"{CHUNK} of the 5000 cases asked for: interrupted ({name}), the search did not finish" in r.stderr
    assert "no more distinct valid cases" not in r.stderr
    assert f"gen: stopped: interrupted ({name}); the cases found are written" in r.stderr


def test_a_signal_after_the_generation_before_the_first_case_writes_the_cases_found(tmp_path, monkeypatch):
    """The signal comes once every case is found, while the output folder is prepared (BilinearInterpolation -n
    20000, Ctrl-C 9 s in: "interrupted before writing: nothing written")."""
    real = output.clean_stale_temps

    def signal_comes(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # handled as it comes: the folder is being prepared
        return real(*args, **kwargs)

    monkeypatch.setattr(output, "clean_stale_temps", signal_comes)
    out = tmp_path / "cases"
    r = CliRunner().invoke(main, ["gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "40", "--workers", "1",
                                  "-o", str(out)])
    assert r.exit_code == 130, r.output
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["complete"] is False and doc["stopped"] == "interrupted (SIGINT)" and len(doc["cases"]) == 40
    assert sorted(c["case_name"] for c in doc["cases"]) == sorted(p.name for p in out.iterdir() if p.is_dir())
    assert "nothing written" not in r.stderr


# -- real signals, worker processes ----------------------------------------------------------------------------------

START_TIMEOUT = 180  # seconds to wait for a sign of work (a loaded machine starts slowly)
STOP_TIMEOUT = 60


def case_dirs(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.is_dir() and p.name.startswith("case_")) if d.is_dir() else []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_a_random_run_with_workers_writes_what_was_found(tmp_path):
    d = tmp_path / "cases"
    p = subprocess.Popen([sys.executable, "-m", "ascverify", "gen", "BlockReduceMin", "-p", "atlas-a2",
                          "-n", "1000000", "--workers", "2", "-o", str(d)], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(12)  # the workers are up and have built chunks; a million cases take minutes to find
        assert p.poll() is None, p.stderr.read().decode()
        p.send_signal(signal.SIGINT)
        end = time.monotonic() + START_TIMEOUT
        while not case_dirs(d):  # the cases found are being written, one folder after the other
            assert p.poll() is None, p.stderr.read().decode()
            assert time.monotonic() < end, "no case written"
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)  # a second Ctrl-C is let pass: the writing goes on
        time.sleep(1.5)
        assert p.poll() is None
        end = time.monotonic() + STOP_TIMEOUT
        while p.poll() is None:  # a third stops it at once
            assert time.monotonic() < end, "the third Ctrl-C did not stop it"
            p.send_signal(signal.SIGINT)
            time.sleep(0.5)
        _, err = p.communicate(timeout=STOP_TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    err = err.decode()
    assert p.returncode == 130, err
    assert "Traceback" not in err and "no more distinct valid cases" not in err
    assert "gen: interrupted (SIGINT): writing the " in err and "gen: interrupted while writing: " in err, err
    doc = json.loads((d / "manifest.json").read_text())
    assert doc["complete"] is False and doc["stopped"] == "interrupted (SIGINT)" and doc["cases"]
    assert sorted(c["case_name"] for c in doc["cases"]) == case_dirs(d)  # exactly the folders written
    assert doc["constructed"]["kept"] > len(doc["cases"])  # more were found than the writing got to


def test_a_stopped_run_writes_for_a_bounded_time_and_says_what_it_left(tmp_path, monkeypatch):
    """Writing a case takes milliseconds (inputs, a run on the core, goldens): the thousands of cases a long run
    finds could take minutes to write after a Ctrl-C. A stopped run writes for `WRITE_AFTER_STOP_SECONDS` (here: the
    time is up at once), and says how many cases it found and did not write; the manifest lists exactly those written."""
    monkeypatch.setattr(output, "WRITE_AFTER_STOP_SECONDS", -1.0)
    interrupted_at_chunk(monkeypatch, 1)
    out = tmp_path / "cases"
    r = CliRunner().invoke(main, ["gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "5000", "--workers", "1",
                                  "-o", str(out)])
    assert r.exit_code == 130, r.output
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["complete"] is False and doc["cases"] == [] and [p for p in out.iterdir() if p.is_dir()] == []
    assert doc["left_unwritten"].startswith(f"{CHUNK} of the {CHUNK} cases found were not written")
    assert f"gen: stopped: interrupted (SIGINT); 0 written, {CHUNK} of the {CHUNK} cases found" in r.stderr
