"""Output folders that ascverify writes into, safely: confined, never clobbering input files or other people's files.

`OutputFolder` is what `run -o`, `gen -o` (and the program form of `run`) write through:

- every path is `confined` to the folder (no ``..``, no absolute path, no symbolic link out of it);
- the folder must be empty, absent, or an earlier output of the same command, recognised by the
  manifest that command writes (``run.json`` with ``"format": "ascverify-run/1"``, ``manifest.json``
  with ``"format": "ascverify-gen/1"``) whose ``"files"`` list names every file it wrote; anything else
  is refused unless ``--force``;
- a file that exists and the earlier manifest does not list is not overwritten unless ``--force``; a
  file the earlier manifest does not list is never deleted, not even with ``--force``;
- an input of the case being run (its case file, its data files) is never overwritten, whatever the
  folder and the options: compared by resolved path and by device and inode (hard links).

The manifest lists, before anything is written, the files the earlier output listed plus the files
this run is about to write (and, when done, exactly what is there), so a run killed half way leaves a
folder the next run still recognises.

Environment errors (read-only folder, disk full, name too long, a folder where a file should be) become
`OutputError`: one line naming the path and the OS error, exit status 2.

Temporary folders (`owned_temp_dir`) carry an owner marker (tool, host, process id, time); a later run
removes those whose name matches the writer's pattern, whose marker is ascverify's, that were made
before it started and whose process is gone (or, made on another host, more than `STALE_SECONDS` ago), and
only when everything in them is what that writer puts there (its layout: `GEN_CASE_LAYOUT`, `FINDING_LAYOUT`);
a folder holding anything else (another name, a symbolic link, a FIFO, a sub-folder off the layout) is left as it
is, with a note on standard error. Manifests and markers are parsed depth-bounded (`load_json`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import orjson

from ..cases.bounded_read import file_kind
from ..cases.safe_names import EscapeError, confined
from ..cases.sources import read_bytes
from ..spec.errors import InputError, one_line, shown_path
from . import interrupts

#: The marker file inside a temporary folder of ascverify's.
OWNER_FILE = ".ascverify-owner"
#: A temporary folder made on another host is stale after this long (its process cannot be asked).
STALE_SECONDS = 3600.0


class OutputError(InputError):
    """An output that cannot be written (exit status 2)."""


def shown(path: Any) -> str:
    return one_line(str(path))


def os_error(exc: OSError, path: Any = None, *, field: str = "", action: str = "cannot write") -> OutputError:
    """One line for an OSError: the path (the one given, else the error's) and the OS's words."""
    where = path if path is not None else (exc.filename if exc.filename is not None else "")
    reason = exc.strerror or (errno.errorcode.get(exc.errno or 0) if exc.errno else None) or str(exc) or type(exc).__name__
    return OutputError(f"{action}: {reason}", where=shown(where) if where != "" else "", field=field)


#: errno values that are the machine's, not ascverify's: mapped to exit status 2 wherever they surface.
ENVIRONMENT_ERRNOS = frozenset(e for e in (errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENAMETOOLONG,
                                           errno.EISDIR, errno.ENOTDIR, errno.EDQUOT, errno.EEXIST,
                                           errno.EMFILE, errno.ENFILE, errno.EFBIG, errno.ELOOP, errno.EIO,
                                           errno.EBADF,  # a standard stream the process was started without
                                           getattr(errno, "ENOTEMPTY", None)) if e is not None)


#: A file option's value that names standard output (``--report -``, ``--svg -``).
STDOUT = "-"


def is_stdout(path: Any) -> bool:
    """The option names standard output (``-``), not a file."""
    return path is not None and str(path) == STDOUT


def shown_output(path: Any) -> str:
    """A file option's value as a summary line names it: its path, or "standard output"."""
    return "standard output" if is_stdout(path) else shown(path)


def check_distinct_outputs(named: Iterable[tuple[str, str | None]]) -> None:
    """Refuse two options that name the same file (the later write would replace what the earlier one wrote, and a
    report the user asked for would be lost without a word), standard output (``-``) included: OutputError naming
    both options. A character device or a FIFO (``/dev/null`` for every report) may take several."""
    seen: dict[str, str] = {}
    for field, path in named:
        if not path:
            continue
        if is_stdout(path):
            if STDOUT in seen:
                raise OutputError(f"standard output (-) is also the output of {seen[STDOUT]}: give one of them a file",
                                  field=field)
            seen[STDOUT] = field
            continue
        real = os.path.realpath(path)
        try:
            mode = os.stat(real).st_mode
            if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
                continue
        except OSError:
            pass  # not there yet: a new file
        if real in seen:
            raise OutputError(f"is also the file of {seen[real]}: give each output its own file", where=shown(path),
                              field=field)
        seen[real] = field


#: Whether this command has written to standard output (results through `_write_stdout` and the CLI's `emit`): a
#: JSON error document must not follow what is already there.
STDOUT_WRITTEN = {"written": False}


def _write_stdout(writer: Callable[[Any], None]) -> None:
    """``writer`` given standard output's binary stream (a closed pipe stays BrokenPipeError: a quiet stop)."""
    STDOUT_WRITTEN["written"] = True
    try:
        sys.stdout.flush()
        out = sys.stdout.buffer
        writer(out)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise os_error(exc, "standard output") from None


def check_file_path(path: str, field: str, inputs: "Inputs | None" = None, *, probe: bool = False) -> Path:
    """``path`` can be written as one file: a name not too long, not a folder, its nearest existing parent a
    folder, not an input of the command; OutputError (one line, exit status 2) otherwise. Checked before the
    work that fills it. ``-`` is standard output: nothing to check. ``probe`` (before a long campaign): a file is
    created and removed in that parent, as `atomic_write` will create one there (permission bits do not tell:
    root may not write /sys or /proc either)."""
    p = Path(path)
    if is_stdout(path):
        return p
    if not p.name or len(os.fsencode(p.name)) > 255:
        raise OutputError("cannot write: not a file name" if not p.name else
                          f"cannot write: File name too long ({len(os.fsencode(p.name))} bytes)",
                          where=shown(path), field=field)
    try:
        if p.is_dir():
            raise OutputError("is a folder; give the path of a file", where=shown(path), field=field)
        refuse_unwritable_kind(p, field)
        for parent in (p.parent, *p.parent.parents):
            if parent.exists():
                if not parent.is_dir():
                    raise OutputError(f"cannot write: {shown(parent)} is not a folder", where=shown(path), field=field)
                break
        if probe:
            import tempfile  # here, not at module level: `check` starts without tempfile, shutil and socket

            fd, tmp = tempfile.mkstemp(dir=parent, prefix=".ascverify-probe-")
            os.close(fd)
            os.unlink(tmp)
    except OSError as exc:
        raise os_error(exc, path, field=field) from None
    what = inputs.which(p) if inputs is not None else None
    if what:
        raise OutputError(f"is {what}: an input is never overwritten; choose another file", where=shown(path),
                          field=field)
    return p


def refuse_unwritable_kind(path: Path, field: str = "") -> None:
    """OutputError (nothing written) when ``path`` exists, or a link leads, to what a file option never writes: a
    block device or a socket (a regular file, a character device such as /dev/null or /dev/stdout, a FIFO are
    written; a missing file is created)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing (created later), or a loop of links and the like: the writing names it
        return
    if not (stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISDIR(mode)):
        raise OutputError(f"is {file_kind(mode)}, not a file: nothing written", where=shown(path), field=field)


def is_environment_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS


def umask() -> int:
    """The process's file creation mask (read without changing it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, writer: Callable[[Any], None]) -> None:
    """Write ``path`` through a temporary file in the same folder, then rename: never half a file.

    An OSError (a read-only folder, a full disk, a name too long, a folder in the way) becomes an
    `OutputError` naming ``path``: exit status 2, one line."""
    import tempfile  # here, not at module level: `check` starts without tempfile, shutil and socket

    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise os_error(exc, path) from None
    try:
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp makes 0600; give the file the permissions open() would
        with os.fdopen(fd, "wb") as f:
            writer(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise os_error(exc, path) from None
        raise


def write_named_file(path: Path, writer: Callable[[Any], None]) -> None:
    """Write a file the user named on the command line (``--report``, ``--svg``, ``fix -o``): a new or regular file
    atomically (`atomic_write`); a symbolic link, a character device or a FIFO written through, as a shell
    redirection does (``--report /dev/null``, ``--svg /dev/stdout``), since a rename would replace the device or
    the link (as root, /dev/null became a regular file); a block device or a socket is refused; ``-`` is standard
    output (the text written so far flushed first). OSError -> OutputError."""
    if is_stdout(path):
        _write_stdout(writer)
        return
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise os_error(exc, path) from None
    if st is None or stat.S_ISREG(st.st_mode):
        atomic_write(path, writer)
        return
    try:
        mode = os.stat(path).st_mode  # where a link leads (a dangling link: written through, as by the shell)
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise os_error(exc, path) from None
    if mode is not None:
        refuse_unwritable_kind(path)
    try:
        with open(path, "wb") as f:
            writer(f)
            f.flush()
    except OSError as exc:
        raise os_error(exc, path) from None


def atomic_write_bytes(path: Path, writer: Callable[[Any], None], *, mode: int | None = None) -> None:
    """Write ``path`` through a temporary file in its folder and a rename: never half a file; OSError -> OutputError."""
    atomic_write(path, writer)
    if mode is not None:
        try:
            os.chmod(path, mode)
        except OSError as exc:
            raise os_error(exc, path) from None


def make_dir(path: Path, *, field: str = "", mode: int = 0o777) -> Path:
    """``mkdir -p`` with one-line errors (an existing file in the way, a read-only parent, a name too long)."""
    if path.exists() and not path.is_dir():
        raise OutputError("exists and is not a directory", where=shown(path), field=field)
    try:
        path.mkdir(parents=True, exist_ok=True, mode=mode)
    except OSError as exc:
        raise os_error(exc, path, field=field, action="cannot create the folder") from None
    return path


# -- inputs ----------------------------------------------------------------------------------------------------------

def _identity(path: Path) -> tuple[str, tuple[int, int] | None]:
    try:
        resolved = str(path.resolve())
    except (OSError, RuntimeError):
        resolved = os.path.abspath(path)
    try:
        st = os.stat(path)
        ino = (st.st_dev, st.st_ino)
    except OSError:
        ino = None
    return resolved, ino


class Inputs:
    """Files a run reads (a case file and its data): never to be overwritten or deleted by that run."""

    def __init__(self, paths: Iterable[tuple[Path, str]] = ()) -> None:
        self.paths: dict[str, str] = {}
        self.inodes: dict[tuple[int, int], str] = {}
        for p, what in paths:
            self.add(p, what)

    def add(self, path: Path | str, what: str) -> None:
        resolved, ino = _identity(Path(path))
        self.paths.setdefault(resolved, what)
        if ino is not None:
            self.inodes.setdefault(ino, what)

    def update(self, other: "Inputs") -> None:
        """Add the inputs of ``other``."""
        for resolved, what in other.paths.items():
            self.paths.setdefault(resolved, what)
        for ino, what in other.inodes.items():
            self.inodes.setdefault(ino, what)

    def which(self, path: Path) -> str | None:
        """What ``path`` is an input as (None when it is none of them)."""
        resolved, ino = _identity(path)
        if resolved in self.paths:
            return self.paths[resolved]
        if ino is not None and ino in self.inodes:
            return self.inodes[ino]
        return None


def case_inputs(case_file: str, cases: Iterable[Any], raws: Iterable[Any] = ()) -> Inputs:
    """The case file and every data file the cases (or the calls of a program) name: each tensor's ``data`` and
    any other ``"data": "PATH"`` of the raw documents (register values), relative to the case file's folder."""
    inputs = Inputs()
    if case_file != "-":
        inputs.add(Path(case_file), "the case file")
    base_default = Path(case_file).resolve().parent if case_file != "-" else Path.cwd()
    for case in cases:
        base = getattr(case, "base_dir", None)
        for name, src in getattr(case, "data_sources", {}).items():
            if isinstance(src, str):
                p = Path(src)
                if not p.is_absolute() and base is not None:
                    p = Path(base) / p
                inputs.add(p, f"the data of tensor {name}")

    def walk(x: Any, depth: int = 0) -> None:
        if depth > 50:
            return
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "data" and isinstance(v, str) and v and "\x00" not in v:
                    p = Path(v)
                    inputs.add(p if p.is_absolute() else base_default / p, f"a data file of the case ({v!r})")
                else:
                    walk(v, depth + 1)
        elif isinstance(x, list):
            for v in x[:100_000]:
                if isinstance(v, (dict, list)):
                    walk(v, depth + 1)

    for raw in raws:
        walk(raw)
    return inputs


# -- earlier outputs -------------------------------------------------------------------------------------------------

def _listed(files: Any) -> set[str] | None:
    if not isinstance(files, list):
        return None
    out = set()
    for f in files:
        if isinstance(f, str) and f and not f.startswith("/") and ".." not in Path(f).parts:
            out.add(f)
    return out


#: The largest manifest read (one lists the files of an output folder).
MANIFEST_MAX_BYTES = 256 << 20
#: The largest owner marker read (a few fields).
OWNER_MAX_BYTES = 4096


#: orjson's words for a document nested deeper than it reads (1024 levels).
_TOO_DEEP = "depth limit exceeded"
_NON_FINITE = (b"NaN", b"Infinity")


def load_json(raw: bytes) -> Any:
    """The JSON value of ``raw``, parsed depth-bounded: orjson, which refuses more than 1024 levels of nesting with
    a ValueError (the standard library's parser recursed into a RecursionError, exit status 3). A document holding
    NaN or Infinity (the standard library writes them; orjson refuses them) is read again by the standard library,
    its nesting bounded by orjson's pass; ValueError when ``raw`` is not JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if _TOO_DEEP in str(exc) or not any(word in raw for word in _NON_FINITE):
            raise ValueError(str(exc)) from None
    try:
        return json.loads(raw)
    except RecursionError:  # deeper after the literal orjson stopped at
        raise ValueError("nested too deep") from None


def read_manifest(path: Path, fmt: str, legacy: Callable[[dict], set[str] | None] | None = None) -> set[str] | None:
    """The files an earlier output's manifest lists (None when ``path`` is not such a manifest: unreadable, not
    JSON, nested too deep, not an object, its fields of other types)."""
    try:  # a regular file, read within a bound (the folder may be anyone's: a FIFO there would block)
        doc = load_json(read_bytes(str(path), MANIFEST_MAX_BYTES))
    except (InputError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict):
        return None
    if doc.get("format") == fmt:
        listed = _listed(doc.get("files"))
        if listed is not None:
            return listed
    if legacy is not None and doc.get("format") in (None, fmt):
        try:
            return legacy(doc)
        except (AttributeError, TypeError, KeyError, ValueError):
            return None
    return None


class OutputFolder:
    """A folder a command writes into (see the module's description)."""

    def __init__(self, root: Path, *, manifest: str, fmt: str, force: bool = False, inputs: Inputs | None = None,
                 legacy: Callable[[dict], set[str] | None] | None = None, field: str = "-o",
                 ignore: Callable[[str], bool] | None = None) -> None:
        self.root = root
        self.manifest = manifest
        self.fmt = fmt
        self.force = force
        self.inputs = inputs or Inputs()
        self.field = field
        make_dir(root, field=field)
        listed = read_manifest(root / manifest, fmt, legacy)
        self.earlier: set[str] = listed or set()
        self.recognised = listed is not None and (root / manifest).exists()
        try:
            entries = [p.name for p in root.iterdir()]
        except OSError as exc:
            raise os_error(exc, root, field=field, action="cannot list") from None
        foreign = [n for n in entries if not (ignore and ignore(n))]
        if foreign and not self.recognised and not force:
            some = ", ".join(shown(n) for n in sorted(foreign)[:3]) + (", ..." if len(foreign) > 3 else "")
            raise OutputError(f"is not empty ({some}) and holds no earlier output of this command; choose an empty or "
                              f"new folder, or give --force (files ascverify did not write are still never deleted)",
                              where=shown(root), field=field)
        self.written: list[str] = []

    # -- paths -------------------------------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        """The confined path of ``rel``; refuses an input file of the run."""
        p = confined(self.root, rel)
        what = self.inputs.which(p)
        if what is not None:
            raise OutputError(f"refused: would overwrite {what}; choose another output folder",
                              where=shown(p), field=self.field)
        return p

    def check_planned(self, rels: Iterable[str]) -> None:
        """Before writing anything: each planned file is confined, not an input, and (unless --force) either absent
        or listed by the earlier output."""
        for rel in rels:
            p = self.path(rel)
            if p.is_dir() and not p.is_symlink():
                raise OutputError("exists and is a folder, not a file ascverify wrote", where=shown(p), field=self.field)
            if not self.force and (p.exists() or p.is_symlink()) and rel not in self.earlier and rel != self.manifest:
                raise OutputError("exists and was not written by ascverify (the folder's manifest does not list it); "
                                  "move it or give --force to overwrite it", where=shown(p), field=self.field)

    def record(self, rel: str) -> None:
        if rel not in self.written:
            self.written.append(rel)

    def write_bytes(self, rel: str, writer: Callable[[Any], None]) -> Path:
        p = self.path(rel)
        atomic_write_bytes(p, writer)
        self.record(rel)
        return p

    def remove_stale(self, rels: Iterable[str]) -> list[str]:
        """Delete those of ``rels`` that the earlier output listed and this run did not write (never an input)."""
        removed = []
        for rel in rels:
            if rel not in self.earlier or rel in self.written:
                continue
            try:
                p = confined(self.root, rel)
            except EscapeError:
                continue
            if self.inputs.which(p) is not None or p.is_dir() and not p.is_symlink():
                continue
            try:
                p.unlink()
                removed.append(rel)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise os_error(exc, p, field=self.field, action="cannot remove") from None
        return removed

    def kept_from_earlier(self) -> list[str]:
        """Files the earlier output listed that are still there and this run did not write (listed again, so that a
        later run may still remove them)."""
        out = []
        for rel in sorted(self.earlier - set(self.written)):
            try:
                p = confined(self.root, rel)
            except EscapeError:
                continue
            if p.is_file() or p.is_symlink():
                out.append(rel)
        return out


# -- owned temporary folders -----------------------------------------------------------------------------------------

def owned_temp_dir(parent: Path, prefix: str) -> Path:
    """A new private (0700) folder ``parent/PREFIXrandom`` with an owner marker inside."""
    import shutil
    import socket
    import tempfile

    # the folder and its marker come together: a signal between the two left an empty folder no run could prove
    # its own (and so none removed); it waits for the marker and is raised after it (`interrupts.checkpoint`)
    with interrupts.deferred():
        try:
            tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        except OSError as exc:
            raise os_error(exc, parent) from None
        try:
            (tmp / OWNER_FILE).write_text(json.dumps({"tool": "ascverify", "host": socket.gethostname(),
                                                      "pid": os.getpid(), "created": time.time()}) + "\n")
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):  # a full disk: the error of a file write names no file
                raise os_error(exc, parent) from None
            raise
    try:
        interrupts.checkpoint()
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def release_temp_dir(tmp: Path) -> None:
    """Remove the owner marker before the folder is renamed into place."""
    try:
        (tmp / OWNER_FILE).unlink()
    except FileNotFoundError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return True


#: A tensor's name in a file name (`ascverify.cases.safe_names`: word characters, ``.``, ``-``, ``+``).
_TENSOR = r"\w[\w.+-]*"
#: What `gen` puts in a temporary case folder (``gen.output._write_case_dir``), relative to it, a folder with a
#: trailing ``/``: case.json, inputs/NAME.bin, golden/NAME.bin, golden/NAME.unspecified.bin.
GEN_CASE_LAYOUT = re.compile(rf"case\.json|(?:inputs|golden)/(?:{_TENSOR}\.bin)?")
#: What `fuzz` puts in a temporary finding folder (``fuzz.reproducers.save_finding``): case.json, finding.json,
#: coverage.json, diff.txt, inputs/, expected/ and actual/ NAME.bin and NAME.npy (expected/NAME.defined.npy).
FINDING_LAYOUT = re.compile(rf"(?:case|finding|coverage)\.json|diff\.txt|(?:inputs|expected|actual)/"
                            rf"(?:{_TENSOR}\.(?:bin|npy))?")
#: The layout of a temporary folder whose writer passes none, by the writer's name pattern; any other pattern:
#: the owner marker alone (`NOTHING`).
NOTHING = re.compile(r"(?!)")
TEMP_LAYOUTS: dict[str, re.Pattern[str]] = {r"\.tmp-[0-9a-f]{16}-[A-Za-z0-9_]+": FINDING_LAYOUT}
#: The most entries looked at in a temporary folder (a case or a finding has a few per tensor).
TEMP_ENTRIES_MAX = 10_000


def _owner(path: Path) -> dict[str, Any] | None:
    """The owner marker in the folder ``path`` when it is ascverify's (a JSON object whose ``tool`` is ascverify),
    else None: absent, not a regular file, larger than `OWNER_MAX_BYTES`, not JSON, nested too deep, another type."""
    try:  # a regular file, read within a bound: a FIFO or a link to /dev/zero there is someone else's marker
        doc = load_json(read_bytes(str(path / OWNER_FILE), OWNER_MAX_BYTES))
    except (InputError, ValueError, UnicodeDecodeError):
        return None
    return doc if isinstance(doc, dict) and doc.get("tool") == "ascverify" else None


def foreign_entry(folder: Path, layout: re.Pattern[str]) -> str | None:
    """The first entry of ``folder`` (relative to it) that its writer does not put there: a name off ``layout``
    (folders matched with a trailing ``/``), a symbolic link, a FIFO, a device, a socket; the owner marker is the
    writer's when it is a regular file. None when everything fits (an empty folder does). An unlistable folder,
    or one of more than `TEMP_ENTRIES_MAX` entries, is reported as ``.``, never walked further."""
    stack: list[tuple[str, str]] = [("", str(folder))]
    seen = 0
    try:
        while stack:
            prefix, d = stack.pop()
            with os.scandir(d) as entries:
                for e in entries:
                    seen += 1
                    rel = prefix + e.name
                    if seen > TEMP_ENTRIES_MAX:
                        return "."
                    if e.is_symlink():
                        return rel
                    if e.is_dir(follow_symlinks=False):
                        if layout.fullmatch(rel + "/") is None:
                            return rel + "/"
                        stack.append((rel + "/", e.path))
                    elif not e.is_file(follow_symlinks=False):
                        return rel
                    elif not (rel == OWNER_FILE or layout.fullmatch(rel)):
                        return rel
    except OSError:
        return "."
    return None


def is_temp_of_ours(path: Path, pattern: re.Pattern[str], layout: re.Pattern[str]) -> bool:
    """``path`` may be a temporary folder of ascverify's, finished or not: its name matches ``pattern``, it is a
    folder (not a link), everything in it fits ``layout`` and its owner marker, when there, is ascverify's. Anything
    else there is someone else's (an output folder holding it is not empty)."""
    if pattern.fullmatch(path.name) is None or path.is_symlink() or not path.is_dir():
        return False
    if foreign_entry(path, layout) is not None:
        return False
    return not (os.path.lexists(path / OWNER_FILE) and _owner(path) is None)


def temps_of_ours(parent: Path, pattern: re.Pattern[str], layout: re.Pattern[str]) -> Callable[[str], bool]:
    """For `OutputFolder`'s ``ignore``: the entry of ``parent`` so named is a temporary folder of ascverify's
    (`is_temp_of_ours`), which does not make the folder someone else's."""
    return lambda name: is_temp_of_ours(parent / name, pattern, layout)


def is_stale_temp(path: Path, pattern: re.Pattern[str], started: float) -> bool:
    """``path`` is a temporary folder of ascverify's whose writer is gone (see the module's description); what is
    in it is not looked at here (`foreign_entry`)."""
    import socket

    if pattern.fullmatch(path.name) is None or path.is_symlink() or not path.is_dir():
        return False
    doc = _owner(path)
    if doc is None:
        return False
    created, pid, host = doc.get("created"), doc.get("pid"), doc.get("host")
    if isinstance(created, bool) or not isinstance(created, (int, float)) or created >= started:
        return False
    if host == socket.gethostname() and isinstance(pid, int) and not isinstance(pid, bool) and pid > 0:
        return pid != os.getpid() and not _alive(pid)
    return time.time() - created > STALE_SECONDS


def _remove_layout(path: Path, layout: re.Pattern[str]) -> None:
    """Delete the files of ``layout`` in ``path``, then its folders and the marker, then ``path``: one by one, so
    that anything that came meanwhile stays (with the folders holding it); errors are passed over."""
    for dirpath, _dirs, files in sorted(os.walk(path), key=lambda w: -len(w[0])):
        prefix = os.path.relpath(dirpath, path).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        for name in files:
            full = os.path.join(dirpath, name)
            if layout.fullmatch(prefix + name) and not os.path.islink(full):
                try:
                    os.unlink(full)
                except OSError:
                    pass
        if prefix:
            try:
                os.rmdir(dirpath)
            except OSError:
                pass
    try:
        if foreign_entry(path, layout) is None:
            os.unlink(path / OWNER_FILE)
        os.rmdir(path)
    except OSError:
        pass


def _note_kept(path: Path, entry: str) -> None:
    """One line on standard error: a stale-looking temporary folder is kept, and why."""
    try:
        sys.stderr.write(one_line(f"ascverify: note: {shown_path(str(path))}: left as it is: holds files ascverify does not write "
                                  f"({shown_path(entry)})") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def clean_stale_temps(parent: Path, pattern: re.Pattern[str], started: float,
                      layout: re.Pattern[str] | None = None) -> list[str]:
    """Remove the stale temporary folders of ascverify's in ``parent`` (quietly skipping what cannot be removed).

    Only a folder everything in which fits ``layout`` (default: the writer's, from `TEMP_LAYOUTS` by ``pattern``;
    else the marker alone) is removed, file by file; one holding anything else is left as it is, with a note on
    standard error naming it (its marker may be forged: the folder may be anyone's)."""
    if layout is None:
        layout = TEMP_LAYOUTS.get(pattern.pattern, NOTHING)
    removed = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for p in entries:
        if is_stale_temp(p, pattern, started):
            foreign = foreign_entry(p, layout)
            if foreign is not None:
                _note_kept(p, foreign)
                continue
            _remove_layout(p, layout)
            if not os.path.lexists(p):
                removed.append(p.name)
    return removed
