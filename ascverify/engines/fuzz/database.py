"""The example database a campaign shares: Hypothesis's directory database, its Redis database, or none.

``--database DIR`` opens `hypothesis.database.DirectoryBasedExampleDatabase` (a folder that may sit on a
shared file system or be cached between CI runs); ``--database redis://HOST:PORT/DB`` opens
`hypothesis.extra.redis.RedisExampleDatabase` (needs the ``redis`` package: ``pip install
ascverify[redis]``); ``none`` keeps examples in memory only.

A database folder may come from a CI cache or a shared file system: it is read as hostile (`ConfinedDirectoryDatabase`).
Only regular files of at most `MAX_EXAMPLE_BYTES` are read as examples (a FIFO, a device, a folder or a larger file is
passed over, never waited on); files and key folders are opened without following symbolic links, so that an entry or
a key folder replaced by a link is neither read through nor written through (a linked key folder is passed over with
a note on standard error: the campaign runs without its stored examples).

Every unit of a campaign stores its examples under a key of its own, ``ascverify-fuzz/1/API/PRODUCT/KIND``
(the partition, shard, seed and machine are left out on purpose): a failure one machine found for
BilinearInterpolation on atlas-a2 replays first on every machine that fuzzes that pair.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import sys
from pathlib import Path
from typing import Iterable
from urllib.parse import parse_qsl, urlencode, urlparse

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase, InMemoryExampleDatabase

from ...cases.bounded_read import file_kind, read_at_most
from ...spec.errors import InputError, one_line

KEY_VERSION = b"ascverify-fuzz/1/"
#: Length of the digest Hypothesis puts in front of its sub-keys (``.secondary``, ``.pareto``).
_DIGEST_BYTES = 48


class UnitDatabase(ExampleDatabase):
    """A view of another database that stores one campaign unit's examples under the unit's own key."""

    def __init__(self, inner: ExampleDatabase, unit_key: str) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = KEY_VERSION + unit_key.encode()

    def _key(self, key: bytes) -> bytes:
        # Hypothesis keys are a digest of the test's source plus an optional sub-key; the digest changes
        # with our code, the unit does not: keep only the sub-key so that stored failures outlive upgrades.
        suffix = key[_DIGEST_BYTES:] if len(key) >= _DIGEST_BYTES else b"/" + key
        return self.prefix + suffix

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self._key(key), value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(self._key(key))

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self._key(key), value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self._key(src), self._key(dest), value)

    def __repr__(self) -> str:
        return f"UnitDatabase({self.inner!r}, {self.prefix!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnitDatabase) and self.inner == other.inner and self.prefix == other.prefix

    def __hash__(self) -> int:
        return hash(self.prefix)


#: The sub-keys Hypothesis adds to a test's key (``digest.secondary``, ``digest.pareto``); a key without one is primary.
_SUB_KEYS = (b".secondary", b".pareto")


def _is_primary(key: bytes) -> bool:
    return not key.endswith(_SUB_KEYS)


class DeferredShrinking(ExampleDatabase):
    """The examples of one item whose failures are shrunk later: a campaign's first look finds a failure without
    shrinking it, the second pass replays it and shrinks it.

    While looking (``replaying`` False) everything goes to the campaign's database (``persistent``, None for none)
    as usual, and each failure saved under the test's primary key is also held here, under the key's
    ``.secondary`` corpus: Hypothesis replays a failure of its primary corpus as already shrunk (and does not
    shrink it again), one of its secondary corpus as a failure to shrink. While replaying, fetches read only what
    this item held (not the campaign's older examples); saves, deletions and moves go to both."""

    def __init__(self, persistent: ExampleDatabase | None) -> None:
        super().__init__()
        self.persistent = persistent
        self.held = InMemoryExampleDatabase()
        self.replaying = False

    def save(self, key: bytes, value: bytes) -> None:
        if self.persistent is not None:
            self.persistent.save(key, value)
        if self.replaying:
            self.held.save(key, value)
        elif _is_primary(key):
            self.held.save(key + b".secondary", value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        if self.replaying:
            return self.held.fetch(key)
        return self.persistent.fetch(key) if self.persistent is not None else ()

    def delete(self, key: bytes, value: bytes) -> None:
        if self.persistent is not None:
            self.persistent.delete(key, value)
        self.held.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if self.persistent is not None:
            self.persistent.move(src, dest, value)
        self.held.move(src, dest, value)

    def __repr__(self) -> str:
        return f"DeferredShrinking({self.persistent!r})"


#: Largest example read from a directory database: Hypothesis stores a test case as its choices, a few KiB at most. A
#: larger entry is not one of its examples: passed over unread.
MAX_EXAMPLE_BYTES = 1 << 20
#: Most entries of one key folder looked at (Hypothesis keeps a handful of examples per key).
MAX_EXAMPLES_PER_KEY = 10_000

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | _CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC


def read_entry(dir_fd: int, name: str, limit: int = MAX_EXAMPLE_BYTES) -> bytes | None:
    """The bytes of ``name`` in the open folder ``dir_fd`` when it is a regular file of at most ``limit`` bytes; None
    for anything else (a symbolic link, a FIFO, a device, a folder, a larger file, one that cannot be read).

    Decided from ``lstat`` before opening and again from ``fstat`` of the descriptor read, which is opened with
    ``O_NOFOLLOW`` (an entry swapped for a link meanwhile is not followed) and ``O_NONBLOCK`` (a FIFO cannot block)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        data, more = read_at_most(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if more else data


class ConfinedDirectoryDatabase(DirectoryBasedExampleDatabase):
    """Hypothesis's directory database, for a folder that may be anyone's: every key folder and example is opened
    relative to the open database folder without following symbolic links; examples are read with a bound
    (`read_entry`), written through a new temporary file in their key folder and a rename, and a key folder that is
    not a real folder (a link, a file) is passed over, with one note on standard error, instead of followed."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path)
        self._noted: set[str] = set()

    def __repr__(self) -> str:
        return f"ConfinedDirectoryDatabase({self.path!r})"

    def _note(self, root: int, name: str) -> None:
        if name in self._noted:
            return
        self._noted.add(name)
        try:
            mode = os.stat(name, dir_fd=root, follow_symlinks=False).st_mode
            what = "a symbolic link" if stat.S_ISLNK(mode) else file_kind(mode)
        except OSError:
            what = "not a folder"
        sys.stderr.write(one_line(f"fuzz: example database: {self.path / name} is {what}, not a key folder: passed "
                                  "over (its examples are neither read nor written)") + "\n")

    def _open_key(self, key: bytes, *, create: bool) -> int | None:
        """An open descriptor of ``key``'s folder (made first when ``create``); None when it is absent, cannot be
        opened, or is not a folder of its own (a symbolic link, a file: noted once, never followed)."""
        name = self._key_path(key).name
        try:
            if create:
                self.path.mkdir(parents=True, exist_ok=True)
            root = os.open(self.path, _DIR_FLAGS)
        except OSError:
            return None
        try:
            if create:
                try:
                    os.mkdir(name, dir_fd=root)
                except FileExistsError:
                    pass
            return os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=root)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EEXIST):
                self._note(root, name)
            return None
        finally:
            os.close(root)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        fd = self._open_key(key, create=False)
        if fd is None:
            return
        try:
            names: list[str] = []
            try:
                with os.scandir(fd) as entries:
                    for i, entry in enumerate(entries):
                        if i >= MAX_EXAMPLES_PER_KEY:
                            break
                        if not entry.name.startswith("."):  # our temporary files
                            names.append(entry.name)
            except OSError:
                return
            for name in names:
                value = read_entry(fd, name)
                if value is not None:
                    yield value
        finally:
            os.close(fd)

    def save(self, key: bytes, value: bytes) -> None:
        if self._key_path(key).name != self._metakeys_hash:
            self.save(self._metakeys_name, key)  # the entry of every key, as Hypothesis keeps it
        fd = self._open_key(key, create=True)
        if fd is None:
            return
        name = self._value_path(key, value).name
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            try:
                os.stat(name, dir_fd=fd, follow_symlinks=False)
                return  # there already (whatever it is, it is not replaced)
            except FileNotFoundError:
                pass
            out = os.open(tmp, _WRITE_FLAGS, 0o666, dir_fd=fd)
            try:
                view = memoryview(value)
                while view:
                    view = view[os.write(out, view):]
            finally:
                os.close(out)
            os.rename(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError:  # a full disk, a read-only folder: the example is not stored, as with Hypothesis's own
            try:
                os.unlink(tmp, dir_fd=fd)
            except OSError:
                pass
        finally:
            os.close(fd)

    def delete(self, key: bytes, value: bytes) -> None:
        fd = self._open_key(key, create=False)
        if fd is None:
            return
        try:
            name = self._value_path(key, value).name
            if not stat.S_ISREG(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                return  # not an example of ours
            os.unlink(name, dir_fd=fd)
        except OSError:
            return
        finally:
            os.close(fd)
        try:  # the key's folder when now empty, and then its entry among the keys (as Hypothesis does)
            root = os.open(self.path, _DIR_FLAGS)
        except OSError:
            return
        try:
            os.rmdir(self._key_path(key).name, dir_fd=root)
        except OSError:
            return
        finally:
            os.close(root)
        self.delete(self._metakeys_name, key)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if src == dest:
            self.save(src, value)
            return
        name = self._value_path(src, value).name
        source = self._open_key(src, create=False)
        if source is not None:
            try:
                if stat.S_ISREG(os.stat(name, dir_fd=source, follow_symlinks=False).st_mode):
                    self.save(self._metakeys_name, dest)
                    target = self._open_key(dest, create=True)
                    if target is not None:
                        try:
                            os.rename(name, name, src_dir_fd=source, dst_dir_fd=target)
                            return
                        finally:
                            os.close(target)
            except OSError:
                pass
            finally:
                os.close(source)
        self.delete(src, value)
        self.save(dest, value)

    def _start_listening(self) -> None:
        """Not offered: Hypothesis's watcher reads the files it is told about without a bound."""

    def _stop_listening(self) -> None:
        """Nothing to stop (see `_start_listening`)."""


def is_redis(spec: str | None) -> bool:
    return bool(spec) and str(spec).startswith(("redis://", "rediss://", "unix://"))


#: Query parameters of a Redis URL that carry credentials (redis-py reads ``password`` and ``username``).
_SECRET_PARAMS = ("password", "passwd", "pass", "pwd", "auth", "token", "secret", "username", "user")


def redact_url(url: str) -> str:
    """``url`` with its credentials replaced by ``***``: the password (and user name) before the host, and query
    parameters such as ``password=``. Anything that does not parse as a URL is redacted after ``//`` up to ``@``."""
    try:
        p = urlparse(str(url))
        netloc = p.netloc
        if "@" in netloc:
            creds, _, host = netloc.rpartition("@")
            user, sep, _pw = creds.partition(":")
            netloc = (f"{user}:***" if sep else "***") + "@" + host
        query = p.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode([(k, "***" if k.lower() in _SECRET_PARAMS else v) for k, v in pairs], safe="*")
        out = f"{p.scheme}://{netloc}{p.path}" + (f";{p.params}" if p.params else "") + (f"?{query}" if query else "") \
            + (f"#{p.fragment}" if p.fragment else "")
    except ValueError:
        out = re.sub(r"//[^/@]*@", "//***@", str(url))
    return one_line(out)


def _redacted_error(text: str, url: str) -> str:
    """An error message with every secret of ``url`` removed (a client may quote its URL or password)."""
    try:
        p = urlparse(url)
        # the user name is no secret (`redact_url` keeps it): replacing it everywhere garbled the client's words (a
        # user "u": "Connection ref***sed"); passwords and tokens are replaced wherever they appear
        secrets = [p.password or ""] + [v for k, v in parse_qsl(p.query)
                                        if k.lower() in _SECRET_PARAMS and k.lower() not in ("username", "user")]
    except ValueError:
        secrets = []
    text = text.replace(url, redact_url(url))
    for secret in sorted({s for s in secrets if len(s) >= 1}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def no_database(spec: str | None) -> bool:
    """``spec`` asks for no database (examples kept in memory only): none, '' or :memory:."""
    return spec is None or str(spec).strip().lower() in ("", "none", ":memory:")


def open_database(spec: str | None) -> ExampleDatabase | None:
    """The database ``spec`` names (a folder, a redis:// URL, or none/'' for none); InputError when unusable."""
    if no_database(spec):
        return None
    spec = str(spec)
    if is_redis(spec):
        try:
            import redis
        except ImportError:
            raise InputError("a redis:// database needs the redis package (pip install 'ascverify[redis]')",
                             field="--database") from None
        from hypothesis.extra.redis import RedisExampleDatabase

        try:
            client = redis.Redis.from_url(spec, socket_connect_timeout=5, socket_timeout=30)
            client.ping()
        except Exception as exc:  # noqa: BLE001 - any connection problem is the user's URL or server
            detail = _redacted_error(f"{type(exc).__name__}: {exc}", spec)
            raise InputError(f"cannot reach the Redis server at {redact_url(spec)}: {detail}",
                             field="--database") from None
        return RedisExampleDatabase(client)
    path = Path(spec)
    if path.exists() and not path.is_dir():
        raise InputError("exists and is not a directory", where=spec, field="--database")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the database directory: {exc.strerror or exc}", where=spec,
                         field="--database") from None
    return ConfinedDirectoryDatabase(str(path))


def describe(spec: str | None) -> str:
    """The database for a report or a message (a Redis URL without its credentials)."""
    if spec is None or str(spec).strip().lower() in ("", "none", ":memory:"):
        return "none"
    if is_redis(spec):
        return redact_url(str(spec))
    return str(spec)
