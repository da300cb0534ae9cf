"""`check --product all` writes its results as the file is read: each batch of cases is checked on every product and
printed before the next batch is read, so memory stays bounded however long the file. The output is the one of checking
everything at once: text lines and JSON Lines as `portability` words them for all the cases, the JSON document as
orjson indents it whole (re-dumped here from its own parse)."""

from __future__ import annotations

import json

import orjson
import pytest
from click.testing import CliRunner

from ascverify.cli import check_cmd, main
from ascverify.cli.common import DataCache, checked_stream
from ascverify.engines import portability
from ascverify.spec.products import PRODUCT_IDS
from mixed_cases import PROGRAM, mixed_case


def _file(tmp_path, n: int, broken_every: int = 0) -> str:
    lines = []
    for i in range(n):
        doc = mixed_case(i)
        lines.append("not json {" if broken_every and i % broken_every == 1 else json.dumps(doc))
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _at_once(path: str) -> tuple[list, list]:
    """Every result of the file, and every case checked on every product, in one go."""
    results = list(checked_stream(path, 1 << 30, DataCache()))
    return results, portability.check_on_products(results, PRODUCT_IDS)


@pytest.fixture
def batches(monkeypatch):
    """The sizes of the batches `check --product all` checked on every product (about 2,000 cases each here)."""
    monkeypatch.setattr(check_cmd, "PORTABILITY_BATCH", 2000)
    sizes: list[int] = []
    real = portability.check_on_products

    def spy(results, products=PRODUCT_IDS):
        sizes.append(len(results))
        return real(results, products)

    monkeypatch.setattr(portability, "check_on_products", spy)
    monkeypatch.setattr(check_cmd, "WRITE_SLICE", 700)  # each batch's text made 700 cases at a time
    return sizes


def test_long_files_are_checked_a_batch_at_a_time(tmp_path, batches):
    path = _file(tmp_path, 9000, broken_every=1000)
    r = CliRunner().invoke(main, ["check", "--product", "all", "--format", "jsonl", path])
    assert r.exit_code == 2, r.output  # unreadable lines
    # the reader hands out up to 4,096 results at a time: a batch ends at the first hand-out that reaches 2,000
    assert len(batches) >= 2 and max(batches) < 2000 + 4096 and sum(batches) == 9000
    results, rows = _at_once(path)
    docs = check_cmd._portability_docs(results, {id(row.result): row for row in rows})
    assert r.stdout == "".join(orjson.dumps(d).decode() + "\n" for d in docs)
    assert sum(1 for d in docs if d.get("portable") is False) > 0


def test_the_text_of_a_batch_is_made_a_slice_at_a_time(tmp_path, batches, monkeypatch):
    """A batch's JSON text is hundreds of MB: it is made and written a slice of cases at a time."""
    made: list[int] = []
    real = check_cmd._PortabilityJson.write_texts

    def spy(self, texts):
        made.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(check_cmd._PortabilityJson, "write_texts", spy)
    path = _file(tmp_path, 3000)
    r = CliRunner().invoke(main, ["check", "--product", "all", "--format", "json", path])
    assert r.exit_code == 1 and len(json.loads(r.stdout)["results"]) == 3000
    assert sum(made) == 3000 and max(made) == 700 and len(made) >= 5


def test_text_lines_are_those_of_all_cases_at_once(tmp_path, batches):
    path = _file(tmp_path, 5000)
    r = CliRunner().invoke(main, ["check", "--product", "all", path])
    assert len(batches) >= 2
    results, rows = _at_once(path)
    assert r.stdout == "".join(line + "\n" for line in portability.portability_lines(rows))
    portable = sum(1 for row in rows if row.portable)
    assert r.stderr.strip() == portability.portability_summary(rows, 0, PRODUCT_IDS)
    assert r.exit_code == (0 if portable == len(rows) else 1)


@pytest.mark.parametrize("n", [3, 5000])
def test_the_json_document_is_orjsons_whole(tmp_path, n, batches):
    path = _file(tmp_path, n, broken_every=700)
    r = CliRunner().invoke(main, ["check", "--product", "all", "--format", "json", path])
    doc = json.loads(r.stdout)
    assert r.stdout == orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
    assert list(doc) == ["format", "products", "results", "summary"] and doc["products"] == list(PRODUCT_IDS)
    results, rows = _at_once(path)
    assert doc["results"] == json.loads(orjson.dumps(check_cmd._portability_docs(results, {id(row.result): row
                                                                                         for row in rows})))
    assert doc["summary"]["portable"] == sum(1 for row in rows if row.portable)
    assert doc["summary"]["exit_status"] == r.exit_code == 2  # a line that is not JSON


def test_a_document_without_results(capsys):
    out = check_cmd._PortabilityJson()
    out.write([])
    out.close({"valid": 0})
    whole = {"format": check_cmd.CHECK_JSON_FORMAT, "products": list(PRODUCT_IDS), "results": [],
             "summary": {"valid": 0}}
    assert capsys.readouterr().out == orjson.dumps(whole, option=orjson.OPT_INDENT_2).decode() + "\n"


@pytest.mark.parametrize("indent", [True, False])
@pytest.mark.parametrize("strict", [False, True])
def test_each_entry_is_orjsons_text_of_its_dict(tmp_path, strict, indent):
    """`_portability_entry` builds an entry from the report's remembered pieces: the text is the one orjson writes
    for `_portability_docs`' dict, indented 4 spaces deep (--format json) or compact (--format jsonl), for every kind
    of result (cases valid or not here or elsewhere, programs, unreadable lines, warnings made errors)."""
    def doc(i: int) -> dict:
        d = mixed_case(i)
        if i % 50 == 7 and "isSetMask" in d["args"]:  # a mask set by an earlier call: notes and warnings
            d["args"]["isSetMask"] = False
        return d

    lines = [json.dumps(PROGRAM) if i % 97 == 3 else "not json {" if i % 300 == 1 else json.dumps(doc(i))
             for i in range(1500)]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    results, rows = _at_once(str(path))
    if strict:  # as `check --strict` promotes them, before either text is made
        for r in results:
            r.promote_warnings()
        for row in rows:
            for v in row.verdicts:
                v.result.promote_warnings()
    rows_of = {id(row.result): row for row in rows}
    kinds = set()
    for r in results:
        row = rows_of.get(id(r))
        doc = check_cmd._portability_docs([r], rows_of)[0]
        want = "    " + orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode().replace("\n", "\n    ") if indent \
            else orjson.dumps(doc).decode()
        assert check_cmd._portability_entry(r, row, indent) == want
        kinds.add("error" if r.error else "program" if r.program is not None else
                  "portable" if row.portable else "not portable")
    assert kinds == {"error", "program", "portable", "not portable"}
    assert any(v.result.warnings or v.result.unchecked for row in rows for v in row.verdicts)
