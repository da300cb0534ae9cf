"""Implementations under test: a Python callable or an external command, each isolated from the campaign.

A *target* computes an API call the way the user's kernel does. Two kinds:

- ``module:function`` (or ``path/to/file.py:function``): ``function(case: dict, inputs: dict[str,
  numpy.ndarray]) -> dict[str, numpy.ndarray]``, run in a child process so that a crash, a hang or
  ``sys.exit`` in it is a finding and never takes the campaign down. ``case`` is the case in the file
  format (`Case.to_json`); ``inputs`` holds every tensor's contents before the call (the sources, and
  the old contents of the outputs, which masked-off lanes keep); the result maps output tensor
  names to arrays of the tensor's element type and size.
- an external command (``--target-cmd 'prog {dir}'``), for a CPU-debug build or a simulator run: it
  reads ``{dir}/case.json`` and ``{dir}/inputs/NAME.bin`` (raw little-endian, the tensor's element
  type) and writes ``{dir}/outputs/NAME.bin`` for every output tensor; exit status 0 on success.
  ``{dir}`` is replaced by the folder (shell-quoted); without ``{dir}`` the folder is appended. The
  command runs through ``/bin/sh`` in its own session; when it ends (or times out) everything it
  started is killed, also what left its session (`procs.kill_tree`).

Both raise `TargetError` (kind ``crash``, ``timeout`` or ``protocol``) for a failed call. A Python target works in
the background (`Target.submit`, `Target.collect`): a campaign hands it each case as soon as the core has laid out
the inputs, and the target computes while the core runs and the case is classified. A case the campaign then drops
(the core leaves its outputs wholly unspecified, or faults on it) has the target's answer waited for and ignored.

A target is not trusted with the campaign's resources or its output: its standard output and error
are captured (never passed through; the last `procs.CAPTURE_LIMIT` bytes kept), an output file
larger than its tensor is refused unread, a Python target's result is size-checked in its own
process before it is sent back (and the message read with a length limit), and the names it returns
must be plain names (`ascverify.cases.safe_names`). A Python target's process and the processes it starts
die with the campaign (`procs.die_with_parent`, a process group of its own).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import multiprocessing
import os
import pickle
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import orjson

from ...cases.jsonread import too_deep
from ...cases.safe_names import confined, plain_name_problem, shown
from ...spec.errors import InputError, one_line
from . import procs, signals
from .allocator import keep_freed_memory

#: Default seconds a target may take for one case.
DEFAULT_TIMEOUT = 10.0


class TargetError(Exception):
    """One call of a target failed: ``kind`` is crash, timeout or protocol (unusable outputs)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(f"{kind}: {message}")


class Malformed:
    """An output file that cannot be read as the tensor (its byte count is not a whole number of elements)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Malformed({self.message!r})"


OutputSpec = Mapping[str, tuple[np.dtype, int]]

#: The key of a target's answer holding registers: ``{"registers": {"mask": {"0": bytes}}}`` (the JSON shape of a
#: case's ``registers``); a register file's title is accepted as a key too: ``{"MaskReg": {0: bytes}}``, or
#: ``{"MaskReg": bytes}`` when the call writes one MaskReg. A MaskReg may be given as 256 booleans (bit i first).
REGISTERS = "registers"
REGISTER_TITLES = {"vreg": "RegTensor", "mask": "MaskReg", "addr": "AddrReg"}
_TITLE_FILES = {v: k for k, v in REGISTER_TITLES.items()}
#: Largest register answer accepted (bytes over every register): the register files of the products are far smaller.
REGISTER_LIMIT = 1 << 16
#: An answer for a register file whose index the target leaves to the call (the one register it writes).
ANY_INDEX = "*"


def _register_array(v: Any) -> Any:
    if isinstance(v, Malformed):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):  # {"MaskReg": bytes}: the register's bytes as they are
        if len(v) > REGISTER_LIMIT:
            return Malformed(f"a register of {len(v)} bytes: refused unsent")
        v = np.frombuffer(bytes(v), dtype=np.uint8)
    try:
        arr = np.asarray(v)
    except Exception as exc:  # noqa: BLE001
        return Malformed(f"not an array ({type(exc).__name__})")
    if arr.dtype.hasobject or arr.dtype.kind not in "biuf":
        return Malformed(f"a register given as an array of {arr.dtype} (not numbers)")
    if arr.nbytes > REGISTER_LIMIT:
        return Malformed(f"a register of {arr.nbytes} bytes: refused unsent")
    if arr.dtype.kind in "iu" and arr.dtype.itemsize > 1 and arr.size and (arr.min() < 0 or arr.max() > 255):
        return arr  # typed elements (e.g. a RegTensor<int16>): their bytes
    if arr.dtype.kind in "iu" and arr.dtype.itemsize > 1:
        return arr.astype(np.uint8)  # a list of byte values
    return arr


def registers_answer(result: Mapping[Any, Any]) -> dict[str, dict[Any, Any]] | None:
    """The registers of a target's answer as {file: {index (or ANY_INDEX): array}}, or None when it has none."""
    out: dict[str, dict[Any, Any]] = {}
    for k, v in result.items():
        if k == REGISTERS and isinstance(v, Mapping):
            for f, entries in v.items():
                f = _TITLE_FILES.get(f, f)
                if f not in REGISTER_TITLES or not isinstance(entries, Mapping):
                    continue
                for i, raw in list(entries.items())[:64]:
                    out.setdefault(f, {})[_index(i)] = _register_array(raw)
        elif k in _TITLE_FILES:
            f = _TITLE_FILES[k]
            if isinstance(v, Mapping):
                for i, raw in list(v.items())[:64]:
                    out.setdefault(f, {})[_index(i)] = _register_array(raw)
            else:
                out.setdefault(f, {})[ANY_INDEX] = _register_array(v)
    return out or None


def _index(i: Any) -> Any:
    try:
        return int(i)
    except (TypeError, ValueError):
        return ANY_INDEX


class Target:
    """The interface of both kinds.

    ``run`` makes one call. A target with ``background`` set can also work while the campaign does: `submit` hands
    it a call and returns at once, `collect` waits for that call's answer (within the timeout counted from
    `submit`); a new `submit` or `run` first waits for (and drops) an answer never collected."""

    kind = ""
    spec = ""
    #: `submit` returns before the call ends (the target computes in a process of its own)
    background = False

    def run(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
            timeout: float) -> dict[str, Any]:
        raise NotImplementedError

    def submit(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
               timeout: float) -> None:
        """Hand over one call; `collect` returns its answer (here: the call is made then)."""
        self._submitted = (case_doc, inputs, outputs, timeout)

    def collect(self) -> dict[str, Any]:
        """The answer of the call handed over by `submit` (TargetError as `run` raises it)."""
        args = self.__dict__.pop("_submitted")
        return self.run(*args)

    def close(self) -> None:
        pass

    def describe(self) -> dict[str, str]:
        return {"kind": self.kind, "spec": self.spec}

    def __enter__(self) -> "Target":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- Python callables ----------------------------------------------------------------------------------------------

def target_source(spec: str, cwd: str | None = None) -> Path | None:
    """The file of the Python target ``module:function`` or ``file.py:function`` (found without importing it: a
    module is looked up as MODULE.py or MODULE/__init__.py under ``cwd``); None when there is none to find."""
    where = spec.rpartition(":")[0]
    if not where:
        return None
    base = Path(cwd or ".")
    if where.endswith(".py") or os.sep in where or "/" in where:
        return (base / where).resolve()
    stem = base.joinpath(*where.split("."))
    for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def load_callable(spec: str, cwd: str | None = None) -> Callable[..., Any]:
    """The function named by ``module:function`` or ``file.py:function``; InputError when it cannot be loaded."""
    if ":" not in spec:
        raise InputError(f"{spec!r} is not of the form module:function or path/file.py:function", field="--target")
    where, _, name = spec.rpartition(":")
    try:
        if where.endswith(".py") or os.sep in where or "/" in where:
            path = Path(cwd or ".", where).resolve()
            if not path.is_file():
                raise InputError("no such file", where=str(path), field="--target")
            mod_name = f"_ascverify_target_{abs(hash(str(path)))}"
            loader_spec = importlib.util.spec_from_file_location(mod_name, path)
            if loader_spec is None or loader_spec.loader is None:
                raise InputError("cannot be imported", where=str(path), field="--target")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[mod_name] = module
            loader_spec.loader.exec_module(module)
        else:
            base = cwd or os.getcwd()
            if base not in sys.path:
                sys.path.insert(0, base)
            module = importlib.import_module(where)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import: bad input, reported in one line
        raise InputError(f"cannot import {where!r}: {type(exc).__name__}: {exc}", field="--target") from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise InputError(f"{where!r} has no function {name!r}", field="--target")
    return fn


#: Slack over the expected outputs' bytes that a Python target's answer may carry (pickling overhead, names).
ANSWER_SLACK = 1 << 20


def _check_outputs(result: Any, outputs: OutputSpec | None = None) -> dict[str, Any]:
    """The target's answer as arrays by tensor name; TargetError (protocol) for a name that is not plain."""
    if not isinstance(result, Mapping):
        raise TargetError("protocol", f"the target returned {type(result).__name__}, not a dict of arrays")
    out: dict[str, Any] = {}
    regs = registers_answer(result)
    if regs is not None:
        out[REGISTERS] = regs
    for k, v in result.items():
        if k == REGISTERS or k in _TITLE_FILES:
            continue
        problem = plain_name_problem(k)
        if problem is not None:
            raise TargetError("protocol", f"the target returned the key {shown(k)}, {problem}; keys must be the "
                                          f"names of output tensors")
        if isinstance(v, Malformed):
            out[k] = v
            continue
        try:
            out[str(k)] = np.asarray(v)
        except Exception as exc:  # noqa: BLE001
            out[str(k)] = Malformed(f"{k}: not an array ({type(exc).__name__}: {exc})")
    return out


def limit_answer(result: Any, outputs: Mapping[str, tuple[Any, int]]) -> Any:
    """In the target's process, before anything is sent back: arrays larger than their tensor (or of unknown
    names, or not plain data) are replaced by a `Malformed` note, so that no oversized answer crosses the
    process boundary. Non-plain keys are left for `_check_outputs` to refuse."""
    if not isinstance(result, Mapping):
        return result
    out: dict[Any, Any] = {}
    regs = registers_answer(result)
    if regs is not None:
        out[REGISTERS] = regs
    for k, v in result.items():
        if k == REGISTERS or k in _TITLE_FILES:
            continue
        if not isinstance(k, str) or plain_name_problem(k) is not None:
            out[str(k)[:200] if not isinstance(k, str) else k[:200]] = Malformed("not a tensor name")
            continue
        try:
            arr = np.asarray(v)
        except Exception as exc:  # noqa: BLE001
            out[k] = Malformed(f"{k}: not an array ({type(exc).__name__}: {str(exc)[:200]})")
            continue
        if arr.dtype.hasobject or arr.dtype.kind in "OUSMm":
            out[k] = Malformed(f"{k}: an array of {arr.dtype} (not numbers)")
            continue
        spec = outputs.get(k)
        if spec is None:
            out[k] = Malformed(f"{k}: not an output tensor of the call (left out, {arr.nbytes} bytes)")
            continue
        dtype, size = spec
        allowed = int(np.dtype(dtype).itemsize) * int(size)
        if arr.nbytes > allowed:
            out[k] = Malformed(f"{k} holds {arr.nbytes} bytes ({arr.size} elements of {arr.dtype}); the tensor holds "
                               f"{allowed} bytes: refused unsent")
            continue
        out[k] = arr
    return out


class _Capture:
    """In the target's process: file descriptors 1 and 2 go to a pipe that a thread drains into a bounded tail, so
    that what the target prints never reaches the campaign's output (and never blocks the target)."""

    def __init__(self, limit: int = procs.CAPTURE_LIMIT) -> None:
        import threading

        self.tail = procs.Tail(limit)
        self.lock = threading.Lock()
        r, w = os.pipe()
        for fd in (1, 2):
            os.dup2(w, fd)
        os.close(w)
        self.r = r
        threading.Thread(target=self._drain, name="ascverify-target-output", daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.r, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.tail.add(chunk)

    def take(self, n: int = 2000) -> str:
        """The last ``n`` characters printed since the last call (then forgotten)."""
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        with self.lock:
            text = self.tail.text(n)
            self.tail = procs.Tail(self.tail.limit)
        return text


def _child_main(conn: Any, spec: str, cwd: str, parent_pid: int | None = None,
                token: str | None = None) -> None:  # pragma: no cover - runs in the child process
    """The child's loop: load the function, then answer one call per message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the campaign decides when to stop, not the terminal
    if parent_pid is not None:
        procs.die_with_parent(parent_pid, signal.SIGKILL)
    try:
        os.setpgrp()  # a group of its own: killing it takes what the target started
    except OSError:
        pass
    if token:
        os.environ[procs.TOKEN_VAR] = token  # inherited by what the target starts (found and killed by it)
    keep_freed_memory()  # the arrays of each call reuse the last call's memory (no page faults per call)
    capture = _Capture()
    try:
        os.chdir(cwd)
        fn = load_callable(spec, cwd)
    except BaseException as exc:  # noqa: BLE001
        printed = capture.take()
        msg = (InputError(exc.message, where=exc.where).line() if isinstance(exc, InputError)  # the parent adds the field
               else f"{type(exc).__name__}: {exc}")
        conn.send(("load-error", msg + (f" (output: {printed.strip()[-500:]})" if printed.strip() else "")))
        return
    capture.take()
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        case_doc, inputs, outputs = msg if len(msg) == 3 else (*msg, {})
        try:
            result = fn(case_doc, inputs)
            reply = ("ok", limit_answer(result, outputs))
        except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are the target's failure too
            tb = traceback.format_exc(limit=8)
            printed = capture.take()
            reply = ("error", f"{type(exc).__name__}: {exc}\n{tb}" + (f"\noutput: {printed[-1000:]}" if printed.strip() else ""))
        capture.take()
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
            conn.send(("error", f"the result cannot be sent back: {type(exc).__name__}: {exc}"))


class PythonTarget(Target):
    """A Python function run in a child process (restarted after a crash or a timeout). It works in the background:
    `submit` sends the call, and the campaign runs the core while the child computes."""

    kind = "python"
    background = True

    def __init__(self, spec: str, *, cwd: str | None = None, start_timeout: float = 60.0,
                 token: str | None = None) -> None:
        self.spec = spec
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.start_timeout = start_timeout
        self.token = token or procs.new_token()
        self._proc: Any = None
        self._conn: Any = None
        self._calls = 0
        #: the call sent and not yet answered: (outputs, answer size limit, monotonic end, timeout) or a TargetError
        self._inflight: Any = None

    def start(self) -> None:
        """Start the child and load the function (InputError when it cannot be loaded)."""
        if self._proc is not None and self._proc.is_alive():
            return
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        self._calls += 1
        proc = ctx.Process(target=_child_main, args=(child, self.spec, self.cwd, os.getpid(),
                                                     f"{self.token}.py{self._calls}"),
                           daemon=True, name="ascverify-target")
        try:
            with signals.critical():  # started whole: a stop (SIGTERM) half way left the child an empty pipe (EOFError)
                procs.start_ignoring_sigint([proc])  # the campaign decides when to stop it, even while it imports
            child.close()
            self._proc, self._conn = proc, parent
            if not parent.poll(self.start_timeout):
                self._kill()
                raise InputError(f"the target did not load within {self.start_timeout:g} s", field="--target")
            try:
                kind, payload = parent.recv()
            except (EOFError, OSError):
                code = proc.exitcode
                self._kill()
                raise InputError(f"the target process died while loading (exit status {code})",
                                 field="--target") from None
        except BaseException:  # an interrupt while it loads: the child goes too
            if self._proc is None and proc.pid is not None:  # (stopped as it started)
                self._proc, self._conn = proc, parent
            self._kill()
            raise
        if kind != "ready":
            self._kill()
            raise InputError(str(payload), field="--target")

    def _kill(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        self._inflight = None
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass
        if proc is not None and proc.pid:
            procs.kill_tree(proc.pid, f"{self.token}.py{self._calls}")
        if proc is not None and proc.is_alive():
            proc.kill()
        if proc is not None:
            proc.join(5)

    def run(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
            timeout: float) -> dict[str, Any]:
        self.submit(case_doc, inputs, outputs, timeout)
        return self.collect()

    def submit(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
               timeout: float) -> None:
        if self._inflight is not None:  # an answer never collected (its case was dropped): wait for it, unread
            try:
                self.collect()
            except TargetError:
                pass
        if self._proc is None or not self._proc.is_alive():
            self._kill()
            self.start()
        spec = {k: (np.dtype(d), int(n)) for k, (d, n) in outputs.items()}  # ml_dtypes types have no .str
        limit = sum(np.dtype(d).itemsize * int(n) for d, n in spec.values()) + ANSWER_SLACK
        try:
            self._conn.send((case_doc, dict(inputs), spec))
        except (EOFError, OSError, BrokenPipeError):
            self._inflight = self._crashed()
            return
        except BaseException:  # an interrupt while sending: the child may hold half a message, start afresh
            self._kill()
            raise
        self._inflight = (outputs, limit, time.monotonic() + timeout, timeout)

    def _crashed(self) -> TargetError:
        proc = self._proc
        code = None
        if proc is not None:
            proc.join(2)
            code = proc.exitcode
        self._kill()
        return TargetError("crash", f"the target process died (exit status {code})")

    def collect(self) -> dict[str, Any]:
        pending, self._inflight = self._inflight, None
        if pending is None:
            raise TargetError("protocol", "no call was handed to the target")
        if isinstance(pending, TargetError):
            raise pending
        outputs, limit, end, timeout = pending
        conn = self._conn
        try:
            if not conn.poll(max(0.0, end - time.monotonic())):
                self._kill()
                raise TargetError("timeout", f"no answer within {timeout:g} s")
            try:
                raw = conn.recv_bytes(maxlength=limit)
            except OSError as exc:
                if "bad message length" not in str(exc):
                    raise
                self._kill()
                raise TargetError("protocol", f"the answer is larger than the {limit} bytes the outputs need: "
                                              f"refused unread") from None
            kind, payload = pickle.loads(raw)
        except (EOFError, OSError, BrokenPipeError):
            raise self._crashed() from None
        except BaseException:  # an interrupt while the child works: it may be mid-call, start afresh next time
            self._kill()
            raise
        if kind == "error":
            raise TargetError("crash", f"raised {payload.strip()}")
        return _check_outputs(payload, outputs)

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
        self._kill()


# -- external commands ---------------------------------------------------------------------------------------------

def write_case_dir(folder: Path, case_doc: Mapping[str, Any], inputs: Mapping[str, np.ndarray], *,
                   npy: bool = False, dir_mode: int | None = None) -> dict[str, Any]:
    """Write ``case.json`` (each input's ``data`` pointing at ``inputs/NAME.bin``) and the inputs; returns the doc.
    Every file is confined to ``folder`` (`ascverify.cases.safe_names.confined`)."""
    (folder / "inputs").mkdir(parents=True, exist_ok=True)
    if dir_mode is not None:
        os.chmod(folder / "inputs", dir_mode)
    doc = json.loads(json.dumps(case_doc))
    for name, arr in inputs.items():
        le = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
        confined(folder, f"inputs/{name}.bin").write_bytes(le.tobytes())
        if npy:
            np.save(confined(folder, f"inputs/{name}.npy"), le, allow_pickle=False)
        if name in doc.get("tensors", {}):
            doc["tensors"][name]["data"] = f"inputs/{name}.bin"
    (folder / "case.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def read_outputs(folder: Path, outputs: OutputSpec) -> dict[str, Any]:
    """``folder/NAME.bin`` for each output (absent files are left out). A file that is not a regular file, or is
    larger than the tensor, is refused before it is read (a `Malformed` note)."""
    import stat

    got: dict[str, Any] = {}
    for name, (dtype, size) in outputs.items():
        path = folder / f"{name}.bin"
        dt = np.dtype(dtype)
        expected = dt.itemsize * int(size)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            continue
        except OSError as exc:
            got[name] = Malformed(f"{name}.bin cannot be read ({exc.strerror or exc}; a symbolic link?)")
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                got[name] = Malformed(f"{name}.bin is not a regular file")
                continue
            if st.st_size > expected:
                got[name] = Malformed(f"{name}.bin has {st.st_size} bytes; the tensor holds {expected} bytes "
                                      f"({size} elements of {dt.name}): refused unread")
                continue
            chunks = []
            left = expected + 1
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
            raw = b"".join(chunks)
        finally:
            os.close(fd)
        if len(raw) > expected:
            got[name] = Malformed(f"{name}.bin grew beyond the {expected} bytes of the tensor while it was read")
            continue
        if len(raw) % dt.itemsize:
            got[name] = Malformed(f"{name}.bin has {len(raw)} bytes, not a whole number of {dt.itemsize}-byte elements")
            continue
        got[name] = np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt)
    return got


def read_registers(folder: Path) -> Any:
    """``folder/registers.json`` (the JSON shape of a case's ``registers``: {"mask": {"0": [32 byte values]}}), read
    with a size limit; None when absent, a `Malformed` note when unusable."""
    import stat

    path = folder / "registers.json"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return {"mask": {ANY_INDEX: Malformed(f"registers.json cannot be read ({exc.strerror or exc})")}}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 16 * REGISTER_LIMIT:
            return {"mask": {ANY_INDEX: Malformed("registers.json is not a regular file of a sensible size")}}
        raw = os.read(fd, 16 * REGISTER_LIMIT + 1)
    finally:
        os.close(fd)
    try:  # orjson: nesting beyond 1024 levels is refused, not a RecursionError
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return {"mask": {ANY_INDEX: Malformed(f"registers.json is not JSON ({one_line(str(exc))[:200]})")}}
    if not isinstance(doc, dict):
        return {"mask": {ANY_INDEX: Malformed("registers.json is not a JSON object")}}
    deep = too_deep(doc)  # before anything walks it recursively
    if deep is not None:
        return {"mask": {ANY_INDEX: Malformed(f"registers.json is {deep.message} (at {deep.field or 'the top'})")}}
    return registers_answer({REGISTERS: doc})


def _tail(data: bytes | str, n: int = 600) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return one_line(text.strip()[-n:])


class CommandTarget(Target):
    """An external command that reads a case folder and writes ``outputs/*.bin``."""

    kind = "command"

    def __init__(self, template: str, *, cwd: str | None = None, token: str | None = None) -> None:
        if not template.strip():
            raise InputError("empty command", field="--target-cmd")
        self.spec = template
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.token = token or procs.new_token()
        self._calls = 0

    def command(self, folder: Path) -> str:
        quoted = shlex.quote(str(folder))
        return self.spec.replace("{dir}", quoted) if "{dir}" in self.spec else f"{self.spec} {quoted}"

    def run(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
            timeout: float) -> dict[str, Any]:
        folder = Path(tempfile.mkdtemp(prefix="ascverify-target-"))
        proc = None
        self._calls += 1
        token = f"{self.token}.{self._calls}"
        since = None
        try:
            write_case_dir(folder, case_doc, inputs)
            (folder / "outputs").mkdir()
            env = dict(os.environ, ASCVERIFY_CASE_DIR=str(folder))
            env[procs.TOKEN_VAR] = token
            proc = subprocess.Popen(self.command(folder), shell=True, cwd=self.cwd, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
            since = procs.start_time(proc.pid)
            _out, err, timed_out = procs.communicate(proc, timeout)
            if timed_out:
                raise TargetError("timeout", f"no exit within {timeout:g} s")
            if proc.returncode != 0:
                how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                       else f"exit status {proc.returncode}")
                tail = _tail(err.text())
                raise TargetError("crash", f"{how}" + (f"; stderr: {tail}" if tail else ""))
            got = read_outputs(folder / "outputs", outputs)  # bounded reads: a straggler cannot make them grow
            regs = read_registers(folder / "outputs")
            if regs is not None:
                got[REGISTERS] = regs
            return got
        finally:
            if proc is not None:  # nothing the target started outlives the call
                procs.kill_tree(proc.pid, token, since=since)
                procs.close_pipes(proc)
                procs.reap(proc)
            shutil.rmtree(folder, ignore_errors=True)


def make_target(spec: Mapping[str, str] | None, *, cwd: str | None = None, token: str | None = None) -> Target | None:
    """The target a description (``{"kind": "python"|"command", "spec": ..., "cwd": ...}``) names; None for none.
    ``token`` (a campaign's, `procs.new_token`) marks the processes of the target for `procs.sweep`."""
    if not spec:
        return None
    cwd = spec.get("cwd") or cwd  # a recorded target runs where the campaign ran it
    call_token = procs.new_token(token) if token else None
    if spec["kind"] == "python":
        return PythonTarget(spec["spec"], cwd=cwd, token=call_token)
    if spec["kind"] == "command":
        return CommandTarget(spec["spec"], cwd=cwd, token=call_token)
    raise InputError(f"unknown target kind {shown(spec['kind'])}", field="target")


def describe_target(spec: Mapping[str, Any], cwd: str | None = None) -> str:
    """What running a recorded target does, in one line: the command or the Python file, and the folder."""
    where = spec.get("cwd") or cwd or os.getcwd()
    if spec.get("kind") == "command":
        return one_line(f"the shell command {spec.get('spec')!r} (via /bin/sh -c, in {where})")
    if spec.get("kind") == "python":
        return one_line(f"the Python function {spec.get('spec')!r} (imported, so the module's top-level code runs too; "
                        f"in {where})")
    return one_line(f"a target of kind {spec.get('kind')!r}")
