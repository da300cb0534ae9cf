"""Findings as reproducer folders, written atomically, and their replay.

A finding folder (``FINDINGS/API-PRODUCT-KEY-ID/``) holds:

- ``case.json``: the shrunk case in the case-file format, each input's ``data`` pointing at
  ``inputs/NAME.bin`` (``ascverify check``, ``ascverify run`` and the user's own tools read it as is);
- ``inputs/NAME.bin`` and ``.npy``: every tensor's contents before the call;
- ``expected/NAME.bin`` and ``.npy``: the core's outputs (``NAME.defined.npy`` marks the elements with a
  specified value when some are not);
- ``actual/NAME.bin`` and ``.npy``: the target's outputs (differential findings);
- ``diff.txt``: what failed, in words, and how to replay it;
- ``coverage.json``: where the case sits in each rule's constraint space;
- ``finding.json``: everything `replay` needs (kind, check, key, seed, rule, target, tolerances).

The ID is a hash of the API, product, failure key, case and seed: the same bug on the same shrunk case
gets the same folder, whichever worker or machine finds it, and is reported once. A folder is built
under a temporary name in the same directory and renamed into place, so a reader never sees half a
finding and two writers of the same finding cannot both win.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .. import __version__
from ..case import Case
from ..errors import InputError
from .checks import Failure
from .coverage import Point

FINDING_FILE = "finding.json"


def finding_id(api: str, product: str, key: str, case_doc: Mapping[str, Any], seed: int, rule: str | None = None) -> str:
    blob = json.dumps([api, product, key, case_doc, int(seed), rule], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:60] or "finding"


@dataclass
class Saved:
    id: str
    path: Path
    new: bool


def _write_arrays(folder: Path, arrays: Mapping[str, Any]) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    listing: dict[str, Any] = {}
    for name, arr in arrays.items():
        if not isinstance(arr, np.ndarray):
            listing[name] = {"unreadable": repr(arr)}
            continue
        le = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
        (folder / f"{name}.bin").write_bytes(le.tobytes())
        try:
            np.save(folder / f"{name}.npy", le, allow_pickle=False)
        except (ValueError, TypeError):  # an object array from a target: the .bin is what there is
            pass
        listing[name] = {"bin": f"{folder.name}/{name}.bin", "dtype": str(arr.dtype), "size": int(arr.size)}
    return listing


def save_finding(root: Path, *, unit: Any, failure: Failure, case: Case, seed: int, inputs: Mapping[str, np.ndarray],
                 points: Mapping[str, Point], rule: str | None = None, target: Mapping[str, str] | None = None,
                 tolerances: Mapping[str, Any] | None = None, overrides: Mapping[str, Any] | None = None,
                 shrunk: bool = True, campaign_seed: int | None = None) -> Saved:
    """Write the finding's folder (unless the same finding exists already)."""
    doc = case.to_json()
    fid = finding_id(case.model.name, case.product, failure.key, doc, seed, rule)
    name = f"{_slug(case.model.name)}-{case.product}-{_slug(failure.key)}-{fid}"
    final = root / name
    if final.exists():
        return Saved(fid, final, False)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{fid}-", dir=root))
    try:
        from .targets import write_case_dir

        case_doc = dict(doc)
        case_doc["name"] = f"{failure.check} {fid}"
        case_doc["comment"] = f"ascverify fuzz finding: {failure.message[:300]}"
        write_case_dir(tmp, case_doc, inputs, npy=True)
        expected = _write_arrays(tmp / "expected", failure.expected)
        defined = {k: v for k, v in failure.defined.items() if not np.all(v)}
        for k, v in defined.items():
            np.save(tmp / "expected" / f"{k}.defined.npy", np.asarray(v, dtype=bool), allow_pickle=False)
        actual = _write_arrays(tmp / "actual", failure.actual) if failure.actual else {}
        meta = {
            "id": fid, "api": case.model.name, "product": case.product, "dtype": case.ctx.dtype.name,
            "kind": unit.kind, "unit": unit.key, "check": failure.check, "key": failure.key,
            "message": failure.message, "detail": failure.detail, "seed": int(seed), "rule": rule, "shrunk": bool(shrunk),
            "target": dict(target) if target else None, "tolerances": dict(tolerances) if tolerances else None,
            "tolerance_overrides": {k: v for k, v in (overrides or {}).items() if k != "timeout"},
            "timeout": (overrides or {}).get("timeout"),
            "diffs": [d.to_json() for d in failure.diffs], "expected": expected, "actual": actual,
            "campaign_seed": campaign_seed, "ascverify": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        (tmp / FINDING_FILE).write_text(json.dumps(meta, indent=2, default=str) + "\n")
        (tmp / "coverage.json").write_text(json.dumps({r: p.to_json() for r, p in points.items()}, indent=2) + "\n")
        (tmp / "diff.txt").write_text(_diff_text(meta, final))
        try:
            os.rename(tmp, final)
        except OSError:  # someone else wrote the same finding first
            shutil.rmtree(tmp, ignore_errors=True)
            return Saved(fid, final, False)
        return Saved(fid, final, True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _diff_text(meta: Mapping[str, Any], final: Path) -> str:
    lines = [f"{meta['api']} on {meta['product']} (T={meta['dtype']}), {meta['kind']} check {meta['check']}",
             f"key: {meta['key']}" + ("" if meta["shrunk"] else " (not shrunk: the campaign stopped first)"),
             f"seed: {meta['seed']}" + (f", rule broken: {meta['rule']}" if meta.get("rule") else ""),
             "", meta["message"], ""]
    if meta.get("detail") and meta["detail"].strip() != meta["message"].strip():
        lines += [meta["detail"].rstrip(), ""]
    for d in meta.get("diffs") or ():
        lines.append(f"{d['tensor']}: {d['kind']}: {d['compared']} elements compared, {d['mismatches']} differ"
                     + (f", max abs error {d['max_abs_error']:g}" if d.get("max_abs_error") is not None else "")
                     + (f", max rel error {d['max_rel_error']:g}" if d.get("max_rel_error") is not None else ""))
        for m in d.get("first_mismatches") or ():
            lines.append(f"  [{m['index']}] expected {m['expected']} actual {m['actual']}")
    if meta.get("target"):
        t = meta["target"]
        lines.append(f"target: {t['kind']} {t['spec']}")
    lines += ["", f"replay: ascverify replay {final}", ""]
    return "\n".join(lines)


# -- replay --------------------------------------------------------------------------------------------------------

@dataclass
class ReplayResult:
    failing: bool
    key: str | None
    message: str
    meta: dict[str, Any]


def load_meta(folder: Path) -> dict[str, Any]:
    path = folder / FINDING_FILE
    if not folder.is_dir():
        raise InputError("not a finding folder (no such directory)", where=str(folder))
    if not path.is_file():
        raise InputError(f"not a finding folder (no {FINDING_FILE})", where=str(folder))
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"unreadable: {exc}", where=str(path)) from None
    for k in ("kind", "seed", "api", "product", "key"):
        if k not in meta:
            raise InputError(f"has no {k!r}", where=str(path))
    return meta


def _load_case(folder: Path, *, with_data: bool) -> Case:
    from ..caseio import parse_case

    path = folder / "case.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"unreadable: {exc}", where=str(path)) from None
    if not with_data:
        for t in doc.get("tensors", {}).values():
            if isinstance(t, dict):
                t.pop("data", None)
    case = parse_case(doc, base_dir=folder, origin=str(path))
    if with_data:
        for name in list(case.data_sources):
            case.data(name)  # read now: a missing input file is an input error, not a failure
    return case


def replay(folder: Path, *, target: Any = None, timeout: float | None = None, rtol: float | None = None,
           atol: float | None = None, error_ratio: float | None = None) -> ReplayResult:
    """Run a finding again: ``failing`` is False when the check now passes.

    Invariant and negative findings rerun the case with the finding's seed (the core draws the same
    inputs); differential findings feed the saved inputs to the target (the one recorded, unless
    ``target`` is given) and compare with the core.
    """
    from .checks import Differential, run_invariants, run_negative
    from .targets import make_target

    meta = load_meta(folder)
    kind, seed = meta["kind"], int(meta["seed"])
    try:
        if kind == "invariants":
            run_invariants(_load_case(folder, with_data=False), seed)
        elif kind == "negative":
            run_negative(str(meta["rule"]), _load_case(folder, with_data=False), seed)
        elif kind == "differential":
            case = _load_case(folder, with_data=True)
            own = target is None
            tgt = make_target(meta.get("target"), cwd=os.getcwd()) if own else target
            if tgt is None:
                raise InputError("the finding records no target; give one with --target or --target-cmd", where=str(folder))
            given = meta.get("tolerance_overrides") or {}
            diff = Differential(tgt, timeout=timeout or float(meta.get("timeout") or 10.0),
                                rtol=rtol if rtol is not None else given.get("rtol"),
                                atol=atol if atol is not None else given.get("atol"),
                                error_ratio=error_ratio if error_ratio is not None else given.get("error_ratio"))
            try:
                diff.run(case, seed)
            finally:
                if own:
                    tgt.close()
        else:
            raise InputError(f"unknown finding kind {kind!r}", where=str(folder / FINDING_FILE))
    except Failure as f:
        return ReplayResult(True, f.key, f.message, meta)
    return ReplayResult(False, None, "passes now", meta)
