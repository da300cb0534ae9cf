"""A campaign's reports: the JSON summary, JUnit XML for CI systems, and the coverage table.

JUnit: one ``<testcase>`` per API and check (an invariant, a negative check, or ``differential``),
over every product and partition the campaign ran; ``classname`` is ``ascverify.fuzz.KIND.API``.
A check with findings carries a ``<failure>`` whose message names them; a check whose runs ended in
a harness error carries an ``<error>``; a check that never ran (interrupted first, or cut by the time
budget) is ``<skipped>``.
"""

from __future__ import annotations

import json
import socket
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ...spec.registry import get_api, lookup_api
from ...spec.version import __version__
from ..outputs import is_stdout, make_dir, write_named_file
from ..report import table_text
from .checks import DIFFERENTIAL_CHECK, NEGATIVE_CHECKS, invariant_names
from .coverage import SAMPLE_EVERY, STATUSES
from .runner import ItemResult

REPORT_VERSION = 1


def checks_of(api: str, kind: str) -> list[str]:
    if kind == "invariants":
        return invariant_names(get_api(api))
    if kind == "negative":
        return list(NEGATIVE_CHECKS)
    return [DIFFERENTIAL_CHECK]


@dataclass
class CheckRow:
    """One JUnit testcase: an API's check over every item of the campaign."""

    api: str
    kind: str
    check: str
    cases: int = 0
    time: float = 0.0
    products: set[str] | None = None
    findings: list[dict[str, Any]] | None = None
    errors: list[str] | None = None
    ran: bool = False
    #: some item of the check was stopped before its end (Ctrl-C, SIGTERM): what ran passed, but the check is not done
    interrupted: bool = False

    @property
    def status(self) -> str:
        if self.findings:
            return "failed"
        if self.errors:
            return "error"
        if not self.ran or not self.cases or self.interrupted:
            return "skipped"
        return "passed"


def check_rows(results: Sequence[ItemResult], findings: Sequence[Mapping[str, Any]]) -> list[CheckRow]:
    rows: dict[tuple[str, str, str], CheckRow] = {}

    def row(api: str, kind: str, check: str) -> CheckRow:
        key = (api, kind, check)
        if key not in rows:
            rows[key] = CheckRow(api, kind, check, products=set(), findings=[], errors=[])
        return rows[key]

    for r in results:
        names = checks_of(r.unit.api, r.unit.kind)
        for name in names:
            cr = row(r.unit.api, r.unit.kind, name)
            cr.cases += int(r.checks.get(name, 0))
            cr.time += r.elapsed / max(1, len(names))
            cr.products.add(r.unit.product)
            cr.ran = cr.ran or r.status != "skipped"
            cr.interrupted = cr.interrupted or r.status == "interrupted"
            if r.status == "error" and r.error:
                cr.errors.append(f"{r.unit.key}: {r.error}")
    for f in findings:
        row(f["api"], f["kind"], f["check"]).findings.append(dict(f))
    return sorted(rows.values(), key=lambda c: (c.kind, c.api, c.check))


def junit_xml(results: Sequence[ItemResult], findings: Sequence[Mapping[str, Any]], *, elapsed: float,
              properties: Mapping[str, Any], harness_errors: Sequence[str] = ()) -> bytes:
    rows = check_rows(results, findings)
    suite = ET.Element("testsuite", {
        "name": "ascverify fuzz", "tests": str(len(rows) + len(harness_errors)),
        "failures": str(sum(r.status == "failed" for r in rows)),
        "errors": str(sum(r.status == "error" for r in rows) + len(harness_errors)),
        "skipped": str(sum(r.status == "skipped" for r in rows)),
        "time": f"{elapsed:.3f}", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "hostname": socket.gethostname(),
    })
    props = ET.SubElement(suite, "properties")
    for k, v in properties.items():
        ET.SubElement(props, "property", {"name": str(k), "value": "" if v is None else str(v)})
    for r in rows:
        tc = ET.SubElement(suite, "testcase", {"classname": f"ascverify.fuzz.{r.kind}.{r.api}", "name": r.check,
                                               "time": f"{r.time:.3f}"})
        tp = ET.SubElement(tc, "properties")
        ET.SubElement(tp, "property", {"name": "cases", "value": str(r.cases)})
        ET.SubElement(tp, "property", {"name": "products", "value": ",".join(sorted(r.products or ()))})
        if r.status == "failed":
            first = r.findings[0]
            msg = f"{len(r.findings)} finding(s); first on {first['product']}: {first['message']}"
            body = "\n\n".join(f"{f.get('path') or f.get('id')}\n{f['product']}: {f['message']}\n"
                               f"replay: ascverify replay {f.get('path') or '<findings dir>'}" for f in r.findings)
            ET.SubElement(tc, "failure", {"message": msg[:1000], "type": first["key"]}).text = body
        elif r.status == "error":
            ET.SubElement(tc, "error", {"message": r.errors[0].splitlines()[0][:1000], "type": "CampaignError"}).text = \
                "\n\n".join(r.errors)
        elif r.status == "skipped":
            ET.SubElement(tc, "skipped", {"message": f"interrupted after {r.cases} cases" if r.interrupted and r.ran
                                          else "not run (interrupted or out of time)"})
    for i, err in enumerate(harness_errors):
        tc = ET.SubElement(suite, "testcase", {"classname": "ascverify.fuzz.campaign", "name": f"worker-{i}", "time": "0"})
        ET.SubElement(tc, "error", {"message": err.splitlines()[0][:1000], "type": "WorkerError"}).text = err
    root = ET.Element("testsuites", {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped", "time")})
    root.set("name", "ascverify fuzz")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def json_report(*, config: Mapping[str, Any], results: Sequence[ItemResult], findings: Sequence[Mapping[str, Any]],
                coverage: Mapping[str, Any], observed: Mapping[str, Any], interrupted: bool, elapsed: float,
                exit_status: int, started: str) -> dict[str, Any]:
    rows = check_rows(results, findings)
    return {
        "report_version": REPORT_VERSION, "ascverify": __version__, "started": started,
        "elapsed_seconds": round(elapsed, 3), "interrupted": interrupted, "exit_status": exit_status,
        "config": dict(config),
        "totals": {
            "items": len(results), "cases": sum(r.cases for r in results),
            "findings": len(findings), "new_findings": sum(bool(f.get("new", True)) for f in findings),
            "checks": len(rows), "checks_failed": sum(r.status == "failed" for r in rows),
            "errors": sum(r.status == "error" for r in results),
            # differential: cases drawn again because the core left every output unspecified (they compare
            # nothing), and the share of drawn cases that were specified (every case run is)
            "unspecified_redrawn": sum(getattr(r, "unspecified", 0) for r in results),
            "specified_share": round(sum(r.cases for r in results)
                                     / max(1, sum(r.cases + getattr(r, "unspecified", 0) for r in results)), 4),
        },
        "items": [{**r.unit.to_json(), "status": r.status, "cases": r.cases, "elapsed_seconds": round(r.elapsed, 3),
                   "batches": r.batches, "checks": dict(r.checks), "findings": [f["id"] for f in r.findings],
                   "error": r.error, "unspecified_redrawn": getattr(r, "unspecified", 0),
                   "time_up": getattr(r, "timed_out", False),
                   "first_failed_at": getattr(r, "first_failed_at", None),
                   "within_tolerance": getattr(r, "excused", None) or None}
                  for r in results],
        "checks": [{"api": r.api, "kind": r.kind, "check": r.check, "status": r.status, "cases": r.cases,
                    "products": sorted(r.products or ()), "findings": [f["id"] for f in r.findings or ()]}
                   for r in rows],
        "findings": [{k: v for k, v in f.items() if k != "case"} | {"case": f.get("case")} for f in findings],
        "coverage": {"statuses": list(STATUSES), "rules": coverage},
        "negative_observed": observed,
    }


def coverage_lines(coverage: Mapping[str, Mapping[str, Mapping[str, int]]], *, include_types: bool = False,
                   apis: Iterable[str] | None = None) -> list[str]:
    """The coverage table as plain text (one block per API)."""
    out: list[str] = []
    for api in (apis or coverage.keys()):
        rules = coverage.get(api)
        if not rules:
            continue
        model = lookup_api(api)
        order = [r.id for r in model.rules] if model else []
        ids = [r for r in order if r in rules] + sorted(r for r in rules if r not in order)
        rows = [(rid, *(str(rules[rid].get(s, 0)) for s in STATUSES)) for rid in ids
                if include_types or not rid.endswith(".type")]
        out.append(f"coverage of {api} (cases per rule)")
        out.extend(table_text(("rule", *STATUSES), rows).rstrip("\n").splitlines())
        out.append(f"(relational rules -- those not a range, size, fit, overlap, alignment, multiple or choice -- are "
                   f"placed on one case in {SAMPLE_EVERY}: their counts are about 1/{SAMPLE_EVERY} of the others)")
        out.append("")
    return out


def write_json(path: str, doc: Mapping[str, Any]) -> None:
    write_bytes(path, (json.dumps(doc, indent=2, default=str) + "\n").encode())


def write_bytes(path: str, data: bytes) -> None:
    """Write a report atomically; `ascverify.engines.outputs.OutputError` (one line, exit 2) when it cannot be written."""
    from pathlib import Path

    p = Path(path)
    if not is_stdout(path):
        make_dir(p.parent)
    write_named_file(p, lambda f: f.write(data))


def observed_totals(results: Sequence[ItemResult]) -> dict[str, dict[str, dict[str, int]]]:
    """Negative items: per API and rule, how often the core faulted on a case breaking only that rule."""
    out: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for r in results:
        for rule, counts in r.observed.items():
            mine = out[r.unit.api].setdefault(rule, {})
            for k, n in counts.items():
                mine[k] = mine.get(k, 0) + n
    return dict(out)
