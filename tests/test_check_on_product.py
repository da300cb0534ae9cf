"""`check --product P` reads each case as if it named P and checks it there once, as the file is read (the same
windows, workers and output as plain `check`). The reference is plain `check` on a copy of the file whose lines name
P themselves (the product field rewritten here, not by the code under test)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ascverify.cli import check_cmd, common, main
from mixed_cases import PROGRAM, mixed_case


def _docs(n: int) -> list[dict | None]:
    """n documents (None: a line that is not JSON)."""
    out: list[dict | None] = []
    for i in range(n):
        if i % 97 == 50:
            out.append(None)
            continue
        doc = mixed_case(i)
        if i % 31 == 7:
            doc = {**json.loads(json.dumps(PROGRAM)), "product": doc["product"]}
        elif i % 5 == 1:  # fits the larger buffers of atlas-350 only
            doc["tensors"]["src"]["addr"] = 200 * 1024
        out.append(doc)
    return out


def _write(folder, docs: list[dict | None], product: str | None = None) -> None:
    """docs as cases.jsonl in ``folder`` (``product``: every document names it)."""
    folder.mkdir()
    lines = []
    for doc in docs:
        if doc is None:
            lines.append("not json {")
            continue
        lines.append(json.dumps({**doc, "product": product} if product else doc))
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n")


def _run(monkeypatch, folder, *argv: str):
    monkeypatch.chdir(folder)  # the same relative file name in both runs: the outputs name it
    return CliRunner().invoke(main, ["check", *argv, "cases.jsonl"])


def _without_regions(value):
    if isinstance(value, dict):
        return {k: _without_regions(v) for k, v in value.items() if k != "region"}
    if isinstance(value, list):
        return [_without_regions(v) for v in value]
    return value


@pytest.mark.parametrize("product", ["atlas-a3", "atlas-350"])
@pytest.mark.parametrize("argv", [[], ["-v"], ["--format", "json"], ["--format", "jsonl", "-v", "--strict"],
                                  ["--format", "sarif"]])
def test_moved_cases_say_what_cases_naming_the_product_say(tmp_path, monkeypatch, product, argv):
    docs = _docs(400)
    _write(tmp_path / "given", docs)
    _write(tmp_path / "named", docs, product)
    moved = _run(monkeypatch, tmp_path / "given", "--product", product, *argv)
    named = _run(monkeypatch, tmp_path / "named", *argv)
    if argv == ["--format", "sarif"]:  # its regions point into each file, whose product fields differ in length
        assert _without_regions(json.loads(moved.stdout)) == _without_regions(json.loads(named.stdout))
        assert (moved.stderr, moved.exit_code) == (named.stderr, named.exit_code)
        return
    assert (moved.stdout, moved.stderr, moved.exit_code) == (named.stdout, named.stderr, named.exit_code)
    assert moved.exit_code == 2  # the lines that are not JSON
    if argv == ["--format", "json"]:
        results = json.loads(moved.stdout)["results"]
        assert {r["product"] for r in results if "error" not in r} == {product}
        assert any(r["valid"] for r in results if "error" not in r)
        assert any(not r["valid"] for r in results if "error" not in r)


def test_each_case_is_checked_once_in_windows(tmp_path, monkeypatch):
    """Streamed like plain `check`: windows of at most STREAM_WINDOW cases, each case checked on P only (before, every
    case was checked on its own product, and all were kept until the end of the input)."""
    docs = _docs(2600)
    _write(tmp_path / "given", docs)
    monkeypatch.setattr(common, "STREAM_WINDOW", 500)
    sizes: list[int] = []
    products: set[str] = set()
    real = common.check_cases

    def spy(cases, *a, **kw):
        sizes.append(len(cases))
        products.update(c.ctx.product.id for c in cases)
        return real(cases, *a, **kw)

    monkeypatch.setattr(common, "check_cases", spy)
    r = _run(monkeypatch, tmp_path / "given", "--product", "atlas-a3", "--format", "jsonl")
    single = sum(1 for d in docs if d is not None and "api" in d)
    assert sum(sizes) == single and max(sizes) <= 500 and len(sizes) >= single // 500
    assert products == {"atlas-a3"}
    assert len(r.stdout.splitlines()) == len(docs)


def test_workers_say_what_one_process_says(tmp_path, monkeypatch):
    _write(tmp_path / "given", _docs(3000))
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)  # this small file split between the workers too
    monkeypatch.setattr(common, "PARALLEL_MIN_CHUNK_LINES", 400)
    one = _run(monkeypatch, tmp_path / "given", "--product", "atlas-a3", "--format", "json", "--workers", "1")
    two = _run(monkeypatch, tmp_path / "given", "--product", "atlas-a3", "--format", "json", "--workers", "2")
    assert (one.stdout, one.stderr, one.exit_code) == (two.stdout, two.stderr, two.exit_code)
    assert json.loads(one.stdout)["summary"]["invalid"] > 0


@pytest.mark.parametrize("argv, why", [(["--product", "all"], "--product all"),
                                       (["--format", "sarif"], "--format sarif"),
                                       (["--schema", "--format", "jsonl"], "--schema")])
def test_workers_a_run_cannot_use_are_named_not_ignored_silently(tmp_path, monkeypatch, argv, why):
    """--product all, --format sarif and --schema check in one process: asked for workers, `check` says so on
    standard error (once, before the summary), and prints what one process prints."""
    _write(tmp_path / "given", _docs(300))
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)  # a file the workers would otherwise take
    one = _run(monkeypatch, tmp_path / "given", *argv)
    two = _run(monkeypatch, tmp_path / "given", *argv, "--workers", "2")
    note = f"note: --workers 2 is not used with {why}: the check runs in one process\n"
    assert two.stderr.count("--workers") == 1 and two.stderr.startswith(note)
    assert (two.stdout, two.stderr[len(note):], two.exit_code) == (one.stdout, one.stderr, one.exit_code)
    assert "--workers" not in one.stderr
