"""`check --format sarif` writes its log as the files are read: the results of each batch of cases as they come, the
rules, files and invocation at the end, and a large JSON Lines file is not kept in memory (its case lines are read
again by offset). The text is the one of building the whole log at once (`sarif_text`, orjson's indentation)."""

from __future__ import annotations

import gc
import json

import pytest
from click.testing import CliRunner

from ascverify.cli import check_cmd, main
from ascverify.cli.common import DataCache, checked_stream
from ascverify.engines import portability, sarif
from ascverify.spec.products import PRODUCT_IDS
from mixed_cases import BASE, mixed_case

def _file(tmp_path, n: int) -> str:
    """n cases as JSON Lines, with blank lines, CRLF endings, a broken line and non-ASCII names in between (the
    regions' columns count code points)."""
    lines = []
    for i in range(n):
        doc = mixed_case(i)
        if i % 3 == 0:
            doc = {"name": "débit ≥ 2 — ✓" * (i % 5), **doc}  # a name before the values on the line
        text = json.dumps(doc, ensure_ascii=False)
        lines.append("not json {" if i % 401 == 200 else text + ("\r" if i % 17 == 2 else ""))
        if i % 29 == 4:
            lines.append("   ")
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _results(path: str) -> list:
    return list(checked_stream(path, 1 << 30, DataCache()))


def _exit_code(results) -> int:
    return 2 if any(r.error is not None for r in results) else 1 if any(not r.valid for r in results) else 0


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of about 300 cases (``--product all``: 500), and the sizes of those the log was given."""
    monkeypatch.setattr(check_cmd, "SARIF_BATCH", 300)
    monkeypatch.setattr(check_cmd, "PORTABILITY_BATCH", 500)
    sizes: list[int] = []
    real = sarif.SarifLog.results

    def spy(self, results, products=None):
        sizes.append(len(results))
        return real(self, results, products)

    monkeypatch.setattr(sarif.SarifLog, "results", spy)
    return sizes


def test_the_log_is_the_whole_log_written_in_pieces(tmp_path, small_batches):
    path = _file(tmp_path, 2000)
    r = CliRunner().invoke(main, ["check", "--format", "sarif", path])
    results = _results(path)
    assert r.exit_code == _exit_code(results) == 2
    assert r.stdout == sarif.sarif_text(results, exit_code=2)
    # the reader hands out up to 4,096 results at a time: a batch ends at the first hand-out that reaches 300
    assert len(small_batches) >= 2 and max(small_batches[1:]) < 300 + 4096
    log = json.loads(r.stdout)
    assert list(log["runs"][0]) == ["results", "tool", "artifacts", "invocations", "columnKind"]
    assert log["runs"][0]["results"] and log["runs"][0]["invocations"][0]["toolExecutionNotifications"]


def test_every_product_in_batches(tmp_path, small_batches):
    path = _file(tmp_path, 4500)
    r = CliRunner().invoke(main, ["check", "--format", "sarif", "--product", "all", path])
    results = _results(path)
    flat = [x for x in results if x.error is not None]
    products: list = [None] * len(flat)
    for row in portability.check_on_products(results, PRODUCT_IDS):
        for v in row.verdicts:
            if v.supported or v.given:
                flat.append(v.result)
                products.append(v.product)
    whole = json.loads(sarif.sarif_text(flat, products=products, exit_code=r.exit_code))
    got = json.loads(r.stdout)
    assert len(small_batches) >= 2  # the reader's hand-outs of 4,096 results, each over the batch size
    # the batches give the unreadable cases of each batch before its verdicts: the same results, notifications and
    # rules; the files are listed in the order met
    key = lambda x: x["partialFingerprints"]["ascverifyCaseRule/v3"]  # noqa: E731
    assert sorted(got["runs"][0]["results"], key=key) == sorted(whole["runs"][0]["results"], key=key)
    assert got["runs"][0]["invocations"] == whole["runs"][0]["invocations"]
    assert got["runs"][0]["tool"] == whole["runs"][0]["tool"]


def test_a_large_json_lines_file_is_read_again_by_offset(tmp_path, monkeypatch):
    path = _file(tmp_path, 900)
    kept = CliRunner().invoke(main, ["check", "--format", "sarif", path])
    monkeypatch.setattr(sarif, "WHOLE_TEXT", 4096)  # this file is "large": its lines are read again, 512 bytes at once
    monkeypatch.setattr(sarif, "LINE_BLOCK", 512)
    reads: list[int] = []
    real = sarif._FileText._offsets

    def spy(self, reader):
        reads.append(1)
        return real(self, reader)

    monkeypatch.setattr(sarif._FileText, "_offsets", spy)
    again = CliRunner().invoke(main, ["check", "--format", "sarif", path])
    assert reads and again.stdout == kept.stdout and again.exit_code == kept.exit_code == 2
    regions = [loc["physicalLocation"]["region"] for res in json.loads(again.stdout)["runs"][0]["results"]
               for loc in res["locations"]]
    assert len({r["startLine"] for r in regions}) > 100


def test_regions_count_code_points_on_the_case_line(tmp_path, monkeypatch):
    """A value's column is worked out here from the line's text: the misaligned dst address of a case whose name
    holds non-ASCII characters."""
    monkeypatch.setattr(sarif, "WHOLE_TEXT", 700)  # three lines: the file is read again by offset
    doc = {"name": "débit ≥ ✓", **json.loads(json.dumps(BASE))}  # before the address on the line
    doc["tensors"]["dst"]["addr"] = 17
    line = json.dumps(doc, ensure_ascii=False)
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([json.dumps(BASE), "", line, json.dumps(BASE)]) + "\n", encoding="utf-8")
    assert sarif._FileText(str(path)).text is None
    log = json.loads(CliRunner().invoke(main, ["check", "--format", "sarif", str(path)]).stdout)
    (res,) = [x for x in log["runs"][0]["results"] if x["properties"]["jsonPointer"] == "/tensors/dst/addr"]
    region = res["locations"][0]["physicalLocation"]["region"]
    column = line.index('"addr": 17') + len('"addr": ') + 1  # 1-based, in characters
    assert region == {"startLine": 3, "startColumn": column}
    assert line.encode("utf-8").index(b'"addr": 17') != line.index('"addr": 17')  # bytes and characters differ here


def test_a_file_changed_after_it_was_read_gives_no_region(tmp_path, monkeypatch):
    monkeypatch.setattr(sarif, "WHOLE_TEXT", 1000)
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([json.dumps(BASE)] * 50) + "\n")
    ft = sarif._FileText(str(path))
    assert ft.kind == "lines" and ft.text is None and ft.region(49, "/tensors/dst/addr")["startLine"] == 50
    path.write_text("{}")  # shorter now; then gone
    ft._block = (0, b"")
    assert ft.raw_case(30) is None and ft.region(31, "/tensors/dst/addr") == {"startLine": 32, "startColumn": 1}
    path.unlink()
    ft._block = (0, b"")
    assert ft.raw_case(40) is None and ft.region(41, "/args") == {"startLine": 42, "startColumn": 1}


def test_value_positions_leave_no_garbage():
    """`check` pauses the garbage collector while it reads: positions found per line must not wait for it."""
    text = json.dumps(BASE)
    was = gc.isenabled()
    gc.disable()
    try:
        sarif.json_positions(text)
        before = len(gc.get_objects())
        for _ in range(200):
            sarif.json_positions(text)
        assert len(gc.get_objects()) - before < 20
    finally:
        if was:
            gc.enable()
