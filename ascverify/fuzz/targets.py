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
  command runs through ``/bin/sh`` in its own session, so a timeout kills it with its children.

Both raise `TargetError` (kind ``crash``, ``timeout`` or ``protocol``) for a failed call.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import multiprocessing
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import InputError

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


class Target:
    """The interface of both kinds."""

    kind = ""
    spec = ""

    def run(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
            timeout: float) -> dict[str, Any]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def describe(self) -> dict[str, str]:
        return {"kind": self.kind, "spec": self.spec}

    def __enter__(self) -> "Target":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- Python callables ----------------------------------------------------------------------------------------------

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


def _check_outputs(result: Any) -> dict[str, Any]:
    if not isinstance(result, Mapping):
        raise TargetError("protocol", f"the target returned {type(result).__name__}, not a dict of arrays")
    out: dict[str, Any] = {}
    for k, v in result.items():
        try:
            out[str(k)] = np.asarray(v)
        except Exception as exc:  # noqa: BLE001
            out[str(k)] = Malformed(f"{k}: not an array ({type(exc).__name__}: {exc})")
    return out


def _child_main(conn: Any, spec: str, cwd: str) -> None:  # pragma: no cover - runs in the child process
    """The child's loop: load the function, then answer one call per message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the campaign decides when to stop, not the terminal
    try:
        os.chdir(cwd)
        fn = load_callable(spec, cwd)
    except BaseException as exc:  # noqa: BLE001
        conn.send(("load-error", exc.line() if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        case_doc, inputs = msg
        try:
            result = fn(case_doc, inputs)
            if isinstance(result, Mapping):
                result = {str(k): np.asarray(v) for k, v in result.items()}
            reply = ("ok", result)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are the target's failure too
            tb = traceback.format_exc(limit=8)
            reply = ("error", f"{type(exc).__name__}: {exc}\n{tb}")
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
            conn.send(("error", f"the result cannot be sent back: {type(exc).__name__}: {exc}"))


class PythonTarget(Target):
    """A Python function run in a child process (restarted after a crash or a timeout)."""

    kind = "python"

    def __init__(self, spec: str, *, cwd: str | None = None, start_timeout: float = 60.0) -> None:
        self.spec = spec
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.start_timeout = start_timeout
        self._proc: Any = None
        self._conn: Any = None

    def start(self) -> None:
        """Start the child and load the function (InputError when it cannot be loaded)."""
        if self._proc is not None and self._proc.is_alive():
            return
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_child_main, args=(child, self.spec, self.cwd), daemon=True,
                           name="ascverify-target")
        proc.start()
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
            raise InputError(f"the target process died while loading (exit status {code})", field="--target") from None
        if kind != "ready":
            self._kill()
            raise InputError(str(payload), field="--target")

    def _kill(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass
        if proc is not None and proc.is_alive():
            proc.kill()
        if proc is not None:
            proc.join(5)

    def run(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
            timeout: float) -> dict[str, Any]:
        if self._proc is None or not self._proc.is_alive():
            self._kill()
            self.start()
        conn = self._conn
        try:
            conn.send((case_doc, dict(inputs)))
            if not conn.poll(timeout):
                self._kill()
                raise TargetError("timeout", f"no answer within {timeout:g} s")
            kind, payload = conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            proc = self._proc
            code = None
            if proc is not None:
                proc.join(2)
                code = proc.exitcode
            self._kill()
            raise TargetError("crash", f"the target process died (exit status {code})") from None
        except BaseException:  # an interrupt while the child works: it may be mid-call, start afresh next time
            self._kill()
            raise
        if kind == "error":
            raise TargetError("crash", f"raised {payload.strip()}")
        return _check_outputs(payload)

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
        self._kill()


# -- external commands ---------------------------------------------------------------------------------------------

def write_case_dir(folder: Path, case_doc: Mapping[str, Any], inputs: Mapping[str, np.ndarray], *,
                   npy: bool = False) -> dict[str, Any]:
    """Write ``case.json`` (each input's ``data`` pointing at ``inputs/NAME.bin``) and the inputs; returns the doc."""
    (folder / "inputs").mkdir(parents=True, exist_ok=True)
    doc = json.loads(json.dumps(case_doc))
    for name, arr in inputs.items():
        le = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
        (folder / "inputs" / f"{name}.bin").write_bytes(le.tobytes())
        if npy:
            np.save(folder / "inputs" / f"{name}.npy", le, allow_pickle=False)
        if name in doc.get("tensors", {}):
            doc["tensors"][name]["data"] = f"inputs/{name}.bin"
    (folder / "case.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def read_outputs(folder: Path, outputs: OutputSpec) -> dict[str, Any]:
    """``folder/NAME.bin`` for each output (absent files are left out)."""
    got: dict[str, Any] = {}
    for name, (dtype, _size) in outputs.items():
        path = folder / f"{name}.bin"
        if not path.is_file():
            continue
        raw = path.read_bytes()
        dt = np.dtype(dtype)
        if len(raw) % dt.itemsize:
            got[name] = Malformed(f"{name}.bin has {len(raw)} bytes, not a whole number of {dt.itemsize}-byte elements")
            continue
        got[name] = np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt)
    return got


def _tail(data: bytes, n: int = 600) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text[-n:]


class CommandTarget(Target):
    """An external command that reads a case folder and writes ``outputs/*.bin``."""

    kind = "command"

    def __init__(self, template: str, *, cwd: str | None = None) -> None:
        if not template.strip():
            raise InputError("empty command", field="--target-cmd")
        self.spec = template
        self.cwd = os.path.abspath(cwd or os.getcwd())

    def command(self, folder: Path) -> str:
        quoted = shlex.quote(str(folder))
        return self.spec.replace("{dir}", quoted) if "{dir}" in self.spec else f"{self.spec} {quoted}"

    def run(self, case_doc: dict[str, Any], inputs: Mapping[str, np.ndarray], outputs: OutputSpec,
            timeout: float) -> dict[str, Any]:
        folder = Path(tempfile.mkdtemp(prefix="ascverify-target-"))
        proc = None
        try:
            write_case_dir(folder, case_doc, inputs)
            (folder / "outputs").mkdir()
            env = dict(os.environ, ASCVERIFY_CASE_DIR=str(folder))
            proc = subprocess.Popen(self.command(folder), shell=True, cwd=self.cwd, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
            try:
                _out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _killpg(proc)
                raise TargetError("timeout", f"no exit within {timeout:g} s") from None
            if proc.returncode != 0:
                how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                       else f"exit status {proc.returncode}")
                tail = _tail(err)
                raise TargetError("crash", f"{how}" + (f"; stderr: {tail}" if tail else ""))
            return read_outputs(folder / "outputs", outputs)
        finally:
            if proc is not None and proc.poll() is None:  # interrupted while it ran
                _killpg(proc)
            shutil.rmtree(folder, ignore_errors=True)


def _killpg(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    try:
        proc.communicate(timeout=5)
    except Exception:  # noqa: BLE001
        pass


def make_target(spec: Mapping[str, str] | None, *, cwd: str | None = None) -> Target | None:
    """The target a description (``{"kind": "python"|"command", "spec": ..., "cwd": ...}``) names; None for none."""
    if not spec:
        return None
    cwd = spec.get("cwd") or cwd  # a recorded target runs where the campaign ran it
    if spec["kind"] == "python":
        return PythonTarget(spec["spec"], cwd=cwd)
    if spec["kind"] == "command":
        return CommandTarget(spec["spec"], cwd=cwd)
    raise InputError(f"unknown target kind {spec['kind']!r}", field="target")
