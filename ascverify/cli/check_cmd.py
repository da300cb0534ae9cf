"""`ascverify check`: every rule each case of the files breaks (concrete, batched, optionally in parallel)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Iterable, Any, Callable, Iterator, Sequence

import click

from ..checker import Result
from ..errors import InputError
from ..report import Counts, bare_error, error_line, json_document, result_lines
from .common import (
    FORMAT_OPTION,
    PARALLEL_MIN_BYTES,
    DataCache,
    emit,
    emit_error,
    gc_paused,
    jobs_option,
    joined_lines,
    main,
    max_bytes_option,
    read_file,
    write_text,
)


# -- check ---------------------------------------------------------------------------------------------------------

@main.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@FORMAT_OPTION
@click.option("-v", "--verbose", is_flag=True, help="Also print valid cases (`ok`) and the rules not checked.")
@max_bytes_option
@jobs_option
@click.option("--schema", "strict_schema", is_flag=True,
              help="Also validate every case against the published JSON Schema with jsonschema (slower).")
def check(files: tuple[str, ...], fmt: str, verbose: bool, max_bytes: int, jobs: int, strict_schema: bool) -> None:
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
    "unchecked"}]} (an unreadable case has "valid": false and an "error").

    \b
    Examples:
      ascverify check examples/bilinear_interpolation.json
      ascverify check -v a.json b.jsonl
      cat cases.jsonl | ascverify check --format json -

    Exit status: 0 every case valid, 1 some case breaks a rule, 2 some input could not be read.
    """
    with gc_paused():
        code = _check_files(files, fmt, verbose, max_bytes, jobs or (os.cpu_count() or 1), strict_schema)
    sys.exit(code)


@dataclass
class _FileReport:
    """What checking one file (or one chunk of it) prints and counts."""

    out: list[str]
    errs: list[str]
    counts: Counts
    docs: list[dict[str, Any]]


def _report(results: Sequence[Result], fmt: str, verbose: bool) -> _FileReport:
    rep = _FileReport([], [], Counts(), [])
    for r in results:
        rep.counts.add(r)
        if r.error is not None:
            rep.errs.append(error_line(r.file, r.index, r.error))
        elif fmt == "text":
            rep.out.extend(result_lines(r, verbose=verbose))
        if fmt == "json":
            rep.docs.append(r.to_json())
    return rep


def _check_chunk(job: tuple[str, bytes, int, int, str, bool]) -> _FileReport:
    """Worker: check one chunk of a JSON Lines file."""
    from ..caseio import cases_from_lines

    path, chunk, first_index, first_line, fmt, verbose = job
    with gc_paused():
        results = read_file(path, 0, DataCache(), cases_from_lines(chunk, path, first_index, first_line))
        return _report(results, fmt, verbose)


def _schema_checked(entries: Iterable[Any]) -> Iterator[Any]:
    """The entries, with a case that the JSON Schema refuses turned into an input error."""
    from ..caseio import Entry
    from ..schema import validate

    for e in entries:
        if e.error is None and e.raw is not None:
            problems = validate(e.raw)
            if problems:
                yield Entry(e.index, None, InputError(f"does not match the case schema: {problems[0]}"), e.raw)
                continue
        yield e


def _check_one_file(path: str, fmt: str, verbose: bool, max_bytes: int, cache: DataCache, jobs: int,
                    strict_schema: bool = False) -> _FileReport:
    from ..caseio import cases_from_bytes, read_bytes, split_json_lines

    try:
        data = read_bytes(path, max_bytes)
    except InputError as exc:
        return _report([Result(path, None, None, error=bare_error(exc, path))], fmt, verbose)  # type: ignore[arg-type]
    parallel = jobs > 1 and len(data) >= PARALLEL_MIN_BYTES and not strict_schema
    chunks = split_json_lines(data, jobs * 4) if parallel else None
    if not chunks or b"\x00" in data[:65536]:
        entries = _lazy(cases_from_bytes, data, path)
        if strict_schema:
            entries = _schema_checked(entries)
        return _report(read_file(path, max_bytes, cache, entries), fmt, verbose)
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs) as pool:
        parts = pool.map(_check_chunk, [(path, c, i, ln, fmt, verbose) for c, i, ln in chunks], chunksize=1)
    total = _FileReport([], [], Counts(), [])
    for p in parts:
        total.out.extend(p.out)
        total.errs.extend(p.errs)
        total.docs.extend(p.docs)
        total.counts.merge(p.counts)
    return total


def _lazy(fn: Callable[..., Iterator[Any]], *args: Any) -> Iterator[Any]:
    """The iterator fn(*args) returns, with its InputError raised on first use (inside read_file's handler)."""
    yield from fn(*args)


def _check_files(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, jobs: int = 1,
                 strict_schema: bool = False) -> int:
    counts = Counts()
    cache = DataCache()
    docs: list[dict[str, Any]] = []
    for path in files:
        rep = _check_one_file(path, fmt, verbose, max_bytes, cache, jobs, strict_schema)
        counts.merge(rep.counts)
        if rep.errs:
            write_text(sys.stderr, joined_lines(rep.errs))
        if fmt == "json":
            docs.extend(rep.docs)
        else:
            emit(joined_lines(rep.out))
    if fmt == "json":
        emit(json_document(docs))
    emit_error(counts.summary())
    return counts.exit_code


