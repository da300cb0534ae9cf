"""The ``ascverify`` command line.

Exit status of every command: 0 clean, 1 problems found (a rule broken, a fault), 2 the input could
not be read (a one-line message naming the file and the field), 3 an internal error (a bug of
ours: one line, or the traceback with ``ascverify --debug``). Results go to standard output,
input errors and summaries to standard error.

A command is one function decorated with ``@main.command()``; raise `InputError` for bad input and
let anything else propagate: the group turns both into the exit statuses above.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import click

from . import __version__
from .caseio import MAX_FILE_BYTES, load_tensor_data, read_cases
from .case import Case
from .checker import Result, check_case, check_cases
from .errors import InputError, did_you_mean
from .report import FORMATS, Counts, bare_error, error_line, json_document, location, one_line, result_lines, table_text

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
FORMAT_OPTION = click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                             help="Output format.")


class AscverifyGroup(click.Group):
    """A group that maps errors to exit statuses and suggests a command for a misspelt one."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            ctx.fail(f"no such command {name!r}{did_you_mean(name, self.list_commands(ctx))}.")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except InputError as exc:
            _err(f"ascverify: {exc.line()}")
            ctx.exit(2)
        except BrokenPipeError:  # `ascverify check ... | head`: stop quietly
            _silence_stdout()
            ctx.exit(1)
        except Exception as exc:  # noqa: BLE001 - the one place that reports our own bugs
            if ctx.params.get("debug"):
                raise
            detail = one_line(str(exc)) or "(no message)"
            _err(f"ascverify: internal error: {type(exc).__name__}: {detail[:500]} (rerun with --debug for the traceback)")
            ctx.exit(3)


@click.group(cls=AscverifyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="ascverify")
@click.option("--debug", is_flag=True, help="Show the Python traceback of an internal error.")
def main(debug: bool) -> None:
    """Check Ascend C kernel API calls against the documented hardware constraints.

    A case file describes one call (API, product, arguments, tensors); `ascverify check` lists
    every rule it breaks, with the rule's id and its source in the documentation.

    \b
    Examples:
      ascverify check examples/bilinear_interpolation.json
      ascverify check --format json cases.jsonl > verdicts.json
      generate-cases | ascverify check -
      ascverify run examples/bilinear_interpolation.json -o out/
      ascverify rules BilinearInterpolation --product atlas-a2
      ascverify products

    Exit status: 0 clean, 1 a rule is broken (or the call faulted), 2 the input could not be
    read, 3 internal error.
    """


# -- output helpers ------------------------------------------------------------------------------------------------

def _write(stream: Any, text: str) -> None:
    """Write ``text`` at once; characters the stream's encoding cannot hold are escaped, not fatal."""
    if not text:
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(enc, "backslashreplace").decode(enc))
    stream.flush()


def _out(text: str) -> None:
    _write(sys.stdout, text)


def _err(line: str) -> None:
    _write(sys.stderr, line.rstrip("\n") + "\n")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _lines(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _rich_table(headers: Sequence[str], rows: Sequence[Sequence[str]], title: str, wrap: str) -> None:
    """A rich table for a terminal: every column keeps its width but ``wrap``, which wraps at words."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None, box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left")
    for i, h in enumerate(headers):
        cells = [row[i] for row in rows]
        numeric = all(c.isdigit() or c == "-" for c in cells)
        width = None if h == wrap else max(len(h), *(len(c) for c in cells))
        table.add_column(h, no_wrap=h != wrap, min_width=width, justify="right" if numeric else "left")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def _json(doc: Any) -> None:
    _out(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic GC while building many small objects (cases, results): it would rescan them all, repeatedly.

    Reading a 100,000-line file goes from ~6 s to ~2.5 s; nothing built here forms reference cycles.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# -- reading cases -------------------------------------------------------------------------------------------------

class _DataCache:
    """Tensor data files loaded once per run, however many cases of a file name them."""

    def __init__(self) -> None:
        self._arrays: dict[tuple, Any] = {}

    def load(self, case: Case) -> None:
        """Load every tensor's given data now, so a bad list or missing file is reported for the case (exit 2)."""
        for name, src in case.data_sources.items():
            dtype = case.ctx.tensor_dtype(name)
            size = int(case.env[f"{name}.size"])
            field = f"tensors.{name}.data"
            if isinstance(src, str):
                key = (str(case.base_dir), src, dtype.name, size)
                arr = self._arrays.get(key)
                if arr is None:
                    arr = self._arrays[key] = load_tensor_data(src, dtype, case.base_dir, field, size)
                case.set_data(name, arr)
            else:
                case.data(name)


def _read_file(path: str, max_bytes: int, cache: _DataCache, entries: Iterable[Any] | None = None) -> list[Result]:
    """Every case of a file (or the entries given), checked (batched), in file order; unreadable cases
    carry their error.

    A problem with the file as a whole (missing, a folder, binary, not JSON, too large) is one
    more result with no index, after the cases read before it.
    """
    results: list[Result | None] = []
    readable: list[tuple[int, int, Case]] = []  # (slot in results, case index, case)
    file_error: InputError | None = None
    try:
        for entry in (entries if entries is not None else read_cases(path, max_bytes)):
            origin = location(path, entry.index)
            if entry.error is not None:
                results.append(Result(path, entry.index, None, error=bare_error(entry.error, path, origin)))
                continue
            case = entry.case
            if case.data_sources:
                try:
                    cache.load(case)
                except InputError as exc:
                    results.append(Result(path, entry.index, case, error=bare_error(exc, path, origin)))
                    continue
            readable.append((len(results), entry.index, case))
            results.append(None)
    except InputError as exc:
        file_error = bare_error(exc, path)
    checked = check_cases([c for _, _, c in readable])
    for (slot, index, _), r in zip(readable, checked):
        r.file, r.index = path, index
        if r.error is not None:
            r.error = bare_error(r.error, path, location(path, r.index))
        results[slot] = r
    if file_error is not None:
        results.append(Result(path, None, None, error=file_error))  # type: ignore[arg-type]
    return results  # type: ignore[return-value]


def _max_bytes_option(f: Callable) -> Callable:
    return click.option("--max-bytes", type=click.IntRange(min=1), default=MAX_FILE_BYTES, show_default=True,
                        metavar="N", help="Refuse input files larger than N bytes.")(f)


#: Files smaller than this are checked in one process (starting workers costs more than it saves).
PARALLEL_MIN_BYTES = 4 << 20


def _jobs_option(f: Callable) -> Callable:
    return click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
                        help="Worker processes for large JSON Lines files (0: one per CPU core).")(f)


# -- check ---------------------------------------------------------------------------------------------------------

@main.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@FORMAT_OPTION
@click.option("-v", "--verbose", is_flag=True, help="Also print valid cases (`ok`) and the rules not checked.")
@_max_bytes_option
@_jobs_option
def check(files: tuple[str, ...], fmt: str, verbose: bool, max_bytes: int, jobs: int) -> None:
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
    with _gc_paused():
        code = _check_files(files, fmt, verbose, max_bytes, jobs or (os.cpu_count() or 1))
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
    from .caseio import cases_from_lines

    path, chunk, first_index, first_line, fmt, verbose = job
    with _gc_paused():
        results = _read_file(path, 0, _DataCache(), cases_from_lines(chunk, path, first_index, first_line))
        return _report(results, fmt, verbose)


def _check_one_file(path: str, fmt: str, verbose: bool, max_bytes: int, cache: _DataCache, jobs: int) -> _FileReport:
    from .caseio import cases_from_bytes, read_bytes, split_json_lines

    try:
        data = read_bytes(path, max_bytes)
    except InputError as exc:
        return _report([Result(path, None, None, error=bare_error(exc, path))], fmt, verbose)  # type: ignore[arg-type]
    chunks = split_json_lines(data, jobs * 4) if jobs > 1 and len(data) >= PARALLEL_MIN_BYTES else None
    if not chunks or b"\x00" in data[:65536]:
        return _report(_read_file(path, max_bytes, cache, _lazy(cases_from_bytes, data, path)), fmt, verbose)
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
    """The iterator fn(*args) returns, with its InputError raised on first use (inside _read_file's handler)."""
    yield from fn(*args)


def _check_files(files: Sequence[str], fmt: str, verbose: bool, max_bytes: int, jobs: int = 1) -> int:
    counts = Counts()
    cache = _DataCache()
    docs: list[dict[str, Any]] = []
    for path in files:
        rep = _check_one_file(path, fmt, verbose, max_bytes, cache, jobs)
        counts.merge(rep.counts)
        if rep.errs:
            _write(sys.stderr, _lines(rep.errs))
        if fmt == "json":
            docs.extend(rep.docs)
        else:
            _out(_lines(rep.out))
    if fmt == "json":
        _out(json_document(docs))
    _err(counts.summary())
    return counts.exit_code


# -- listings ------------------------------------------------------------------------------------------------------

def _size(n: int) -> str:
    return str(n) if n else "-"


@main.command()
@FORMAT_OPTION
def products(fmt: str) -> None:
    """List the products: buffer sizes, vector length.

    Ids and aliases (any of them is accepted in a case file), the size in bytes of each
    physical buffer (`-`: the product has none), VL in bytes, and the TPosition -> buffer map.

    \b
    Examples:
      ascverify products
      ascverify products --format json
    """
    from .products import BUFFER_ALIGNMENT, BUFFERS, POSITION_BUFFER, PRODUCTS

    if fmt == "json":
        _json({"products": [{"id": p.id, "aliases": list(p.aliases), "name": p.name, "arch": p.arch,
                             "buffers": {b: p.buffer_size(b) for b in BUFFERS}, "vector_length": p.vector_length,
                             "notes": p.notes, "source": p.source} for p in PRODUCTS],
               "positions": {pos: {"buffer": buf, "alignment": BUFFER_ALIGNMENT[buf]}
                             for pos, buf in POSITION_BUFFER.items()}})
        return
    if _is_terminal():  # KiB, names in a table of their own: both fit an 80-column terminal
        rows = [[p.id, p.arch, *(_size(p.buffer_size(b) // 1024) for b in BUFFERS), str(p.vector_length)]
                for p in PRODUCTS]
        _rich_table(["id", "arch", *BUFFERS, "VL"], rows, "Products: buffer sizes in KiB, VL in bytes", "")
        names = [[p.id, p.name + (f" (aliases: {', '.join(p.aliases)})" if p.aliases else "")] for p in PRODUCTS]
        _rich_table(["id", "name"], names, "", "name")
    else:  # bytes, the unit of `addr` in a case file
        headers = ["id", "aliases", "name", "arch", *BUFFERS, "VL"]
        rows = [[p.id, ", ".join(p.aliases) or "-", p.name, p.arch, *(_size(p.buffer_size(b)) for b in BUFFERS),
                 str(p.vector_length)] for p in PRODUCTS]
        _out("Products (buffer sizes and VL in bytes)\n" + table_text(headers, rows))
    by_buffer: dict[str, list[str]] = {}
    for pos, buf in POSITION_BUFFER.items():
        by_buffer.setdefault(buf, []).append(pos)
    _out("TPosition -> buffer (start alignment):\n" + "".join(
        f"  {'/'.join(ps)} -> {buf} ({BUFFER_ALIGNMENT[buf]} bytes)\n" for buf, ps in by_buffer.items()))


@main.command()
@FORMAT_OPTION
def support(fmt: str) -> None:
    """Show the API x product support matrix.

    Each cell lists the element types T the API supports on the product (`-`: unsupported).

    \b
    Examples:
      ascverify support
      ascverify support --format json
    """
    from .products import PRODUCT_IDS
    from .registry import apis

    models = apis()
    if fmt == "json":
        _json({"products": list(PRODUCT_IDS),
               "apis": [{"api": m.name, "aliases": list(m.aliases), "source": m.support_source,
                         "support": {p: list(m.support.get(p, ())) for p in PRODUCT_IDS}} for m in models]})
        return
    rows = [[m.name, *(", ".join(m.support.get(p, ())) or "-" for p in PRODUCT_IDS)] for m in models]
    _out("Supported element types per product\n" + table_text(["API", *PRODUCT_IDS], rows))


def _api(name: str) -> Any:
    from .registry import get_api

    return get_api(name)


def _note_json(n: Any) -> dict[str, Any]:
    return {"id": n.id, "title": n.title, "reading": n.reading, "why": n.why, "sources": list(n.sources),
            "rules": list(n.rules)}


def _related_rules(model: Any, note_id: str, declared: Sequence[str]) -> list[str]:
    """The rules a note names, and the rules that cite the note."""
    cited = [r.id for r in model.rules if note_id in r.notes]
    return list(dict.fromkeys([*declared, *cited]))


def _rule_notes(model: Any, rule: Any) -> list[str]:
    """The notes a rule cites, and the notes that name the rule."""
    naming = [n.id for n in model.notes if rule.id in n.rules]
    return list(dict.fromkeys([*rule.notes, *naming]))


@main.command()
@click.argument("api", required=False)
@FORMAT_OPTION
def notes(api: str | None, fmt: str) -> None:
    """List the spec notes (readings of unclear pages).

    A spec note records where the pages are silent or contradict each other, the reading the
    model takes, why, its sources, and the rules that depend on it.

    API (any accepted name) restricts the list to one model.

    \b
    Examples:
      ascverify notes
      ascverify notes BilinearInterpolation --format json
    """
    from .registry import apis

    models = (_api(api),) if api is not None else apis()
    if fmt == "json":
        _json({"apis": [{"api": m.name, "notes": [dict(_note_json(n), rules=_related_rules(m, n.id, n.rules))
                                                  for n in m.notes]} for m in models]})
        return
    lines: list[str] = []
    for m in models:
        lines.append(f"{m.name} ({len(m.notes)} spec notes)")
        for n in m.notes:
            lines.append(f"  {n.id}: {n.title}")
            lines.append(f"    reading: {n.reading}")
            lines.append(f"    why: {n.why}")
            if n.sources:
                lines.append(f"    sources: {'; '.join(n.sources)}")
            related = _related_rules(m, n.id, n.rules)
            if related:
                lines.append(f"    rules: {', '.join(related)}")
        lines.append("")
    _out(_lines(lines[:-1] if lines and not lines[-1] else lines))


def _product(name: str) -> Any:
    from .products import lookup_product, product_names

    p = lookup_product(name)
    if p is None:
        raise InputError(f"unknown product {name!r}{did_you_mean(name, product_names())}", field="--product")
    return p


@main.command()
@click.argument("api")
@click.option("--product", "product_name", metavar="P", help="Only the rules in force on product P.")
@FORMAT_OPTION
def rules(api: str, product_name: str | None, fmt: str) -> None:
    """List the rules of an API.

    Every rule: id, severity, the products it applies to, what it requires, its source in the
    documentation, and its spec notes.

    \b
    Examples:
      ascverify rules BilinearInterpolation
      ascverify rules BilinearInterpolation --product atlas-350 --format json
    """
    model = _api(api)
    product = _product(product_name) if product_name is not None else None
    selected = model.rules_for(product.id) if product is not None else model.rules
    if fmt == "json":
        _json({"api": model.name, "product": product.id if product else None,
               "rules": [{"id": r.id, "severity": r.severity, "params": list(r.params),
                          "products": sorted(r.products) if r.products is not None else None,
                          "help": r.help or r.message, "message": r.message, "source": r.source,
                          "kind": r.domain.get("kind", "custom"), "requires_data": list(r.requires_data),
                          "notes": _rule_notes(model, r)} for r in selected]})
        return
    on = f" on {product.id}" if product else ""
    lines = [f"{model.name}: {len(selected)} rules{on}"]
    for r in selected:
        where = "all products" if r.products is None else ", ".join(sorted(r.products))
        lines.append(f"{r.id}  {r.severity}  [{where}]")
        lines.append(f"    {r.help or r.message}")
        lines.append(f"    source: {r.source}")
        if r.requires_data:
            lines.append(f"    needs data: {', '.join(r.requires_data)}")
        rule_notes = _rule_notes(model, r)
        if rule_notes:
            lines.append(f"    notes: {', '.join(rule_notes)}")
    _out(_lines(lines))


@main.command()
def schema() -> None:
    """Print the JSON Schema of case files.

    The schema (draft 2020-12) is generated from the registered APIs: one subschema per API,
    selected by the `api` name.

    \b
    Examples:
      ascverify schema > case.schema.json
    """
    from .schema import case_schema

    _json(case_schema())


# -- run -----------------------------------------------------------------------------------------------------------

#: Rule kinds whose violation keeps `run` from executing a case (see `run`).
_UNRUNNABLE = ("type", "fits")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, write: Callable[[Any], None]) -> None:
    """Write ``path`` through a temporary file in the same folder, then rename: never half a file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the permissions open() would
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _output_dir(out: str) -> Path:
    d = Path(out)
    if d.exists() and not d.is_dir():
        raise InputError("exists and is not a directory", where=out, field="-o")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output directory: {exc.strerror or exc}", where=out, field="-o") from None
    return d


def _one_case(path: str, index: int, max_bytes: int) -> Case:
    """Case ``index`` of a file; InputError (located in the file) when it cannot be read."""
    count = 0
    for entry in read_cases(path, max_bytes):
        count += 1
        if entry.index != index:
            continue
        origin = location(path, index)
        if entry.error is not None:
            raise bare_error(entry.error, path, origin).at(origin)
        try:
            _DataCache().load(entry.case)
        except InputError as exc:
            raise bare_error(exc, path, origin).at(origin) from None
        return entry.case
    raise InputError(f"no case {index}: the file holds {count} case{'s' if count != 1 else ''}", where=path,
                     field="--index")


@main.command()
@click.argument("case_file", metavar="CASE")
@click.option("-o", "--output", "out", required=True, metavar="DIR", help="Folder for the outputs (created if needed).")
@click.option("--index", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="Which case of the file to run (0 = the first).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S",
              help="Seed for the inputs the case gives no data for.")
@_max_bytes_option
def run(case_file: str, out: str, index: int, seed: int, max_bytes: int) -> None:
    """Run one case on the simulated core.

    Executes case N of CASE and writes every tensor after the call.

    Inputs come from the case's `data`; tensors without data are filled from --seed. Writes
    DIR/NAME.npy and DIR/NAME.bin (raw little-endian) per tensor, and DIR/run.json (the case,
    the check verdict, the faults, the byte intervals written per buffer). Faults print one per
    line: `CASE:case N: fault: ...`.

    \b
    Examples:
      ascverify run examples/bilinear_interpolation.json -o out/
      ascverify run cases.jsonl --index 3 --seed 7 -o out/

    Exit status: 0 no fault, 1 the call faulted or the case breaks a rule (outputs are still
    written), 2 the case could not be read.
    """
    import numpy as np

    from .core.memory import Fault
    from .core.run import run_case

    case = _one_case(case_file, index, max_bytes)
    outdir = _output_dir(out)
    loc = location(case_file, index)
    verdict = check_case(case, file=case_file, index=index)
    if verdict.error is not None:
        raise bare_error(verdict.error, case_file, loc).at(loc)

    faults: list[str] = []
    not_run = ""
    result = None
    # Values beyond their C type or tensors beyond their buffer would make the core allocate and
    # index absurd ranges (a tensor of 10**12 elements): such a case is reported, not executed.
    blocking = [v.rule.id for v in verdict.violations if v.rule.domain.get("kind") in _UNRUNNABLE]
    if blocking:
        not_run = f"the core needs representable values and tensors inside their buffers; broken: {', '.join(blocking)}"
    else:
        try:
            result = run_case(case, seed=seed, strict=False)
            faults = [str(f) for f in result.faults]
            if result.trace.suppressed:
                faults.append(f"... and {result.trace.suppressed} more faults of the same kinds")
        except Fault as exc:  # a fault found while laying out the inputs
            faults = [str(exc)]
        except Exception as exc:  # noqa: BLE001 - the core need not cope with every invalid case
            if verdict.valid:
                raise
            not_run = f"{type(exc).__name__}: {one_line(str(exc))[:300]}"

    written: dict[str, dict[str, Any]] = {}
    if result is not None:
        for name, arr in result.tensors.items():
            le = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
            _atomic_write(outdir / f"{name}.npy", lambda f, a=le: np.save(f, a, allow_pickle=False))
            _atomic_write(outdir / f"{name}.bin", lambda f, a=le: f.write(a.tobytes()))
            written[name] = {"npy": f"{name}.npy", "bin": f"{name}.bin", "dtype": case.ctx.tensor_dtype(name).name,
                             "size": int(arr.size)}
    for decl in case.model.tensors:  # no stale outputs of an earlier run in the same folder
        if decl.name not in written:
            for suffix in (".npy", ".bin"):
                (outdir / f"{decl.name}{suffix}").unlink(missing_ok=True)
    doc = {
        "file": case_file, "index": index, "seed": seed,
        "case": case.to_json(),
        "check": verdict.to_json(),
        "executed": result is not None,
        "not_executed_reason": not_run or None,
        "faults": faults,
        "written": {b: [list(iv) for iv in ivs] for b, ivs in (result.written_intervals().items() if result else ())},
        "inputs": {n: ("given" if n in case.data_sources else "generated") for n in (result.inputs if result else {})},
        "tensors": written,
    }
    _atomic_write(outdir / "run.json",
                  lambda f: f.write((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")))

    lines = result_lines(verdict)
    lines += [f"{loc}: fault: {one_line(f)}" for f in faults]
    if not_run:
        lines.append(f"{loc}: not executed: {not_run}")
    _out(_lines(lines))
    state = "faulted" if faults else ("not executed" if not_run else "ran without fault")
    _err(f"{loc}: {case.model.name} on {case.product} {state}; "
         f"{'valid' if verdict.valid else 'breaks ' + str(len(verdict.violations)) + ' rule(s)'}; "
         f"wrote {len(written)} tensors and run.json to {outdir}")
    sys.exit(1 if (faults or not_run or not verdict.valid) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()


@main.command()
@click.argument("api")
@click.option("--product", "product_name", required=True, metavar="P", help="Product to synthesize for.")
@click.option("-n", "count", type=click.IntRange(min=1, max=1_000_000), default=10, show_default=True,
              help="How many distinct valid cases.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed (same seed, same cases).")
@click.option("--dtype", metavar="T", help="Element type T (default: the API's default type on the product).")
@click.option("--fix", "fixes", multiple=True, metavar="NAME=VALUE",
              help="Hold an argument (hRepeat=2, mask=[1,0]) or tensor field (dst.addr=0, dst.position=VECOUT).")
@click.option("-o", "--output", "out", metavar="FILE", help="Write the cases here (JSON Lines) instead of stdout.")
def synth(api: str, product_name: str, count: int, seed: int, dtype: str | None, fixes: tuple[str, ...],
          out: str | None) -> None:
    """Write N distinct valid cases of API (JSON Lines), found by the solver.

    Each case draws random targets for the fields and keeps as many as the rules allow, so the
    cases spread over the legal space. When the --fix values make every case illegal, the command
    exits 1 and names a minimal set of conflicting rules with their sources.

    \b
    Examples:
      ascverify synth BilinearInterpolation --product atlas-a2 -n 20 --seed 1
      ascverify synth BilinearInterpolation --product atlas-a2 --fix vROffset=128 --fix dstBlkStride=8
    """
    from .dtypes import lookup_dtype, dtype_names
    from .solver import Space, Unsatisfiable, parse_fixes

    model = _api(api)
    product = _product(product_name)
    if dtype is not None and lookup_dtype(dtype) is None:
        raise InputError(f"unknown element type {dtype!r}{did_you_mean(dtype, dtype_names())}", field="--dtype")
    t = lookup_dtype(dtype).name if dtype else (model.support.get(product.id) or (model.default_dtype,))[0]
    space = Space(model, model.context(product.id, t))
    try:
        cases = space.sample(count, seed=seed, fixes=parse_fixes(model, fixes))
    except Unsatisfiable as exc:
        lines = [f"synth: no valid {model.name} case on {product.id} with T={t}; these conflict:"]
        lines += [f"  fix {f.given}" for f in exc.fixes]
        lines += [f"  [{r.id}] {r.help or r.message} ({r.source})" for r in exc.rules]
        _out(_lines(lines))
        raise click.exceptions.Exit(1)
    text = "".join(json.dumps(c.to_json(), separators=(",", ":")) + "\n" for c in cases)
    if out:
        _atomic_write(Path(out), lambda f: f.write(text.encode()))
    else:
        _out(text)
    if len(cases) < count:
        _err(f"synth: found {len(cases)} distinct valid cases of the {count} asked for")
