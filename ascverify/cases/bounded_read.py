"""Reading files other people wrote: regular files only, never more than a bound, never blocking.

Case files and data files come from pull requests, colleagues and CI artifacts (docs/security.md, "Reading
inputs"). Everything ascverify reads from them goes through this module:

- `open_regular` refuses anything that is not a regular file (a device such as ``/dev/zero``, a FIFO, a
  socket, a folder), deciding from ``os.stat`` of the resolved path *before* opening, then opens with
  ``O_NONBLOCK`` (opening a FIFO swapped in meanwhile cannot block) and decides again from ``fstat`` of the
  descriptor it will read (no race between the check and the read);
- `read_at_most` reads at most ``limit`` bytes and says when there were more;
- `LineReader` hands out the lines of a file or of standard input in blocks, counting every byte against the
  limit as it goes (an endless writer on standard input costs one block of memory, then an error).
"""

from __future__ import annotations

import io
import os
import select
import stat
from pathlib import Path
from itertools import count
from typing import BinaryIO, Iterator, NamedTuple

from ..spec.errors import InputError

#: Bytes read from a file or a pipe at a time.
BLOCK = 1 << 20


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words (for "is not a regular file (a FIFO)")."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


class NotRegular(Exception):
    """The path names something other than a regular file; ``kind`` says what."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def open_regular(path: str | os.PathLike) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file ``path`` (symbolic links followed) and its ``fstat``.

    Raises `NotRegular` for anything else (decided before opening and again on the open descriptor) and
    OSError (``FileNotFoundError``, ``PermissionError``, ...) when it cannot be opened."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(file_kind(st.st_mode))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(file_kind(st.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def opened_path(fd: int) -> Path | None:
    """The path the kernel has for an open descriptor (Linux ``/proc/self/fd``), or None where unknown."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return None


def read_at_most(fd: int, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes from ``fd``, and whether there was more."""
    chunks: list[bytes] = []
    got = 0
    while got <= limit:
        block = os.read(fd, min(BLOCK, limit + 1 - got))
        if not block:
            break
        chunks.append(block)
        got += len(block)
    data = b"".join(chunks)
    if len(data) > limit:
        return data[:limit], True
    return data, False


class LineBlock(NamedTuple):
    """Consecutive lines of a stream (without their newlines) and where their text lies: ``buf[start:end]`` is
    ``b"\\n".join(lines)``, ``buf`` being the block as read (no copy)."""

    #: the 1-based number of the first line
    first: int
    lines: list[bytes]
    buf: bytes
    start: int
    end: int


class LineCursor:
    """The lines of `LineReader.line_blocks` one at a time (a file's first lines, to tell what it holds), then
    the rest a block at a time (`rest`)."""

    def __init__(self, blocks: Iterator[LineBlock]) -> None:
        self._blocks = blocks
        self._block: LineBlock | None = None
        self._next = 0  # the position in ``_block`` of the next line

    def __iter__(self) -> LineCursor:
        return self

    def __next__(self) -> tuple[int, bytes]:
        block, i = self._block, self._next
        while block is None or i >= len(block.lines):
            block = self._block = next(self._blocks)
            i = 0
        self._next = i + 1
        return block.first + i, block.lines[i]

    def rest(self) -> Iterator[LineBlock]:
        """The lines not yet handed out, a block at a time (the cursor is spent)."""
        block, i = self._block, self._next
        self._block = None
        if block is not None and i < len(block.lines):
            if i:
                start = block.start + sum(len(line) for line in block.lines[:i]) + i
                block = LineBlock(block.first + i, block.lines[i:], block.buf, start, block.end)
            yield block
        yield from self._blocks


def _live_descriptor(stream: BinaryIO | int) -> int | None:
    """The descriptor of ``stream`` when it is a pipe, terminal or socket, else None."""
    try:
        fd = stream if isinstance(stream, int) else stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return fd if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode) else None


#: How long a pause of a pipe's writer must last before what was read is dealt with: a writer that sends a line
#: every millisecond is read in blocks, not a case at a time (a case's check then costs its share of a batch).
PAUSE_SECONDS = 0.02


def _readable(fd: int, wait: float = PAUSE_SECONDS) -> bool:
    """Something (or the end) can be read from ``fd`` now or within ``wait`` seconds."""
    try:
        return bool(select.select([fd], [], [], wait)[0])
    except (OSError, ValueError):
        return True


class LineReader:
    """The lines of a stream (``bytes`` without the newline, with their 1-based line numbers), read in blocks of
    `BLOCK`; every byte counts against ``limit`` and one more raises InputError naming ``where``.

    `peek_head` gives the first bytes (to recognise binary content) without consuming them."""

    def __init__(self, stream: BinaryIO | int, limit: int, where: str) -> None:
        self._stream = stream
        self.limit = limit
        self.where = where
        self.total = 0
        self._pending: list[bytes] = []  # blocks read but not yet handed out
        self._eof = False
        self.lineno = 0
        #: the descriptor of a pipe, terminal or socket (whose writer may pause), else None (a regular file)
        self._live_fd = _live_descriptor(stream)

    @property
    def live(self) -> bool:
        """A pipe, terminal or socket: its writer may pause."""
        return self._live_fd is not None

    def idle(self) -> bool:
        """Everything read has been handed out and the next read would wait for the writer (a pipe, terminal or
        socket that has nothing to read now; never a regular file): what was read may be checked meanwhile."""
        return not self._pending and not self._eof and self._live_fd is not None and not _readable(self._live_fd)

    def _read_block(self) -> bytes:
        if self._eof:
            return b""
        want = min(BLOCK, self.limit + 1 - self.total)
        if want <= 0:
            self._too_large()
        try:
            if isinstance(self._stream, int):
                block = os.read(self._stream, want)
            else:
                reader = getattr(self._stream, "read1", None) or self._stream.read
                block = reader(want)
        except OSError as exc:  # a file that opens but cannot be read (/proc/self/mem, /proc/self/pagemap): bad input
            raise InputError(f"cannot read: {exc.strerror or type(exc).__name__}", where=self.where) from None
        if not block:
            self._eof = True
            return b""
        self.total += len(block)
        if self.total > self.limit:
            self._too_large()
        return block

    @property
    def at_end(self) -> bool:
        """The stream ended (everything it held has been read)."""
        return self._eof

    def _too_large(self) -> None:
        raise InputError(f"input is larger than the limit of {self.limit} bytes", where=self.where)

    def peek_head(self, n: int) -> bytes:
        """At least the first ``n`` bytes (fewer at the end of the stream, or when a pipe's writer pauses after
        some: the first cases are then read without waiting for more), left to be read."""
        have = sum(len(b) for b in self._pending)
        while have < n:
            if have and self._live_fd is not None and not _readable(self._live_fd):
                break
            block = self._read_block()
            if not block:
                break
            self._pending.append(block)
            have += len(block)
        return b"".join(self._pending)[:n]

    def line_blocks(self) -> Iterator[LineBlock]:
        """The lines not yet handed out, a block at a time: the complete lines of each block read (one
        `LineBlock`, its text not copied), a line spanning blocks as a block of its own (joined once: no
        quadratic copying), the last line without its newline too; an empty block before a read that waits for a
        pipe's writer (`idle`)."""
        pieces: list[bytes] = []  # the line so far, when it spans blocks
        n = self.lineno
        while True:
            if not self._pending and self.idle():
                # the writer pauses: an empty block lets the reader's consumers deal with the lines handed out so far
                # (they may still hold them: the start of the next line came after them) before the read waits
                yield LineBlock(n + 1, [], b"", 0, 0)
            block = self._pending.pop(0) if self._pending else self._read_block()
            if not block:
                break
            parts = block.split(b"\n")
            if len(parts) == 1:
                pieces.append(block)
                continue
            last = parts.pop()
            start = 0
            if pieces:
                pieces.append(parts[0])
                line = b"".join(pieces)
                pieces = []
                start = len(parts[0]) + 1
                del parts[0]
                n += 1
                self.lineno = n
                yield LineBlock(n, [line], line, 0, len(line))
            if parts:
                self.lineno = n + len(parts)
                yield LineBlock(n + 1, parts, block, start, len(block) - len(last) - 1)
                n += len(parts)
            if last:
                pieces.append(last)
        if pieces:
            line = b"".join(pieces)
            n += 1
            self.lineno = n
            yield LineBlock(n, [line], line, 0, len(line))

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, line) for every line, the last one without its newline too."""
        for block in self.line_blocks():
            yield from zip(count(block.first), block.lines)

    def read_all(self) -> bytes:
        """Everything not yet handed out (within the limit)."""
        blocks = self._pending
        self._pending = []
        while True:
            block = self._read_block()
            if not block:
                break
            blocks.append(block)
        return b"".join(blocks)

    def close(self) -> None:
        if isinstance(self._stream, int):
            try:
                os.close(self._stream)
            except OSError:
                pass
