"""Processes a campaign starts, and how none of them outlives its purpose.

- **Targets** run in a session (and process group) of their own and carry an environment variable
  ``ASCVERIFY_TARGET_TOKEN`` unique to the call. When the call ends (done, timed out, or the campaign
  stops), `kill_tree` kills the group, then scans ``/proc`` for what is left: processes in that
  session or group, descendants of the target, and any process whose environment carries the token
  (found even after it started a session of its own with ``setsid`` and its parent exited). The scan
  repeats until nothing is found (a target forking while it is killed).
- **Workers and the Python target's process** die with their parent: ``prctl(PR_SET_PDEATHSIG)``
  on Linux (SIGTERM for a worker, which then stops cleanly; SIGKILL for a target), and a watchdog
  thread that notices the parent's exit everywhere (the fallback where prctl is missing).
- At the end of a campaign, `sweep` kills whatever still carries the campaign's token (a target
  left behind by a worker that was itself killed).

Limits: a descendant that clears its environment *and* leaves the target's session and process group
*and* is reparented away from the target before the scan cannot be found (only cgroups could); a
process id reused between the scan and the kill could be hit (the window is microseconds, the token
check narrows it); without ``/proc`` (not Linux) only the process group is killed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing.util as mp_util
import os
import secrets
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

TOKEN_VAR = "ASCVERIFY_TARGET_TOKEN"
_PROC = Path("/proc")
PR_SET_PDEATHSIG = 1


def new_token(prefix: str | None = None) -> str:
    """A token for one campaign (``prefix`` None) or one call of a target within it."""
    tail = secrets.token_hex(6)
    return f"{prefix}.{tail}" if prefix else f"asv{os.getpid()}-{tail}"


# -- dying with the parent -------------------------------------------------------------------------------------------

def set_parent_death_signal(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent exits (Linux); False where unavailable."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(int(sig)), 0, 0, 0) == 0
    except (OSError, AttributeError, TypeError):
        return False


def die_with_parent(parent_pid: int, sig: int = signal.SIGKILL, *, on_death: Callable[[], None] | None = None,
                    poll: float = 0.5, grace: float | None = None) -> None:
    """This process ends when ``parent_pid`` (its parent) does: the kernel's signal, and a watchdog thread.

    The watchdog (every ``poll`` seconds) calls ``on_death`` (default: send ``sig`` to this process) once the
    parent is gone, and ends the process with ``os._exit`` ``grace`` seconds later if it is still running."""
    set_parent_death_signal(sig)

    def fire() -> None:
        if on_death is not None:
            on_death()
        else:
            try:
                os.kill(os.getpid(), sig)
            except OSError:
                os._exit(1)

    if os.getppid() != parent_pid:  # the parent died before the kernel was told
        fire()

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll)
        fire()
        if grace is not None:
            time.sleep(grace)
        os._exit(1)

    threading.Thread(target=watch, name="ascverify-parent-watchdog", daemon=True).start()


# -- starting children that ignore Ctrl-C ----------------------------------------------------------------------------

#: Runs a command with SIGINT ignored (an ignored signal stays ignored across ``exec``).
_SH = "/bin/sh"
_IGNORING_SIGINT = ("-c", 'trap "" INT; exec "$@"', "ascverify-sigint-ignored")


def start_ignoring_sigint(processes: Iterable[Any]) -> None:
    """Start ``processes`` (``multiprocessing`` spawn processes) ignoring SIGINT from their start: a spawned child is a
    fresh interpreter that imports numpy and the engine before any code of ours runs, and a terminal's Ctrl-C (sent to
    the whole process group) there printed its `KeyboardInterrupt` traceback. Each interpreter is started through
    ``/bin/sh``, which ignores SIGINT and then runs it (``multiprocessing.util.spawnv_passfds`` goes through
    `_spawn_ignoring_sigint` while they start); the campaign stops them itself. A Ctrl-C in the shell's first
    microseconds ends it silently (a worker that died before its work: the campaign is stopping anyway).

    This process's own handling of SIGINT is untouched (ignoring SIGINT here while they start, for them to inherit,
    lost a Ctrl-C that came meanwhile: another thread of this process, numpy's, took it and dropped it). Without
    ``/bin/sh`` (not POSIX) they start as they are."""
    if not os.access(_SH, os.X_OK):
        for p in processes:
            p.start()
        return
    real = mp_util.spawnv_passfds

    def spawn(path: str | bytes, args: Sequence[str | bytes], passfds: Sequence[int]) -> int:
        return _spawn_ignoring_sigint(real, path, args, passfds)

    mp_util.spawnv_passfds = spawn
    try:
        for p in processes:
            p.start()
    finally:
        mp_util.spawnv_passfds = real


def _spawn_ignoring_sigint(spawn: Callable[..., int], path: str | bytes, args: Sequence[str | bytes],
                           passfds: Sequence[int]) -> int:
    """``spawn(path, args, passfds)`` run by ``/bin/sh`` with SIGINT ignored (``exec``: the same process id)."""
    return spawn(os.fsencode(_SH), [_SH, *_IGNORING_SIGINT, path, *list(args)[1:]], passfds)


# -- finding and killing -------------------------------------------------------------------------------------------

def _read(path: str, limit: int = 1 << 20) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks = []
        while limit > 0:
            chunk = os.read(fd, min(limit, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            limit -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _stat(pid: int) -> tuple[int, int, int, int] | None:
    """(ppid, pgid, sid, start time) of a process, None when it is gone or not readable."""
    raw = _read(f"/proc/{pid}/stat", 4096)
    if raw is None:
        return None
    try:
        rest = raw[raw.rindex(b")") + 2:].split()
        # fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        # cutime cstime priority nice num_threads itrealvalue starttime
        if rest[0] == b"Z":
            return None  # a zombie holds no resources and cannot be killed again
        return int(rest[1]), int(rest[2]), int(rest[3]), int(rest[19])
    except (ValueError, IndexError):
        return None


def _has_token(pid: int, token: str) -> bool:
    env = _read(f"/proc/{pid}/environ")
    if env is None:
        return False
    needle = f"{TOKEN_VAR}={token}".encode()
    return any(item == needle or item.startswith(needle + b".") for item in env.split(b"\0"))


def _pids() -> list[int]:
    try:
        return [int(n) for n in os.listdir(_PROC) if n.isdigit()]
    except OSError:
        return []


def related(root: int | None, token: str | None, *, since: int | None = None) -> set[int]:
    """Processes of a target: in ``root``'s session or process group, its descendants, or carrying ``token``
    (or a token that extends it). ``since``: ignore processes started before this (clock ticks since boot)."""
    me = os.getpid()
    uid = os.getuid()
    table: dict[int, tuple[int, int, int, int]] = {}
    for pid in _pids():
        if pid == me:
            continue
        st = _stat(pid)
        if st is not None:
            table[pid] = st
    found: set[int] = set()
    if root is not None:
        for pid, (_ppid, pgid, sid, _start) in table.items():
            if pgid == root or sid == root or pid == root:
                found.add(pid)
        # descendants (through parents still alive)
        changed = True
        while changed:
            changed = False
            for pid, (ppid, *_rest) in table.items():
                if pid not in found and ppid in found:
                    found.add(pid)
                    changed = True
    if token:
        for pid, (_ppid, _pgid, _sid, start) in table.items():
            if pid in found or (since is not None and start < since):
                continue
            if uid != 0:
                try:
                    if os.stat(f"/proc/{pid}").st_uid != uid:
                        continue
                except OSError:
                    continue
            if _has_token(pid, token):
                found.add(pid)
    # never ourselves or an ancestor of ours
    ancestors = set()
    p = me
    while p > 1 and p not in ancestors:
        ancestors.add(p)
        st = table.get(p) or _stat(p)
        if st is None:
            break
        p = st[0]
    return found - ancestors


def start_time(pid: int) -> int | None:
    st = _stat(pid)
    return st[3] if st is not None else None


def kill_tree(root: int | None, token: str | None = None, *, since: int | None = None, rounds: int = 20) -> int:
    """SIGKILL ``root``'s process group and session, its descendants and every process carrying ``token``; repeat
    until none is left (or ``rounds``). Returns how many processes were signalled."""
    killed = 0
    if root is not None:
        try:
            os.killpg(root, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass
    if not _PROC.is_dir():
        return killed
    for _ in range(rounds):
        pids = related(root, token, since=since)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        time.sleep(0.005)
    return killed


def sweep(token: str) -> int:
    """Kill every process carrying ``token`` (or a token extending it): the end of a campaign."""
    if not token or not _PROC.is_dir():
        return 0
    return kill_tree(None, token)


def reap(proc: subprocess.Popen, timeout: float = 2.0) -> None:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            proc.kill()
            proc.wait(timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            pass


# -- bounded capture -----------------------------------------------------------------------------------------------

#: Bytes of a target's standard output and error kept (the last ones): enough for a traceback.
CAPTURE_LIMIT = 64 * 1024


class Tail:
    """The last ``limit`` bytes written to it."""

    def __init__(self, limit: int = CAPTURE_LIMIT) -> None:
        self.limit = limit
        self.buf = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self.buf += data
        if len(self.buf) > 2 * self.limit:
            del self.buf[: len(self.buf) - self.limit]

    def bytes(self) -> bytes:
        return bytes(self.buf[-self.limit:])

    def text(self, n: int | None = None) -> str:
        data = self.bytes()
        text = data.decode("utf-8", "replace")
        if n is not None:
            text = text[-n:]
        return text


def communicate(proc: subprocess.Popen, timeout: float, *, limit: int = CAPTURE_LIMIT,
                after_exit: float = 0.2) -> tuple[Tail, Tail, bool]:
    """Read ``proc``'s stdout and stderr (pipes) into bounded tails until it exits and the pipes close, or the
    timeout. A process that exits while something it started still holds the pipes is done ``after_exit``
    seconds after its exit (the caller kills the rest). Returns (stdout tail, stderr tail, timed out)."""
    import selectors

    out, err = Tail(limit), Tail(limit)
    sel = selectors.DefaultSelector()
    streams = {}
    for f, tail in ((proc.stdout, out), (proc.stderr, err)):
        if f is not None:
            os.set_blocking(f.fileno(), False)
            sel.register(f, selectors.EVENT_READ)
            streams[f] = tail
    deadline = time.monotonic() + timeout
    exited_at: float | None = None
    timed_out = False
    try:
        while streams:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at >= after_exit:
                break
            if now >= deadline:
                timed_out = proc.poll() is None
                break
            wait = deadline - now
            if exited_at is not None:
                wait = min(wait, after_exit - (now - exited_at))
            else:
                wait = min(wait, 0.05)
            for key, _ in sel.select(timeout=max(0.0, wait)):
                try:
                    chunk = os.read(key.fileobj.fileno(), 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    streams[key.fileobj].add(chunk)
                else:
                    sel.unregister(key.fileobj)
                    del streams[key.fileobj]
        if not timed_out and proc.poll() is None:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        sel.close()
    return out, err, timed_out


def close_pipes(proc: subprocess.Popen) -> None:
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def live(pids: Iterable[int]) -> list[int]:
    """Those of ``pids`` still running (not zombies)."""
    return [p for p in pids if _stat(p) is not None]
