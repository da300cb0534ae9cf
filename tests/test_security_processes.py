"""Issue 13, processes: nothing a campaign starts outlives it.

Workers die with the campaign's process (even after SIGKILL), a target loading when the campaign is
stopped goes too, and what a command target starts is killed when its call ends, also when it left the
target's session with setsid (and the call does not wait for it).
"""

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

from ascverify.cli import main

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it is not)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return raw[raw.rindex(")") + 2] != "Z"


def children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                raw = (d / "stat").read_text()
            except OSError:
                continue
            if int(raw[raw.rindex(")") + 2:].split()[1]) == pid:
                out.append(int(d.name))
    return out


def wait_until(cond, seconds: float) -> bool:
    """Poll ``cond`` until it holds (a failure bound, not a speed requirement)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def ascverify(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ascverify", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def test_workers_exit_when_the_campaign_is_killed(tmp_path):
    proc = ascverify("fuzz", "SetVectorMask", "BlockReduceMin", "-p", "atlas-a2", "--kind", "invariants", "--time", "300",
                     "--workers", "2", "--findings", "f", "--no-coverage", "-q", cwd=tmp_path)
    workers: list[int] = []
    try:
        assert wait_until(lambda: len([c for c in children(proc.pid) if "fuzz" in _cmdline(c) or
                                       "multiprocessing" in _cmdline(c)]) >= 2, 60), "no workers started"
        workers = children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert wait_until(lambda: not any(alive(w) for w in workers), 40), \
            f"workers still running after the campaign was killed: {[w for w in workers if alive(w)]}"
    finally:
        for w in [proc.pid, *workers]:
            try:
                os.kill(w, signal.SIGKILL)
            except OSError:
                pass


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_a_target_being_loaded_goes_when_the_campaign_is_stopped(tmp_path):
    (tmp_path / "slow.py").write_text("import os, time\nopen('target.pid', 'w').write(str(os.getpid()))\n"
                                      "time.sleep(120)\ndef f(case, inputs):\n    return {}\n")
    proc = ascverify("fuzz", "BlockReduceMin", "-p", "atlas-a2", "--target", "slow.py:f", "--examples", "1",
                     "--workers", "2", "--findings", "f", "--no-coverage", "-q", cwd=tmp_path)
    pid_file = tmp_path / "target.pid"
    target = None
    try:
        assert wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), 60), "the target never loaded"
        target = int(pid_file.read_text())
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        assert wait_until(lambda: not alive(target), 30), "the target outlived the campaign"
    finally:
        for p in (proc.pid, target):
            if p:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass


SETSID = r'''#!/bin/sh
# leaves a process of its own session holding our stdout and stderr, then fails
python3 -c "import os, sys, time; os.setsid(); open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)" "$PIDS/$$" &
while [ ! -s "$PIDS/$$" ]; do sleep 0.02; done
echo boom >&2
exit 3
'''


def test_what_a_command_target_started_with_setsid_is_killed_and_not_waited_for(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    pids.mkdir()
    script = tmp_path / "t.sh"
    script.write_text(SETSID)
    script.chmod(0o755)
    monkeypatch.setenv("PIDS", str(pids))
    monkeypatch.chdir(tmp_path)
    leftovers: list[int] = []
    try:
        r = CliRunner().invoke(main, ["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--target-cmd", f"{script}",
                                      "--examples", "1", "--no-shrink", "--seed", "1", "--timeout", "30",
                                      "--findings", str(tmp_path / "f"), "--no-coverage"])
        leftovers = [int(p.read_text()) for p in pids.iterdir() if p.read_text().strip()]
        assert r.exit_code == 1, r.output
        (finding,) = [p for p in (tmp_path / "f").iterdir() if not p.name.startswith(".")]
        meta = json.loads((finding / "finding.json").read_text())
        assert meta["key"] == "differential.crash" and "exit status 3" in meta["message"], meta["message"]
        assert leftovers and not [p for p in leftovers if alive(p)], "a process of the target survived its call"
    finally:
        for p in leftovers:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def test_kill_tree_finds_a_process_by_its_token_after_it_left_the_session(tmp_path):
    from ascverify.engines.fuzz import procs

    token = procs.new_token()
    env = dict(os.environ, **{procs.TOKEN_VAR: token + ".1"})
    pid_file = tmp_path / "pid"
    starter = subprocess.Popen(
        [sys.executable, "-c", "import os, subprocess, sys; subprocess.Popen([sys.executable, '-c', "
                               "'import os, sys, time; os.setsid(); open(sys.argv[1], \"w\").write(str(os.getpid())); "
                               "time.sleep(120)', sys.argv[1]])", str(pid_file)],
        env=env)
    starter.wait()  # the starter is gone; its child is in a session of its own, reparented away
    assert wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), 20)
    orphan = int(pid_file.read_text())
    try:
        assert alive(orphan)
        assert procs.sweep(token) >= 1
        assert wait_until(lambda: not alive(orphan), 10)
    finally:
        try:
            os.kill(orphan, signal.SIGKILL)
        except OSError:
            pass
