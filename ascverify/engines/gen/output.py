"""Writing a generation: one directory per case and one manifest, never half-written.

    DIR/manifest.json
    DIR/case_0000/case.json          the case; tensors' "data" point at inputs/NAME.bin
    DIR/case_0000/inputs/NAME.bin    contents before the call (raw little-endian, numpy tofile)
    DIR/case_0000/golden/NAME.bin    outputs after the call, from the core (valid cases only)
    DIR/case_0000/golden/NAME.unspecified.bin   uint8 per element, 1 = the value is unspecified
                                                (written only when some are): do not compare those;
                                                golden/NAME.bin holds all bits set there (a NaN in float types)

Each case directory is written under a hidden temporary name and renamed into place; the
manifest is written last (through a temporary file and a rename). An interrupted run leaves
complete case directories and a manifest of exactly those (marked ``"complete": false``), never
a partial file. The manifest describes each case in the terms of msOpST test-case files: ``op``,
``input_desc``/``output_desc`` entries with ``format``, ``type``, ``shape``, ``value_range`` and
``data_distribute``, the scalar arguments as ``attr``, and ``expect`` (``success`` or ``failed``).

The manifest is also the folder's record of what ascverify wrote (``"files"``: every file, relative
to DIR; ``case_NNNN/`` for a case folder a run was about to write when it stopped): a later run into
the same folder replaces and removes only those, never a file or folder of someone else's. A folder
that is not empty and holds no such manifest is refused unless ``force`` (see `ascverify.engines.outputs`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...cases.case import Case
from ...cases.caseio import read_cases
from ...cases.safe_names import confined
from ...checking.checker import check_case
from ...core.run import given_data, refuse_conflicting_data
from ...core.unspecified import blanked
from ...spec.errors import InputError
from ...spec.params import MaskArg
from ...spec.version import __version__
from .. import interrupts
from ..outputs import (GEN_CASE_LAYOUT, OutputError, OutputFolder, atomic_write_bytes, clean_stale_temps, make_dir,
                       os_error, owned_temp_dir, release_temp_dir, shown, temps_of_ours, umask)
from . import GenCase, Generation, data_seed, materialize_many, stop_generation, summary_counts
from .written import case_json

#: msOpST spells element types after numpy; ascverify's names where they differ.
OPST_TYPES = {"half": "float16", "float": "float32"}
#: The data layout a buffer holds (HARDWARE_NOTES: L0A holds NZ fractals, L0B ZN); ND elsewhere.
BUFFER_FORMAT = {"L0A": "FRACTAL_NZ", "L0B": "FRACTAL_ZN", "L0C": "FRACTAL_NZ"}
CASE_DIR = re.compile(r"^case_\d{4,}$")
GEN_FORMAT = "ascverify-gen/1"
#: The files of a case folder (relative to it): what a run may remove from a case folder listed as a whole.
CASE_FILE = re.compile(r"case\.json|(inputs|golden)/\w[\w.+-]*\.bin")
#: Temporary case folders (with an owner marker inside; see `ascverify.engines.outputs.owned_temp_dir`).
TMP_CASE_DIR = re.compile(r"\.case_\d{4,}\.tmp-[A-Za-z0-9_]+")


def tmp_cases_of_ours(outdir: Path) -> Callable[[str], bool]:
    """For `OutputFolder`'s ``ignore``: the entry of ``outdir`` so named is a temporary case folder of ascverify's
    (its name, its files all of a case folder's layout, its owner marker ascverify's when there): not a file of
    someone else's. A folder so named holding anything else makes ``outdir`` not empty."""
    return temps_of_ours(outdir, TMP_CASE_DIR, GEN_CASE_LAYOUT)


def case_name(i: int, total: int) -> str:
    return f"case_{i:0{max(4, len(str(max(total - 1, 0))))}d}"


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
    doc = case_json(gc.case)
    for tname in gc.inputs:
        if tname in doc["tensors"]:
            doc["tensors"][tname]["data"] = f"inputs/{tname}.bin"
    doc["name"] = name
    doc["expect"] = {"result": gc.expect, "breaks": gc.breaks, "warns": gc.warns}
    return doc


def _raw(path: Path, arr: np.ndarray) -> None:
    """The array's bytes, as numpy's ``tofile`` writes them, through a plain file write: a full disk is then
    "No space left on device", not tofile's "N requested and M written"."""
    path.write_bytes(np.ascontiguousarray(arr).tobytes())


def _write_case_dir(tmp: Path, gc: GenCase, name: str) -> None:
    (tmp / "inputs").mkdir(parents=True, exist_ok=True)
    for tname, arr in gc.inputs.items():
        _raw(confined(tmp, f"inputs/{tname}.bin"), gc.case.tensor(tname).dtype.to_bytes(arr))
    if gc.golden:
        (tmp / "golden").mkdir()
        for tname, arr in gc.golden.items():  # an unspecified element's bits all set (`core.unspecified.blanked`)
            raw = gc.case.tensor(tname).dtype.to_bytes(blanked(arr, gc.unspecified.get(tname)))
            _raw(confined(tmp, f"golden/{tname}.bin"), raw)
        for tname, mask in gc.unspecified.items():
            _raw(confined(tmp, f"golden/{tname}.unspecified.bin"), mask.astype(np.uint8))
    (tmp / "case.json").write_text(json.dumps(_case_doc(gc, name), indent=2) + "\n")


def _stopped_before_writing(gen: Generation) -> None:
    """A Ctrl-C or SIGTERM not dealt with yet (it came once the generation was done, before its first case was
    written) stops the generation: the report says so and the cases found are written (`stop_generation`)."""
    try:
        interrupts.checkpoint()
    except KeyboardInterrupt as exc:
        stop_generation(gen, exc)


def written_problem(path: Path, entry: dict[str, Any]) -> str:
    """Why the case file at ``path``, read back as `check` reads it (with its data files), does not get the verdict
    its manifest ``entry`` says ('' when it does): expect success, no error; expect failed, every rule of
    ``breaks`` an error. A case whose tensors' data differ on bytes they share, which `run` refuses
    (`core.run.refuse_conflicting_data`), is a problem too."""
    try:
        got = next(iter(read_cases(str(path))), None)
    except InputError as exc:
        return f"its case file cannot be read: {exc}"
    if got is None or got.case is None:
        return f"its case file cannot be read: {got.error if got is not None else 'no case in it'}"
    try:
        refuse_conflicting_data(given_data(got.case, [d.name for d in got.case.model.tensors]))
    except InputError as exc:
        return f"run refuses its case file: {exc}"
    errors = {v.id for v in check_case(got.case).violations}
    if entry["expect"] == "success" and errors:
        return "its case file breaks " + ", ".join(sorted(errors))
    missing = [r for r in entry["breaks"] if r not in errors]
    if entry["expect"] == "failed" and (missing or not errors):
        return "its case file does not break " + (", ".join(missing) if missing else "any rule")
    return ""


def _flag_problem(gc: GenCase, entry: dict[str, Any], problem: str) -> None:
    """Record ``problem`` (a case that does not show what it should) on the case and its manifest entry, unless it
    has one already."""
    if problem and not entry.get("problem"):
        gc.problem = entry["problem"] = problem


class _Earlier:
    """What an earlier generation in the folder wrote (its manifest's ``files``)."""

    def __init__(self, listed: set[str]) -> None:
        self.files = {f for f in listed if not f.endswith("/")}
        self.whole = {f[:-1] for f in listed if f.endswith("/") and CASE_DIR.match(f[:-1])}
        self.dirs = {f.split("/", 1)[0] for f in self.files if "/" in f} | self.whole

    def owns(self, rel: str) -> bool:
        top, _, sub = rel.partition("/")
        return rel in self.files or (top in self.whole and CASE_FILE.fullmatch(sub) is not None)


def _files_under(d: Path) -> list[str]:
    """Every file (and symbolic link) under ``d``, relative to ``d``'s parent, without following links."""
    out = []
    for dirpath, dirnames, filenames in os.walk(d, followlinks=False):
        for n in filenames + [x for x in dirnames if os.path.islink(os.path.join(dirpath, x))]:
            out.append(os.path.relpath(os.path.join(dirpath, n), d.parent).replace(os.sep, "/"))
    return sorted(out)


def _foreign(d: Path, earlier: _Earlier) -> list[str]:
    """What under the existing case folder ``d`` ascverify did not write (the whole folder when it never listed it)."""
    if d.is_symlink() or not d.is_dir():
        return [d.name]
    if d.name not in earlier.dirs:
        return [d.name + "/"]
    return [f for f in _files_under(d) if not earlier.owns(f)]


def _remove_ours(d: Path, earlier: _Earlier) -> None:
    """Delete the files of ours under ``d`` and the folders left empty; OutputError when anything else is there."""
    foreign = _foreign(d, earlier)
    if foreign:
        raise OutputError(f"holds files ascverify did not write ({', '.join(shown(f) for f in foreign[:3])}); "
                          f"move them away", where=shown(d), field="-o")
    try:
        for rel in _files_under(d):
            (d.parent / rel).unlink()
        for dirpath, _dirs, _files in sorted(os.walk(d), key=lambda w: -len(w[0])):
            os.rmdir(dirpath)
    except OSError as exc:
        raise os_error(exc, d, field="-o", action="cannot remove an earlier case folder") from None


def _place(tmp: Path, final: Path, earlier: _Earlier | None = None) -> None:
    """Rename ``tmp`` to ``final``, replacing an earlier case directory of the same name (only when every file in
    it is one ascverify wrote)."""
    if final.exists() or final.is_symlink():
        _remove_ours(final, earlier or _Earlier(set()))
    release_temp_dir(tmp)
    os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes 0700; a case folder is for sharing, like any folder
    os.rename(tmp, final)


def legacy_gen_files(doc: dict) -> set[str] | None:
    """The files a manifest without ``"files"`` (an earlier version) describes."""
    stale = doc.get("stale_cases", [])
    if not isinstance(doc.get("cases"), list) or not isinstance(stale, list):
        return None
    files = {"manifest.json"}
    for c in doc["cases"]:
        if not isinstance(c, dict):
            continue
        if isinstance(c.get("case_file"), str):
            files.add(c["case_file"])
        for key in ("input_desc", "output_desc"):
            descs = c.get(key)
            for d in descs if isinstance(descs, list) else ():
                if isinstance(d, dict):
                    files |= {d[k] for k in ("data_file", "golden_file", "unspecified_file")
                              if isinstance(d.get(k), str)}
    files |= {f"{n}/" for n in stale if isinstance(n, str)}
    return files


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
                  "skipping the elements that NAME.unspecified.bin marks with 1 (their golden bits are all set)",
        "counts": summary_counts(gen), **report,
    }
    if targets is not None:
        doc["coverage"] = coverage(targets, gen.mode, [e["case_name"] for e in entries],
                                   {e["case_name"]: e["breaks"] for e in entries},
                                   {e["case_name"] for e in entries if e["expect"] == "failed"})
    doc["cases"] = entries
    return doc


def coverage(targets: list, mode: str, names: list[str], breaks: dict[str, list[str]] | None = None,
             failing: set[str] = frozenset()) -> dict[str, Any]:
    """Targets by status, with the reason of each one not covered (cases named as written). A legal target is
    covered only by a case written as valid: one whose data broke a rule on tensor contents (``failing``: written
    as failing, `_data_keeping_valid`) does not show it."""
    for t in targets:
        t.cases = [c if isinstance(c, str) else names[c] for c in t.cases if isinstance(c, str) or c < len(names)]
        if t.status in ("covered", "clipped") and not t.cases:
            t.status, t.reason = "not_written", "its case is beyond -n"
        if t.expect == "success" and t.status in ("covered", "clipped") and set(t.cases) <= failing:
            t.status = "skipped"
            t.reason = (f"its case ({', '.join(t.cases)}) has legal arguments, but the data drawn for it break "
                        f"{', '.join(sorted({b for c in t.cases for b in (breaks or {}).get(c, ())}))}: written "
                        "as a failing case")
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


#: Seconds a generation stopped by Ctrl-C or SIGTERM goes on writing the cases it found (about a thousand cases); the
#: cases left are reported (``report["left_unwritten"]``), the manifest lists those written.
WRITE_AFTER_STOP_SECONDS = 10.0


def _left_unwritten(gen: Generation, left: int, found: int) -> None:
    """Report the ``left`` of the ``found`` cases a stopped run did not get to write in `WRITE_AFTER_STOP_SECONDS`."""
    gen.report["left_unwritten"] = (f"{left} of the {found} cases found were not written: a stopped run writes for "
                                    f"at most {WRITE_AFTER_STOP_SECONDS:g} s")


#: Cases given their data, run and checked together before they are written (the rules are checked on all of them at
#: once; a case's tensors are held until it is written, so the chunk stays small).
MATERIALIZE_CHUNK = 16


def write_generation(gen: Generation, outdir: Path, *, limit: int | None = None,
                     progress: Callable[[int, int], None] | None = None, force: bool = False,
                     keep_data: bool = True) -> dict[str, Any]:
    """Give every case its data and goldens and write it; the manifest last. Returns the manifest.

    A case's inputs, goldens and unspecified flags are dropped once it is written; ``keep_data=False`` drops the
    contents its case holds too (memory then stays flat however many cases: ``gen`` without ``--html``).

    ``outdir`` must be absent, empty or an earlier generation's folder (its manifest lists what it wrote);
    ``force`` writes into another folder all the same. Only files and case folders ascverify wrote are ever
    replaced or removed; anything else in the way is refused (OutputError, exit status 2) before a case is
    written."""
    started = time.time()
    # until the folder is prepared (its first manifest written), a Ctrl-C or SIGTERM is recorded, not raised: one
    # that came after the generation, before the first case, stops it like one during it (the cases found are
    # written), never leaving the folder half prepared
    with interrupts.deferred():
        make_dir(outdir, field="-o")
        # temporaries of a killed earlier run (marked as ascverify's, holding only what a case folder holds)
        clean_stale_temps(outdir, TMP_CASE_DIR, started, GEN_CASE_LAYOUT)
        folder = OutputFolder(outdir, manifest="manifest.json", fmt=GEN_FORMAT, force=force, legacy=legacy_gen_files,
                              ignore=tmp_cases_of_ours(outdir))
        earlier = _Earlier(folder.earlier)
        cases = gen.cases if limit is None else gen.cases[:limit]
        if limit is not None and len(gen.cases) > limit:
            gen.report["not_written"] = (f"{len(gen.cases) - limit} more cases were found; -n {limit} kept the first "
                                         f"{limit}")
        total = len(cases)
        names = [case_name(i, total) for i in range(total)]
        # before anything is written: every case folder in the way must be one of ours, holding only our files
        folder.check_planned(["manifest.json"])
        for name in names:
            final = folder.path(name)
            if final.exists() or final.is_symlink():
                foreign = _foreign(final, earlier)
                if foreign:
                    what = ("was not written by ascverify" if foreign == [name + "/"] or foreign == [name]
                            else f"holds files ascverify did not write ({', '.join(shown(f) for f in foreign[:3])})")
                    raise OutputError(f"{what}; move it away or choose another folder (nothing was written)",
                                      where=shown(final), field="-o")
        kept_dirs = sorted(earlier.dirs - set(names))

        def listing(written_files: list[str], pending: list[str], replaced: set[str] = set()) -> list[str]:
            """Every file of ours in the folder: written now, earlier ones still there (in the case folders this run
            did not replace), folders about to be written."""
            out = set(written_files) | {"manifest.json"} | {f"{n}/" for n in pending}
            for d in sorted(earlier.dirs - replaced):
                if (outdir / d).is_dir() and not (outdir / d).is_symlink():
                    out |= {f for f in _files_under(outdir / d) if earlier.owns(f)}
                    out.add(f"{d}/")  # ours (an earlier run's): its case files may go
            return sorted(out)

        def write_manifest(doc: dict[str, Any]) -> None:
            text = json.dumps(doc, indent=2, default=_json_default) + "\n"
            atomic_write_bytes(folder.path("manifest.json"), lambda f: f.write(text.encode()))

        # the folder's record first: a run killed half way leaves a manifest naming every case folder it may have
        # written
        write_manifest({"tool": "ascverify", "version": __version__, "format": GEN_FORMAT, "complete": False,
                        "cases": [], "stale_cases": sorted(set(kept_dirs) | (earlier.dirs & set(names))),
                        "files": listing([], names)})
        gen.written = 0
    _stopped_before_writing(gen)
    entries: list[dict[str, Any]] = []
    files: list[str] = []
    complete = False
    # a generation stopped by Ctrl-C or SIGTERM is not complete however many of its cases are written: an earlier
    # run's case folders it did not replace are kept (listed as stale), never removed for it
    stopped_early = bool(gen.report.get("interrupted"))
    # a stopped run writes the cases it found for a bounded time (a Ctrl-C must not be followed by minutes of writing)
    deadline = time.monotonic() + WRITE_AFTER_STOP_SECONDS if stopped_early else None
    try:
        for i, gc in enumerate(cases):
            if deadline is not None and time.monotonic() > deadline:
                _left_unwritten(gen, total - i, total)
                break
            name = names[i]
            if i % MATERIALIZE_CHUNK == 0:  # the next cases' data, runs and verdicts (their checks batched)
                chunk = range(i, min(i + MATERIALIZE_CHUNK, total))
                materialize_many([cases[j] for j in chunk], [data_seed(gen.seed, j) for j in chunk])
            entry = manifest_entry(gc, name)
            tmp = owned_temp_dir(outdir, f".{name}.tmp-")
            try:
                try:
                    _write_case_dir(tmp, gc, name)
                except OSError as exc:
                    raise os_error(exc, outdir / name) from None
                _flag_problem(gc, entry, written_problem(tmp / "case.json", entry))
                mine = [f"{name}/{f.split('/', 1)[1]}" for f in _files_under(tmp) if not f.endswith("/.ascverify-owner")]
                with interrupts.deferred():  # a folder in place is in the manifest: Ctrl-C waits for both
                    _place(tmp, folder.path(name), earlier)
                    files += mine
                    entries.append(entry)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            interrupts.checkpoint()
            gc.inputs, gc.golden, gc.unspecified = {}, {}, {}  # written: not held for the rest of the run
            if not keep_data:
                gc.case.forget_data()
            if progress is not None:
                progress(i + 1, total)
        complete = not stopped_early
    finally:
        gen.cases = cases[: len(entries)]
        gen.written = len(entries)
        doc = manifest(gen, entries, complete)
        written = {e["case_name"] for e in entries}
        if not complete:  # an earlier run's case directories not replaced yet: the next run removes them
            doc["stale_cases"] = sorted(n for n in set(kept_dirs) | (earlier.dirs & set(names)) - written
                                        if CASE_DIR.match(n))
        else:  # case directories of an earlier, larger run: their files of ours go, anything else stays
            for stale in kept_dirs:
                d = outdir / stale
                if CASE_DIR.match(stale) and d.is_dir() and not d.is_symlink():
                    for rel in _files_under(d):
                        if earlier.owns(rel):
                            try:
                                (outdir / rel).unlink()
                            except OSError:
                                pass
                    for dirpath, _d, _f in sorted(os.walk(d), key=lambda w: -len(w[0])):
                        try:
                            os.rmdir(dirpath)
                        except OSError:
                            pass
        doc["files"] = listing(files, [], written | (set(kept_dirs) if complete else set()))
        try:
            write_manifest(doc)
        except OutputError:
            if complete:
                raise
            # already failing (interrupted, a full disk): that error is the one to report
    return doc
