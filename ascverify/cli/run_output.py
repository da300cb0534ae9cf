"""The output folder of ``ascverify run`` (a case or a program): run.json is its manifest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..engines.outputs import OutputFolder, case_inputs

#: The format tag of run.json: it is also the manifest of the output folder (the files it lists).
RUN_FORMAT = "ascverify-run/1"
#: Files `run` may write (and so, when an earlier run listed them, remove): tensors and the register file.
_RUN_FILES = re.compile(r"[^/]+\.(npy|bin)|registers\.json")


def any_marked(marks: Any) -> bool:
    """Some element is marked (an unspecified-elements mask holds a True)."""
    return bool(np.count_nonzero(marks))


def legacy_run_files(doc: dict) -> set[str] | None:
    """The files a run.json of an earlier version (no format tag) describes."""
    if not isinstance(doc.get("tensors"), dict) or "check" not in doc:
        return None
    files = {"run.json"}
    for entry in doc["tensors"].values():
        if isinstance(entry, dict):
            files |= {entry[k] for k in ("npy", "bin", "unspecified_npy") if isinstance(entry.get(k), str)}
    regs = doc.get("registers")
    if isinstance(regs, dict) and isinstance(regs.get("file"), str):
        files.add(regs["file"])
    return files


def open_run_folder(out: Any, case_file: str, cases: Any, force: bool, raws: Any = ()) -> Any:
    """The output folder of `run` (see `ascverify.engines.outputs.OutputFolder`): the case file and its data are inputs."""
    return OutputFolder(Path(out), manifest="run.json", fmt=RUN_FORMAT, force=force,
                        inputs=case_inputs(case_file, cases, raws), legacy=legacy_run_files)


def begin_run_output(folder: Any, planned: list[str]) -> None:
    """Check every planned file, then list them (with the earlier output's) in a preliminary run.json, so that a
    run killed half way leaves a folder the next run recognises."""
    folder.check_planned(planned + ["run.json"])
    files = sorted(set(planned) | folder.earlier | {"run.json"})
    text = json.dumps({"format": RUN_FORMAT, "complete": False, "files": files}, indent=2) + "\n"
    folder.write_bytes("run.json", lambda f: f.write(text.encode("utf-8")))


def finish_run_output(folder: Any, doc: dict) -> None:
    """Remove what the earlier output listed and this run did not write; write run.json listing what is there."""
    folder.record("run.json")
    folder.remove_stale(sorted(r for r in folder.earlier if _RUN_FILES.fullmatch(r)))
    doc = {"format": RUN_FORMAT, "complete": True, **doc,
           "files": sorted(set(folder.written) | set(folder.kept_from_earlier()))}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    # (a text that is not UTF-8, e.g. a file name's bytes kept as lone surrogates, is written escaped: run.json whole)
    folder.write_bytes("run.json", lambda f: f.write(text.encode("utf-8", "backslashreplace")))
