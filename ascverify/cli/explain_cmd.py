"""`ascverify explain` (minimal conflicts of an invalid case) and `ascverify fix` (the nearest valid case)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..cases.case import Case
from ..cases.pointers import json_pointer
from ..checking.checker import check_case
from ..engines.interrupts import EXIT_UNDECIDED
from ..engines.outputs import case_inputs, check_file_path, make_dir, write_named_file
from ..engines.report import location
from ..spec.errors import InputError, one_line
from .budget import TIME_BUDGET_OPTION, solver_command
from .common import (FORMAT_OPTION, emit, emit_error, emit_note, entries_of, is_stdout, joined_lines, main,
                     max_bytes_option, one_case_entry, plural, print_json, source_bytes)
from .fix_output import documents, fixed_file_text
from .options import verbosity_options


def _single_case(path: str, index: int, max_bytes: int) -> tuple[Case, Any]:
    """Case ``index`` of a file (``-``: standard input, read once) and its JSON document; the case must be a single
    call (a program's calls depend on each other's state)."""
    for entry in entries_of(path, max_bytes):
        if entry.index == index and getattr(entry, "program", None) is not None:
            raise InputError("a program: explain and fix take one call (write the call as a case of its own; "
                             "`ascverify check` checks programs)", where=f"{path}:case {index}")
        if entry.index >= index:
            break
    entry = one_case_entry(path, index, max_bytes)
    return entry.case, entry.raw


INDEX_OPTION = click.option("--index", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
                            help="Which case of the file (0 = the first).")


@main.command()
@click.argument("case_file", metavar="CASE")
@INDEX_OPTION
@FORMAT_OPTION
@TIME_BUDGET_OPTION
@max_bytes_option
@verbosity_options()
def explain(case_file: str, index: int, fmt: str, time_budget: float | None, max_bytes: int) -> None:
    """Explain why a case is invalid: for each broken rule, the minimal conflict.

    For every rule case N of CASE breaks, the solver finds a minimal set of the case's values
    and a minimal set of rules (the broken one and rules the case satisfies) that cannot hold
    together: at least one of these values must change to satisfy the rule while the rest of
    the case stays legal. A conflict without values means the rule cannot hold on the product
    at all. Rules on tensor contents are listed without a solver explanation. Values are named
    as the case file names them (pyasc names stay pyasc names; a mask as a whole). CASE `-`
    reads standard input.

    \b
      CASE:case N: error: [rule-id] message (source)
        values: dst.size=200, vRepeat=2  (change at least one)
        with:   [other-rule] what it requires (source)

    \b
    Examples:
      ascverify explain examples/bad/bad.json
      ascverify explain examples/cases.jsonl --index 5 --format json
      cat examples/bad/bad.json | ascverify explain -

    A broken rule whose conflict the solver cannot find in time (each query has a timeout;
    --time-budget caps the whole command) is listed as "undecided: the solver gave up
    (timeout/resource limit)": the rule is broken all the same, only its explanation is unknown.

    Exit status: 0 the case is valid, 1 it breaks a rule (explained), 2 it could not be read or
    a broken rule's conflict is undecided, 130 interrupted (Ctrl-C or SIGTERM).
    """
    from ..engines.explain import explain_case, spelled_params, user_values, value_text

    case, raw = _single_case(case_file, index, max_bytes)
    loc = location(case_file, index)
    spelled = spelled_params(case.model, raw)
    with solver_command("explain", loc, time_budget) as run:
        ex = explain_case(case)
    undecided = run.undecided_text()
    model = case.model
    raw_args = list((raw or {}).get("args") or {}) if isinstance(raw, dict) else []
    if fmt == "json":
        conflicts = []
        for c in ex.conflicts:
            doc = c.to_json(model)
            if not c.undecided:
                doc["fields"] = doc["values"]
                doc["values"] = user_values(case, c.values, spelled)
                doc["pointers"] = sorted({json_pointer(model, k, raw_args) for k in c.values})
            conflicts.append(doc)
        print_json({"file": case_file, "index": index, "api": model.name, "product": case.product,
                    "dtype": case.dtype.name, "valid": ex.valid, "undecided": ex.undecided, "conflicts": conflicts,
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
                shown = user_values(case, c.values, spelled)
                lines.append("  values: " + ", ".join(f"{k}={value_text(v)}" for k, v in shown.items())
                             + ("" if len(shown) == 1 else "  (change at least one)"))
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
    n = len(ex.conflicts) + len(ex.data_violations)
    if ex.valid:
        emit_note(f"{loc}: valid: nothing to explain ({model.name} on {case.product})"
                  + _other_cases(case_file, index, max_bytes))
    elif ex.undecided:
        emit_error(f"{loc}: {plural(n, 'broken rule')}; {undecided}: no conflict found for {', '.join(ex.undecided)}")
        sys.exit(EXIT_UNDECIDED)
    else:
        emit_note(f"{loc}: {plural(n, 'broken rule')} explained")
    sys.exit(0 if ex.valid else 1)


@main.command()
@click.argument("case_file", metavar="CASE")
@INDEX_OPTION
@click.option("--keep", "keep", multiple=True, metavar="NAME,...",
              help="Parameters that must not change: arguments (hRepeat, mask), tensors (dst) or tensor fields "
                   "(dst.addr); comma-separated or repeated.")
@click.option("-o", "--output", "out", metavar="FILE",
              help="Write the case file with the case fixed to FILE (- for standard output); only the changed values "
                   "differ from CASE.")
@FORMAT_OPTION
@TIME_BUDGET_OPTION
@max_bytes_option
@verbosity_options()
def fix(case_file: str, index: int, keep: tuple[str, ...], out: str | None, fmt: str, time_budget: float | None,
        max_bytes: int) -> None:
    """Find the valid case nearest to an invalid one and print the change.

    Nearest: the fewest changed fields first, then the smallest total change (Z3's optimizer).
    Each change prints as `name: old -> new` (a mask or a struct as a whole, tensor fields one by
    one), named as the case file names it. With --keep the named parameters keep their values;
    when no valid case keeps them, the command prints the minimal set of kept values and rules
    that conflict. Rules on tensor contents are outside the solver: a fixed case that still
    breaks one says so.

    With -o FILE the whole case file is written to FILE with case N fixed: only the values that
    changed are rewritten, in the file's own spelling (pyasc names stay), every other key
    (name, comment, expect, ...), the key order, the other cases of a list or JSON Lines file
    and the formatting stay as they were. Relative data paths (of every case) are rewritten for
    FILE's folder; data that no longer fits a tensor's new size is dropped (a note says so). FILE
    is never the case file nor a data file it names (exit 2: write elsewhere). `-o -` writes the
    file to standard output (the change then goes to standard error); CASE `-` reads standard
    input. Without -o nothing is written.

    \b
    Examples:
      ascverify fix examples/bad/bad.json
      ascverify fix examples/bad/bad.json --keep vRepeat,dst.size -o fixed.json
      ascverify fix examples/cases.jsonl --index 5 --format json
      cat examples/bad/bad.json | ascverify fix - -o - > fixed.json

    When the solver gives up (each query has a timeout; --time-budget caps the whole command)
    the answer is "undecided: the solver gave up (timeout/resource limit)", never "valid".

    Exit status: 0 the case is valid, or the fixed case was written with -o (and is valid); 1 the
    case is invalid and was not written (no -o: the change is printed), no valid case keeps the
    --keep values, or the fix still breaks a rule on tensor contents; 2 the case or an option
    could not be read, or the solver could not decide whether a valid case exists; 130
    interrupted (Ctrl-C or SIGTERM).
    """
    from ..engines.explain import diff_lines, dropped_data, fix_case, keep_fields, spelled_params

    if is_stdout(out) and fmt == "json":
        raise InputError("--format json and -o - both write standard output; give one", field="-o")
    case, raw = _single_case(case_file, index, max_bytes)
    if out and not is_stdout(out):  # before the solver's work: never over the case file or any data it names
        check_file_path(out, "-o", case_inputs(case_file, [case], documents(_case_text(case_file, max_bytes))))
    loc = location(case_file, index)
    spelled = spelled_params(case.model, raw)
    kept = keep_fields(case.model, [n for k in keep for n in k.split(",")])
    with solver_command("fix", loc, time_budget) as run:
        rep = fix_case(case, kept)
    undecided = run.undecided_text()
    model = case.model
    say = emit_error if is_stdout(out) else emit  # with -o - standard output holds the file
    if rep.status == "undecided":
        if fmt == "json":
            print_json({"file": case_file, "index": index, "valid": False, "fixed": None, "undecided": True,
                        "detail": f"{undecided}: {rep.undecided}"})
        emit_error(f"{loc}: {undecided}: {rep.undecided}")
        sys.exit(EXIT_UNDECIDED)
    if rep.status in ("valid", "data"):
        if out and not rep.still_broken:
            _write_fixed(case_file, out, max_bytes, index, case, case, [], [])
        if fmt == "json":
            print_json({"file": case_file, "index": index, "valid": not rep.still_broken, "changes": [],
                        "still_broken": [v.to_json() for v in rep.still_broken], "written": out if out and not
                        rep.still_broken else None})
        else:
            say(joined_lines([f"{loc}: error: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation}): tensor "
                              "contents; fix changes no data" for v in rep.still_broken]))
        if rep.still_broken:
            emit_note(f"{loc}: only rules on tensor contents are broken; nothing written")
        else:
            emit_note(f"{loc}: valid: nothing to fix" + (f"; written unchanged to {_shown(out)}" if out else "")
                      + ("" if out else _other_cases(case_file, index, max_bytes))
                      + _warnings_hint(case))
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
            say(joined_lines([f"{loc}: no valid case keeps these values; {undecided}: {rep.undecided}"]))
        else:
            lines = [f"{loc}: no valid case keeps these values; they conflict:"]
            lines += [f"  keep {f.given}" for f in rep.conflict_fixes]
            lines += [f"  [{r.id}] {r.help or r.message} ({r.citation})" for r in rep.conflict_rules]
            say(joined_lines(lines))
        emit_note(f"{loc}: no fix{' with --keep ' + ','.join(keep) if keep else ''}; nothing written")
        sys.exit(1)
    dropped = dropped_data(rep.fixed)
    notes: list[str] = []
    if out:
        notes = _write_fixed(case_file, out, max_bytes, index, case, rep.fixed, rep.changed, dropped)
    if fmt == "json":
        print_json({"file": case_file, "index": index, "valid": False,
                    "changes": [{"field": n, "old": _plain(model, n, case.env[n]), "new": _plain(model, n, rep.fixed.env[n])}
                                for n in rep.changed],
                    "changed_fields": len(rep.changed), "distance": rep.distance, "fixed": rep.fixed.to_json(),
                    "nearest": not rep.undecided, "undecided": False, "written": out,
                    "dropped_data": dropped, "still_broken": [v.to_json() for v in rep.still_broken]})
    else:
        lines = [f"{loc}: {plural(len(rep.changed), 'field')} changed (total change {rep.distance}):"]
        lines += [f"  {d}" for d in diff_lines(rep, spelled)]
        for name in dropped:
            lines.append(f"  note: the data of {spelled.get(name, name)} no longer fits its size and is dropped")
        for v in rep.still_broken:
            lines.append(f"  note: still breaks [{v.rule.id}] {one_line(v.message)} (tensor contents; fix changes no data)")
        if rep.undecided:
            lines.append(f"  note: valid, but maybe not the nearest: {undecided}: {rep.undecided}")
        lines += [f"  note: {n}" for n in notes if "no longer fits" not in n]
        say(joined_lines(lines))
    if out:
        emit_note(f"{loc}: fixed case written to {_shown(out)}")
        sys.exit(1 if rep.still_broken else 0)
    emit_note(f"{loc}: invalid; the nearest valid case is shown, not written (-o FILE writes it)")
    sys.exit(1)


def _shown(out: str) -> str:
    return "standard output" if is_stdout(out) else out


def _write_fixed(case_file: str, out: str, max_bytes: int, index: int, case: Case, fixed: Case, changed: list[str],
                 dropped: list[str]) -> list[str]:
    """Write the case file with case ``index`` fixed to ``out`` (``-``: standard output); the notes on what could not
    stay as the user wrote it."""
    text = _case_text(case_file, max_bytes)
    target = None if is_stdout(out) else Path(out).resolve().parent
    new, notes = fixed_file_text(text, index, case, fixed, changed, dropped, target)
    if is_stdout(out):
        emit(new)
    else:
        make_dir(Path(out).parent, field="-o")  # (created when needed, as for every file option: docs/cli.md)
        write_named_file(Path(out), lambda f: f.write(new.encode("utf-8")))
    return notes


def _warnings_hint(case: Case) -> str:
    """A hint that a valid case still draws warnings (fix changes nothing for them; explain lists them)."""
    n = len(check_case(case).warnings)
    return f"; it draws {plural(n, 'warning')}: `ascverify explain` or `check` shows them" if n else ""


def _other_cases(case_file: str, index: int, max_bytes: int) -> str:
    """A hint when the file holds more cases than the one looked at (``--index`` picks another; check reads all)."""
    n = len(documents(_case_text(case_file, max_bytes)))
    if n <= 1:
        return ""
    return f"; the file holds {n} cases, this is case {index} (--index N picks another; `ascverify check` checks all)"


def _case_text(case_file: str, max_bytes: int) -> str:
    """The case file's text (``-``: standard input, read once)."""
    try:
        return source_bytes(case_file, max_bytes).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", where=case_file) from None


def _plain(model: Any, name: str, value: Any) -> Any:
    from ..engines.explain import field_display

    shown = field_display(model, name, value).split("=", 1)[1]
    return value if not isinstance(value, int) or isinstance(value, bool) or shown == str(value) else shown
