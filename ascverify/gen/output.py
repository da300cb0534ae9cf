"""Writing a generation: one directory per case and one manifest, never half-written.

    DIR/manifest.json
    DIR/case_0000/case.json          the case; tensors' "data" point at inputs/NAME.bin
    DIR/case_0000/inputs/NAME.bin    contents before the call (raw little-endian, numpy tofile)
    DIR/case_0000/golden/NAME.bin    outputs after the call, from the core (valid cases only)
    DIR/case_0000/golden/NAME.unspecified.bin   uint8 per element, 1 = the value is unspecified
                                                (written only when some are): do not compare those

Each case directory is written under a hidden temporary name and renamed into place; the
manifest is written last (through a temporary file and a rename). An interrupted run leaves
complete case directories and a manifest of exactly those (marked ``"complete": false``), never
a partial file. The manifest describes each case in the terms of msOpST test-case files: ``op``,
``input_desc``/``output_desc`` entries with ``format``, ``type``, ``shape``, ``value_range`` and
``data_distribute``, the scalar arguments as ``attr``, and ``expect`` (``success`` or ``failed``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import __version__
from ..case import Case
from ..params import MaskArg
from . import GenCase, Generation, data_seed, materialize, summary_counts

#: msOpST spells element types after numpy; ascverify's names where they differ.
OPST_TYPES = {"half": "float16", "float": "float32"}
#: The data layout a buffer holds (HARDWARE_NOTES: L0A holds NZ fractals, L0B ZN); ND elsewhere.
BUFFER_FORMAT = {"L0A": "FRACTAL_NZ", "L0B": "FRACTAL_ZN", "L0C": "FRACTAL_NZ"}
CASE_DIR = re.compile(r"^case_\d{4,}$")


def case_name(i: int, total: int) -> str:
    return f"case_{i:0{max(4, len(str(max(total - 1, 0))))}d}"


def _le(arr: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)


def _value_range(arr: np.ndarray) -> list[Any] | None:
    if arr.size == 0:
        return None
    a = arr
    if a.dtype.kind == "f" or a.dtype.name in ("bfloat16",) or "float8" in a.dtype.name:
        a = a.astype(np.float64)
        a = a[np.isfinite(a)]
        if a.size == 0:
            return None
        return [float(a.min()), float(a.max())]
    return [int(a.min()), int(a.max())]


def _attr(case: Case) -> list[dict[str, Any]]:
    out = []
    for a in case.model.args:
        value = case.arg(a.name)
        if isinstance(a, MaskArg):
            kind = "list_int" if isinstance(value, list) else ("string" if isinstance(value, str) else "int")
        elif isinstance(value, bool):
            kind = "bool"
        elif isinstance(value, str):
            kind = "string"
        else:
            kind = "int"
        out.append({"name": a.name, "type": kind, "value": value})
    return out


def _desc(case: Case, name: str, arr: np.ndarray | None, *, role: str, file: str | None, key: str) -> dict[str, Any]:
    t = case.tensor(name)
    out: dict[str, Any] = {"name": name, "role": role, "format": BUFFER_FORMAT.get(t.buffer, "ND"),
                           "type": OPST_TYPES.get(t.dtype.name, t.dtype.name), "shape": [t.size],
                           "position": t.position, "addr": t.addr}
    if arr is not None:
        out["value_range"] = _value_range(arr)
    if file is not None:
        out[key] = file
    return out


def manifest_entry(gc: GenCase, name: str) -> dict[str, Any]:
    """One case in msOpST terms plus what ascverify knows about it."""
    case = gc.case
    model = case.model
    inputs, outputs = [], []
    for decl in model.tensors:
        t = case.tensor(decl.name)
        if not t.present:
            continue
        if decl.name in gc.inputs:
            d = _desc(case, decl.name, gc.inputs[decl.name], role=decl.role,
                      file=f"{name}/inputs/{decl.name}.bin", key="data_file")
            d["data_distribute"] = "uniform"
            if decl.role == "out":
                d["initial_contents"] = True  # masked-off elements keep these values
            inputs.append(d)
        elif decl.role in ("in", "inout"):
            inputs.append(_desc(case, decl.name, None, role=decl.role, file=None, key="data_file"))
        if decl.role in ("out", "inout"):
            d = _desc(case, decl.name, gc.golden.get(decl.name), role=decl.role,
                      file=f"{name}/golden/{decl.name}.bin" if decl.name in gc.golden else None, key="golden_file")
            if decl.name in gc.unspecified:
                d["unspecified_file"] = f"{name}/golden/{decl.name}.unspecified.bin"
                d["unspecified_elements"] = int(gc.unspecified[decl.name].sum())
            outputs.append(d)
    entry: dict[str, Any] = {
        "case_name": name, "op": model.name, "product": case.product, "dtype": case.dtype.name,
        "expect": gc.expect, "case_file": f"{name}/case.json",
        "input_desc": inputs, "output_desc": outputs, "attr": _attr(case),
        "breaks": gc.breaks, "warns": gc.warns, "covers": gc.covers, "why": gc.note, "data_seed": gc.data_seed,
    }
    if gc.expect == "failed" or gc.faults or gc.not_run:
        entry["core"] = {"faults": gc.faults, "not_run": gc.not_run or None}
    if gc.problem:
        entry["problem"] = gc.problem
    return entry


def _case_doc(gc: GenCase, name: str) -> dict[str, Any]:
    doc = gc.case.to_json()
    for tname in gc.inputs:
        if tname in doc["tensors"]:
            doc["tensors"][tname]["data"] = f"inputs/{tname}.bin"
    doc["name"] = name
    doc["expect"] = {"result": gc.expect, "breaks": gc.breaks, "warns": gc.warns}
    return doc


def _write_case_dir(tmp: Path, gc: GenCase, name: str) -> None:
    (tmp / "inputs").mkdir(parents=True)
    for tname, arr in gc.inputs.items():
        _le(arr).tofile(tmp / "inputs" / f"{tname}.bin")
    if gc.golden:
        (tmp / "golden").mkdir()
        for tname, arr in gc.golden.items():
            _le(arr).tofile(tmp / "golden" / f"{tname}.bin")
        for tname, mask in gc.unspecified.items():
            mask.astype(np.uint8).tofile(tmp / "golden" / f"{tname}.unspecified.bin")
    (tmp / "case.json").write_text(json.dumps(_case_doc(gc, name), indent=2) + "\n")


def _place(tmp: Path, final: Path) -> None:
    """Rename ``tmp`` to ``final``, replacing an earlier case directory of the same name."""
    old = None
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
    os.replace(tmp, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _json_default(x: Any) -> Any:
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(type(x).__name__)


def manifest(gen: Generation, entries: list[dict[str, Any]], complete: bool) -> dict[str, Any]:
    report = dict(gen.report)
    report.pop("construction_seconds", None)
    targets = report.pop("targets", None)
    doc: dict[str, Any] = {
        "tool": "ascverify", "version": __version__, "format": "ascverify-gen/1",
        "op": gen.model.name, "product": gen.ctx.product.id, "dtype": gen.ctx.dtype.name,
        "mode": gen.mode, "seed": gen.seed, "requested": gen.requested, "complete": complete,
        "golden": "raw little-endian numpy tofile; compare with numpy.isclose(rtol, atol, equal_nan=True), "
                  "skipping the elements that NAME.unspecified.bin marks with 1",
        "counts": summary_counts(gen), **report,
    }
    if targets is not None:
        doc["coverage"] = coverage(targets, gen.mode, [e["case_name"] for e in entries],
                                   {e["case_name"]: e["breaks"] for e in entries})
    doc["cases"] = entries
    return doc


def coverage(targets: list, mode: str, names: list[str], breaks: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Targets by status, with the reason of each one not covered (cases named as written)."""
    from collections import Counter

    for t in targets:
        t.cases = [c if isinstance(c, str) else names[c] for c in t.cases if isinstance(c, str) or c < len(names)]
        if t.status in ("covered", "clipped") and not t.cases:
            t.status, t.reason = "not_written", "its case is beyond -n"
        if t.expect == "failed" and t.rule is not None and t.cases and breaks is not None:
            # what the written case breaks (with its data): a data rule may come along, e.g. when a tensor is too
            # small for any valid contents
            actual = sorted({b for c in t.cases for b in breaks.get(c, ())} - {t.rule})
            t.released = actual
    counts = Counter(t.status for t in targets)
    out: dict[str, Any] = {"targets": len(targets), **{k: counts[k] for k in sorted(counts)}}
    out["not_covered"] = [t.to_json() for t in targets if t.status not in ("covered", "clipped")]
    out["clipped"] = [t.to_json() for t in targets if t.status == "clipped"]
    if mode == "negative":
        out["not_alone"] = [{"rule": t.rule, "drags_along": t.released, "cases": t.cases}
                            for t in targets if t.released]
    out["all"] = [t.to_json() for t in targets]
    return out


def write_generation(gen: Generation, outdir: Path, *, limit: int | None = None,
                     progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Give every case its data and goldens and write it; the manifest last. Returns the manifest."""
    from ..cli.common import atomic_write

    outdir.mkdir(parents=True, exist_ok=True)
    for leftover in outdir.glob(".case_*"):  # temporaries of an interrupted earlier run
        shutil.rmtree(leftover, ignore_errors=True)
    old_manifest = outdir / "manifest.json"
    old_names: set[str] = set()
    if old_manifest.is_file():
        try:
            old_doc = json.loads(old_manifest.read_text())
            old_names = {c.get("case_name", "") for c in old_doc.get("cases", [])} | set(old_doc.get("stale_cases", []))
        except (ValueError, OSError, AttributeError):
            old_names = set()
        old_manifest.unlink()  # an interrupted run must not leave the old manifest describing new cases
    cases = gen.cases if limit is None else gen.cases[:limit]
    if limit is not None and len(gen.cases) > limit:
        gen.report["not_written"] = f"{len(gen.cases) - limit} more cases were found; -n {limit} kept the first {limit}"
    entries: list[dict[str, Any]] = []
    total = len(cases)
    complete = False
    try:
        for i, gc in enumerate(cases):
            name = case_name(i, total)
            materialize(gc, data_seed(gen.seed, i))
            tmp = outdir / f".{name}.tmp-{os.getpid()}"
            try:
                _write_case_dir(tmp, gc, name)
                _place(tmp, outdir / name)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            entries.append(manifest_entry(gc, name))
            if progress is not None:
                progress(i + 1, total)
        complete = True
    finally:
        gen.cases = cases[: len(entries)]
        doc = manifest(gen, entries, complete)
        if not complete:  # an earlier run's case directories not replaced yet: the next run removes them
            written = {e["case_name"] for e in entries}
            doc["stale_cases"] = sorted(n for n in old_names - written if CASE_DIR.match(n))
        text = json.dumps(doc, indent=2, default=_json_default) + "\n"
        atomic_write(outdir / "manifest.json", lambda f: f.write(text.encode()))
    written = {e["case_name"] for e in entries}
    for stale in old_names - written:  # case directories of an earlier, larger run
        if CASE_DIR.match(stale) and (outdir / stale).is_dir():
            shutil.rmtree(outdir / stale, ignore_errors=True)
    return doc
