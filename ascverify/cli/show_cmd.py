"""`ascverify show`: a case's memory map on its product (text by default; SVG or PNG for documents and reviews)."""

from __future__ import annotations

import json
import sys
from typing import Any, Iterator

import click

from ..cases.caseio import read_cases
from ..engines import interrupts
from ..engines.outputs import Inputs, case_inputs, check_distinct_outputs, is_stdout, shown_output
from ..engines.report import Counts, bare_error, error_line, location, result_lines
from ..spec.errors import InputError, one_line
from .common import (DataCache, checked_stream, emit, emit_error, emit_note, joined_lines, main, max_bytes_option,
                     stdout_console, write_text)
from .options import verbosity_options

#: The maps one picture (--svg, --png) holds at most: its height grows with each, and so does its memory.
MAX_PICTURE_MAPS = 32


@main.command()
@click.argument("case_file", metavar="CASE")
@click.option("--index", type=click.IntRange(min=0), default=None, metavar="N",
              help="Which case of the file to draw (default: the first; see --all).")
@click.option("--all", "every", is_flag=True, help="Draw every case of the file.")
@click.option("--svg", "svg", metavar="FILE", help="Also draw the map as an SVG picture into FILE (`-`: standard "
                                                   "output, instead of the text).")
@click.option("--png", "png", metavar="FILE", help="Also draw the map as a PNG picture into FILE (`-`: standard "
                                                   "output, instead of the text).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True,
              help="Standard output: the map as text, or its content as JSON (marks, rows, intervals).")
@click.option("--rows", "max_rows", type=click.IntRange(min=1, max=10_000), default=12, show_default=True,
              metavar="N", help="Iteration rows drawn per region in the text (faulting ones first).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S",
              help="Seed for the inputs the case gives no data for (the run that records the accesses).")
@click.option("--no-run", "no_run", is_flag=True,
              help="Do not run the case on the core: the model's footprint predicts the writes.")
@max_bytes_option
@verbosity_options()
def show(case_file: str, index: int | None, every: bool, svg: str | None, png: str | None, fmt: str, max_rows: int,
         seed: int, no_run: bool, max_bytes: int) -> None:
    """Draw the memory map of a case on its product.

    Each on-chip buffer the case uses (UB, L1, L0A, L0B, L0C) is a bar to scale with every tensor
    placed on it by name; then each group of tensors whose bytes overlap (most often one tensor)
    at its own scale, one row per iteration of the core with what that iteration reads (r) and
    writes (w); bytes two tensors share (X), bytes past the buffer's end (>), bytes a call needs
    past a tensor's end (+), a misaligned address (^) and the core's faults (!) are marked, and each
    problem is named with the rule it breaks (a fault no broken rule names says so: a gap in the
    rules or in the core).

    The accesses are those the core records when it runs the case (inputs without data drawn from
    --seed); a case the core cannot run (values beyond their C type, tensors far outside every
    buffer) shows the writes the model's footprint predicts. A program (a file with "calls") is
    drawn call by call. The text fits 80 columns and reads without colour (colour on a terminal
    unless NO_COLOR is set). CASE is a case file or `-` for standard input.

    \b
    Examples:
      ascverify show examples/bilinear_interpolation.json
      ascverify show examples/bad/bad.json --svg bad.svg --png bad.png
      ascverify show examples/cases.jsonl --all --format json

    Exit status: 0 every case drawn is valid and ran without fault, 1 some case breaks a rule or
    the core faulted, 2 a case could not be read (with --all the others are drawn first) or a
    picture could not be written.
    """
    from ..engines.pictures.memory_map import MAX_DRAWN_CALLS
    from ..engines.pictures.output import check_path, write_file

    if every and index is not None:
        raise InputError("give --index or --all, not both", field="--index")
    maps: list[Any] = []
    unreadable: list[InputError] = []  # --all: the cases that cannot be read, said after the others are drawn
    # with --index and a picture to write, the data files of the file's other cases too: never overwritten
    others = Inputs() if not every and (svg or png) else None
    entries = list(_entries(case_file, max_bytes, None if every else (index or 0), unreadable if every else None,
                            others))
    if every and not entries and unreadable:
        raise unreadable[0]
    inputs = case_inputs(case_file, [c for e in entries for c in _cases(e)], [e.raw for e in entries])
    if others is not None:
        inputs.update(others)
    for path, opt in ((svg, "--svg"), (png, "--png")):
        if path:
            check_path(path, opt, inputs)
    check_distinct_outputs((("--svg", svg), ("--png", png)))
    for entry in entries:
        if len(maps) >= MAX_DRAWN_CALLS:  # each map holds its run: a file of thousands of cases held gigabytes
            maps[-1].run_note = "; ".join(filter(None, (maps[-1].run_note, f"the file's other cases are not drawn "
                                                        f"(show draws at most {MAX_DRAWN_CALLS} maps; check reads them all)")))
            break
        maps.extend(maps_of(entry, case_file, seed=seed, execute=not no_run))
    del maps[MAX_DRAWN_CALLS:]
    if is_stdout(svg) or is_stdout(png):
        pass  # the picture is standard output's alone
    elif fmt == "json":
        emit(json.dumps({"maps": [m.to_json() for m in maps]}, indent=2) + "\n")
    else:
        print_maps(maps, max_rows=max_rows)
    if svg or png:
        from ..engines.pictures.figure import render_bytes

        drawn = maps[:MAX_PICTURE_MAPS]  # a picture's height grows with its maps: 256 of them took 1.6 GB as a PNG
        if len(maps) > len(drawn):
            emit_note(f"show: the picture holds the first {len(drawn)} of the {len(maps)} maps (at most "
                      f"{MAX_PICTURE_MAPS}; the text and --format json have them all)")
        for path, kind, opt in ((svg, "svg", "--svg"), (png, "png", "--png")):
            if path:
                write_file(path, render_bytes(drawn, kind), opt, inputs)
                emit_note(f"show: wrote the {kind.upper()} picture to standard output" if is_stdout(path)
                          else one_line(f"show: wrote {path}"))
    for exc in unreadable:
        emit_error(f"ascverify: {exc.line()}")
    sys.exit(2 if unreadable else 0 if all(m.valid and not m.faults for m in maps) else 1)


def _entries(path: str, max_bytes: int, index: int | None, unreadable: list[InputError] | None = None,
             others: Inputs | None = None) -> Iterator[Any]:
    """The entries of the file to draw (``index`` None: every one), their data loaded; InputError when one
    cannot be read (with ``unreadable``, every one: each error is kept there and the others are drawn, as check
    reports the others). ``others``: the file is read to its end, the files the other cases read added there."""
    count, found = 0, False
    for entry in read_cases(path, max_bytes):
        count += 1
        if index is not None and entry.index != index:
            if others is not None:
                others.update(case_inputs(path, _cases(entry), [entry.raw]))
            continue
        origin = location(path, entry.index)
        try:
            if entry.error is not None:
                raise bare_error(entry.error, path, origin).at(origin)
            try:
                for case in _cases(entry):
                    if case.data_sources:
                        DataCache().load(case)
            except InputError as exc:
                raise bare_error(exc, path, origin).at(origin) from None
        except InputError as exc:
            if unreadable is None:
                raise
            unreadable.append(exc)
            continue
        found = True
        yield entry
        if index is not None and others is None:
            return
    if index is not None and not found:
        raise InputError(f"no case {index}: the file holds {count} case{'s' if count != 1 else ''}", where=path,
                         field="--index")


def _cases(entry: Any) -> list[Any]:
    if getattr(entry, "program", None) is not None:
        return [c.case for c in entry.program.calls]
    return [entry.case] if entry.case is not None else []


def maps_of(entry: Any, path: str, *, seed: int = 0, execute: bool = True, result: Any = None) -> list[Any]:
    """The memory maps of one entry of a file: one for a case, one per call for a program."""
    from ..engines.pictures.memory_map import build_map, program_maps

    origin = location(path, entry.index)
    if getattr(entry, "program", None) is not None:
        return program_maps(entry.program, result=result, seed=seed, origin=origin, execute=execute)
    return [build_map(entry.case, result=result, seed=seed, origin=origin, execute=execute)]


def print_maps(maps: list[Any], *, max_rows: int = 12) -> None:
    """The maps as text on standard output (colour on a terminal unless NO_COLOR; plain text otherwise)."""
    from ..engines.pictures.text import render

    console = stdout_console(highlight=False, soft_wrap=True)
    for k, m in enumerate(maps):
        if k:
            console.print("")
        for line in render(m, max_rows=max_rows):
            console.print(line)


# -- HTML pages of other commands (`fuzz --html`, `gen --html`) ------------------------------------------------------

def html_option(what: str) -> Any:
    """``--html FILE``: the command's HTML page (one self-contained file)."""
    return click.option("--html", "html", metavar="FILE", default=None,
                        help=f"Write {what} as one self-contained HTML page (charts and memory maps inline; "
                             "opens offline; `-`: standard output).")


def fuzz_html_start(path: str | None, display: Any) -> Any:
    """With ``--html``: the path checked, and the campaign's display wrapped to record its timeline (else None)."""
    if not path:
        return None
    from ..engines.pictures.output import check_path
    from ..engines.pictures.timeline import Timeline

    try:
        check_path(path, "--html", probe=True)  # before the campaign: a page that cannot be written must not cost it
    except BaseException:
        display.close()
        raise
    return Timeline(display)


def fuzz_html_finish(path: str | None, result: Any, timeline: Any, status: int) -> int:
    """Write the campaign's page; the exit status (2 when the page cannot be written and nothing worse happened)."""
    if not path:
        return status
    from ..engines.outputs import OutputError
    from ..engines.pictures.html_report import fuzz_page
    from ..engines.pictures.output import write_file

    try:
        with interrupts.deferred():  # the campaign is over: a Ctrl-C now waits for its page (then exit 130)
            write_file(path, fuzz_page(result.report, timeline).encode("utf-8", "backslashreplace"), "--html")
    except OutputError as exc:
        emit_error(f"fuzz: error: cannot write the HTML report: {exc.line()}")
        return status if status in (2, 130) else 2
    emit_note(f"fuzz: HTML report: {shown_output(path)}")
    if status != 130:  # (a stop the campaign did not see: it came while the page was written)
        interrupts.checkpoint()
    return status


def gen_html(path: str | None, manifest: Any, cases: list[Any]) -> None:
    """Write the generation's page (`gen_html_check` made sure it lies outside the output folder)."""
    if not path:
        return
    from ..engines.pictures.html_report import gen_page
    from ..engines.pictures.output import write_file

    with interrupts.deferred():  # the cases are written: a Ctrl-C now waits for their page (then exit 130)
        write_file(path, gen_page(manifest, cases).encode("utf-8", "backslashreplace"), "--html")
    emit_note(f"gen: HTML report: {shown_output(path)}")
    if not manifest.get("interrupted"):  # (a stop the generation did not see: it came while the page was written)
        interrupts.checkpoint()


def gen_html_check(path: str | None, outdir: Any) -> None:
    """Refuse a ``--html`` path inside the output folder (gen's record of that folder would not list it)."""
    if not path:
        return
    from pathlib import Path

    from ..engines.pictures.output import check_path

    if not is_stdout(path):
        p, d = Path(path).resolve(), Path(outdir).resolve()
        if d == p:
            raise InputError("is the output folder -o; write the page beside it", where=path, field="--html")
        if d == p.parent or d in p.parents:
            raise InputError("lies inside the output folder -o; write the page beside it", where=path, field="--html")
    check_path(path, "--html", probe=True)  # before the cases are generated


# -- `check --show` ---------------------------------------------------------------------------------------------------

def check_and_show(files: tuple[str, ...], fmt: str, verbose: bool, max_bytes: int, strict: bool,
                   product: str | None) -> int:
    """`check --show`: the findings of each case as `check` prints them, and the memory map of each invalid case
    under them; the exit status of `check`."""
    if fmt != "text" or product:
        raise InputError("draws maps with --format text and without --product", field="--show")
    counts = Counts()
    cache = DataCache()
    for path in files:
        for r in checked_stream(path, max_bytes, cache):
            if strict:
                r.promote_warnings()
            counts.add(r)
            if r.error is not None:
                write_text(sys.stderr, error_line(r.file, r.index, r.error) + "\n")
                continue
            emit(joined_lines(result_lines(r, verbose=verbose)))
            if not r.valid:
                from ..engines.pictures.memory_map import build_map, program_maps

                origin = location(path, r.index)
                maps = (program_maps(r.program, result=r, origin=origin) if r.program is not None
                        else [build_map(r.case, result=r, origin=origin)])
                print_maps(maps)
                emit("\n")
    emit_error(counts.summary())
    return counts.exit_code
