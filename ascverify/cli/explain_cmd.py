"""`ascverify explain` (minimal conflicts of an invalid case) and `ascverify fix` (the nearest valid case)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from ..cases.case import Case
from ..cases.caseio import read_cases
from ..engines.interrupts import EXIT_UNDECIDED
from ..engines.outputs import atomic_write
from ..engines.report import location
from ..spec.errors import InputError, one_line
from .budget import TIME_BUDGET_OPTION, solver_command
from .common import FORMAT_OPTION, emit, emit_error, joined_lines, main, max_bytes_option, one_case, print_json


def _single_case(path: str, index: int, max_bytes: int) -> Case:
    """Case ``index`` of a file, which must be a single call (a program's calls depend on each other's state)."""
    for entry in read_cases(path, max_bytes):
        if entry.index == index and getattr(entry, "program", None) is not None:
            raise InputError("a program: explain and fix take one call (write the call as a case of its own; "
                             "`ascverify check` checks programs)", where=f"{path}:case {index}")
        if entry.index >= index:
            break
    return one_case(path, index, max_bytes)

INDEX_OPTION = click.option("--index", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
                            help="Which case of the file (0 = the first).")


@main.command()
@click.argument("case_file", metavar="CASE")
@INDEX_OPTION
@FORMAT_OPTION
@TIME_BUDGET_OPTION
@max_bytes_option
def explain(case_file: str, index: int, fmt: str, time_budget: float | None, max_bytes: int) -> None:
    """Explain why a case is invalid: for each broken rule, the minimal conflict.

    For every rule case N of CASE breaks, the solver finds a minimal set of the case's values
    and a minimal set of rules (the broken one and rules the case satisfies) that cannot hold
    together: at least one of these values must change to satisfy the rule while the rest of
    the case stays legal. A conflict without values means the rule cannot hold on the product
    at all. Rules on tensor contents are listed without a solver explanation.

    \b
      CASE:case N: error: [rule-id] message (source)
        values: dst.size=200, vRepeat=2
        with:   [other-rule] what it requires (source)

    \b
    Examples:
      ascverify explain bad.json
      ascverify explain cases.jsonl --index 3 --format json

    A broken rule whose conflict the solver cannot find in time (each query has a timeout;
    --time-budget caps the whole command) is listed as "undecided: the solver gave up
    (timeout/resource limit)": the rule is broken all the same, only its explanation is unknown.

    Exit status: 0 the case is valid, 1 it breaks a rule (explained), 2 it could not be read or
    a broken rule's conflict is undecided, 130 interrupted (Ctrl-C or SIGTERM).
    """
    from ..engines.explain import explain_case, field_display

    case = _single_case(case_file, index, max_bytes)
    loc = location(case_file, index)
    with solver_command("explain", loc, time_budget) as run:
        ex = explain_case(case)
    undecided = run.undecided_text()
    model = case.model
    if fmt == "json":
        print_json({"file": case_file, "index": index, "api": model.name, "product": case.product,
                    "dtype": case.dtype.name, "valid": ex.valid, "undecided": ex.undecided,
                    "conflicts": [c.to_json(model) for c in ex.conflicts],
                    "data_violations": [v.to_json() for v in ex.data_violations],
                    "warnings": [v.to_json() for v in ex.warnings]})
    else:
        lines: list[str] = []
        for c in ex.conflicts:
            lines.append(f"{loc}: error: [{c.rule.id}] {one_line(c.message)} ({c.rule.citation})")
            if c.undecided:
                lines.append(f"  {undecided}: no conflict found (the rule is broken all the same)")
                continue
            if c.values:
                lines.append("  values: " + ", ".join(field_display(model, k, v) for k, v in c.values.items())
                             + ("" if len(c.values) == 1 else "  (change at least one)"))
            else:
                lines.append(f"  values: none: the rule cannot hold on {case.product} with T={case.dtype.name}")
            for i, r in enumerate(c.others()):
                lines.append(f"  {'with: ' if i == 0 else '      '}  [{r.id}] {r.help or r.message} ({r.citation})")
            if not c.minimal:
                lines.append("  note: the solver gave up on a query: this conflict may not be minimal")
        for v in ex.data_violations:
            lines.append(f"{loc}: error: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation})")
            lines.append(f"  values: the contents of {', '.join(v.rule.requires_data)} (not a solver question)")
        for v in ex.warnings:
            lines.append(f"{loc}: warning: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation})")
        emit(joined_lines(lines))
    if ex.valid:
        emit_error(f"{loc}: valid: nothing to explain ({model.name} on {case.product})")
    elif ex.undecided:
        n = len(ex.conflicts) + len(ex.data_violations)
        emit_error(f"{loc}: {n} broken rule{'s' if n != 1 else ''}; {undecided}: no conflict found for "
                   f"{', '.join(ex.undecided)}")
        sys.exit(EXIT_UNDECIDED)
    else:
        n = len(ex.conflicts) + len(ex.data_violations)
        emit_error(f"{loc}: {n} broken rule{'s' if n != 1 else ''} explained")
    sys.exit(0 if ex.valid else 1)


@main.command()
@click.argument("case_file", metavar="CASE")
@INDEX_OPTION
@click.option("--keep", "keep", multiple=True, metavar="NAME,...",
              help="Parameters that must not change: arguments (hRepeat, mask), tensors (dst) or tensor fields "
                   "(dst.addr); comma-separated or repeated.")
@click.option("-o", "--output", "out", metavar="FILE", help="Write the fixed case (JSON) to FILE.")
@FORMAT_OPTION
@TIME_BUDGET_OPTION
@max_bytes_option
def fix(case_file: str, index: int, keep: tuple[str, ...], out: str | None, fmt: str, time_budget: float | None,
        max_bytes: int) -> None:
    """Find the valid case nearest to an invalid one and print the change.

    Nearest: the fewest changed fields first, then the smallest total change (Z3's optimizer).
    Each change prints as `name: old -> new` (a mask as a whole, tensor fields one by one). With
    --keep the named parameters keep their values; when no valid case keeps them, the command
    prints the minimal set of kept values and rules that conflict. Rules on tensor contents are
    outside the solver: a fixed case that still breaks one says so. Data files of the case are
    referenced from FILE (paths rewritten relative to it); data that no longer fits a tensor's
    new size is dropped.

    \b
    Examples:
      ascverify fix bad.json
      ascverify fix bad.json --keep vRepeat,dst.size -o fixed.json
      ascverify fix cases.jsonl --index 2 --format json

    When the solver gives up (each query has a timeout; --time-budget caps the whole command)
    the answer is "undecided: the solver gave up (timeout/resource limit)", never "valid".

    Exit status: 0 the case is valid as it is, 1 a change was needed (printed) or no valid case
    keeps the --keep values, 2 the case or an option could not be read, or the solver could not
    decide whether a valid case exists, 130 interrupted (Ctrl-C or SIGTERM).
    """
    from ..engines.explain import diff_lines, dropped_data, fix_case, keep_fields

    case = _single_case(case_file, index, max_bytes)
    loc = location(case_file, index)
    kept = keep_fields(case.model, [n for k in keep for n in k.split(",")])
    with solver_command("fix", loc, time_budget) as run:
        rep = fix_case(case, kept)
    undecided = run.undecided_text()
    model = case.model
    if rep.status == "undecided":
        if fmt == "json":
            print_json({"file": case_file, "index": index, "valid": False, "fixed": None, "undecided": True,
                        "detail": f"{undecided}: {rep.undecided}"})
        emit_error(f"{loc}: {undecided}: {rep.undecided}")
        sys.exit(EXIT_UNDECIDED)
    if rep.status in ("valid", "data"):
        if fmt == "json":
            print_json({"file": case_file, "index": index, "valid": not rep.still_broken, "changes": [],
                        "still_broken": [v.to_json() for v in rep.still_broken]})
        else:
            emit(joined_lines([f"{loc}: error: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation}): tensor contents; "
                               "fix changes no data" for v in rep.still_broken]))
        emit_error(f"{loc}: {'valid: nothing to fix' if not rep.still_broken else 'only rules on tensor contents are broken'}")
        sys.exit(0 if not rep.still_broken else 1)
    if rep.status == "conflict":
        if fmt == "json":
            print_json({"file": case_file, "index": index, "valid": False, "fixed": None,
                        "undecided": bool(rep.undecided),
                        "conflict": {"kept": [f.given for f in rep.conflict_fixes],
                                     "rules": [{"rule": r.id, "requires": r.help or r.message, "source": r.citation}
                                               for r in rep.conflict_rules],
                                     "undecided": f"{undecided}: {rep.undecided}" if rep.undecided else None}})
        elif rep.undecided:
            emit(joined_lines([f"{loc}: no valid case keeps these values; {undecided}: {rep.undecided}"]))
        else:
            lines = [f"{loc}: no valid case keeps these values; they conflict:"]
            lines += [f"  keep {f.given}" for f in rep.conflict_fixes]
            lines += [f"  [{r.id}] {r.help or r.message} ({r.citation})" for r in rep.conflict_rules]
            emit(joined_lines(lines))
        emit_error(f"{loc}: no fix{' with --keep ' + ','.join(keep) if keep else ''}")
        sys.exit(1)
    dropped = dropped_data(rep.fixed)
    if out:
        doc = _case_doc(rep.fixed, Path(out), dropped)
        atomic_write(Path(out), lambda f: f.write((json.dumps(doc, indent=2) + "\n").encode()))
    if fmt == "json":
        print_json({"file": case_file, "index": index, "valid": False,
                    "changes": [{"field": n, "old": _plain(model, n, case.env[n]), "new": _plain(model, n, rep.fixed.env[n])}
                                for n in rep.changed],
                    "changed_fields": len(rep.changed), "distance": rep.distance, "fixed": rep.fixed.to_json(),
                    "nearest": not rep.undecided, "undecided": False,
                    "dropped_data": dropped, "still_broken": [v.to_json() for v in rep.still_broken]})
    else:
        lines = [f"{loc}: {len(rep.changed)} field{'s' if len(rep.changed) != 1 else ''} changed "
                 f"(total change {rep.distance}):"]
        lines += [f"  {d}" for d in diff_lines(rep)]
        for name in dropped:
            lines.append(f"  note: the data of {name} no longer fits its size and is dropped")
        for v in rep.still_broken:
            lines.append(f"  note: still breaks [{v.rule.id}] {one_line(v.message)} (tensor contents; fix changes no data)")
        if rep.undecided:
            lines.append(f"  note: valid, but maybe not the nearest: {undecided}: {rep.undecided}")
        emit(joined_lines(lines))
    emit_error(f"{loc}: fixed{' and written to ' + out if out else ''}")
    sys.exit(1)


def _plain(model: Any, name: str, value: Any) -> Any:
    from ..engines.explain import field_display

    shown = field_display(model, name, value).split("=", 1)[1]
    return value if not isinstance(value, int) or isinstance(value, bool) or shown == str(value) else shown


def _case_doc(case: Case, out: Path, dropped: list[str]) -> dict[str, Any]:
    """The fixed case as a file, its data referenced relative to ``out``."""
    doc = case.to_json()
    for name, src in case.data_sources.items():
        if name in dropped or name not in doc["tensors"]:
            continue
        if isinstance(src, str):
            p = Path(src)
            if not p.is_absolute() and case.base_dir is not None:
                p = case.base_dir / p
            src = os.path.relpath(p.resolve(), out.resolve().parent)
        doc["tensors"][name]["data"] = src
    return doc
