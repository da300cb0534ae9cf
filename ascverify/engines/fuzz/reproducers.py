"""Findings as reproducer folders, written atomically, and their replay.

A finding folder (``FINDINGS/API-PRODUCT-KEY-ID/``) holds:

- ``case.json``: the shrunk case in the case-file format, each input's ``data`` pointing at
  ``inputs/NAME.bin`` (``ascverify check``, ``ascverify run`` and the user's own tools read it as is);
- ``inputs/NAME.bin`` and ``.npy``: every tensor's contents before the call;
- ``expected/NAME.bin`` and ``.npy``: the core's outputs (``NAME.defined.npy`` marks the elements with a
  specified value when some are not; the others hold all bits set, a NaN in float types);
- ``actual/NAME.bin`` and ``.npy``: the target's outputs (differential findings);
- ``diff.txt``: what failed, in words, the call (its arguments, tensors and the first values of its inputs), and
  how to replay it;
- ``coverage.json``: where the case sits in each rule's constraint space;
- ``finding.json``: everything `replay` needs (kind, check, key, seed, rule, target, tolerances).

The ID is a hash of the API, product, failure key, case and seed: the same bug on the same shrunk case
gets the same folder, whichever worker or machine finds it, and is reported once. A folder is built
under a temporary name in the same directory and renamed into place, so a reader never sees half a
finding and two writers of the same finding cannot both win. The temporary folder carries an owner
marker (`ascverify.engines.outputs.owned_temp_dir`), so that a later campaign removes those a killed one left
(`clean_stale`). Finding folders are private (mode 0700: they hold the target's command line and
inputs), and every file is confined to its folder (a target's answer names files in ``actual/``).

Replaying a finding never runs the target it records unless asked (`replay`'s ``recorded_target``): a
finding folder may come from someone else, and its ``finding.json`` names a shell command or a Python
file to import.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import time
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ...cases.case import Case
from ...cases.caseio import iter_documents
from ...cases.parse import parse_case
from ...cases.safe_names import confined, plain_name_problem
from ...cases.sources import MAX_FILE_BYTES, read_bytes
from ...checking.checker import check_case
from ...core.faults import CoreLimit, unrunnable_reason, unrunnable_rules
from ...core.unspecified import blanked
from ...spec.errors import InputError
from ...spec.version import __version__
from ..outputs import (FINDING_LAYOUT, OutputError, clean_stale_temps, os_error, owned_temp_dir, release_temp_dir,
                       shown)
from .checks import Differential, Failure, run_invariants, run_negative
from .compare import shown_value
from .coverage import Point
from .finding_file import DETAIL_MAX, FINDING_FILE, check_case_matches, load_meta
from .targets import describe_target, make_target, write_case_dir

#: Temporary finding folders: ``.tmp-ID-RANDOM`` (see `clean_stale`).
TMP_FINDING = re.compile(r"\.tmp-[0-9a-f]{16}-[A-Za-z0-9_]+")
#: Finding folders and the folders in them: the owner only.
PRIVATE = 0o700


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


#: The most unusable answers (names that are not outputs, values that are not arrays) a finding.json lists: a target
#: answering thousands of names would make it megabytes (`finding_file.FINDING_MAX_BYTES`).
NOTES_LISTED = 64


def _write_arrays(folder: Path, arrays: Mapping[str, Any]) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE)
    os.chmod(folder, PRIVATE)
    listing: dict[str, Any] = {}
    notes = 0
    for name, arr in arrays.items():
        if not isinstance(arr, np.ndarray) or plain_name_problem(name) is not None:
            notes += 1
            if notes > NOTES_LISTED:
                listing["..."] = {"unreadable": f"{notes - NOTES_LISTED} more not listed"}
                continue
        problem = plain_name_problem(name)
        if problem is not None:
            listing[shown(name)] = {"unreadable": f"not written: {problem}"}
            continue
        if not isinstance(arr, np.ndarray):
            listing[name] = {"unreadable": repr(arr)[:1000]}
            continue
        le = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
        confined(folder, f"{name}.bin").write_bytes(le.tobytes())
        try:
            np.save(confined(folder, f"{name}.npy"), le, allow_pickle=False)
        except (ValueError, TypeError):  # an object array from a target: the .bin is what there is
            pass
        listing[name] = {"bin": f"{folder.name}/{name}.bin", "dtype": str(arr.dtype), "size": int(arr.size)}
    return listing


def _blank_undefined(values: Any, defined: Any) -> Any:
    """The core's output with its unspecified elements' bits all set (`core.unspecified.blanked`)."""
    if defined is None or not isinstance(values, np.ndarray) or np.size(defined) != values.size:
        return values
    return blanked(values, ~np.asarray(defined, dtype=bool))


def finding_name(api: str, product: str, key: str, fid: str) -> str:
    return f"{_slug(api)}-{_slug(product)}-{_slug(key)}-{fid}"


def clean_stale(root: Path, started: float) -> list[str]:
    """Remove the temporary finding folders a killed campaign left in ``root`` (see `ascverify.engines.outputs`)."""
    return clean_stale_temps(root, TMP_FINDING, started, FINDING_LAYOUT)


def save_finding(root: Path, *, unit: Any, failure: Failure, case: Case, seed: int, inputs: Mapping[str, np.ndarray],
                 points: Mapping[str, Point], rule: str | None = None, target: Mapping[str, str] | None = None,
                 tolerances: Mapping[str, Any] | None = None, overrides: Mapping[str, Any] | None = None,
                 shrunk: bool = True, campaign_seed: int | None = None, shrink_off: bool = False) -> Saved:
    """Write the finding's folder (unless the same finding exists already). OutputError (naming the folder and the
    OS error) when it cannot be written: the caller keeps the finding."""
    doc = case.to_json()
    fid = finding_id(case.model.name, case.product, failure.key, doc, seed, rule)
    final = confined(root, finding_name(case.model.name, case.product, failure.key, fid))
    if os.path.lexists(final):
        if holds_finding(final, fid):
            return Saved(fid, final, False)
        raise OutputError(f"{shown(final.name)} is in the way: not this finding's folder (no readable {FINDING_FILE} "
                          f"with id {fid}); nothing there is replaced",
                          where=shown(root), field="--findings")
    tmp: Path | None = None
    try:
        root.mkdir(parents=True, exist_ok=True, mode=PRIVATE)
        tmp = owned_temp_dir(root, f".tmp-{fid}-")

        case_doc = dict(doc)
        case_doc["name"] = f"{failure.check} {fid}"
        case_doc["comment"] = f"ascverify fuzz finding: {failure.message[:300]}"
        write_case_dir(tmp, case_doc, inputs, npy=True, dir_mode=PRIVATE)
        defined = {k: v for k, v in failure.defined.items() if not np.all(v)}
        expected = _write_arrays(tmp / "expected", {k: _blank_undefined(v, defined.get(k))
                                                    for k, v in failure.expected.items()})
        for k, v in defined.items():
            np.save(confined(tmp / "expected", f"{k}.defined.npy"), np.asarray(v, dtype=bool), allow_pickle=False)
        actual = _write_arrays(tmp / "actual", failure.actual) if failure.actual else {}
        meta = finding_meta(fid, unit=unit, failure=failure, case=case, seed=seed, rule=rule, target=target,
                            tolerances=tolerances, overrides=overrides, shrunk=shrunk, campaign_seed=campaign_seed,
                            shrink_off=shrink_off)
        meta.update(expected=expected, actual=actual)
        (tmp / FINDING_FILE).write_text(json.dumps(meta, indent=2, default=str) + "\n")
        (tmp / "coverage.json").write_text(json.dumps({r: p.to_json() for r, p in points.items()}, indent=2) + "\n")
        # (its replay line names the folder, whose name may not be UTF-8: such bytes are written escaped)
        (tmp / "diff.txt").write_text(_diff_text(meta, final, doc, inputs), encoding="utf-8",
                                      errors="backslashreplace")
        release_temp_dir(tmp)
        os.chmod(tmp, PRIVATE)
        try:
            os.rename(tmp, final)
        except OSError:  # someone else wrote the same finding first
            shutil.rmtree(tmp, ignore_errors=True)
            if final.is_dir():
                return Saved(fid, final, False)
            raise
        return Saved(fid, final, True)
    except OSError as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise os_error(exc, root if tmp is None else final, field="--findings") from None
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise


def holds_finding(folder: Path, fid: str) -> bool:
    """``folder`` is a finding folder of the finding ``fid``: a folder (not a link to one) whose finding.json, a
    regular file read within its bound, names that id. A folder someone else made under the same name is not."""
    if os.path.islink(folder) or not folder.is_dir():
        return False
    try:
        return load_meta(folder).get("id") == fid
    except InputError:
        return False


def shrink_note(found: Mapping[str, Any], *, long: bool = False) -> str:
    """What a finding (its summary or finding.json) says of its shrinking: nothing when shrunk."""
    if found.get("shrunk", True):
        return ""
    if found.get("shrink_off"):
        return " (not shrunk: shrinking was off)"
    return (" (shrinking cut short by the item's time limit or a stop: the smallest failing case found by then)"
            if long else " (shrinking cut short)")


def finding_meta(fid: str, *, unit: Any, failure: Failure, case: Case, seed: int, rule: str | None = None,
                 target: Mapping[str, str] | None = None, tolerances: Mapping[str, Any] | None = None,
                 overrides: Mapping[str, Any] | None = None, shrunk: bool = True,
                 campaign_seed: int | None = None, shrink_off: bool = False) -> dict[str, Any]:
    """Everything `replay` needs of a finding (``finding.json`` without the array listings)."""
    return {
        "id": fid, "api": case.model.name, "product": case.product, "dtype": case.ctx.dtype.name,
        "kind": unit.kind, "unit": unit.key, "check": failure.check, "key": failure.key,
        "message": failure.message, "detail": _clipped(failure.detail), "seed": int(seed), "rule": rule, "shrunk": bool(shrunk),
        "shrink_off": bool(shrink_off),
        "target": dict(target) if target else None, "tolerances": dict(tolerances) if tolerances else None,
        "tolerance_overrides": {k: v for k, v in (overrides or {}).items() if k != "timeout"},
        "timeout": (overrides or {}).get("timeout"),
        "diffs": [d.to_json() for d in failure.diffs],
        "campaign_seed": campaign_seed, "ascverify": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _clipped(detail: str) -> str:
    """A failure's detail as finding.json keeps it: at most `DETAIL_MAX` characters, its start and its end (a
    traceback's last lines say the most)."""
    if len(detail) <= DETAIL_MAX:
        return detail
    half = DETAIL_MAX // 2
    return f"{detail[:half]}\n... ({len(detail) - 2 * half:,} characters left out) ...\n{detail[-half:]}"


#: Values of each input shown in diff.txt (all of them are in inputs/NAME.npy).
DIFF_INPUT_VALUES = 8


def _diff_text(meta: Mapping[str, Any], final: Path, doc: Mapping[str, Any] | None = None,
               inputs: Mapping[str, np.ndarray] | None = None) -> str:
    """diff.txt: what failed, the call (``doc``: the case's arguments and tensors, with the first values of each
    of its ``inputs``), the outputs that differ, and how to replay it."""
    lines = [f"{meta['api']} on {meta['product']} (T={meta['dtype']}), {meta['kind']} check {meta['check']}",
             f"key: {meta['key']}" + shrink_note(meta, long=True),
             f"seed: {meta['seed']}" + (f", rule broken: {meta['rule']}" if meta.get("rule") else ""),
             "", meta["message"], ""]
    if meta.get("detail") and meta["detail"].strip() != meta["message"].strip():
        lines += [meta["detail"].rstrip(), ""]
    if doc is not None:
        lines += [*_call_lines(doc, inputs or {}), ""]
    for d in meta.get("diffs") or ():
        lines.append(f"{d['tensor']}: {d['kind']}: {d['compared']} elements compared, {d['mismatches']} differ"
                     + (f", max abs error {d['max_abs_error']:g}" if d.get("max_abs_error") is not None else "")
                     + (f", max rel error {d['max_rel_error']:g}" if d.get("max_rel_error") is not None else ""))
        for m in d.get("first_mismatches") or ():
            lines.append(f"  [{m['index']}] expected {shown_value(m, 'expected')} actual {shown_value(m, 'actual')}")
    replay = f"ascverify replay {shlex.quote(str(final))}"
    if meta.get("target"):
        t = meta["target"]
        lines.append(f"target: {t['kind']} {t['spec']}")
        flag = "--target-cmd" if t["kind"] == "command" else "--target"
        replay += f" {flag} {shlex.quote(str(t['spec']))}   (or --recorded-target)"
    lines += ["", f"replay: {replay}", ""]
    return "\n".join(lines)


def _call_lines(doc: Mapping[str, Any], inputs: Mapping[str, np.ndarray]) -> list[str]:
    """The call of a finding in words: its arguments, then each tensor (position, address, size) with the first
    values of its contents before the call (case.json and inputs/ hold all of it)."""
    args = doc.get("args") or {}
    lines = ["the call (case.json; every input in inputs/NAME.npy):",
             "  args: " + (", ".join(f"{k}={json.dumps(v)}" for k, v in args.items()) or "none")]
    for name, decl in (doc.get("tensors") or {}).items():
        where = ", ".join(f"{k} {decl[k]}" for k in ("position", "addr", "size", "dtype") if k in decl)
        lines.append(f"  {name}: {where}")
        data = inputs.get(name)
        if data is not None:
            flat = np.asarray(data).reshape(-1)
            head = ", ".join(str(x) for x in flat[:DIFF_INPUT_VALUES])  # each in its own type's shortest form
            more = f", ... ({flat.size:,} values)" if flat.size > DIFF_INPUT_VALUES else ""
            lines.append(f"    before the call: [{head}{more}]")
    return lines


# -- replay --------------------------------------------------------------------------------------------------------

@dataclass
class ReplayResult:
    failing: bool
    key: str | None
    message: str
    meta: dict[str, Any]


#: The most entries of a findings folder looked at for its finding folders (a campaign writes one per finding).
FINDINGS_LISTED_MAX = 100_000


def finding_folders(folder: Path) -> list[Path]:
    """The finding folders ``folder`` names: itself when it holds a finding.json (or is not a folder: `load_meta`
    then says why), else the finding folders directly inside it, sorted (a findings folder, as ``fuzz --findings``
    writes it; temporary folders, whose names start with a dot, and links are passed over). A folder holding
    nothing but such dot-named entries (the findings folder of a campaign that found nothing: its examples database
    `.examples`) has none: []. Any other folder without a finding (empty, or holding other things) is returned as it
    is, for `load_meta` to refuse."""
    if not folder.is_dir() or os.path.lexists(folder.joinpath(FINDING_FILE)):
        return [folder]
    found: list[Path] = []
    others = dotted = False
    try:
        with os.scandir(folder) as entries:
            for i, entry in enumerate(entries):
                if i >= FINDINGS_LISTED_MAX:
                    raise InputError(f"holds more than {FINDINGS_LISTED_MAX:,} entries: name its finding folders",
                                     where=shown(folder))
                # (a finding.json that is not a regular file counts too: `load_meta` then says so, in one line)
                if (not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
                        and os.path.lexists(os.path.join(entry.path, FINDING_FILE))):
                    found.append(Path(entry.path))
                elif entry.name.startswith("."):
                    dotted = True
                else:
                    others = True
    except OSError as exc:
        raise os_error(exc, folder) from None
    return sorted(found) or ([] if dotted and not others else [folder])


def _load_case(folder: Path, *, with_data: bool) -> Case:
    """The case of ``folder/case.json``, read as a case file is (docs/security.md, "Reading inputs": a regular file,
    bounded, no duplicate key, no NaN, no deep nesting; `caseio.iter_documents`), and one case: a JSON object.
    Every InputError names case.json."""
    path = folder / "case.json"
    where = shown(path)
    try:
        data = read_bytes(str(path), MAX_FILE_BYTES)
        if re.match(rb"\s*\{", data) is None:
            raise InputError("expected one case (a JSON object)")
        docs = list(islice(iter_documents(data, where), 2))
        if len(docs) != 1:
            raise InputError("expected one case (a JSON object), not several")
        _, doc, err = docs[0]
        if err is not None:
            raise err
        tensors = doc.get("tensors") if isinstance(doc, dict) else None
        if not with_data and isinstance(tensors, dict):
            for t in tensors.values():
                if isinstance(t, dict):
                    t.pop("data", None)
        case = parse_case(doc, base_dir=folder, origin=str(path))
        if with_data:
            for name in list(case.data_sources):
                case.data(name)  # read now: a missing input file is an input error, not a failure
    except InputError as exc:
        raise (exc if exc.where.startswith(where) else exc.at(where)) from None
    return case


def _runnable(case: Case, folder: Path) -> Case:
    """``case`` of an invariants or differential finding, which a campaign saved after the core ran it: one the core
    does not run was written by someone else (docs/security.md). A negative finding's case may break a rule of any
    kind: `run_negative` runs the core only where it can."""
    blocking = unrunnable_rules(v.rule for v in check_case(case).violations)
    if blocking:
        raise InputError(f"not a case the core runs ({unrunnable_reason(blocking)})", where=shown(folder / "case.json"))
    return case


def replay(folder: Path, *, target: Any = None, timeout: float | None = None, rtol: float | None = None,
           atol: float | None = None, error_ratio: float | None = None, recorded_target: bool = False,
           announce: Any = None) -> ReplayResult:
    """Run a finding again: ``failing`` is False when the check now passes.

    Invariant and negative findings rerun the case with the finding's seed (the core draws the same
    inputs); differential findings feed the saved inputs to ``target`` and compare with the core. The target
    the finding records is run only with ``recorded_target`` (and ``announce`` is first called with a line
    saying exactly what will run): a finding folder may come from someone else.
    """
    meta = load_meta(folder)
    kind, seed = meta["kind"], int(meta["seed"])
    try:
        if kind == "invariants":
            case = _load_case(folder, with_data=False)
            check_case_matches(meta, case, folder)
            run_invariants(_runnable(case, folder), seed)
        elif kind == "negative":
            case = _load_case(folder, with_data=False)
            check_case_matches(meta, case, folder)
            run_negative(str(meta["rule"]), case, seed)
        elif kind == "differential":
            recorded = meta.get("target")
            own = target is None
            if own and not recorded_target:
                hint = ""
                if recorded:
                    flag = "--target-cmd" if recorded["kind"] == "command" else "--target"
                    hint = (f"; it records {describe_target(recorded)}: give {flag} (or another target) to replay "
                            f"against it, or --recorded-target to run the recorded one")
                raise InputError("a differential finding is replayed against the target given with --target or "
                                 "--target-cmd" + hint, where=shown(folder))
            if own and not recorded:
                raise InputError("the finding records no target; give one with --target or --target-cmd",
                                 where=shown(folder))
            case = _load_case(folder, with_data=True)
            check_case_matches(meta, case, folder)
            case = _runnable(case, folder)
            if own:
                if announce is not None:
                    announce(f"{shown(folder)}: running the recorded target: {describe_target(recorded, os.getcwd())}")
                tgt = make_target(recorded, cwd=os.getcwd())
            else:
                tgt = target
            given = meta.get("tolerance_overrides") or {}  # both checked by `load_meta`
            recorded_timeout = float(meta.get("timeout") or 10.0)
            diff = Differential(tgt, timeout=timeout or recorded_timeout,
                                rtol=rtol if rtol is not None else given.get("rtol"),
                                atol=atol if atol is not None else given.get("atol"),
                                error_ratio=error_ratio if error_ratio is not None else given.get("error_ratio"),
                                exact=bool(given.get("exact", False)))
            try:
                diff.run(case, seed)
            finally:
                if own:
                    tgt.close()
        else:
            raise InputError(f"unknown finding kind {shown(kind)}", where=shown(folder / FINDING_FILE))
    except Failure as f:
        return ReplayResult(True, f.key, f.message, meta)
    except CoreLimit as exc:  # not a case a campaign ran
        raise InputError(f"not a case the core runs ({exc})", where=shown(folder / "case.json")) from None
    return ReplayResult(False, None, "passes now", meta)
