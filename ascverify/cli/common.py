"""What every command shares: the group, exit statuses, output, reading case files, atomic writes."""

from __future__ import annotations

import errno
import functools
import gc
import json
import math
import os
import re
import select
import signal
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import click

from ..cases.case import Case
from ..cases.caseio import Entry, cases_from_bytes, read_cases
from ..cases.fields import read_product, read_supported_type
from ..cases.repeats import Repeats
from ..cases.safe_names import confined
from ..cases.sources import MAX_FILE_BYTES, load_tensor_data, read_bytes, read_limits
from ..checking.checker import Result, VerdictMemo, check_cases
from ..checking.program import check_program
from ..core.unspecified import blanked
from ..engines import interrupts
from ..engines.interrupts import EXIT_INTERRUPTED, command_signals
from ..engines.outputs import STDOUT_WRITTEN, atomic_write, is_environment_error, make_dir, os_error
from ..engines.report import FORMATS, bare_error, location
from ..spec.dtypes import lookup_dtype
from ..spec.errors import InputError, did_you_mean, one_line
from ..spec.products import PRODUCT_IDS
from ..spec.registry import api_names, apis, lookup_api
from ..spec.version import __version__


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: Exit statuses of every command (docs/cli.md): 0 clean, 1 a finding (a rule broken, a fault, a failing case),
#: 2 bad input or usage (or a solver question left undecided), 3 an internal error, 130 interrupted.
EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
#: Standard output closed by its reader (``... | head``): 128 + SIGPIPE, as a shell reports a process SIGPIPE
#: stopped; not 1, which says a finding
EXIT_PIPE_CLOSED = 141
FORMAT_OPTION = click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                             help="Output format.")


#: How pathlib (Python < 3.13) reports a path whose symbolic links lead back to themselves.
_SYMLINK_LOOP = re.compile(r"Symlink loop from '(.*)'", re.S)


#: Option metavars naming code to run (besides FILE / DIR): an empty value is bad input, not "none".
_NAMED_VALUES = ("MODULE:FUNCTION", "'PROG {dir}'")


def one_line_usage(exc: click.UsageError, ctx: click.Context | None) -> click.UsageError:
    """``exc`` shown as one line on standard error (exit status 2), like every other bad input: ``ascverify check:
    No such option: --formt Did you mean --format? (ascverify check --help)``, not click's usage block."""
    path = (ctx.command_path if ctx is not None else "") or "ascverify"

    def show(file: Any = None) -> None:
        emit_error(one_line(f"{path}: {_plain_words(exc)} (see {path} --help)"))
    exc.show = show  # type: ignore[method-assign]
    return exc


#: click's words for a value its number types refuse ("'1e6' is not a valid integer range"), said plainly
_CLICK_NUMBER_WORDS = {"is not a valid integer range": "is not an integer", "is not a valid integer": "is not an integer",
                       "is not a valid float range": "is not a number", "is not a valid float": "is not a number"}


def _plain_words(exc: click.UsageError) -> str:
    """click's message, with its number types' words said plainly, and a negative number it took for an unknown
    option (``decode load3d -1 0``: "No such option: -1") told how to pass it."""
    text = exc.format_message()
    for theirs, ours in _CLICK_NUMBER_WORDS.items():
        text = text.replace(theirs, ours)
    if isinstance(exc, click.NoSuchOption) and re.fullmatch(r"-[\d.]\w*", exc.option_name or ""):
        text += " (a word starting with - is read as an option: to pass a negative number, put -- before the arguments)"
    return text


class AscverifyCommand(click.Command):
    """A command whose "did you mean" for a misspelt option names only the options its help shows (not the older
    spellings kept hidden, such as --jobs for --workers), and that refuses an empty file or folder name."""

    def invoke(self, ctx: click.Context) -> Any:
        """The command, with an empty file or folder name refused first (`_refuse_empty_values`); bad input that
        stops a --format json command before it printed anything is also a JSON document on standard output."""
        try:
            _refuse_empty_values(self, ctx)
            return super().invoke(ctx)
        except InputError as exc:
            if ctx.params.get("fmt") == "json" and not STDOUT_WRITTEN["written"]:
                # a script reading --format json gets a JSON document either way: the error, as check and replay
                # put an unreadable case or folder in theirs (the one line on standard error stays)
                print_json(error_document(exc))
            raise

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # click's parser consumes the list
        try:
            rest = super().parse_args(ctx, args)
            if not ctx.resilient_parsing:  # shell completion parses what is typed so far: never an error there
                _refuse_repeated_options(self, ctx, given)
            return rest
        except click.NoSuchOption as exc:
            hidden = {name for p in self.params if isinstance(p, click.Option) and p.hidden
                      for name in (*p.opts, *p.secondary_opts)}
            if exc.possibilities:
                exc.possibilities = [name for name in exc.possibilities if name not in hidden]
            raise one_line_usage(exc, ctx) from None
        except click.MissingParameter as exc:
            if exc.param is not None and "--product" in getattr(exc.param, "opts", ()):
                exc.message = _products_hint(ctx.params.get("api"))
            raise one_line_usage(exc, ctx) from None
        except click.UsageError as exc:
            raise one_line_usage(exc, ctx) from None


def _products_hint(api: Any) -> str:
    """For a missing -p: the products the named API supports (every product when the API is not known)."""
    model = lookup_api(api) if isinstance(api, str) else None
    ids = [p for p in PRODUCT_IDS if model is None or p in model.support]
    what = f"the products {model.name} supports" if model is not None else "the products"
    return f"Give the product with -p: {what} are {', '.join(ids)} (`ascverify support` shows the matrix)"


def _refuse_empty_values(command: click.Command, ctx: click.Context) -> None:
    """An option that names a file or folder (metavar FILE or DIR) given as "" is bad input, not "none": a script's
    unset variable (``--report "$REPORT"``) must not turn saving off without a word."""
    for p in command.params:
        value = ctx.params.get(p.name)
        if not (value == "" or (isinstance(value, (list, tuple)) and "" in value)):
            continue
        if isinstance(p, click.Option) and (p.metavar or "").startswith(("FILE", "DIR")):
            raise InputError("an empty path: give a file or folder name (`-`: standard input or output, "
                             "where the option takes it)", field=max(p.opts, key=len))
        if isinstance(p, click.Argument) or (isinstance(p, click.Option) and p.metavar in _NAMED_VALUES):
            # a target, a command, a file or an API named by nothing: `fuzz --target ""` dropped the comparison
            # with the user's kernel and passed; `replay ""` replayed the current folder
            raise InputError("an empty value: give what it names",
                             field=max(p.opts, key=len) if isinstance(p, click.Option) else p.name.upper())


def _refuse_repeated_options(command: click.Command, ctx: click.Context, args: list[str]) -> None:
    """An option that takes one value given more than once is a usage error: click keeps the last one silently
    (audit 22: `check -p all -p atlas-a2` checked atlas-a2 only), while lint and fuzz take `-p` as a list. A hidden
    older spelling (`alias_of`, e.g. `--jobs` of `--workers`) counts as the option it stands for."""
    _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    counts = Counter(getattr(p, "alias_of", None) or p.name for p in order
                     if isinstance(p, click.Option) and not p.multiple and not p.count and not p.is_flag)
    older = {getattr(p, "alias_of", None): "/".join(p.opts) for p in order if getattr(p, "alias_of", None)}
    for p in command.params:
        if counts.get(p.name, 0) > 1:
            names = "/".join(p.opts) + (f" (or its older spelling {older[p.name]})" if p.name in older else "")
            raise click.UsageError(f"{names} given {counts[p.name]} times: it takes one value"
                                   + (" (`-p all`: every product)" if "--product" in p.opts and "all:" in (p.help or "")
                                      else ""), ctx=ctx)


class AscverifyGroup(click.Group):
    """A group that maps errors to exit statuses and suggests a command for a misspelt one."""

    command_class = AscverifyCommand

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        try:
            if name and not name.startswith("-") and self.get_command(ctx, name) is None:
                ctx.fail(f"no such command {name!r}{did_you_mean(name, self.list_commands(ctx))}")
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            raise one_line_usage(exc, ctx) from None

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        """click's, with Ctrl-C while the options are read exit status 130 (click's own answer is "Aborted!", 1)."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            emit_error("ascverify: interrupted (SIGINT)")
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None

    def invoke(self, ctx: click.Context) -> Any:
        _STDIN.clear()  # standard input is read once per command (a test runner invokes many in one process)
        STDOUT_WRITTEN["written"] = False
        set_verbosity(0)
        try:
            with command_signals():  # SIGTERM stops a command like Ctrl-C: what was written stays, exit 130
                return super().invoke(ctx)
        except click.exceptions.Abort:  # click's answer to Ctrl-C at a prompt: interrupted, like any other
            emit_error("ascverify: interrupted (SIGINT)")
            ctx.exit(EXIT_INTERRUPTED)
        except (click.exceptions.Exit, click.ClickException):
            raise
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (`ascverify.engines.interrupts.Interrupted`)
            emit_error(f"ascverify: interrupted ({signal.Signals(getattr(exc, 'signum', signal.SIGINT)).name})")
            ctx.exit(EXIT_INTERRUPTED)
        except InputError as exc:
            emit_error(one_line(f"ascverify: {exc.line()}"))
            ctx.exit(2)
        except BrokenPipeError:  # `ascverify check ... | head`: stop quietly, with the status of a SIGPIPE stop
            silence_stdout()
            ctx.exit(EXIT_PIPE_CLOSED)
        except Exception as exc:  # noqa: BLE001 - the one place that reports our own bugs
            if ctx.params.get("debug"):
                raise
            if isinstance(exc, OSError) and is_environment_error(exc):
                # the machine's, not ours: a read-only folder, a full disk, a name too long (exit 2, one line)
                emit_error(one_line(f"ascverify: {os_error(exc, action='cannot write or read').line()}"))
                ctx.exit(2)
            loop = _SYMLINK_LOOP.fullmatch(str(exc)) if type(exc) is RuntimeError else None
            if loop:  # pathlib's resolve() before Python 3.13 (an OSError, ELOOP, since): a path the user gave
                emit_error(one_line(f"ascverify: {loop.group(1)}: cannot read or write: a loop of symbolic links"))
                ctx.exit(2)
            asked = interrupts.requested()  # this command's (set anew when a command starts)
            if asked is not None:  # an error the signal caused, with no link to it (an interrupt that ctypes, under
                # Z3, turned into an ArgumentError): the command was interrupted, it did not fail
                emit_error(f"ascverify: interrupted ({signal.Signals(asked).name})")
                ctx.exit(EXIT_INTERRUPTED)
            detail = one_line(str(exc)) or "(no message)"
            emit_error(f"ascverify: internal error: {type(exc).__name__}: {detail[:500]} (rerun with --debug for the traceback)")
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
      ascverify check --format json examples/cases.jsonl > verdicts.json
      ascverify synth BlockReduceMin -p atlas-a2 -n 5 | ascverify check -
      ascverify run examples/bilinear_interpolation.json -o out/
      ascverify rules BilinearInterpolation --product atlas-a2
      ascverify products

    Exit status (every command): 0 clean, 1 a finding (a rule broken, a fault, a failing case),
    2 bad input or usage, 3 internal error, 130 interrupted (Ctrl-C or SIGTERM), 141 standard
    output closed (`... | head`). docs/cli.md has the table of options and exit statuses.
    """


# -- output helpers ------------------------------------------------------------------------------------------------

def write_text(stream: Any, text: str) -> None:
    """Write ``text`` at once, all of it or an `OSError`; characters the stream's encoding cannot hold are escaped,
    not fatal.

    A stream with a binary layer gets the encoded bytes, written until all are taken: with PYTHONUNBUFFERED (set in
    many container images) that layer is the raw file, whose write may take only part of the bytes (a disk that
    fills up, a file size limit), and the text layer drops the rest without a word, so a result file redirected
    onto a full disk was cut short and the command exited 0."""
    if not text:
        return
    if stream is None:  # the process was started with this stream closed (`>&-`, `2>&-`)
        raise OSError(errno.EBADF, "it is closed")
    binary = getattr(stream, "buffer", None)
    if binary is None:  # a text-only stream (a test's StringIO)
        try:
            stream.write(text)
        except UnicodeEncodeError:
            enc = getattr(stream, "encoding", None) or "ascii"
            stream.write(text.encode(enc, "backslashreplace").decode(enc))
        stream.flush()
        return
    enc = getattr(stream, "encoding", None) or "utf-8"
    if os.linesep != "\n":
        text = text.replace("\n", os.linesep)
    try:
        data = text.encode(enc)
    except UnicodeEncodeError:
        data = text.encode(enc, "backslashreplace")
    stream.flush()  # text written to the stream by others goes first
    write_all(binary, data)
    binary.flush()


def write_all(binary: Any, data: bytes) -> None:
    """Write every byte of ``data`` to the binary stream ``binary`` (a raw file may take only part of a write: a
    disk that fills up, a file size limit; the next write then raises the `OSError`)."""
    view = memoryview(data)
    while view:
        n = binary.write(view)
        if n is None:  # a non-blocking stream that would block: wait until it takes more
            select.select([], [binary], [])
            continue
        view = view[n:]


def error_document(exc: InputError) -> dict[str, Any]:
    """The JSON document of a command stopped by bad input: the line standard error shows, where and which field."""
    return {"error": exc.line(), "where": exc.where or None, "field": exc.field or None, "message": exc.message,
            "exit_status": EXIT_BAD_INPUT}


def emit(text: str) -> None:
    """Write results to standard output. A standard output that cannot take them (a full disk, a file size limit)
    is one line naming it (exit status 2); a closed pipe stays `BrokenPipeError` (``... | head``: a quiet stop)."""
    STDOUT_WRITTEN["written"] = STDOUT_WRITTEN["written"] or bool(text)
    try:
        write_text(sys.stdout, text)
    except OSError as exc:
        raise stdout_failure(exc) from None


def stdout_failure(exc: OSError) -> BaseException:
    """What a failed write to standard output raises: a closed pipe stays `BrokenPipeError` (a quiet stop, 141) and an
    error that is not the machine's stays as it is; a full disk or a file size limit becomes one line naming standard
    output (exit status 2), what is still buffered dropped (it would fail again at exit)."""
    if isinstance(exc, BrokenPipeError) or not is_environment_error(exc):
        return exc
    silence_stdout()
    return os_error(exc, "standard output")


def emit_error(line: str) -> None:
    if sys.stderr is None:  # started with standard error closed: the line has nowhere to go
        return
    write_text(sys.stderr, line.rstrip("\n") + "\n")


#: -1 quiet (``-q``), 0 normal, 1 verbose (``-v``): set by `ascverify.cli.options.verbosity_options`.
_VERBOSITY = {"level": 0}


def set_verbosity(level: int) -> None:
    _VERBOSITY["level"] = level


def quiet() -> bool:
    """``-q`` was given: no summaries or progress on standard error."""
    return _VERBOSITY["level"] < 0


def verbose() -> bool:
    return _VERBOSITY["level"] > 0


def emit_note(line: str) -> None:
    """A summary or progress line on standard error (nothing with ``-q``); errors use `emit_error`."""
    if not quiet():
        emit_error(line)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``2 cases``; ``many`` for irregular plurals (``query``, ``queries``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def joined_lines(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def stdout_console(**options: Any) -> Any:
    """A rich Console on standard output whose closed pipe (``... | head``) is a BrokenPipeError, which the command
    group turns into exit status 141 like every other command's, not rich's own exit status 1 ("a finding")."""
    from rich.console import Console  # rich only where a table or a map is printed (startup)

    console = Console(**options)

    def closed() -> None:
        console.quiet = True
        raise BrokenPipeError("standard output closed")
    console.on_broken_pipe = closed  # type: ignore[method-assign]
    printed = console.print

    def print_named(*args: Any, **kwargs: Any) -> None:
        """A standard output that cannot take the text (a full disk) is named, as `emit` names it (exit status 2)."""
        try:
            printed(*args, **kwargs)
        except OSError as exc:
            console.quiet = True
            raise stdout_failure(exc) from None
    console.print = print_named  # type: ignore[method-assign]
    return console


def rich_table(headers: Sequence[str], rows: Sequence[Sequence[str]], title: str, wrap: str) -> None:
    """A rich table for a terminal: every column keeps its width but ``wrap``, which wraps at words."""
    from rich import box
    from rich.table import Table

    table = Table(title=title or None, box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left")
    for i, h in enumerate(headers):
        cells = [row[i] for row in rows]
        numeric = all(c.isdigit() or c == "-" for c in cells)
        width = None if h == wrap else max(len(h), *(len(c) for c in cells))
        table.add_column(h, no_wrap=h != wrap, min_width=width, justify="right" if numeric else "left")
    for row in rows:
        table.add_row(*row)
    stdout_console().print(table)


def print_json(doc: Any) -> None:
    emit(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


@contextmanager
def gc_paused() -> Iterator[None]:
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

class DataCache:
    """Tensor data files loaded once per run, however many cases of a file name them (at most `MAX_BYTES` of
    arrays are kept: a stream of cases naming ever other files does not grow it without end)."""

    MAX_BYTES = 256 << 20

    def __init__(self) -> None:
        self._arrays: dict[tuple, Any] = {}
        self._bytes = 0

    def load(self, case: Case) -> None:
        """Load every tensor's given data now, so a bad list or missing file is reported for the case (exit 2)."""
        for name, src in case.data_sources.items():
            dtype = case.ctx.tensor_dtype(name)
            size = int(case.env[f"{name}.size"])
            field = f"tensors.{name}.data"
            if isinstance(src, str):
                key = (str(getattr(src, "resolved", "")), str(case.base_dir), str(src), dtype.name, size)
                arr = self._arrays.get(key)
                if arr is None:
                    arr = load_tensor_data(src, dtype, case.base_dir, field, size)
                    if self._bytes + arr.nbytes > self.MAX_BYTES:
                        self._arrays.clear()
                        self._bytes = 0
                    self._arrays[key] = arr
                    self._bytes += arr.nbytes
                case.set_data(name, arr)
            else:
                case.data(name)


def _checked_program(entry: Any, path: str, origin: str, cache: DataCache) -> Result:
    try:
        for call in entry.program.calls:
            if call.case.data_sources:
                cache.load(call.case)
        return check_program(entry.program, file=path, index=entry.index)
    except InputError as exc:
        return Result(path, entry.index, None, error=bare_error(exc, path, origin))


def read_file(path: str, max_bytes: int, cache: DataCache, entries: Iterable[Any] | None = None) -> list[Result]:
    """Every case of a file (or the entries given), checked (batched), in file order; unreadable cases
    carry their error.

    A problem with the file as a whole (missing, a folder, binary, not JSON, too large) is one
    more result with no index, after the cases read before it.
    """
    items: list[tuple[str, Any]] = []
    try:
        for entry in (entries if entries is not None else read_cases(path, max_bytes)):
            items.append((path, entry))
    except InputError as exc:
        items.append((path, exc))
    return checked_items(items, cache)


def checked_items(items: Sequence[tuple[str, Any]], cache: DataCache,
                  verdicts: VerdictMemo | None = None) -> list[Result]:
    """The entries of one or more files, each with its file's path, checked together (batched: one `check_cases`
    for all of them, with the ``verdicts`` of earlier windows), in the order given; an `InputError` instead of an
    entry is a problem with that file as a whole (a result with no index). Unreadable cases carry their error."""
    if all(type(entry) is Entry and entry.case is not None and not entry.case.data_sources for _, entry in items):
        # the common window: every entry a case read without data files (one pass, no slots to fill)
        checked = check_cases([entry.case for _, entry in items], verdicts)
        for (path, entry), r in zip(items, checked):
            r.file, r.index = path, entry.index
            if r.error is not None:  # located at the case's origin: a repeated case's first occurrence
                r.error = bare_error(r.error, path, location(path, r.index), entry.case.origin)
        return checked
    results: list[Result | None] = []
    readable: list[tuple[int, str, int, Case]] = []  # (slot in results, file, case index, case)
    for path, entry in items:
        if isinstance(entry, InputError):
            results.append(Result(path, None, None, error=bare_error(entry, path)))  # type: ignore[arg-type]
            continue
        case = entry.case
        if case is None:
            origin = location(path, entry.index)
            if entry.error is not None:
                results.append(Result(path, entry.index, None, error=bare_error(entry.error, path, origin)))
            else:
                results.append(_checked_program(entry, path, origin, cache))
            continue
        if case.data_sources:
            try:
                cache.load(case)
            except InputError as exc:
                origin = location(path, entry.index)
                results.append(Result(path, entry.index, case, error=bare_error(exc, path, origin)))
                continue
        readable.append((len(results), path, entry.index, case))
        results.append(None)
    checked = check_cases([c for _, _, _, c in readable], verdicts)
    for (slot, path, index, _), r in zip(readable, checked):
        r.file, r.index = path, index
        if r.error is not None:
            r.error = bare_error(r.error, path, location(path, r.index), r.case.origin if r.case else "")
        results[slot] = r
    return results  # type: ignore[return-value]


#: Cases checked at once by `checked_stream`: enough that the batched checker's cost per API and context is
#: spread over many cases (a file mixing ~200 contexts), few enough that memory stays flat on any file.
STREAM_WINDOW = 65536
#: ... and at most this many inline data values in one window (they are Python lists until checked) ...
STREAM_WINDOW_VALUES = 1 << 22
#: ... and at most this many bytes of tensor data read from files (a window's cases hold their data until checked:
#: thousands of `gen` cases, each with its input files, would otherwise all be in memory at once).
STREAM_WINDOW_DATA_BYTES = 256 << 20


def data_weight(entry: Any) -> tuple[int, int]:
    """What an entry's tensor data holds in memory once loaded: (inline values, bytes read from files at most: each
    tensor's declared size in its element type); a program's calls together."""
    cases = [entry.case] if entry.case is not None else \
        [call.case for call in entry.program.calls] if entry.program is not None else []
    values = nbytes = 0
    for case in cases:
        for name, src in case.data_sources.items():
            if isinstance(src, list):
                values += len(src)
            else:
                size = case.env.get(f"{name}.size", 0)
                nbytes += size * case.ctx.tensor_dtype(name).size if type(size) is int and size > 0 else 0
    return values, nbytes


def checked_stream(path: str, max_bytes: int, cache: DataCache, entries: Iterable[Any] | None = None, *,
                   window: int | None = None) -> Iterator[Result]:
    """`read_file` as a stream: the cases of a file (or the entries given) read as they come, checked (batched)
    ``window`` cases at a time, their results yielded in file order; memory stays flat however long the file.

    A problem with the file as a whole is one more result with no index, after the cases read before it."""
    source = entries if entries is not None else read_cases(path, max_bytes, keep_raw=False)
    return checked_sources([(path, source)], cache, window=window)


def checked_sources(sources: Iterable[tuple[str, Iterable[Any]]], cache: DataCache, *,
                    window: int | None = None) -> Iterator[Result]:
    """`checked_stream` over several files, one after another (each given as its path and its entries): a window
    takes the cases of as many files as it holds, so that many small files are checked as one batch (the rules'
    cost per API and context is paid per window, not per file). Results come in file order; a problem with a file
    as a whole is one more result with no index, after the cases of that file read before it."""
    window = window or STREAM_WINDOW
    items: list[tuple[str, Any]] = []
    values = nbytes = 0

    def full() -> bool:
        return len(items) >= window or values >= STREAM_WINDOW_VALUES or nbytes >= STREAM_WINDOW_DATA_BYTES

    # what the file being read remembers of its repeated lines (`Repeats`): the cases of its lines, and now their
    # verdicts, so that a case that comes again in a later window is not checked again (the files before it in the
    # window are read to their end: their cases come no more)
    repeats: Repeats | None = None

    def memo() -> VerdictMemo | None:
        return repeats if repeats is not None and repeats.has_cases() else None  # none: a file of distinct lines

    for path, entries in sources:
        it = iter(entries)
        flow = getattr(entries, "flow", None)  # a pipe's writer may pause: what came so far is checked meanwhile
        repeats = getattr(entries, "repeats", None)
        taken = 0
        more = True
        while more:  # the window is checked outside the `try`: only reading the file's entries is its problem
            paused = False
            try:
                add = items.append
                for entry in it:  # a million entries may pass here: the window's bounds move only with data
                    add((path, entry))
                    case = entry.case
                    if case is None or case.data_sources:
                        more_values, more_bytes = data_weight(entry)
                        values += more_values
                        nbytes += more_bytes
                        if full():
                            break
                    elif len(items) >= window:
                        break
                    if flow is not None:
                        taken += 1
                        if taken >= flow.handed_out:  # every entry read so far is here
                            if not flow.live:
                                flow = None  # a regular file: no pauses to watch for
                            elif flow.idle():
                                paused = True
                                break
                else:
                    more = False
            except InputError as exc:
                items.append((path, exc))
                more = False
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM while waiting for more: what was read is checked first
                if items:
                    yield from checked_items(items, cache, memo())
                raise
            if full() or (paused and items):
                yield from checked_items(items, cache, memo())
                items, values, nbytes = [], 0, 0
    if items:
        yield from checked_items(items, cache, memo())


def max_bytes_option(f: Callable) -> Callable:
    """``--max-bytes N`` and ``--data-root DIR``: the bounds of reading a command's input files (`caseio.read_limits`
    for the whole command). Every command that reads case files takes this option."""

    @functools.wraps(f)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        data_root = kwargs.pop("data_root", None)
        with read_limits(data_root=data_root, max_bytes=kwargs.get("max_bytes")):
            return f(*args, **kwargs)

    bounded = click.option(
        "--data-root", type=click.Path(exists=True, file_okay=False, dir_okay=True), default=None, metavar="DIR",
        help="Read tensor data files only from under DIR (default: the folder of their case file, for standard "
             "input the current folder); paths that resolve outside are refused.")(bounded)
    return click.option("--max-bytes", type=click.IntRange(min=1), default=MAX_FILE_BYTES, show_default=True,
                        metavar="N", help="Refuse input files (case and data files, standard input) larger than N "
                                          "bytes.")(bounded)


#: Files smaller than this are checked in one process: starting workers, and rules paid per (API, context) in each
#: worker's smaller chunks, cost more than they save (2 workers on 2 shared cores: slower at 5.6 MB / 20,000 mixed
#: cases, faster at 14 MB / 50,000; bench/RESULTS.md).
PARALLEL_MIN_BYTES = 12 << 20
#: Lines of a JSON Lines file a worker checks at a time (``--workers``): as many as the serial path checks at once
#: (`STREAM_WINDOW`), so that the rules' cost per API and context is spread over as many cases. With 8,192 a worker
#: spent about twice as long per case, and two workers took longer than one process (bench/RESULTS.md).
PARALLEL_CHUNK_LINES = STREAM_WINDOW
#: ... and at least this many, however small the file.
PARALLEL_MIN_CHUNK_LINES = 4096
#: Bytes of text in one chunk at most (a chunk of long lines, cases with inline data, has fewer lines): the parent
#: holds the chunks in flight, and each worker one.
PARALLEL_CHUNK_BYTES = 32 << 20
#: Lines read from the start of a file to estimate its number of lines (`parallel_chunk_lines`).
PARALLEL_SAMPLE_LINES = 256
#: Lines in flight among all workers at most (memory bounded however many cores): with many workers, smaller chunks.
PARALLEL_FLIGHT_LINES = 4 * STREAM_WINDOW


def parallel_chunk_lines(size: int, sample: Sequence[bytes], jobs: int) -> int:
    """Lines per worker chunk for a JSON Lines file of ``size`` bytes that starts with the lines ``sample``:
    `PARALLEL_CHUNK_LINES`, or fewer when the file (its lines estimated from the sample's mean length) would not
    give each of the ``jobs`` workers a chunk of that size (then it is shared evenly), or when the ``jobs + 1``
    chunks in flight would hold more than `PARALLEL_FLIGHT_LINES`."""
    jobs = max(1, jobs)
    mean = max(1.0, sum(len(line) + 1 for line in sample) / max(1, len(sample)))
    estimate = math.ceil(size / mean)
    most = min(PARALLEL_CHUNK_LINES, PARALLEL_FLIGHT_LINES // (jobs + 1))
    return max(PARALLEL_MIN_CHUNK_LINES, min(most, -(-estimate // jobs)))


def model_for(name: str, field: str = "API") -> Any:
    """The model an API name (any accepted spelling) names; InputError naming ``field`` and the known APIs."""
    m = lookup_api(name)
    if m is None:
        hint = did_you_mean(name, api_names())
        known = "" if hint else f" (known: {', '.join(a.name for a in apis())})"
        raise InputError(f"unknown API {name!r}{hint}{known}", field=field)
    return m


def product_for(name: str, field: str = "--product") -> Any:
    """The product an id or alias names; InputError naming ``field`` (the option or argument it came from)."""
    return read_product(name, field)


def supported_type(model: Any, product: Any, dtype: str | None) -> str:
    """The element type a command runs ``model`` with on ``product``: ``dtype`` (any accepted name) or the first
    type the product supports; InputError (bad input, exit 2) for an unsupported product or type."""
    return read_supported_type(model, product, dtype, "--product", "--dtype")


# -- `-` is standard input and standard output -------------------------------------------------------------------

_STDIN: dict[str, bytes] = {}


def source_bytes(path: str, max_bytes: int) -> bytes:
    """The bytes of a case file; ``-`` is standard input, read once however often a command asks."""
    if path != "-":
        return read_bytes(path, max_bytes)
    if "-" not in _STDIN:
        _STDIN["-"] = read_bytes("-", max_bytes)
    return _STDIN["-"]


def entries_of(path: str, max_bytes: int) -> Iterable[Any]:
    """The entries of a case file (`read_cases`), standard input read once for a command that reads it twice."""
    if path == "-":
        return cases_from_bytes(source_bytes(path, max_bytes), path)
    return read_cases(path, max_bytes)


def is_stdout(out: str | None) -> bool:
    """``-o -``: write to standard output."""
    return out == "-"


def folder_option_value(out: str, field: str = "-o") -> str:
    """An output folder: ``-`` (standard output) is not one."""
    if out == "-":
        raise InputError("needs a folder; - (standard output) cannot hold the files this command writes", field=field)
    return out



#: The file beside NAME.npy that marks the elements holding no defined value (bool, one flag per element).
UNSPECIFIED_SUFFIX = ".unspecified.npy"


def save_tensor(outdir: Path, name: str, arr: Any, dtype: str, unspecified: Any, folder: Any = None) -> dict[str, Any]:
    """Write NAME.npy and NAME.bin (little-endian), and NAME.unspecified.npy when some element is unspecified (those
    elements hold all bits set in NAME.npy and NAME.bin, a NaN in float types: `core.unspecified.blanked`);
    the tensor's entry of run.json.

    Every file goes through ``folder`` (an `ascverify.engines.outputs.OutputFolder`: confined, never over an input file)
    when given, else is confined to ``outdir``."""
    import numpy as np

    def write(rel: str, writer: Callable[[Any], None]) -> None:
        if folder is not None:
            folder.write_bytes(rel, writer)
        else:
            atomic_write(confined(outdir, rel), writer)

    le = np.ascontiguousarray(blanked(arr, unspecified)).astype(arr.dtype.newbyteorder("<"), copy=False)
    write(f"{name}.npy", lambda f: np.save(f, le, allow_pickle=False))
    element = lookup_dtype(dtype)
    raw = element.to_bytes(le) if element is not None and element.bits < 8 else le  # int4b_t: packed, as in a buffer
    write(f"{name}.bin", lambda f: f.write(raw.tobytes()))
    entry: dict[str, Any] = {"npy": f"{name}.npy", "bin": f"{name}.bin", "dtype": dtype, "size": int(le.size),
                             "unspecified": int(np.count_nonzero(unspecified))}
    if entry["unspecified"]:
        marks = np.ascontiguousarray(unspecified, dtype=bool)
        write(f"{name}{UNSPECIFIED_SUFFIX}", lambda f: np.save(f, marks, allow_pickle=False))
        entry["unspecified_npy"] = f"{name}{UNSPECIFIED_SUFFIX}"
    return entry


def tensor_files(name: str) -> tuple[str, ...]:
    """The files `save_tensor` may write for tensor ``name``."""
    return (f"{name}.npy", f"{name}.bin", f"{name}{UNSPECIFIED_SUFFIX}")


def clashing_tensor(names: Iterable[str]) -> tuple[str, str, str] | None:
    """Two tensors whose files (`tensor_files`) would share a name, as ``(tensor, other, file)`` (``z.unspecified``
    and ``z``: the first's values and the second's unspecified-elements mask are both ``z.unspecified.npy``), the
    longer name first; None when every file is a single tensor's. Names are compared as a case-insensitive file
    system (macOS's, Windows') compares them: ``A.npy`` and ``a.npy`` are one file there, so a program's output does
    not depend on the system it was written on."""
    owner: dict[str, str] = {}
    for name in names:
        for f in tensor_files(name):
            other = owner.setdefault(f.casefold(), name)
            if other != name:
                first, second = sorted((name, other), key=lambda n: (-len(n), n))
                return first, second, f if name == first else next(g for g in tensor_files(other)
                                                                       if g.casefold() == f.casefold())
    return None


def unspecified_lines(loc: str, written: dict[str, dict[str, Any]]) -> list[str]:
    """``LOC: note: NAME: K of N elements unspecified (NAME.unspecified.npy)`` per tensor that has any."""
    return [f"{loc}: note: {name}: {e['unspecified']} of {e['size']} elements unspecified ({e['unspecified_npy']})"
            for name, e in written.items() if e.get("unspecified")]


def unspecified_summary(written: dict[str, dict[str, Any]]) -> str:
    """``; K elements unspecified in NAME, ...`` for the summary line (empty when every element is defined)."""
    parts = [f"{e['unspecified']} in {name}" for name, e in written.items() if e.get("unspecified")]
    return f"; elements unspecified: {', '.join(parts)}" if parts else ""


def output_dir(out: str) -> Path:
    return make_dir(Path(out), field="-o")


FORCE_OPTION = click.option("--force", is_flag=True,
                            help="Write into DIR even when it is not empty and holds no earlier output of this "
                                 "command (files of the same names are overwritten; input files never are, and "
                                 "nothing ascverify did not write is ever deleted).")


def one_case(path: str, index: int, max_bytes: int) -> Case:
    """Case ``index`` of a file; InputError (located in the file) when it cannot be read."""
    return one_case_entry(path, index, max_bytes).case


def one_case_entry(path: str, index: int, max_bytes: int) -> Any:
    """Entry ``index`` of a file (``.case`` parsed with its data loaded, ``.raw`` the JSON document); InputError
    (located in the file) when it cannot be read."""
    count = 0
    for entry in entries_of(path, max_bytes):
        count += 1
        if entry.index != index:
            continue
        origin = location(path, index)
        if entry.error is not None:
            raise bare_error(entry.error, path, origin).at(origin)
        try:
            DataCache().load(entry.case)
        except InputError as exc:
            raise bare_error(exc, path, origin).at(origin) from None
        return entry
    raise InputError(f"no case {index}: the file holds {plural(count, 'case')}", where=path, field="--index")
