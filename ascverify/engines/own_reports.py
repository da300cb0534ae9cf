"""Whether a file is a report ascverify wrote: told from the first bytes each writer puts there.

A campaign file (`fuzz --config`) may name a report that already exists; it replaces one only when ascverify wrote
it (docs/security.md). The markers are the writers' fixed openings:

- the JSON report (`fuzz.reports.json_report` through `write_json`): ``{`` then ``"report_version": N,`` and
  ``"ascverify": "VERSION"`` as its first two keys;
- the JUnit XML (`fuzz.reports.junit_xml`): the XML declaration, then ``<testsuites ...`` whose attributes end
  with ``name="ascverify fuzz">``;
- the HTML page (`pictures.html_report.page`): its fixed head up to ``<meta name="generator" content="ascverify``.

tests/test_review73_fuzz_replay.py checks each writer's output against `written_by_ascverify`.
"""

from __future__ import annotations

import os
import re

from ..cases.bounded_read import NotRegular, open_regular, read_at_most

#: The bytes read from the start of a file to tell (every marker ends well within them).
HEAD_BYTES = 1024

_MARKERS = (
    re.compile(rb'\{\n  "report_version": \d+,\n  "ascverify": "'),
    re.compile(rb"<\?xml version='1\.0' encoding='utf-8'\?>\n<testsuites [^<>]*name=\"ascverify fuzz\">"),
    re.compile(rb'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport"[^<>]*>\n'
               rb'<meta name="generator" content="ascverify '),
)


def written_by_ascverify(path: str | os.PathLike) -> bool:
    """``path`` is a regular file (symbolic links followed) that opens as a report ascverify writes; False for
    anything else, a file that cannot be read included. Reads at most `HEAD_BYTES` bytes."""
    try:
        fd, _ = open_regular(path)
    except (NotRegular, OSError):
        return False
    try:
        head, _ = read_at_most(fd, HEAD_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    return any(m.match(head) for m in _MARKERS)
