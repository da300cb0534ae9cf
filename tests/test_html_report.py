"""The HTML pages of `fuzz --html` and `gen --html`, opened in a real browser (headless Chromium through Playwright).

The browser: Playwright's own Chromium when `playwright install chromium` could put one under
PLAYWRIGHT_BROWSERS_PATH (.ci/run tries, into .ci-cache/ inside the checkout), else a Chromium of the machine
(`chromium`, `chromium-browser`, `google-chrome` on PATH); when neither starts, the browser tests skip and say
why. Every request the page makes other than for its own file fails the test: the page must be self-contained.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import ascverify
from ascverify.cli import main

ROOT = Path(__file__).resolve().parent.parent
BUGGY = f"{ROOT / 'examples' / 'targets' / 'bilinear_buggy.py'}:bilinear"
#: Chromium flags for a machine without a display or a network (no background connections, no GPU, no sandbox as root).
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
SYSTEM_CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (see the module's docstring), or a skip with the reason."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        pytest.skip(f"playwright is not installed ({exc}): pip install -e '.[test]'")
    pw = sync_playwright().start()
    reasons = []
    b = None
    try:
        b = pw.chromium.launch(args=ARGS)
    except Exception as exc:  # noqa: BLE001 - no browser of Playwright's own: try the machine's
        reasons.append(f"Playwright's Chromium: {str(exc).splitlines()[0][:200]}")
    if b is None:
        for name in SYSTEM_CHROMIUM:
            exe = shutil.which(name)
            if not exe:
                continue
            try:
                b = pw.chromium.launch(executable_path=exe, args=ARGS)
                break
            except Exception as exc:  # noqa: BLE001
                reasons.append(f"{exe}: {str(exc).splitlines()[0][:200]}")
        else:
            reasons.append(f"no {'/'.join(SYSTEM_CHROMIUM)} on PATH")
    if b is None:
        pw.stop()
        pytest.skip("no browser to open the HTML report in: " + "; ".join(reasons))
    yield b
    b.close()
    pw.stop()


def open_page(browser, path: Path):
    """The page loaded from ``path``; the list of outside requests it made and of console errors."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    outside: list[str] = []
    errors: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return page, outside, errors


def visible_size(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return (box["width"], box["height"]) if box else (0.0, 0.0)


# -- the campaign page -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def buggy_campaign(tmp_path_factory):
    """A differential campaign against a target with a bug (mask words swapped): findings, shrunk."""
    tmp = tmp_path_factory.mktemp("campaign")
    html, report = tmp / "fuzz.html", tmp / "report.json"
    res = CliRunner().invoke(main, ["fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY,
                                    "--examples", "60", "--seed", "3", "--findings", str(tmp / "findings"),
                                    "--database", "none", "-q", "--report", str(report), "--html", str(html)])
    assert res.exit_code == 1, res.output
    return html, json.loads(report.read_text())


def test_campaign_page_in_a_browser(browser, buggy_campaign):
    html, report = buggy_campaign
    page, outside, errors = open_page(browser, html)
    assert outside == [] and errors == []
    assert page.title() == "ascverify fuzz campaign"
    findings = report["findings"]
    assert findings
    shown = page.locator("[data-finding]")
    assert shown.count() == len(findings)
    for k, f in enumerate(findings):
        div = shown.nth(k)
        assert div.get_attribute("data-finding") == f["id"]
        assert f["message"][:60] in div.inner_text()
        case_json = json.loads(div.locator("details pre").first.inner_text())
        assert case_json == f["case"], "the shrunk case as the report holds it"
        svg = div.locator(".map svg")
        w, h = visible_size(svg)
        assert w > 300 and h > 200, "the memory map is drawn"
        texts = svg.locator("text").all_text_contents()
        for name in f["case"]["tensors"]:
            assert any(name in t for t in texts), name
    # over time: both charts drawn
    for chart in ("examples per second over time", "rule coverage over time"):
        w, h = visible_size(page.locator(f'svg[data-chart="{chart}"]'))
        assert w > 200 and h > 100, chart
    # the summary agrees with the JSON report
    summary = page.locator("#summary").inner_text()
    assert f"{report['totals']['cases']:,}" in summary
    # the rule-coverage heat map: one row per rule classified (type rules aside), coloured cells
    rules = [r for r in report["coverage"]["rules"]["BilinearInterpolation"] if not r.endswith(".type")]
    table = page.locator('table[data-heatmap="rule coverage of BilinearInterpolation"]')
    assert table.locator("tbody tr").count() == len(rules)
    styles = table.locator("td").evaluate_all("cells => cells.map(c => getComputedStyle(c).backgroundColor)")
    assert len(set(styles)) > 2, "cells coloured by their counts"


# -- every registered API ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def every_api_campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("every")
    html, report = tmp / "fuzz.html", tmp / "report.json"
    res = CliRunner().invoke(main, ["fuzz", "--examples", "3", "--seed", "1", "--findings", str(tmp / "findings"),
                                    "--database", "none", "-q", "--report", str(report), "--html", str(html)])
    assert res.exit_code == 0, res.output
    return html, json.loads(report.read_text())


@pytest.fixture(scope="module")
def every_api_page(browser, every_api_campaign):
    html, report = every_api_campaign
    page, outside, errors = open_page(browser, html)
    assert outside == [] and errors == []
    return page, report


@pytest.mark.parametrize("model", ascverify.apis(), ids=lambda m: m.name)
def test_campaign_page_shows_every_api(every_api_page, model):
    page, report = every_api_page
    cases = sum(it["cases"] for it in report["items"] if it["api"] == model.name)
    assert cases > 0
    row = page.locator("#breakdown table").first.locator("tbody tr", has_text=model.name).first
    cells = row.locator("td").all_inner_texts()
    assert cells[0] == model.name and int(cells[2]) == cases
    heat = page.locator(f'table[data-heatmap="rule coverage of {model.name}"]')
    if not model.fields:  # SetMaskCount / SetMaskNorm: no argument, no rule of an argument to cover
        assert heat.count() == 0
        return
    assert heat.count() == 1
    w, h = visible_size(heat)
    assert w > 0 and h > 0


@pytest.mark.parametrize("model", ascverify.apis(), ids=lambda m: m.name)
def test_gen_page_in_a_browser(browser, model, tmp_path):
    product = model.supported_products()[0]
    html = tmp_path / "gen.html"
    res = CliRunner().invoke(main, ["gen", model.name, "--product", product, "-n", "3", "--seed", "1",
                                    "-o", str(tmp_path / "cases"), "--html", str(html)])
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "cases" / "manifest.json").read_text())
    page, outside, errors = open_page(browser, html)
    assert outside == [] and errors == []
    maps = page.locator(".map svg")
    assert maps.count() == len(manifest["cases"]) == (3 if model.args else 1)  # no argument: one case per type
    for k, entry in enumerate(manifest["cases"]):
        w, h = visible_size(maps.nth(k))
        assert w > 300 and h > 50
        texts = maps.nth(k).locator("text").all_text_contents()
        for desc in entry["input_desc"] + entry["output_desc"]:
            assert any(desc["name"] in t for t in texts), desc["name"]
    assert page.locator(f'table[data-heatmap="rule coverage of {model.name}"]').count() == 1


def test_gen_html_inside_the_output_folder_is_refused(tmp_path):
    res = CliRunner().invoke(main, ["gen", "BlockReduceMin", "--product", "atlas-a2", "-n", "1",
                                    "-o", str(tmp_path / "cases"), "--html", str(tmp_path / "cases" / "page.html")])
    assert res.exit_code == 2
    assert "--html" in res.output and not (tmp_path / "cases" / "manifest.json").exists()


# -- the timeline and the options (no browser) -------------------------------------------------------------------------

class _Display:
    def __init__(self):
        self.findings, self.results, self.calls = [], [], []

    def start(self, unit, total, seconds):
        self.calls.append("start")

    def advance(self, unit, n=1):
        self.calls.append(("advance", n))

    def finding(self, summary):
        self.findings.append(summary)

    def done(self, result):
        self.results.append(result)


def test_timeline_records_without_changing_the_display():
    from types import SimpleNamespace

    from ascverify.engines.pictures.timeline import SAMPLE_SECONDS, Timeline

    now = [100.0]
    display = _Display()
    tl = Timeline(display, clock=lambda: now[0])
    tl.start("u", 10, None)
    for k in range(5):
        now[0] += SAMPLE_SECONDS
        tl.advance("u", 2)
    tl.finding({"id": "f1"})
    cov = {"Api": {"api.a.range": {"interior": 3, "boundary": 1, "violated": 0, "n/a": 0},
                   "api.b.align": {"interior": 0, "boundary": 0, "violated": 2, "n/a": 0},
                   "api.c.type": {"interior": 5, "boundary": 0, "violated": 0, "n/a": 0},
                   "api.d.disjoint": {"interior": 0, "boundary": 0, "violated": 0, "n/a": 4}}}
    now[0] += 1.0
    tl.done(SimpleNamespace(coverage=cov))
    # the display saw every call, and the campaign reads its attributes through the timeline
    assert display.calls == ["start"] + [("advance", 2)] * 5
    assert tl.findings == [{"id": "f1"}] and tl.results and tl.results is display.results
    rec = tl.to_json()
    assert rec["samples"][-1] == [2.0, 10]          # 5 x 0.2 s + 1 s, 10 cases
    assert [n for _, n in rec["samples"]] == sorted(n for _, n in rec["samples"])
    # two rules classified besides the type rule and the rule that never applied: a inside and at its boundary,
    # b broken
    assert rec["coverage"] == [[2.0, 10, {"rules": 2, "interior": 1, "boundary": 1, "violated": 1}]]
    assert rec["findings"] == [[1.0, "f1"]]


def test_fuzz_html_into_a_folder_is_refused_before_the_campaign(tmp_path):
    res = CliRunner().invoke(main, ["fuzz", "SetVectorMask", "--examples", "2", "--findings", str(tmp_path / "f"),
                                    "--database", "none", "-q", "--html", str(tmp_path)])
    assert res.exit_code == 2
    assert "--html" in res.output and "folder" in res.output
    assert not (tmp_path / "f").exists() or not any((tmp_path / "f").iterdir())
