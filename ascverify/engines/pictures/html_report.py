"""HTML pages of a fuzz campaign (``fuzz --html``) and of a generation (``gen --html``): one self-contained file each.

A page holds everything it shows: the CSS in a ``<style>`` element, the charts and memory maps as inline SVG drawn
with matplotlib, no script and no reference to anything outside the file (it opens offline, from an e-mail or a
CI artifact). Heat maps are HTML tables whose cells matplotlib's colour maps colour (they stay text: searchable,
copyable, readable by a screen reader).

Campaign page: the summary, the findings (each with its shrunk case and its memory map), cases and rule coverage
over time (`timeline.Timeline`), the breakdowns per API, per product and per API and product, the checks, and the
rule-coverage table as a heat map. Generation page: the summary, the mode's report (targets or diversity), the
rule coverage of the cases written (classified like a campaign's), the cases, and memory maps of the first ones.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from ...cases.case import Case
from ...cases.parse import parse_case
from ...spec.registry import lookup_api
from ...spec.version import __version__
from ..fuzz.coverage import STATUSES, Coverage, classify
from ..fuzz.reproducers import shrink_note
from .charts import bar_chart, colour_scale, coverage_chart, rate_chart
from .figure import inline_svg, svg_text
from .memory_map import build_map
from .text import plain

#: Memory maps drawn in one page at most (each is tens of kilobytes of SVG); the others are listed.
MAX_MAPS = 20
#: Cases of a generation classified for its rule coverage (about 8 ms each), and listed in its table, at most.
MAX_CLASSIFIED = 2000
MAX_LISTED = 1000

CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1180px; padding: 0 18px 40px;
       color: #1a1a1a; line-height: 1.4; }
h1 { font-size: 1.5em; margin: 18px 0 4px; } h2 { font-size: 1.2em; margin-top: 28px; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin: 14px 0 6px; }
nav a { margin-right: 12px; } .muted { color: #666; } .bad { color: #b00020; font-weight: bold; }
.good { color: #00703c; font-weight: bold; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.card b { display: block; font-size: 1.5em; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.heat td.num { min-width: 64px; }
pre { background: #f7f7f7; border: 1px solid #e2e2e2; padding: 8px; overflow-x: auto; font-size: 0.82em; }
details { margin: 6px 0; } summary { cursor: pointer; }
.finding { border-left: 4px solid #b00020; padding: 2px 12px; margin: 12px 0; }
svg { max-width: 100%; height: auto; }
.map svg { border: 1px solid #eee; }
"""


def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def page(title: str, sections: Sequence[tuple[str, str, str]], *, subtitle: str = "") -> str:
    """The whole document: ``sections`` are (anchor, heading, HTML body)."""
    nav = " ".join(f'<a href="#{esc(a)}">{esc(h)}</a>' for a, h, _ in sections)
    body = "\n".join(f'<section id="{esc(a)}"><h2>{esc(h)}</h2>\n{content}\n</section>' for a, h, content in sections)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="ascverify {esc(__version__)}">\n'
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"<h1>{esc(title)}</h1>\n<p class=\"muted\">{esc(subtitle)}</p>\n<nav>{nav}</nav>\n{body}\n"
            f'<p class="muted">Written by ascverify {esc(__version__)}; this page is self-contained (no script, nothing '
            f"fetched).</p>\n</body>\n</html>\n")


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, cls: str = "", numeric: Sequence[int] = ()) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    out = [f'<table class="{esc(cls)}"><thead><tr>{head}</tr></thead><tbody>']
    for row in rows:
        cells = "".join(f'<td class="num">{esc(c)}</td>' if k in numeric else f"<td>{esc(c)}</td>"
                        for k, c in enumerate(row))
        out.append(f"<tr>{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def cards(items: Sequence[tuple[str, Any]]) -> str:
    return '<div class="cards">' + "".join(f'<div class="card"><b>{esc(v)}</b>{esc(k)}</div>' for k, v in items) + "</div>"


def heat_table(row_labels: Sequence[str], columns: Sequence[str], values: Sequence[Sequence[int]], *, caption: str,
               corner: str = "", cmap: str = "Blues", per_row: bool = True) -> str:
    """A heat map as a table: each cell's colour is its share of its row (``per_row``) or of the largest value."""
    peak = max((v for row in values for v in row), default=0) or 1
    head = f"<th>{esc(corner)}</th>" + "".join(f"<th>{esc(c)}</th>" for c in columns)
    out = [f'<table class="heat" data-heatmap="{esc(caption)}"><caption class="muted">{esc(caption)}</caption>'
           f"<thead><tr>{head}</tr></thead><tbody>"]
    for label, row in zip(row_labels, values):
        total = sum(row) or 1
        cells = []
        for c, v in zip(columns, row):
            share = v / total if per_row else v / peak
            bg, fg = colour_scale(share, cmap)
            cells.append(f'<td class="num" style="background:{bg};color:{fg}" '
                         f'title="{esc(label)}: {esc(c)}: {v} ({100 * v / total:.0f}% of the row)">{v}</td>')
        out.append(f"<tr><th>{esc(label)}</th>{''.join(cells)}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def coverage_heatmaps(coverage: Mapping[str, Mapping[str, Mapping[str, int]]], *, include_types: bool = False) -> str:
    """The rule-coverage table of each API as a heat map (rows: rules in the model's order; cells: cases)."""
    if not coverage:
        return '<p class="muted">No rule was classified.</p>'
    out = ['<p class="muted">Cases per rule and status: inside the rule\'s legal space, on its boundary, breaking it, '
           "or the rule not applying. A colour is the cell's share of its row; a rule never seen at its boundary or "
           "broken shows white there.</p>"]
    for api in sorted(coverage):
        rules = coverage[api]
        model = lookup_api(api)
        order = [r.id for r in model.rules] if model else []
        ids = [r for r in order if r in rules] + sorted(r for r in rules if r not in order)
        ids = [r for r in ids if include_types or not r.endswith(".type")]
        values = [[int(rules[r].get(s, 0)) for s in STATUSES] for r in ids]
        never = sum(1 for v in values if not v[1])
        out.append(f'<details open><summary><b>{esc(api)}</b>: {len(ids)} rules, {never} never at their boundary'
                   f"</summary>")
        out.append(heat_table(ids, STATUSES, values, caption=f"rule coverage of {api}", corner="rule"))
        out.append("</details>")
    return "\n".join(out)


def map_html(case: Case, *, origin: str = "", seed: int = 0) -> str:
    """A case's memory map as inline SVG, with its text form folded under it."""
    mmap = build_map(case, origin=origin, seed=seed)
    svg = inline_svg(svg_text(mmap))
    return (f'<div class="map" data-map="{esc(origin or case.model.name)}">{svg}</div>'
            f"<details><summary>the map as text</summary><pre>{esc(plain(mmap))}</pre></details>")


def _case_of(doc: Any, where: str) -> Case | None:
    try:
        return parse_case(doc, origin=where)
    except Exception:  # noqa: BLE001 - a finding's case that no longer parses is shown as JSON only
        return None


# -- the campaign page -----------------------------------------------------------------------------------------------

def fuzz_page(report: Mapping[str, Any], timeline: Any = None, *, title: str = "ascverify fuzz campaign") -> str:
    """The page of a campaign from its JSON report (``CampaignResult.report``) and, when recorded, its timeline."""
    totals = report.get("totals", {})
    config = report.get("config", {})
    items = report.get("items", [])
    findings = report.get("findings", [])
    elapsed = float(report.get("elapsed_seconds") or 0.0)
    cases = int(totals.get("cases", 0))
    rate = cases / elapsed if elapsed > 0 else 0.0
    status = int(report.get("exit_status", 0))
    verdict = ("interrupted" if report.get("interrupted") else
               f"{len(findings)} finding(s)" if findings else "errors" if totals.get("errors") else "no finding")
    summary = [
        f'<p class="{"bad" if findings or status else "good"}">Verdict: {esc(verdict)} (exit status {status}).</p>',
        cards([("items", totals.get("items", 0)), ("cases", f"{cases:,}"), ("examples/s", f"{rate:,.1f}"),
               ("findings", totals.get("findings", 0)), ("new findings", totals.get("new_findings", 0)),
               ("checks failed", totals.get("checks_failed", 0)), ("errors", totals.get("errors", 0)),
               ("seconds", f"{elapsed:,.1f}")]),
        table(("option", "value"), [(k, json.dumps(v, default=str) if not isinstance(v, str) else v)
                                    for k, v in config.items() if v not in (None, "", [], {})]),
    ]
    for err in report.get("harness_errors") or ():
        summary.append(f'<pre class="bad">{esc(err)}</pre>')
    sections = [("summary", "Summary", "\n".join(summary)),
                ("findings", f"Findings ({len(findings)})", _findings(findings)),
                ("time", "Over time", _over_time(timeline)),
                ("breakdown", "Per API and product", _breakdown(items, findings)),
                ("checks", "Checks", _checks(report.get("checks", []))),
                ("coverage", "Rule coverage", coverage_heatmaps(report.get("coverage", {}).get("rules", {})))]
    observed = report.get("negative_observed") or {}
    if observed:
        sections.append(("negative", "Negative cases: what the core did", _observed(observed)))
    started = report.get("started", "")
    return page(title, sections, subtitle=f"started {started}, seed {config.get('seed')}, ascverify "
                                          f"{report.get('ascverify', __version__)}")


def _findings(findings: Sequence[Mapping[str, Any]]) -> str:
    if not findings:
        return '<p class="good">No finding.</p>'
    out = []
    for k, f in enumerate(findings):
        flags = [("shrunk" if f.get("shrunk", True) else shrink_note(f).strip(" ()")),
                 ("new" if f.get("new", True) else "known")]
        head = (f"{f.get('api')} on {f.get('product')}: {f.get('kind')} check {f.get('check')} "
                f"({', '.join(flags)})")
        out.append(f'<div class="finding" id="finding-{k}" data-finding="{esc(f.get("id", k))}">'
                   f"<h3>{esc(head)}</h3><p>{esc(f.get('message', ''))}</p>")
        facts = [("key", f.get("key")), ("rule broken", f.get("rule")), ("seed", f.get("seed")),
                 ("folder", f.get("path") or f.get("unsaved")), ("id", f.get("id"))]
        out.append(table(("", ""), [(a, b) for a, b in facts if b not in (None, "")]))
        if f.get("path"):
            out.append(f"<p>Replay: <code>ascverify replay {esc(f['path'])}</code></p>")
        doc = f.get("case")
        if doc is not None:
            out.append(f"<details open><summary>the shrunk case</summary><pre>{esc(json.dumps(doc, indent=2))}"
                       f"</pre></details>")
            case = _case_of(doc, f"finding {f.get('id', k)}")
            if case is not None and k < MAX_MAPS:
                out.append(map_html(case, origin=f"finding {f.get('id', k)}", seed=int(f.get("seed") or 0)))
            elif case is not None:
                out.append(f'<p class="muted">Memory map not drawn (the page draws the first {MAX_MAPS}): '
                           f"<code>ascverify show {esc(f.get('path') or 'FINDING')}/case.json</code></p>")
        out.append("</div>")
    return "\n".join(out)


def _over_time(timeline: Any) -> str:
    if timeline is None:
        return '<p class="muted">Not recorded (the campaign ran without a timeline).</p>'
    data = timeline.to_json() if hasattr(timeline, "to_json") else timeline
    samples = [(float(t), int(n)) for t, n in data.get("samples", [])]
    points = [(float(t), int(n), dict(p)) for t, n, p in data.get("coverage", [])]
    out = [rate_chart(samples) or '<p class="muted">Too short to draw.</p>', coverage_chart(points)]
    if data.get("findings"):
        out.append(table(("seconds", "finding"), [(f"{t:.1f}", f) for t, f in data["findings"]], numeric=(0,)))
    out.append("<details><summary>the numbers</summary>"
               + table(("seconds", "cases", "rules seen", "inside", "at the boundary", "broken"),
                       [(f"{t:.1f}", n, p["rules"], p["interior"], p["boundary"], p["violated"]) for t, n, p in points],
                       numeric=(0, 1, 2, 3, 4, 5)) + "</details>")
    return "\n".join(x for x in out if x)


def _breakdown(items: Sequence[Mapping[str, Any]], findings: Sequence[Mapping[str, Any]]) -> str:
    if not items:
        return '<p class="muted">No item ran.</p>'
    out = []
    for key, label in (("api", "API"), ("product", "product")):
        agg: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for it in items:
            a = agg[str(it.get(key))]
            a["items"] += 1
            a["cases"] += int(it.get("cases", 0))
            a["seconds"] += float(it.get("elapsed_seconds", 0.0))
            a["errors"] += it.get("status") == "error"
            a["skipped"] += it.get("status") == "skipped"
        for f in findings:
            agg[str(f.get(key))]["findings"] += 1
        names = sorted(agg)
        rows = [(n, int(agg[n]["items"]), int(agg[n]["cases"]), f"{agg[n]['seconds']:.1f}",
                 f"{agg[n]['cases'] / agg[n]['seconds']:.1f}" if agg[n]["seconds"] > 0 else "-",
                 int(agg[n]["findings"]), int(agg[n]["errors"]), int(agg[n]["skipped"])) for n in names]
        out.append(f"<h3>Per {esc(label)}</h3>")
        out.append(table((label, "items", "cases", "seconds", "examples/s", "findings", "errors", "skipped"), rows,
                         numeric=(1, 2, 3, 4, 5, 6, 7)))
        out.append(bar_chart(names, [agg[n]["cases"] for n in names], title=f"cases per {label}", xlabel="cases",
                             marks=[int(agg[n]["findings"]) for n in names]))
    apis = sorted({str(it.get("api")) for it in items})
    products = sorted({str(it.get("product")) for it in items})
    grid = {(a, p): 0 for a in apis for p in products}
    for it in items:
        grid[(str(it.get("api")), str(it.get("product")))] += int(it.get("cases", 0))
    out.append("<h3>Cases per API and product</h3>")
    out.append(heat_table(apis, products, [[grid[(a, p)] for p in products] for a in apis],
                          caption="cases per API and product", corner="API", per_row=False))
    return "\n".join(out)


def _checks(checks: Sequence[Mapping[str, Any]]) -> str:
    if not checks:
        return '<p class="muted">No check ran.</p>'
    return table(("API", "kind", "check", "status", "cases", "products", "findings"),
                 [(c.get("api"), c.get("kind"), c.get("check"), c.get("status"), c.get("cases"),
                   ", ".join(c.get("products") or ()), len(c.get("findings") or ())) for c in checks],
                 numeric=(4, 6))


def _observed(observed: Mapping[str, Mapping[str, Mapping[str, int]]]) -> str:
    out = []
    for api in sorted(observed):
        rules = observed[api]
        kinds = sorted({k for c in rules.values() for k in c})
        ids = sorted(rules)
        out.append(heat_table(ids, kinds, [[int(rules[r].get(k, 0)) for k in kinds] for r in ids],
                              caption=f"{api}: cases breaking one rule, by what the core did", corner="rule"))
    return "\n".join(out)


# -- the generation page ---------------------------------------------------------------------------------------------

def gen_page(manifest: Mapping[str, Any], cases: Sequence[Case], *, title: str = "") -> str:
    """The page of a generation from its manifest and its cases (in manifest order)."""
    entries = manifest.get("cases", [])
    counts = manifest.get("counts", {})
    title = title or f"ascverify gen: {manifest.get('op')} on {manifest.get('product')}"
    problems = [e for e in entries if e.get("problem")]
    summary = [
        f'<p class="{"bad" if problems else "good"}">'
        f"{esc(len(problems))} case(s) do not show what they should.</p>" if problems else
        '<p class="good">Every case shows what it should.</p>',
        cards([("cases", counts.get("cases", len(entries))), ("expect success", counts.get("success", 0)),
               ("expect failed", counts.get("failed", 0)), ("mode", manifest.get("mode")),
               ("seed", manifest.get("seed")), ("complete", "yes" if manifest.get("complete") else "no")]),
        table(("", ""), [(k, manifest.get(k)) for k in ("op", "product", "dtype", "mode", "seed", "requested",
                                                        "technique", "stopped") if manifest.get(k) is not None]),
    ]
    sections = [("summary", "Summary", "\n".join(summary)), ("mode", f"The {manifest.get('mode')} mode's report",
                                                            _gen_mode(manifest))]
    coverage = Coverage()
    step = max(1, -(-len(cases) // MAX_CLASSIFIED))
    sample = cases[::step]
    for case in sample:
        coverage.add(case.model.name, classify(case))
    note = (f'<p class="muted">Every {step}th case classified ({len(sample)} of {len(cases)}).</p>'
            if step > 1 else "")
    sections.append(("coverage", "Rule coverage of the cases", note + coverage_heatmaps(coverage.to_json())))
    sections.append(("breakdown", "Per rule broken", _gen_breaks(entries)))
    sections.append(("cases", f"Cases ({len(entries)})", _gen_cases(entries, cases)))
    return page(title, sections, subtitle=f"{manifest.get('op')} on {manifest.get('product')} "
                                          f"(T={manifest.get('dtype')}), format {manifest.get('format')}")


def _gen_mode(manifest: Mapping[str, Any]) -> str:
    out = []
    cov = manifest.get("coverage")
    if isinstance(cov, dict):
        out.append(cards([(k, v) for k, v in cov.items() if isinstance(v, int)]))
        by_rule: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for t in cov.get("all", []):
            by_rule[t.get("rule") or f"field {t.get('field')}"][t.get("status", "?")] += 1
        statuses = sorted({s for c in by_rule.values() for s in c})
        rows = sorted(by_rule)
        out.append(heat_table(rows, statuses, [[by_rule[r].get(s, 0) for s in statuses] for r in rows],
                              caption="targets per rule (or field) and status", corner="rule or field",
                              cmap="Greens"))
        missed = [t for t in cov.get("not_covered", []) if t.get("status") != "context"]
        if missed:
            out.append("<details><summary>targets not covered, and why</summary>"
                       + table(("status", "target", "reason"), [(t.get("status"), t.get("target"), t.get("reason", ""))
                                                                for t in missed]) + "</details>")
        for t in cov.get("not_alone", []):
            out.append(f"<p>not alone: [{esc(t['rule'])}] drags along {esc(', '.join(t['drags_along']))}</p>")
    div = manifest.get("diversity")
    if isinstance(div, dict):
        out.append(cards([("median distinct values per argument field", div.get("median_distinct_per_argument_field")),
                          ("domain ends hit", f"{div.get('domain_ends_hit')} of {div.get('domain_ends')}")]))
        distinct = div.get("distinct_values", {})
        names = list(distinct)
        n = max(int(div.get("cases") or 1), 1)
        out.append(heat_table(names, ["distinct values"], [[int(distinct[k])] for k in names],
                              caption=f"distinct values per field over {n} cases", corner="field", per_row=False,
                              cmap="Greens"))
        if div.get("ends_missed"):
            out.append(f"<p>Domain ends missed: {esc(', '.join(div['ends_missed']))}</p>")
    if not out:
        out.append('<p class="muted">No report for this mode.</p>')
    return "\n".join(out)


def _gen_breaks(entries: Sequence[Mapping[str, Any]]) -> str:
    count: dict[str, int] = defaultdict(int)
    for e in entries:
        for r in e.get("breaks", []):
            count[r] += 1
    if not count:
        return '<p class="muted">No case breaks a rule.</p>'
    names = sorted(count, key=lambda r: (-count[r], r))
    return bar_chart(names, [count[r] for r in names], title="cases breaking each rule", xlabel="cases")


def _gen_cases(entries: Sequence[Mapping[str, Any]], cases: Sequence[Case]) -> str:
    rows = [(e.get("case_name"), e.get("expect"), ", ".join(e.get("breaks", [])) or "-",
             ", ".join(e.get("warns", [])) or "-", e.get("problem") or "",
             "; ".join((e.get("core") or {}).get("faults") or [])[:300]) for e in entries[:MAX_LISTED]]
    out = [table(("case", "expect", "breaks", "warns", "problem", "core faults"), rows)]
    if len(entries) > MAX_LISTED:
        out.append(f'<p class="muted">{len(entries) - MAX_LISTED} more case(s) in manifest.json.</p>')
    order = sorted(range(min(len(entries), len(cases))),
                   key=lambda k: (not entries[k].get("problem"), entries[k].get("expect") != "failed", k))
    drawn = order[:MAX_MAPS]
    for k in sorted(drawn):
        e = entries[k]
        out.append(f'<h3 id="{esc(e.get("case_name"))}">{esc(e.get("case_name"))}: expect {esc(e.get("expect"))}'
                   f"</h3>")
        out.append(map_html(cases[k], origin=str(e.get("case_file") or e.get("case_name")),
                            seed=int(e.get("data_seed") or 0)))
    if len(entries) > len(drawn):
        out.append(f'<p class="muted">{len(entries) - len(drawn)} more case(s) not drawn (the page draws {MAX_MAPS}, '
                   f"those expected to fail first): <code>ascverify show DIR/case_NNNN/case.json</code></p>")
    return "\n".join(out)
