"""What reading may touch, and reading it: the read limits, data file paths confined to the data root, case files
and tensor data (.npy, raw .bin, inline lists) read within those limits."""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..spec.dtypes import DType
from ..spec.errors import InputError, one_line
from .bounded_read import LineReader, NotRegular, open_regular, opened_path, read_at_most
from .fields import expected_number, literal_text, short

#: Files larger than this are refused (a case file is text; a multi-GiB file is a mistake).
MAX_FILE_BYTES = 1 << 30


# -- where data files may be, and how much is read ----------------------------------------------------------------

@dataclass(frozen=True)
class ReadLimits:
    """What reading a case may touch: data files only under ``data_root`` (None: the case file's folder), and
    no input file larger than ``max_bytes``."""

    data_root: Path | None = None
    max_bytes: int = MAX_FILE_BYTES


_LIMITS: ContextVar[ReadLimits] = ContextVar("ascverify_read_limits", default=ReadLimits())


@contextmanager
def read_limits(*, data_root: str | os.PathLike | None = None, max_bytes: int | None = None) -> Iterator[ReadLimits]:
    """Within the block, data files must lie under ``data_root`` (instead of the folder of their case file) and
    no data file may be larger than ``max_bytes``. The CLI's ``--data-root`` and ``--max-bytes`` set these."""
    current = _LIMITS.get()
    limits = ReadLimits(Path(os.path.realpath(data_root)) if data_root is not None else current.data_root,
                        max_bytes if max_bytes is not None else current.max_bytes)
    token = _LIMITS.set(limits)
    try:
        yield limits
    finally:
        _LIMITS.reset(token)


class DataPath(str):
    """A tensor's ``data`` path as the case gives it (a ``str``: messages and relative paths stay as written),
    with the file it resolves to (symbolic links followed) and the root it was confined to."""

    __slots__ = ("resolved", "root", "named")

    resolved: Path
    root: Path | None
    #: the root is a data root given (``--data-root``), not the case file's folder
    named: bool


def _root_for(base_dir: Path | None, data_root: Path | None = None) -> tuple[Path | None, bool]:
    """The folder data files must lie under, and whether it was named (else it is the case file's folder)."""
    root = data_root if data_root is not None else _LIMITS.get().data_root
    if root is not None:
        return root, True
    return (Path(os.path.realpath(base_dir)) if base_dir is not None else None), False


def _outside(root: Path, given: str, named: bool) -> str:
    """The refusal of a data path outside ``root``: what was given and the rule, nothing about the target."""
    where = f"the data root {_path_text(str(root))}" if named else "the folder of the case file"
    return (f"data file {_path_text(given)} is outside {where}; data files are read only from there "
            "(--data-root DIR names another folder)")


def _path_text(p: str) -> str:
    """A path as a message shows it: quoted, whole unless very long."""
    s = repr(p)
    return s if len(s) <= 240 else s[:237] + "..."


#: The data files a case may name: numpy's .npy, and raw little-endian elements in a .bin file (any case).
DATA_SUFFIXES = (".npy", ".bin")


def resolve_data_path(given: str, base_dir: Path | None, field: str, data_root: Path | None = None) -> DataPath:
    """The data file ``given`` names (relative to ``base_dir``), confined to the data root: InputError naming
    ``field`` when it resolves (through symbolic links) outside, without looking at the file itself."""
    if "\x00" in given:
        raise InputError(f"data file {short(given)}: not a file name", field=field)
    path = Path(given)
    if not path.is_absolute():
        path = (base_dir if base_dir is not None else Path.cwd()) / path
    resolved = Path(os.path.realpath(path))
    root, named = _root_for(base_dir, data_root)
    if root is not None and not resolved.is_relative_to(root):
        raise InputError(_outside(root, given, named), field=field)
    if not Path(given).name.lower().endswith(DATA_SUFFIXES):  # a text file was read as raw bytes, silently (audit 22)
        what = "an empty file name" if not given else f"data file {short(given)} is neither a .npy nor a .bin file"
        raise InputError(f"{what}: give a .npy file or a raw little-endian .bin file", field=field)
    out = DataPath(given)
    out.resolved = resolved
    out.root = root
    out.named = named
    return out


# -- reading case files -------------------------------------------------------------------------------------------

def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (ValueError, OSError, AttributeError):  # closed, or not a file
        return False


def open_source(path: str, max_bytes: int) -> LineReader:
    """A bounded line reader of the case file ``path`` ('-': standard input); InputError when it cannot be read."""
    if path == "-":
        if sys.stdin is None:  # started with standard input closed (`<&-`)
            raise InputError("cannot read: standard input is closed", where=path)
        if _is_terminal(sys.stdin):  # `-` typed with nothing piped: say what the silence is waiting for
            sys.stderr.write("ascverify: reading cases from standard input (the terminal); end with Ctrl-D\n")
            sys.stderr.flush()
        return LineReader(sys.stdin.buffer, max_bytes, path)
    try:
        fd, st = open_regular(path)
    except NotRegular as exc:
        if exc.kind == "a directory":
            raise InputError("is a directory, not a case file (name its files: DIR/*.json, or DIR/case_*/case.json "
                             "for a gen folder)", where=path) from None
        raise InputError(f"is not a regular file ({exc.kind}); only regular files and - are read", where=path) from None
    except FileNotFoundError:
        raise InputError("no such file", where=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where=path) from None
    if st.st_size > max_bytes:
        os.close(fd)
        raise InputError(f"file is {st.st_size} bytes; the limit is {max_bytes}", where=path)
    return LineReader(fd, max_bytes, path)


def read_bytes(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes ('-' is standard input), at most ``max_bytes``; InputError when missing, not a regular
    file, or too large."""
    reader = open_source(path, max_bytes)
    try:
        return reader.read_all()
    finally:
        reader.close()


# -- tensor contents --------------------------------------------------------------------------------------------

def load_tensor_data(src: Any, dtype: DType, base_dir: Path | None, field: str, size: int) -> np.ndarray:
    """A tensor's contents from an inline list or a .npy / raw little-endian .bin file, refused when it does not
    fit: more values than ``size``, values outside the element type (one rule for inline and file data), a file
    outside the data root, not a regular file or larger than the `read_limits` bound. Sizes come from ``fstat``
    and the .npy header before any data is read, and only the data needed is read."""
    if isinstance(src, list):
        if len(src) > size:
            raise InputError(f"{len(src)} data values for a tensor of size {size}", field=field)
        return _from_list(src, dtype, field)
    if not isinstance(src, DataPath):
        src = resolve_data_path(str(src), base_dir, field)
    shown = short(str(src))
    suffix = ".npy" if str(src).lower().endswith(".npy") else ".bin"  # one of DATA_SUFFIXES (`resolve_data_path`)
    try:
        fd, st = open_regular(src.resolved)
    except NotRegular as exc:
        raise InputError(f"data file {shown} is not a regular file ({exc.kind})", field=field) from None
    except FileNotFoundError:
        raise InputError(f"data file {shown} not found", field=field) from None
    except OSError as exc:
        raise InputError(f"cannot read data file {shown}: {exc.strerror or exc}", field=field) from None
    try:
        if src.root is not None:  # what was opened, not what was looked at: a folder swapped for a link meanwhile
            actual = opened_path(fd)
            if actual is not None and not actual.is_relative_to(src.root):
                raise InputError(_outside(src.root, str(src), src.named), field=field)
        limit = _LIMITS.get().max_bytes
        if suffix == ".npy":
            arr = _read_npy(fd, st.st_size, shown, dtype, field, size, limit)
        else:
            arr = _read_bin(fd, st.st_size, shown, dtype, field, size, limit)
    except OSError as exc:  # opened, but not readable as a file (/proc/self/mem): bad input, naming the file
        raise InputError(f"cannot read data file {shown}: {exc.strerror or type(exc).__name__}", field=field) from None
    finally:
        os.close(fd)
    return arr


def _read_bin(fd: int, nbytes: int, shown: str, dtype: DType, field: str, size: int, limit: int) -> np.ndarray:
    """A raw file's elements: little-endian, as a buffer holds them (int4b_t two per byte, `DType.from_bytes`)."""
    if dtype.bits < 8:  # packed; the tensor's last byte may hold a padding element
        if nbytes > dtype.nbytes(size):
            raise InputError(f"data file {shown} has {nbytes} bytes; the tensor's {size} {dtype.name} elements take "
                             f"{dtype.nbytes(size)}", field=field)
        n = min(nbytes * 8 // dtype.bits, size)
    else:
        item = dtype.numpy.itemsize
        if nbytes % item:
            raise InputError(f"data file {shown} has {nbytes} bytes, not a whole number of {dtype.name}", field=field)
        n = nbytes // item
        if n > size:
            raise InputError(f"data file {shown} holds {n} {dtype.name} values ({nbytes} bytes); the tensor has "
                             f"{size} elements", field=field)
    if nbytes > limit:
        raise InputError(f"data file {shown} is {nbytes} bytes; the limit is {limit}", field=field)
    raw, more = read_at_most(fd, nbytes)
    if more or len(raw) != nbytes:
        raise InputError(f"data file {shown} changed while it was read", field=field)
    return dtype.from_bytes(np.frombuffer(raw, dtype=np.uint8), n)


def _npy_problem(exc: BaseException) -> str:
    """numpy's words for a .npy header it refuses, as ours: its parser's internals (``<ast.Call object at 0x...>``,
    "adjust `max_header_size`") mean nothing to the owner of the file."""
    text = one_line(str(exc))
    if "max_header_size" in text or "Header info length" in text:
        return "its header is too long for a .npy file of numbers (numpy refuses headers over 10,000 bytes)"
    if isinstance(exc, ValueError) and ("malformed node" in text or "ast." in text or "header" in text.lower()):
        return "its header is not a .npy header (a dict of descr, fortran_order and shape literals)"
    return text[:120]


def _read_npy(fd: int, nbytes: int, shown: str, dtype: DType, field: str, size: int, limit: int) -> np.ndarray:
    """A .npy file's values, flat in element order: shape and type from the header first, then only that data."""
    from numpy.lib import format as npy

    with open(fd, "rb", closefd=False) as f:
        try:
            version = npy.read_magic(f)
            if version == (1, 0):
                shape, fortran, stored = npy.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, stored = npy.read_array_header_2_0(f)
            else:
                raise InputError(f"data file {shown} is .npy format {version[0]}.{version[1]}; 1.0 and 2.0 are read",
                                 field=field)
        except (ValueError, OSError, EOFError) as exc:
            raise InputError(f"cannot read data file {shown}: {_npy_problem(exc)}", field=field) from None
        if stored.hasobject:
            raise InputError(f"data file {shown} holds Python objects (a pickle), not numbers", field=field)
        if stored.kind not in "biuf" and stored != dtype.numpy:
            raise InputError(f"data file {shown} holds {stored}, not numbers", field=field)
        if stored.kind == "b" and dtype.name != "bool":  # as inline data refuses true / false: numbers only
            raise InputError(f"data file {shown} holds booleans, not {dtype.name} numbers", field=field)
        if not isinstance(shape, tuple) or any(type(d) is not int or d < 0 for d in shape):
            raise InputError(f"data file {shown} has the shape {str(shape)[:60]}: dimensions must be non-negative "
                             f"integers", field=field)
        count = math.prod(shape)
        if count > size:
            raise InputError(f"data file {shown} holds {count} values; the tensor has {size} elements", field=field)
        need = count * stored.itemsize
        if need > limit:
            raise InputError(f"data file {shown} holds {need} bytes of data; the limit is {limit}", field=field)
        have = nbytes - f.tell()
        if have < need:
            raise InputError(f"data file {shown} is truncated: its header says {count} {stored.name} values "
                             f"({need} bytes), it holds {have} bytes of data", field=field)
        raw = f.read(need)
    if len(raw) != need:
        raise InputError(f"data file {shown} changed while it was read", field=field)
    arr = np.frombuffer(raw, dtype=stored)
    if fortran and len(shape) > 1:
        arr = arr.reshape(shape, order="F").reshape(-1)
    return _fit(arr, dtype, field, shown)


class SharedValues(list):
    """Inline data that several cases share (a program's shared tensor, named by many calls): its numbers were
    checked once when it was read, and its conversion to each element type is made once and shared, read-only, by
    every case (a call each costing the conversion of a million values made a 3 MB program run for hours)."""

    __slots__ = ("converted",)

    def __init__(self, values: list) -> None:
        super().__init__(values)
        #: element type name -> the values as that type (read-only: every case naming the tensor holds it)
        self.converted: dict[str, np.ndarray] = {}


def _from_list(values: list, dtype: DType, field: str) -> np.ndarray:
    """Inline data: numbers only (integers for an integer type), then the rule every data follows (`_fit`); shared
    inline data (`SharedValues`) is converted once per element type."""
    if isinstance(values, SharedValues):
        got = values.converted.get(dtype.name)
        if got is None:
            got = _convert_list(values, dtype, field)  # a new array: no other array shares its memory
            got.flags.writeable = False
            values.converted[dtype.name] = got
        return got
    return _convert_list(values, dtype, field)


def _convert_list(values: list, dtype: DType, field: str) -> np.ndarray:
    """``values`` checked and converted to ``dtype`` (`_fit`)."""
    integers = dtype.kind in ("int", "uint", "bits")
    for i, x in enumerate(values):
        if type(x) not in (int, float) or (isinstance(x, float) and x != x):
            raise InputError(expected_number(x), field=f"{field}[{i}]")
        if integers and type(x) is not int:
            raise InputError(f"{literal_text(x)} is not a {dtype.name} value", field=f"{field}[{i}]")
    try:
        wide = np.array(values, dtype=np.int64 if integers else np.float64)
    except OverflowError:
        wide = np.array(values, dtype=object)
    return _fit(wide, dtype, field, given=values)


def _fit(wide: np.ndarray, dtype: DType, field: str, source: str = "", given: list | None = None) -> np.ndarray:
    """``wide`` converted to ``dtype``, refusing a value the type cannot hold, for inline data and data files alike:
    an integer type takes integral values in its range, a float type any value but a finite one that overflows
    to infinity. The error names the element (``tensors.src0.data[3]``) and, for a file, the file."""
    target = dtype.numpy
    if wide.dtype == target and dtype.bits >= 8:  # a sub-byte type's values are narrower than its numpy type's
        return wide
    where = f" (in {source})" if source else ""

    def _shown(i: int) -> str:  # the value as given: the JSON number, or the file's element
        x = given[i] if given is not None else wide[i]
        return short(x.item() if isinstance(x, np.generic) else x)

    if dtype.kind in ("int", "uint", "bits"):
        bad = _first_not_integer(wide, target, dtype.int_bounds())
        if bad >= 0:
            raise InputError(f"{_shown(bad)} is not a {dtype.name} value{where}", field=f"{field}[{bad}]")
        return wide.astype(target)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            wide64 = wide.astype(np.float64)
            arr = wide64.astype(target)
    except OverflowError:  # Python integers beyond any float
        for i, x in enumerate(wide):
            try:
                float(x)
            except OverflowError:
                raise InputError(f"{_shown(i)} overflows {dtype.name}{where}", field=f"{field}[{i}]") from None
        raise
    bad = np.flatnonzero(np.isinf(arr.astype(np.float64)) & np.isfinite(wide64))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{_shown(i)} overflows {dtype.name}{where}", field=f"{field}[{i}]")
    return arr


def _first_not_integer(wide: np.ndarray, target: np.dtype, bounds: tuple[int, int] | None) -> int:
    """The index of the first value of ``wide`` that is not an integer of the type (``bounds``: its least and
    greatest value; int4b_t's are narrower than its numpy ``target``), or -1."""
    info = np.iinfo(target) if target.kind in "iu" else None
    lo, hi = bounds if bounds is not None else (info.min, info.max) if info is not None else (None, None)
    if wide.dtype == object:
        for i, x in enumerate(wide):
            if not isinstance(x, int) or (lo is not None and not lo <= x <= hi):
                return i
        return -1
    ok = np.ones(wide.shape, dtype=bool)
    if wide.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok &= np.isfinite(wide) & (np.floor(wide) == wide)
    if lo is not None and wide.dtype.kind != "b":
        with np.errstate(invalid="ignore"):
            ok &= (wide >= lo) & (wide <= hi)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else -1
