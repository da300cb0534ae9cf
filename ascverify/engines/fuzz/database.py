"""The example database a campaign shares: Hypothesis's directory database, its Redis database, or none.

``--database DIR`` opens `hypothesis.database.DirectoryBasedExampleDatabase` (a folder that may sit on a
shared file system or be cached between CI runs); ``--database redis://HOST:PORT/DB`` opens
`hypothesis.extra.redis.RedisExampleDatabase` (needs the ``redis`` package: ``pip install
ascverify[redis]``); ``none`` keeps examples in memory only.

Every unit of a campaign stores its examples under a key of its own, ``ascverify-fuzz/1/API/PRODUCT/KIND``
(the partition, shard, seed and machine are left out on purpose): a failure one machine found for
BilinearInterpolation on atlas-a2 replays first on every machine that fuzzes that pair.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable
from urllib.parse import parse_qsl, urlencode, urlparse

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

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
        secrets = [p.password or "", p.username or ""] + [v for k, v in parse_qsl(p.query) if k.lower() in _SECRET_PARAMS]
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
    return DirectoryBasedExampleDatabase(str(path))


def describe(spec: str | None) -> str:
    """The database for a report or a message (a Redis URL without its credentials)."""
    if spec is None or str(spec).strip().lower() in ("", "none", ":memory:"):
        return "none"
    if is_redis(spec):
        return redact_url(str(spec))
    return str(spec)
