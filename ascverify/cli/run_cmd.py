"""`ascverify run`: execute one case on the core and save every tensor."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..cases.registers import dumps
from ..checking.checker import check_case
from ..core.faults import CoreLimit, unrunnable_reason, unrunnable_rules
from ..core.memory import Fault
from ..core.run import given_data, refuse_conflicting_data, run_case
from ..core.unspecified import unspecified_elements
from ..engines.report import bare_error, location, result_lines
from ..spec.errors import InputError, one_line, shown_path
from .common import (FORCE_OPTION, UNSPECIFIED_SUFFIX, emit, emit_note, folder_option_value, joined_lines, main,
                     max_bytes_option, one_case_entry, plural, save_tensor, unspecified_lines, unspecified_summary)
from .options import verbosity_options
from .program_run import one_program, run_program_to
from .run_output import any_marked, begin_run_output, finish_run_output, open_run_folder


# -- run -----------------------------------------------------------------------------------------------------------

@main.command()
@click.argument("case_file", metavar="CASE")
@click.option("-o", "--output", "out", required=True, metavar="DIR", help="Folder for the outputs (created if needed).")
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="Which case of the file to run (0 = the first).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S",
              help="Seed for the inputs the case gives no data for.")
@FORCE_OPTION
@max_bytes_option
@verbosity_options(verbose_help="Also print the rules not checked.")
def run(case_file: str, out: str, index: int, seed: int, max_bytes: int, force: bool = False,
        verbose: bool = False) -> None:
    """Run one case on the simulated core.

    Executes case N of CASE (`-`: standard input) and writes every tensor after the call.

    Inputs come from the case's `data`; tensors without data are filled from --seed. Writes
    DIR/NAME.npy and DIR/NAME.bin (raw little-endian) per tensor, and DIR/run.json ("kind":
    "case": the case, the check verdict, the faults, the byte intervals written per buffer, the
    inputs given or generated, the outputs). Faults print one per line: `CASE:case N: fault: ...`.

    Elements the hardware leaves unspecified (a result the pages do not define on this product,
    scratch space, bytes never written) are not numbers: they hold all bits set in NAME.npy and
    NAME.bin (a NaN in float types, -1 or the largest value in integer types), DIR/NAME.unspecified.npy
    (bool, one flag per element) marks them beside each tensor that has any, run.json counts them per tensor
    (`tensors.NAME.unspecified`), and a line `CASE:case N: note: NAME: K of N elements
    unspecified` says so.

    DIR must be new, empty, or the output of an earlier `run` (its run.json lists the files it
    wrote: those this run does not write again are removed; nothing else is). A file of the case
    (the case file, its data) is never overwritten: choose another DIR. --force writes into a
    folder that holds other files (overwriting those of the same names, deleting none).

    A program (a case file with "calls") writes the same files for each of its tensors, and a
    run.json of "kind": "program" (the program, the API of each call, the verdict of the whole, the
    faults of each call, the special registers after the last, the tensors); two tensors
    whose files would share a name (z and z.unspecified: z.unspecified.npy) are refused (exit 2)
    before anything is written. A case file whose name is not UTF-8 is named in run.json with
    those bytes escaped (\\xNN).

    Reg API calls (atlas-350): registers come from the case's `registers`; those the call reads
    and the case does not give are filled from --seed. DIR/registers.json holds the register
    file after the call (the shape of a case's `registers`); run.json's `outputs` holds results
    that are neither memory nor registers (e.g. the address a post-update load leaves in srcAddr).

    \b
    Examples:
      ascverify run examples/bilinear_interpolation.json -o out/
      ascverify run examples/cases.jsonl --index 4 --seed 7 -o out/

    Exit status: 0 no fault, 1 the call faulted or the case breaks a rule (outputs are still
    written), 2 the case could not be read or DIR cannot be written.
    """
    from pathlib import Path

    folder_option_value(out)
    program = one_program(case_file, index, max_bytes)
    if program is not None:
        sys.exit(run_program_to(program, case_file, index, seed, Path(out), force=force))
    entry = one_case_entry(case_file, index, max_bytes)
    case = entry.case
    loc = location(case_file, index)
    verdict = check_case(case, file=case_file, index=index)
    if verdict.error is not None:
        raise bare_error(verdict.error, case_file, loc).at(loc)
    try:  # before the folder is made: tensors sharing bytes whose data disagree are refused
        refuse_conflicting_data(given_data(case, [d.name for d in case.model.tensors]))
    except InputError as exc:
        raise exc.at(loc) from None
    folder = open_run_folder(out, case_file, [case], force, [entry.raw])
    outdir = folder.root

    faults: list[str] = []
    not_run = ""
    result = None
    # Values beyond their C type or tensors beyond their buffer would make the core allocate and
    # index absurd ranges (a tensor of 10**12 elements): such a case is reported, not executed.
    blocking = unrunnable_rules(v.rule for v in verdict.violations)
    if blocking:
        not_run = unrunnable_reason(blocking)
    else:
        try:
            result = run_case(case, seed=seed, strict=False)
            faults = [str(f) for f in result.faults]
            if result.trace.suppressed:
                faults.append(f"... and {result.trace.suppressed} more faults of the same kinds")
        except Fault as exc:  # a fault found while laying out the inputs
            faults = [str(exc)]
        except CoreLimit as exc:  # more work than any legal case asks for
            not_run = str(exc)
        except Exception as exc:  # noqa: BLE001 - the core need not cope with every invalid case
            if verdict.valid:
                raise
            not_run = f"{type(exc).__name__}: {one_line(str(exc))[:300]}"

    # every file this run writes, checked before the first is written (confined, not an input of the case, not a
    # file of someone else's)
    tensors: list[tuple[str, Any, Any]] = []
    if result is not None:
        for name, arr in result.tensors.items():
            t = case.tensor(name)
            tensors.append((name, arr, unspecified_elements(result.memory, t.buffer, t.addr, t.size, t.dtype)))
    regs = result.memory.registers if result is not None else None
    use_regs = regs is not None and bool(case.registers or result.trace.register_records)
    planned = [f"{n}{sfx}" for n, _, m in tensors for sfx in ((".npy", ".bin") + ((UNSPECIFIED_SUFFIX,) if any_marked(m) else ()))]
    planned += ["registers.json"] if use_regs else []
    begin_run_output(folder, planned)

    written: dict[str, dict[str, Any]] = {}
    for name, arr, marks in tensors:
        written[name] = save_tensor(outdir, name, arr, case.tensor(name).dtype.name, marks, folder=folder)
    # the Reg API register file after the call (the shape of a case's "registers"), when the case or the call used it
    registers: dict[str, Any] | None = None
    if use_regs:
        reg_text = dumps(regs.to_json())
        folder.write_bytes("registers.json", lambda f: f.write(reg_text.encode("utf-8")))
        registers = {"file": "registers.json", "loaded": result.register_inputs,
                     "read": result.trace.registers_touched("read"), "written": result.trace.registers_touched("write")}
    doc = {
        "kind": "case", "file": shown_path(case_file), "index": index, "seed": seed,
        "case": case.to_json(),
        "check": verdict.to_json(),
        "executed": result is not None,
        "not_executed_reason": not_run or None,
        "faults": faults,
        "written": {b: [list(iv) for iv in ivs] for b, ivs in (result.written_intervals().items() if result else ())},
        "inputs": {n: ("given" if n in case.data_sources else "generated") for n in (result.inputs if result else {})},
        "tensors": written,
        "registers": registers,
        "outputs": result.trace.outputs if result is not None else {},
    }
    finish_run_output(folder, doc)

    lines = result_lines(verdict, verbose=verbose)
    lines += [f"{loc}: fault: {one_line(f)}" for f in faults]
    if not_run:
        lines.append(f"{loc}: not executed: {not_run}")
    lines += unspecified_lines(loc, written)
    emit(joined_lines([one_line(line) for line in lines]))
    state = "faulted" if faults else ("not executed" if not_run else "ran without fault")
    emit_note(one_line(f"{loc}: {case.model.name} on {case.product} {state}; "
              f"{'valid' if verdict.valid else 'breaks ' + plural(len(verdict.violations), 'rule')}; "
              f"wrote {plural(len(written), 'tensor')}{', registers.json' if registers else ''} and run.json to {outdir}"
               f"{unspecified_summary(written)}"))
    sys.exit(1 if (faults or not_run or not verdict.valid) else 0)
