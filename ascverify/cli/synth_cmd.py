"""`ascverify synth`: distinct valid cases from the solver."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

import click

from ..engines.interrupts import EXIT_UNDECIDED, UNDECIDED, solver_region
from ..engines.outputs import check_file_path, make_dir, refuse_unwritable_kind
from ..spec.errors import InputError, one_line
from .budget import TIME_BUDGET_OPTION, solver_command
from .common import (emit, emit_error, emit_note, is_stdout, joined_lines, main, model_for, plural, product_for,
                     supported_type, write_all)
from .options import api_argument, product_option, verbosity_options


@main.command()
@api_argument()
@product_option("Product to synthesize for.", required=True, dest="product_name")
@click.option("-n", "count", type=click.IntRange(min=1, max=1_000_000), default=10, show_default=True, metavar="N",
              help="How many distinct valid cases.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S",
              help="Seed (same seed, same cases).")
@click.option("--dtype", metavar="T", help="Element type T (default: the first type the product supports).")
@click.option("--fix", "fixes", multiple=True, metavar="NAME=VALUE",
              help="Hold an argument (hRepeat=2, mask=[1,0]) or tensor field (dst.addr=0, dst.position=VECOUT).")
@click.option("-o", "--output", "out", metavar="FILE",
              help="Write the cases to FILE (JSON Lines; - or no -o: standard output).")
@TIME_BUDGET_OPTION
@verbosity_options()
def synth(api: str, product_name: str, count: int, seed: int, dtype: str | None, fixes: tuple[str, ...],
          out: str | None, time_budget: float | None) -> None:
    """Write N distinct valid cases of API (JSON Lines), found by the solver.

    Each case draws random targets for the fields and keeps as many as the rules allow, so the
    cases spread over the legal space. The cases draw no warning either, unless the --fix values
    make every case draw one (then a note says which, and such cases are written). Each case is written (one line, flushed) as soon as it is
    found, to standard output or to FILE (created with the first case); Ctrl-C or SIGTERM stops
    the search and keeps the cases written. When the --fix values make every case illegal, the
    command exits 1 and names a minimal set of conflicting rules with their sources (on standard
    error: standard output holds only cases). A product
    or element type the API does not support is bad input (exit 2), as in `gen`.

    A query the solver gives up on (each has a timeout; --time-budget caps the whole command)
    is undecided: when fewer than N cases were found because of that, the command says so
    ("undecided: the solver gave up (timeout/resource limit)") and exits 2.

    \b
    Examples:
      ascverify synth BilinearInterpolation --product atlas-a2 -n 20 --seed 1
      ascverify synth BilinearInterpolation --product atlas-a2 --fix vROffset=128 --fix dstBlkStride=8
      ascverify synth Load3DBitMode --product atlas-350 -n 5 --time-budget 60 -o cases.jsonl

    Exit status: 0 N cases written (or fewer where the legal space has fewer), 1 the --fix values
    conflict, 2 bad input, or fewer than N cases because queries were undecided or the time
    budget ran out, 130 interrupted (the cases found so far are written).
    """
    # Z3 is imported by the commands that solve only (check's startup)
    from ..engines.solver import SampleStats, Unsatisfiable, iter_sample_quiet, parse_fixes

    model = model_for(api)
    product = product_for(product_name)
    t = supported_type(model, product, dtype)  # an unsupported product or type is bad input, as in gen
    fixed = parse_fixes(model, fixes)
    if out is not None and not is_stdout(out):
        check_file_path(out, "-o")  # before the solver's work, not after it
    sink = _Sink(None if is_stdout(out) else out)
    stats = SampleStats()
    try:
        with solver_command("synth", "", time_budget) as run:
            ctx = model.context(product.id, t)
            try:
                with solver_region():
                    for case in iter_sample_quiet(model, ctx, count, seed=seed, fixes=fixed, stats=stats,
                                                  warned=lambda rules: _note_warned(rules, bool(fixes))):
                        sink.write(json.dumps(case.to_json(), separators=(",", ":")) + "\n")
                        run.kept = f"{plural(sink.count, 'case')} written" + (f" to {out}" if sink.out else "")
            except Unsatisfiable as exc:
                lines = [f"synth: no valid {model.name} case on {product.id} with T={t}; these conflict:"]
                lines += [f"  fix {f.given}" for f in exc.fixes]
                lines += [f"  [{r.id}] {r.help or r.message} ({r.citation})" for r in exc.rules]
                if exc.undecided:
                    lines[0] = (f"synth: no valid {model.name} case on {product.id} with T={t} meets the --fix "
                                f"values; {UNDECIDED}: which values and rules conflict")
                emit_error(joined_lines(lines))  # standard output holds cases (JSON Lines) only
                raise click.exceptions.Exit(1)
    finally:
        sink.close()
    if sink.count < count:
        why = ""
        if stats.budget_exhausted or stats.undecided:
            why = (f"; {run.undecided_text()}" + (f" ({stats.undecided} undecided quer"
                                                   f"{'ies' if stats.undecided != 1 else 'y'})" if stats.undecided else ""))
        (emit_error if why else emit_note)(f"synth: found {plural(sink.count, 'distinct valid case')} ({sink.count} "
                                           f"of the {count} asked for){why}")
        if why:
            raise click.exceptions.Exit(EXIT_UNDECIDED)
    if sink.out:  # (standard output shows its own cases)
        emit_note(one_line(f"synth: {plural(sink.count, 'case')} written to {sink.out}"))


def _note_warned(rules: list[Any], fixed: bool) -> None:
    """Every case synth can write draws these warnings (the product's or the --fix values' doing): said once."""
    why = "with the --fix values every case" if fixed else "every case of this API and product"
    emit_note(f"synth: {why} draws a warning ([{', '.join(r.id for r in rules)}]); writing such cases")


class _Sink:
    """Case lines to standard output or to a file (opened at the first line), each written whole: a line a regular
    file cannot take (a full disk) is cut off again, so the file ends with the last whole line. A FIFO or a
    character device (``-o /dev/stdout`` in a pipe) is written through, as a shell redirection does: it cannot
    seek, so nothing is cut off there."""

    def __init__(self, out: str | None) -> None:
        self.out = out
        self.count = 0
        self._f: BinaryIO | None = None
        self._whole: int | None = 0  # a regular file's size after its last whole line (None: not a regular file)

    def write(self, line: str) -> None:
        if self.out is None:
            emit(line)
        else:
            try:
                if self._f is None:
                    self._open()
                write_all(self._f, line.encode("utf-8"))
                if self._whole is not None:
                    self._whole += len(line.encode("utf-8"))
            except OSError as exc:
                if self._f is not None and self._whole is not None:
                    try:
                        self._f.truncate(self._whole)
                    except OSError:
                        pass
                raise InputError(f"cannot write: {exc.strerror or exc}", where=self.out, field="-o") from None
        self.count += 1

    def _open(self) -> None:
        """Open the file at the first line (its folder made when needed, as for every file option)."""
        path = Path(self.out)
        make_dir(path.parent, field="-o")
        refuse_unwritable_kind(path, "-o")  # a block device made since the check before the search
        self._f = open(path, "wb", buffering=0)
        self._whole = 0 if stat.S_ISREG(os.fstat(self._f.fileno()).st_mode) else None

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
