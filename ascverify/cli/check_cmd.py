"""`ascverify check`: every rule each case of the files breaks (concrete, batched, optionally in parallel)."""

from __future__ import annotations

import itertools
import os
import signal
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import click
import orjson

from ..cases.bounded_read import LineReader, NotRegular, open_regular
from ..cases.caseio import Entry, Flowing, cases_from_lines, read_cases
from ..cases.retarget import on_product
from ..cases.schema import RepeatedValidation
from ..cases.sources import _LIMITS, read_limits
from ..checking.checker import Result
from ..engines import interrupts, portability
from ..engines.sarif import LOG_HEAD, SarifLog
from ..engines.report import (CHECK_FORMATS, CHECK_JSON_FORMAT, Counts, bare_error, error_line, add_result_json,
                              add_result_lines, result_json_close)
from ..spec.errors import InputError, did_you_mean
from ..spec.products import PRODUCT_IDS, lookup_product, product_names
from .common import (
    PARALLEL_CHUNK_BYTES,
    PARALLEL_MIN_BYTES,
    PARALLEL_SAMPLE_LINES,
    DataCache,
    checked_sources,
    emit,
    emit_note,
    gc_paused,
    joined_lines,
    main,
    max_bytes_option,
    parallel_chunk_lines,
    read_file,
    write_text,
)
from .show_cmd import check_and_show
from .options import product_option, verbosity_options, workers_option


# -- check ---------------------------------------------------------------------------------------------------------

@main.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--format", "fmt", type=click.Choice(CHECK_FORMATS), default="text", show_default=True,
              help="Output format (sarif: a SARIF 2.1.0 log for code-scanning displays).")
@verbosity_options(verbose_help="Also print valid cases (`ok`) and the rules not checked.",
                   quiet_help="Print only the findings: no summary line on standard error (unreadable input still "
                              "prints).")
@click.option("--strict", is_flag=True,
              help="Count warnings as errors (exit 1 on a warning too); see docs/severity.md.")
@click.option("--show", is_flag=True,
              help="Draw the memory map of each invalid case under its findings (see `ascverify show`).")
@max_bytes_option
@workers_option(1, "More than 1 (or 0) splits JSON Lines files of 12 MiB and more among processes, with the same "
                  "output: 2 workers on 2 cores measured 1.4x faster than one process on 100,000 distinct lines, "
                  "but slower on a trace that repeats its lines (one process checks a repeated line once; "
                  "docs/cli.md). Each worker holds up to 65,536 cases: opt in. With --product all, files of "
                  "2 MiB and more, 8,192 cases per worker at a time. Not used with --format sarif (one process).")
@click.option("--schema", "strict_schema", is_flag=True,
              help="Also validate every case against the published JSON Schema with jsonschema (slower).")
@product_option(
              help="Check the cases on product P instead of their own, or on every product (all: per product, "
                   "valid or not and the rules that differ from the case's own product).")
def check(files: tuple[str, ...], fmt: str, verbose: bool, strict: bool, max_bytes: int, workers: int,
          strict_schema: bool, product: str | None = None, show: bool = False) -> None:
    """Check case files against the rules of their APIs.

    Every case of every FILE is checked concretely (no solver: fast). A FILE holds one case, a list of cases, or one case per line (JSON Lines); `-` reads
    standard input. Each case is reported with every rule it breaks:

    \b
      FILE:case N: error: [rule-id] message (source)
      FILE:case N: warning: [rule-id] message (source)
      FILE:case N: note: not checked: [rule-id] reason
      FILE:case N: field: message        (on stderr: the case could not be read)

    Valid cases print nothing (unless -v). A summary `N cases: A valid, B invalid, C unreadable`
    goes to standard error. With --format json, standard output is one document
    {"results": [{"file", "index", "api", "product", "valid", "violations", "warnings",
    "unchecked"}]} (an unreadable case has "valid": false and an "error"). With --format jsonl
    it is one such object per line, per case, written as each is checked (the summary stays on
    standard error). With --format sarif it is a SARIF 2.1.0 log: one result per broken rule,
    located by the JSON pointer of the value in the case file (/args/hRepeat, /tensors/dst/addr)
    and by line and column.

    JSON Lines are read and checked as they come, in windows of up to 65,536 cases (constant
    memory; each window's results are written when it is checked; from a pipe, also whenever its
    writer pauses); the cases of many small files
    (`ascverify check out/case_*/case.json` after `gen`) share a window. Data files must lie under
    the case file's folder (standard input: the current folder) or under --data-root DIR; only
    regular files are read, each within --max-bytes.

    With --product P every case is checked as if it named product P. With --product all each
    case is checked on every product: `FILE:case N: PRODUCT: ok` or `invalid` with the rules
    broken there, `[differs]` marking those that differ from the case's own product; the exit
    status then says whether every case is valid on every product that supports its API and type.

    \b
    Examples:
      ascverify check examples/bilinear_interpolation.json
      ascverify check -v examples/bilinear_interpolation.json examples/cases.jsonl
      cat examples/bad/bad.json | ascverify check --format json -
      ascverify check --format sarif examples/cases.jsonl > results.sarif
      ascverify check --product all examples/bilinear_interpolation.json

    Severity: an error is a call a page forbids or the hardware gets wrong; a warning is a call
    that works but does not do what it seems to (a parameter that has no effect, a hazard the
    pages neither forbid nor rule out). Warnings never change the exit status unless --strict.

    Exit status: 0 no case breaks a rule of severity error, 1 some case does (or, with --strict,
    has a warning), 2 some input could not be read.
    """
    if show:
        sys.exit(check_and_show(files, fmt, verbose, max_bytes, strict, product))
    serial = ["--format sarif"] if fmt == "sarif" else []
    if workers != 1 and serial:
        emit_note(f"note: --workers {workers} is not used with {' and '.join(serial)}: the check runs in one process")
    with gc_paused():
        code = _check_files(files, fmt, verbose, max_bytes, workers, strict_schema, product,
                            strict)
    sys.exit(code)


@dataclass
class _FileReport:
    """What checking a part of a file prints and counts."""

    #: text: standard output, in pieces (`add_result_lines`)
    out: list[str]
    #: the lines for standard error (input errors)
    errs: list[str]
    counts: Counts
    #: json, jsonl: standard output, in pieces (`add_result_json`; json: the entries of "results" and the commas
    #: between them); results: the Result objects. With --product all, json: the entries' texts (no commas)
    docs: list[Any]
    #: with --product all: the cases portable or not
    tally: _Tally | None = None
    #: the input pauses after these results (a pipe's writer waits): written out at once, not left in a buffer
    flush: bool = False


def _report(results: Iterable[Result], fmt: str, verbose: bool, strict: bool = False) -> _FileReport:
    """What ``results`` print in format ``fmt`` (``results``: the Result objects themselves), and their counts."""
    rep = _FileReport([], [], Counts(), [])
    out, errs, docs, add = rep.out, rep.errs, rep.docs, rep.counts.add
    text, as_json, keep = fmt == "text", fmt in ("json", "jsonl"), fmt == "results"  # results: sarif, --product
    indent = fmt == "json"
    for r in results:
        if strict and r.warnings:
            r.promote_warnings()
        add(r)
        if r.error is not None:
            errs.append(error_line(r.file, r.index, r.error))
        elif text:
            add_result_lines(out, r, verbose=verbose)
        if as_json:
            if indent and docs:
                docs.append(",\n")
            add_result_json(docs, r, indent=indent)
            if not indent:
                docs.append("\n")
        elif keep:
            docs.append(r)
    return rep


def _check_chunk(job: tuple) -> _FileReport:
    """Worker: check one chunk of a JSON Lines file (``product``: every case moved there, or ``all``: each checked
    on every product)."""
    path, chunk, first_index, first_line, fmt, verbose, strict, data_root, max_bytes, product, strict_schema = job
    with gc_paused(), read_limits(data_root=data_root, max_bytes=max_bytes):
        entries: Iterable[Any] = cases_from_lines(chunk, path, first_index, first_line, keep_raw=strict_schema,
                                                   repeats=True)
        if strict_schema:
            entries = _schema_checked(entries)
        if product and product != "all":
            entries = on_product(entries, product)
        return _part(read_file(path, max_bytes, DataCache(), entries), fmt, verbose, strict, product)


def _part(results: Sequence[Result], fmt: str, verbose: bool, strict: bool, product: str | None) -> _FileReport:
    """The report of ``results`` as one part: `_report`, or with ``product`` ``all`` `_portability_reports`."""
    if product != "all":
        return _report(results, fmt, verbose, strict)
    return next(_portability_reports(results, fmt, strict, max(1, len(results))))


def _schema_checked(entries: Iterable[Any]) -> Iterator[Any]:
    """The entries, with a case that the JSON Schema refuses turned into an input error (a document that comes
    again, a repeated line, validated once)."""
    validate = RepeatedValidation()
    for e in entries:
        if e.error is None and e.raw is not None and getattr(e, "program", None) is None:
            # the schema describes single cases; a program's calls were validated when parsed
            problems = validate(e.raw)
            if problems:
                yield Entry(e.index, None, InputError(f"does not match the case schema: {problems[0]}"), e.raw)
                continue
        e.raw = None  # validated: not kept while the case waits to be checked
        yield e


def _reports(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, cache: DataCache, jobs: int,
             strict_schema: bool = False, strict: bool = False, product: str | None = None) -> Iterator[_FileReport]:
    """The reports of the files, part by part in file order, as they are read (constant memory). Files checked in
    this process share windows (`checked_sources`: thousands of one-case files, as `gen` writes them, are checked
    as one batch); a large JSON Lines file goes to the workers when ``jobs`` > 1. ``product``: every case checked
    as if it named that product (`on_product`), or ``all``: on every product (`_portability_reports`)."""
    serial_reports = _serial_portability_reports if product == "all" else _serial_reports
    serial: list[str] = []  # the files before the next one that goes to the workers
    for path in files:
        parts = None
        if jobs > 1 and fmt != "results" and path != "-":
            parts = _parallel_reports(path, fmt, verbose, max_bytes, jobs, strict, product, strict_schema)
        if parts is None:
            serial.append(path)
            continue
        yield from serial_reports(serial, fmt, verbose, max_bytes, cache, strict_schema, strict, product)
        serial = []
        yield from parts
    yield from serial_reports(serial, fmt, verbose, max_bytes, cache, strict_schema, strict, product)


def _serial_reports(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, cache: DataCache,
                    strict_schema: bool, strict: bool, product: str | None) -> Iterator[_FileReport]:
    """The reports of files checked in this process, in batches of up to 4,096 results (and one ending at each
    problem with a file as a whole)."""

    flows: dict[str, Any] = {}  # path -> its entries' Flow (a pipe's writer may pause)

    def sources() -> Iterator[tuple[str, Iterable[Any]]]:
        for path in files:
            entries: Iterable[Any] = read_cases(path, max_bytes, keep_raw=strict_schema, repeats=True)
            flow = flows[path] = getattr(entries, "flow", None)
            if strict_schema:
                entries = _schema_checked(entries)
            if product:
                entries = on_product(entries, product)
            yield path, (Flowing(entries, flow) if strict_schema or product else entries)

    batch: list[Result] = []
    current, got, flow = None, 0, None  # the file of the last result, its results so far, and its Flow if live
    watch = "-" in files  # only standard input can be a pipe (a file named is read only when it is a regular file)
    try:
        for r in checked_sources(sources(), cache):
            batch.append(r)
            paused = False
            if watch:
                if r.file != current:
                    current, got, flow = r.file, 0, flows.get(r.file)
                    flow = flow if flow is not None and flow.live else None
                got += 1
                paused = flow is not None and got >= flow.handed_out and flow.idle()
            if len(batch) >= 4096 or r.index is None or paused:
                rep = _report(batch, fmt, verbose, strict)
                rep.flush = paused
                yield rep
                batch = []
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the cases read and checked before it are reported first
        if batch:
            yield _report(batch, fmt, verbose, strict)
        raise
    if batch:
        yield _report(batch, fmt, verbose, strict)


def line_chunks(lines: Iterable[tuple[int, bytes]], most_lines: int, most_bytes: int
                ) -> Iterator[tuple[bytes, int, int]]:
    """A JSON Lines file's numbered lines (1-based) in chunks of at most ``most_lines`` lines and, unless one line
    alone is longer, ``most_bytes`` bytes: (the chunk's text, the index of its first case, the number of lines
    before it). Empty lines are not cases."""
    index, first_line, buf, size = 0, 0, [], 0
    for lineno, line in lines:
        if buf and size + len(line) + 1 > most_bytes:
            yield b"\n".join(buf), index, first_line
            index += sum(1 for b in buf if b.strip())
            buf, size = [], 0
        if not buf:
            first_line = lineno - 1
        buf.append(line)
        size += len(line) + 1
        if len(buf) >= most_lines:
            yield b"\n".join(buf), index, first_line
            index += sum(1 for b in buf if b.strip())
            buf, size = [], 0
    if buf:
        yield b"\n".join(buf), index, first_line


def _parallel_reports(path: str, fmt: str, verbose: bool, max_bytes: int, jobs: int, strict: bool,
                      product: str | None, strict_schema: bool = False) -> Iterator[_FileReport] | None:
    """A large JSON Lines file checked by ``jobs`` worker processes, chunk by chunk (`parallel_chunk_lines`; at
    most one more than the workers in flight), the reports in file order; None when the file is small or not JSON
    Lines."""
    from collections import deque

    try:
        fd, st = open_regular(path)
    except (NotRegular, OSError):
        return None  # the serial path words the error
    smallest = PORTABILITY_PARALLEL_MIN_BYTES if product == "all" else PARALLEL_MIN_BYTES
    if st.st_size < smallest or st.st_size > max_bytes:
        os.close(fd)
        return None
    reader = LineReader(fd, max_bytes, path)
    lines = reader.lines()
    head: list[tuple[int, bytes]] = []
    try:
        for lineno, line in lines:
            head.append((lineno, line))
            if line.strip():
                if len([1 for _, h in head if h.strip()]) == 2:
                    break
    except InputError:
        reader.close()
        return None  # the serial path words the error
    nonempty = [h for _, h in head if h.strip()]
    try:
        json_lines = len(nonempty) == 2 and b"\x00" not in nonempty[0] and orjson.loads(nonempty[0]) is not None
    except orjson.JSONDecodeError:
        json_lines = False
    if not json_lines:
        reader.close()
        return None
    try:
        sampled = sum(len(h) for _, h in head)
        for lineno, line in lines:  # a sample of the file's lines, to size the chunks
            head.append((lineno, line))
            sampled += len(line)
            if len(head) >= PARALLEL_SAMPLE_LINES or sampled >= PARALLEL_CHUNK_BYTES:
                break
    except InputError:
        reader.close()
        return None  # the serial path words the error
    chunk_lines = parallel_chunk_lines(st.st_size, [h for _, h in head], jobs)
    if product == "all":
        chunk_lines = min(chunk_lines, PORTABILITY_CHUNK_LINES)
    data_root = _LIMITS.get().data_root

    def chunks() -> Iterator[tuple]:
        for text, index, first_line in line_chunks(itertools.chain(head, lines), chunk_lines, PARALLEL_CHUNK_BYTES):
            yield (path, text, index, first_line, fmt, verbose, strict, data_root, max_bytes, product, strict_schema)

    def run() -> Iterator[_FileReport]:
        import multiprocessing

        from ..engines.interrupts import start_pool

        # forkserver, not fork: forking a process that runs threads (a test runner, a progress display) can copy
        # a held lock into the child, which then hangs; the workers leave Ctrl-C to this process (no traceback)
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ascverify.cli.check_cmd"])
        try:
            with start_pool(ctx, jobs) as pool:
                flight: deque = deque()
                try:
                    for job in chunks():
                        flight.append(pool.apply_async(_check_chunk, (job,)))
                        while len(flight) > jobs:
                            yield flight.popleft().get()
                except InputError as exc:  # the file grew past the limit while read
                    while flight:
                        yield flight.popleft().get()
                    yield _part([Result(path, None, None, error=bare_error(exc, path))], fmt, verbose,  # type: ignore[arg-type]
                                strict, product)
                    return
                while flight:
                    yield flight.popleft().get()
        finally:
            reader.close()

    return run()


def _check_files(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, jobs: int = 1,
                 strict_schema: bool = False, product: str | None = None, strict: bool = False) -> int:
    if product and product != "all" and lookup_product(product) is None:
        raise InputError(f"unknown product {product!r}{did_you_mean(product, (*product_names(), 'all'))}",
                         field="--product")
    on = lookup_product(product).id if product and product != "all" else None  # --product P: every case moved there
    if fmt == "sarif":
        return _check_files_sarif(files, verbose, max_bytes, strict_schema, product == "all", on, strict)
    if product == "all":
        return _check_files_all_products(files, fmt, verbose, max_bytes, strict_schema, strict, DataCache(), jobs)
    counts = Counts()  # of the cases written
    cache = DataCache()
    out = _Output(fmt)
    try:
        for rep in _reports(files, fmt, verbose, max_bytes, cache, jobs, strict_schema, strict, on):
            if rep.errs:
                write_text(sys.stderr, joined_lines(rep.errs))
            with _uncut():
                out.write(rep)
                counts.merge(rep.counts)
                if rep.flush:  # the input pauses: what is known is shown now
                    sys.stdout.flush()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the document ends after the cases written, marked interrupted
        _close_interrupted(lambda: out.close(counts, interrupted=True))
        raise
    with _uncut():
        out.close(counts)
    emit_note(counts.summary())
    return counts.exit_code


@contextmanager
def _uncut() -> Iterator[None]:
    """A write that Ctrl-C or SIGTERM must not cut in half (a JSON document would no longer parse, a line would be
    cut): the signal waits until the write is done, then stops the command (`Interrupted`)."""
    with interrupts.deferred():
        yield
    interrupts.checkpoint()


def _close_interrupted(close: Callable[[], None]) -> None:
    """Close the document of an interrupted `check` (``close``: write its end, marked interrupted) so that standard
    output stays valid JSON; a further signal waits until it is written. A standard output that cannot take it (a
    closed pipe, a full disk) leaves the interruption to report (exit status 130)."""
    with interrupts.deferred():
        try:
            close()
        except (OSError, InputError):
            pass


def _signal_name(exc: BaseException) -> str:
    """The name of the signal that interrupted (``SIGINT``, ``SIGTERM``), from its `Interrupted`."""
    return signal.Signals(getattr(exc, "signum", signal.SIGINT)).name


class _Output:
    """Standard output of `check`, written as results come: text lines, one JSON document written in pieces
    (``{"format", "results": [...], "summary"}``, the same text as `json_document`), or JSON Lines (one object per
    case)."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.started = False

    def write(self, rep: _FileReport) -> None:
        """Write ``rep``'s results (in one piece: see `_uncut`)."""
        if self.fmt == "text":
            emit("".join(rep.out))
        elif self.fmt == "jsonl":
            emit("".join(rep.docs))
        elif self.fmt == "json" and rep.docs:
            # the entries are written at their depth in the document (`result_json`)
            head = ",\n" if self.started else f'{{\n  "format": "{CHECK_JSON_FORMAT}",\n  "results": [\n'
            emit(head + "".join(rep.docs))
            self.started = True

    def close(self, counts: Counts, interrupted: bool = False) -> None:
        """End the document (json): its summary, ``counts`` (``interrupted``: marked so, `Counts.to_json`)."""
        if self.fmt == "json":
            summary = orjson.dumps(counts.to_json(interrupted), option=orjson.OPT_INDENT_2).decode()
            summary = summary.replace("\n", "\n  ")
            head = "\n  ],\n" if self.started else f'{{\n  "format": "{CHECK_JSON_FORMAT}",\n  "results": [],\n'
            emit(f'{head}  "summary": {summary}\n}}\n')


# -- --format sarif, --product P|all ---------------------------------------------------------------------------------

def _check_files_sarif(files: Sequence[str], verbose: bool, max_bytes: int, strict_schema: bool, all_products: bool,
                       on: str | None, strict: bool = False) -> int:
    """`check --format sarif`: one SARIF log, its results written batch by batch as the files are read (each case
    on every product, or moved to product ``on``), the rules, files and invocation at the end."""
    cache = DataCache()
    log = SarifLog()
    out = _SarifJson()
    counts = Counts()
    tally = _Tally()
    size = PORTABILITY_BATCH if all_products else SARIF_BATCH
    noted = 0  # the notifications (unreadable cases) of the batches written
    try:
        for results in _result_batches(files, verbose, max_bytes, cache, strict_schema, size, on):
            _write_input_errors(results)
            if not all_products:
                for r in results:
                    if strict:
                        r.promote_warnings()
                    counts.add(r)
                found = log.results(results)
                with _uncut():
                    out.write(found)
                    noted = len(log.notifications)
                    if getattr(results, "paused", False):
                        sys.stdout.flush()
                continue
            rows = _on_products(results, strict)
            tally.add(results, rows)
            flat: list[Result] = [r for r in results if r.error is not None]
            products: list[str | None] = [None] * len(flat)
            for row in rows:
                for v in row.verdicts:
                    if v.supported or v.given:
                        flat.append(v.result)
                        products.append(v.product)
            found = log.results(flat, products)
            with _uncut():
                out.write(found)
                noted = len(log.notifications)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the run ends after the results written, unsuccessful
        del log.notifications[noted:]  # (those of a batch not written)
        name = _signal_name(exc)
        _close_interrupted(lambda: out.close(log.run_tail(interrupts.EXIT_INTERRUPTED, interrupted=name)))
        raise
    code = tally.exit_code if all_products else counts.exit_code
    with _uncut():
        out.close(log.run_tail(code))
    emit_note(tally.summary() if all_products else counts.summary())
    return code


#: Results ``check --format sarif`` reads before it writes theirs (the SARIF results of about 4,096 cases).
SARIF_BATCH = 4096


def _check_files_all_products(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, strict_schema: bool,
                              strict: bool, cache: DataCache, jobs: int = 1) -> int:
    """``check --product all`` in text, json or jsonl, written as the files are read: each batch of results is
    checked on every product and printed before the next is read (memory stays flat however many cases); a large
    JSON Lines file goes to the workers when ``jobs`` > 1 (the same output)."""
    counts = Counts()  # of the cases written
    out = _PortabilityJson() if fmt == "json" else None
    tally = _Tally()

    def close(interrupted: bool = False) -> None:
        """End the json document: the summary (``interrupted``: of the cases written, marked so)."""
        if out is not None:
            out.close({**counts.to_json(interrupted), "portable": tally.portable, "not_portable": tally.not_portable,
                       "exit_status": interrupts.EXIT_INTERRUPTED if interrupted else tally.exit_code})

    try:
        for rep in _reports(files, fmt, verbose, max_bytes, cache, jobs, strict_schema, strict, "all"):
            if rep.errs:
                write_text(sys.stderr, joined_lines(rep.errs))
            with _uncut():
                if out is not None:
                    out.write_texts(rep.docs)
                else:
                    emit("".join(rep.out if fmt == "text" else rep.docs))
                counts.merge(rep.counts)
                if rep.tally is not None:
                    tally.merge(rep.tally)
                if rep.flush:  # the input pauses: what is known is shown now
                    sys.stdout.flush()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the document ends after the cases written, marked interrupted
        _close_interrupted(lambda: close(interrupted=True))
        raise
    with _uncut():
        close()
    emit_note(tally.summary())
    return tally.exit_code


def _serial_portability_reports(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, cache: DataCache,
                                strict_schema: bool, strict: bool, product: str | None = None) -> Iterator[_FileReport]:
    """`_portability_reports` of files checked in this process, batch by batch (`PORTABILITY_BATCH`)."""
    for results in _result_batches(files, verbose, max_bytes, cache, strict_schema, PORTABILITY_BATCH):
        reports = list(_portability_reports(results, fmt, strict, WRITE_SLICE))
        if reports and getattr(results, "paused", False):
            reports[-1].flush = True
        yield from reports


def _portability_reports(results: Sequence[Result], fmt: str, strict: bool, size: int) -> Iterator[_FileReport]:
    """``check --product all``: the readable cases of ``results`` checked on every product (one batch), their report
    made ``size`` cases at a time (the text of a whole batch is hundreds of MB): text lines, or json(l) entries, the
    input errors, the counts and the tally."""
    rows = _on_products(results, strict)
    rows_of = {id(row.result): row for row in rows}
    for start in range(0, len(results), size):
        some = results[start:start + size]
        some_rows = [row for r in some if (row := rows_of.get(id(r))) is not None]
        tally = _Tally()
        tally.add(some, some_rows)
        rep = _FileReport([], _input_errors(some), Counts(), [], tally)
        for r in some:
            rep.counts.add(r)
        if fmt == "text":
            rep.out.append(joined_lines(portability.portability_lines(some_rows)))
        elif fmt == "json":
            rep.docs.extend(_portability_entry(r, rows_of.get(id(r))) for r in some)
        else:
            rep.docs.append("".join(_portability_entry(r, rows_of.get(id(r)), indent=False) + "\n" for r in some))
        yield rep


def _input_errors(results: Iterable[Result]) -> list[str]:
    """The lines standard error gets for the results that could not be read."""
    return [error_line(r.file, r.index, r.error) for r in results if r.error is not None]


def _write_input_errors(results: Iterable[Result]) -> None:
    """Standard error gets the lines of the results that could not be read (`_input_errors`)."""
    errs = _input_errors(results)
    if errs:
        write_text(sys.stderr, joined_lines(errs))


class _Tally:
    """``check --product all``'s counts over its batches: cases portable, not portable, unreadable."""

    def __init__(self) -> None:
        self.portable = self.not_portable = self.unreadable = 0

    def add(self, results: Sequence[Result], rows: Sequence[Any]) -> None:
        self.unreadable += sum(1 for r in results if r.error is not None)
        self.portable += sum(1 for r in rows if r.portable)
        self.not_portable += sum(1 for r in rows if not r.portable)

    def merge(self, other: _Tally) -> None:
        """Add the counts of another part (a worker's chunk)."""
        self.portable += other.portable
        self.not_portable += other.not_portable
        self.unreadable += other.unreadable

    @property
    def exit_code(self) -> int:
        return 2 if self.unreadable else (0 if not self.not_portable else 1)

    def summary(self) -> str:
        return portability.portability_tally(self.portable, self.not_portable, self.unreadable, PRODUCT_IDS)


def _on_products(results: Sequence[Result], strict: bool) -> list[Any]:
    """``check --product all``: each readable result's case on every product (``strict``: warnings made errors)."""
    rows = portability.check_on_products(results, PRODUCT_IDS)
    if strict:
        for row in rows:
            for v in row.verdicts:
                if v.result is not None:
                    v.result.promote_warnings()
    return rows


#: Cases whose text ``check --product all`` makes at once (the text of a whole batch is hundreds of MB).
WRITE_SLICE = 512
#: ``check --product all --workers N``: files of this size and more go to the workers (each case costs about seven
#: plain checks, so the workers pay for themselves on smaller files than `PARALLEL_MIN_BYTES`) ...
PORTABILITY_PARALLEL_MIN_BYTES = 2 << 20
#: ... in chunks of at most this many lines (a worker sends its chunk's whole text back: 9-13 KB per case in json)
PORTABILITY_CHUNK_LINES = 8192
#: Cases checked on every product at once by ``check --product all`` (each on 7 products, with every verdict kept
#: until printed: about 17 KB per case; fewer cases per batch pay the checker's cost per API and context more often).
PORTABILITY_BATCH = 16384


def _result_batches(files: Sequence[str], verbose: bool, max_bytes: int, cache: DataCache, strict_schema: bool,
                    size: int, product: str | None = None) -> Iterator[list[Result]]:
    """The files' results in file order, in lists of about ``size`` (the unreadable ones too: the caller writes their
    errors, `_write_input_errors`; ``product``: every case moved there, `on_product`)."""
    pending = _Batch()
    try:
        for rep in _reports(files, "results", verbose, max_bytes, cache, 1, strict_schema, product=product):
            pending.extend(rep.docs)
            if len(pending) >= size or (rep.flush and pending):  # a pipe's writer pauses: what came is written now
                pending.paused = rep.flush
                yield pending
                pending = _Batch()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the cases checked before it are written first
        if pending:
            yield pending
        raise
    if pending:
        yield pending


class _Batch(list):
    """Results of `_result_batches`; ``paused``: the input pauses after them (a pipe's writer waits)."""

    paused = False


def _indented(value: Any, depth: int) -> str:
    """``value`` as orjson indents it, for a place ``depth`` spaces deep in a document."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode().replace("\n", "\n" + " " * depth)


class _ListInPieces:
    """A JSON document as orjson indents it whole, written in pieces: the text before one of its lists (``head``, up
    to the list's key), the list's entries as they come (``depth`` spaces deep), the text after it at the end."""

    def __init__(self, head: str, depth: int) -> None:
        self.head, self.depth = head, depth
        self.started = False

    def write(self, entries: Sequence[Any]) -> None:
        pad = " " * self.depth
        self.write_texts([pad + _indented(e, self.depth) for e in entries])

    def write_texts(self, texts: Sequence[str]) -> None:
        """Entries already written as `write` writes them (the pad of their first line included), in one piece (a
        signal waits until they are written: `interrupts.deferred`; the caller stops then, `_uncut`)."""
        if not texts:
            return
        with interrupts.deferred():
            emit((",\n" if self.started else self.head + "[\n") + ",\n".join(texts))
            self.started = True

    def end(self, tail: str) -> None:
        """Write the end of the list and ``tail``, the rest of the document."""
        emit(("\n" + " " * (self.depth - 2) + "]" if self.started else self.head + "[]") + tail)


class _PortabilityJson(_ListInPieces):
    """The document of ``check --product all --format json`` (``{"format", "products", "results": [...],
    "summary"}``): the entries as they come, the summary at the end."""

    def __init__(self) -> None:
        super().__init__(f'{{\n  "format": {_indented(CHECK_JSON_FORMAT, 2)},\n  "products": '
                         f'{_indented(list(PRODUCT_IDS), 2)},\n  "results": ', 4)

    def close(self, summary: dict[str, Any]) -> None:
        self.end(f',\n  "summary": {_indented(summary, 2)}\n}}\n')


class _SarifJson(_ListInPieces):
    """The SARIF log of ``check --format sarif`` (`sarif_document`: one run, its results first): the results as they
    come, the rest of the run at the end."""

    def __init__(self) -> None:
        head = "".join(f'\n  "{k}": {_indented(v, 2)},' for k, v in LOG_HEAD.items())
        super().__init__(f'{{{head}\n  "runs": [\n    {{\n      "results": ', 8)

    def close(self, tail: dict[str, Any]) -> None:
        self.end("".join(f',\n      "{k}": {_indented(v, 6)}' for k, v in tail.items()) + "\n    }\n  ]\n}\n")


def _portability_entry(r: Result, row: Any | None, indent: bool = True) -> str:
    """``r``'s entry in the results of ``check --product all``: the text orjson writes for its `_portability_docs`
    dict, indented as `_PortabilityJson` writes it (--format json) or compact (a line of --format jsonl, without
    its newline), made from the report's remembered pieces (`add_result_json`): the result's keys, then
    ``portable``, then each product's verdict (its result's keys, 8 spaces deep when indented, then its own)."""
    style = _INDENTED_ENTRY if indent else _COMPACT_ENTRY
    if r.error is not None or row is None:
        return style.whole(_portability_docs([r], {})[0], 4)
    parts: list[str] = []
    add_result_json(parts, r, indent=indent, close=False)
    parts.append(style.portable[row.portable])
    sep = style.first
    for v in row.verdicts:
        parts.append(sep)
        sep = style.sep
        if v.result.product != v.product:  # (a verdict names the product its result was checked on)
            parts.append(style.whole(v.to_json(), 8))
            continue
        add_result_json(parts, v.result, indent=indent, depth=8, close=False)
        parts.append(style.flags[(v.supported, v.not_modelled, v.given)])
        parts.append(style.differs({"broken_only_here": v.only_here, "broken_only_on_given_product": v.only_given}))
        parts.append(style.close_verdict)
    parts.append("[]" if sep == style.first else style.last)
    parts.append(style.close_entry)
    return "".join(parts)


class _EntryStyle:
    """The pieces `_portability_entry` adds to the report's: orjson's indentation with the entry 4 spaces deep and
    its verdicts 8 deep, or compact."""

    def __init__(self, indent: bool) -> None:
        self.indent = indent
        key6, key10, colon = ("\n" + " " * 6, "\n" + " " * 10, ": ") if indent else ("", "", ":")

        def flag(x: bool) -> str:
            return "true" if x else "false"

        #: after a result's own keys: ``portable`` and the key of ``products``; after a verdict's result: its own keys
        self.portable = {p: f',{key6}"portable"{colon}{flag(p)},{key6}"products"{colon}' for p in (False, True)}
        self.flags = {(s, m, g): f',{key10}"supported"{colon}{flag(s)},{key10}"not_modelled"{colon}{flag(m)},'
                                 f'{key10}"given_product"{colon}{flag(g)},{key10}"differs"{colon}'
                      for s in (False, True) for m in (False, True) for g in (False, True)}
        #: the list of verdicts: before the first, between two, after the last
        self.first, self.sep, self.last = ("[\n", ",\n", key6 + "]") if indent else ("[", ",", "]")
        self.close_verdict = result_json_close(8) if indent else "}"
        self.close_entry = result_json_close(4) if indent else "}"

    def whole(self, doc: dict[str, Any], depth: int) -> str:
        """``doc`` written whole (its first line's pad included when indented ``depth`` deep)."""
        return " " * depth + _indented(doc, depth) if self.indent else orjson.dumps(doc).decode()

    def differs(self, doc: dict[str, Any]) -> str:
        return _indented(doc, 10) if self.indent else orjson.dumps(doc).decode()


_INDENTED_ENTRY = _EntryStyle(True)
_COMPACT_ENTRY = _EntryStyle(False)


def _portability_docs(results: Sequence[Result], rows_of: Mapping[int, Any]) -> list[dict[str, Any]]:
    """``check --product all`` as JSON: each case's entry has the keys of a plain ``check`` entry (its verdict on its
    own product), plus ``portable`` and ``products`` (the verdict on each product); in file order. ``rows_of``: each
    readable result's verdicts on every product, by the result's identity."""
    docs = []
    for r in results:
        doc = r.to_json()
        row = rows_of.get(id(r)) if r.error is None else None
        if row is not None:
            doc["portable"] = row.portable
            doc["products"] = [v.to_json() for v in row.verdicts]
        docs.append(doc)
    return docs
