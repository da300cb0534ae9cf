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

from pathlib import Path
from typing import Iterable
from urllib.parse import urlparse

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from ..errors import InputError

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


def open_database(spec: str | None) -> ExampleDatabase | None:
    """The database ``spec`` names (a folder, a redis:// URL, or none/'' for none); InputError when unusable."""
    if spec is None or str(spec).strip().lower() in ("", "none", ":memory:"):
        return None
    spec = str(spec)
    if is_redis(spec):
        try:
            import redis
        except ImportError:
            raise InputError("a redis:// database needs the redis package (pip install 'ascverify[redis]')",
                             field="--database") from None
        from hypothesis.extra.redis import RedisExampleDatabase

        parsed = urlparse(spec)
        try:
            client = redis.Redis.from_url(spec, socket_connect_timeout=5, socket_timeout=30)
            client.ping()
        except Exception as exc:  # noqa: BLE001 - any connection problem is the user's URL or server
            where = parsed.netloc or spec
            raise InputError(f"cannot reach the Redis server at {where}: {type(exc).__name__}: {exc}",
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
    """The database for a report (a Redis URL without its password)."""
    if spec is None or str(spec).strip().lower() in ("", "none", ":memory:"):
        return "none"
    if is_redis(spec):
        p = urlparse(str(spec))
        host = p.hostname or ""
        port = f":{p.port}" if p.port else ""
        return f"{p.scheme}://{host}{port}{p.path}"
    return str(spec)
