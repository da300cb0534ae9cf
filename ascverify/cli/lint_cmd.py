"""`ascverify lint` (the rule base: legal cases, vacuous, redundant and contradicting rules) and
`ascverify diff-products` (what differs between two products)."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from ..engines.interrupts import EXIT_UNDECIDED, UNDECIDED, budget_exhausted, time_budget as budget
from ..spec.errors import InputError
from ..spec.products import BUFFERS
from ..spec.registry import apis
from .budget import TIME_BUDGET_OPTION
from .common import FORMAT_OPTION, emit, emit_error, emit_note, joined_lines, main, model_for, plural, print_json, product_for
from .options import api_argument, complete_product, product_option, timeout_option, verbosity_options, workers_option


@main.command()
@api_argument("api_names", nargs=-1, required=False)
@product_option("Only these products (repeatable).", multiple=True, dest="products")
@timeout_option("Time limit of one solver query; an undecided query is reported as unknown (and fails). Most "
                "queries take milliseconds; the limit only bounds the few hard ones (the whole lint: about a minute on 2 cores).",
                default=10.0)
@workers_option(0, "The findings are the same whatever N.")
@click.option("--allow-unknown", is_flag=True,
              help="Exit 0 even when a query is undecided (by default an undecided query fails: a rule base "
                   "that was not fully checked is not known to be sound).")
@click.option("--strict", is_flag=True, hidden=True, help="Kept for compatibility: undecided queries fail by default.")
@verbosity_options(verbose_help="Also list what is by design (rules that ban their condition on a product or type, and "
                                "the rules under such a ban) and the contexts whose rules repeat another's.")
@FORMAT_OPTION
@TIME_BUDGET_OPTION
def lint(api_names: tuple[str, ...], products: tuple[str, ...], timeout: float, workers: int, strict: bool,
         verbose: bool, fmt: str, time_budget: float | None = None, allow_unknown: bool = False) -> None:
    """Lint the rule base of every API (or those named), per product and element type.

    For each product that supports the API and each type it supports there: whether any legal
    case exists, rules no value of the parameters' C types can break (vacuous), rules the other
    rules imply (redundant; for a warning: it never fires on a valid case), and rules that
    contradict each other where both apply. A finding is explained when the model's
    `lint_expected` maps the rule (or KIND:RULE) to one of its spec notes. Rules about the
    product or the element types only, and type rules implied by a narrower range, are by design.

    \b
      API on PRODUCT (T=TYPE): KIND: [rule] detail (explained by note ID)
      API on PRODUCT (T=TYPE): undecided: what the solver could not decide

    \b
    Examples:
      ascverify lint
      ascverify lint BlockReduceMin --product atlas-training
      ascverify lint SetVectorMask --format json > lint.json

    Exit status: 0 every query decided and no unexplained finding, 1 an unexplained finding, 2 an
    undecided query and no unexplained finding (unknown, as every command's undecided answer; a longer
    --timeout may decide it, --allow-unknown accepts it), an unknown API or product, or a product
    none of the APIs named is supported on.
    """
    from ..engines.lint import contexts, definition_problems, lint as run_lint

    models = [model_for(n) for n in api_names] if api_names else list(apis())
    pids = [product_for(p).id for p in products] if products else None
    if pids is not None and not any(pid in m.support for m in models for pid in pids):
        # as fuzz: a request that lints nothing is bad input, not "0 contexts, 0 findings" (audit 22)
        supported = sorted({pid for m in models for pid in m.support})
        who = (f"{' and '.join(m.name for m in models)} {'is' if len(models) == 1 else 'are'} not supported"
               if api_names else "no API is supported")
        raise InputError(f"nothing to lint: {who} on {', '.join(pids)} (supported: {', '.join(supported)})",
                         field="--product")
    t0 = time.perf_counter()
    problems = [p for m in models for p in definition_problems(m)]
    finished: list[Any] = []
    try:
        reports = run_lint(models, pids, timeout_ms=max(1, round(timeout * 1000)), jobs=workers,
                           time_budget=time_budget, finished=finished)
    except KeyboardInterrupt:
        # what was linted before Ctrl-C or SIGTERM is printed (the document marked interrupted), then exit 130
        order = {(m.name, p, t): k for k, (m, p, t) in enumerate(contexts(models, pids))}
        done = sorted(finished, key=lambda r: order.get((r.api, r.product, r.dtype), len(order)))
        _print_reports(done, problems, fmt, verbose, interrupted=True)
        emit_note(f"lint: interrupted after {plural(len(done), 'context')} of {len(order)} (printed above)")
        raise
    seconds = time.perf_counter() - t0
    findings = [f for r in reports for f in r.findings]
    unexplained = [f for f in findings if not f.explained]
    unknown = sum(len(r.unknown) for r in reports)
    _print_reports(reports, problems, fmt, verbose)
    by_design = sum(len(r.by_design) for r in reports)
    emit_note(f"lint: {plural(len(reports), 'context')} of {plural(len(models), 'API')} in {seconds:.1f} s: "
              f"{plural(len(findings), 'finding')} ({len(findings) - len(unexplained)} explained, {len(unexplained)} "
              f"unexplained), {plural(unknown, 'undecided query', 'undecided queries')}, {by_design} by design")
    if unknown and not allow_unknown:
        spent = any(r.budget_exhausted for r in reports) and time_budget is not None
        raise_what = f"the time budget ({time_budget:g} s) ran out: raise --time-budget" if spent else "raise --timeout"
        emit_error(f"lint: {plural(unknown, 'undecided query', 'undecided queries')} fail the lint ({raise_what}, "
                   f"or --allow-unknown to accept them)")
    sys.exit(1 if unexplained or problems else EXIT_UNDECIDED if unknown and not allow_unknown else 0)


def _print_reports(reports: list[Any], problems: list[str], fmt: str, verbose: bool, *,
                   interrupted: bool = False) -> None:
    """The contexts' findings and undecided queries on standard output (text lines, or the JSON document, with
    ``"interrupted": true`` when a signal stopped the lint before its last context)."""
    findings = [f for r in reports for f in r.findings]
    unexplained = [f for f in findings if not f.explained]
    unknown = sum(len(r.unknown) for r in reports)
    if fmt == "json":
        doc = {"contexts": [r.to_json() for r in reports], "definition_problems": problems,
               "findings": len(findings), "unexplained": len(unexplained), "unknown": unknown,
               "undecided": unknown, "budget_exhausted": any(r.budget_exhausted for r in reports)}
        if interrupted:
            doc["interrupted"] = True
        print_json(doc)
    else:
        lines = []
        for r in reports:
            where = f"{r.api} on {r.product} (T={r.dtype})"
            if r.legal != "yes":
                lines.append(f"{where}: {'no legal case exists' if r.legal == 'no' else 'unknown whether a legal case exists'}")
            for f in r.findings:
                why = f" (explained by note {f.note}: {f.note_title})" if f.explained else " (unexplained)"
                lines.append(f"{where}: {f.kind}: [{', '.join(f.rules)}] {f.detail}{why}")
            for u in r.unknown:
                lines.append(f"{where}: undecided: {u}")
            if verbose:
                lines += [f"{where}: by design: {b}" for b in r.by_design]
                if r.same_as:
                    lines.append(f"{where}: note: same rules as on {r.same_as}: linted once")
        lines += [f"lint: {p}" for p in problems]
        if lines:
            emit(joined_lines(lines))


@main.command("diff-products")
@click.argument("product_a", metavar="A", shell_complete=complete_product)
@click.argument("product_b", metavar="B", shell_complete=complete_product)
@api_argument("api_names", nargs=-1, required=False)
@FORMAT_OPTION
@TIME_BUDGET_OPTION
@verbosity_options()
def diff_products(product_a: str, product_b: str, api_names: tuple[str, ...], fmt: str,
                  time_budget: float | None = None) -> None:
    """List the rules and limits that differ between products A and B.

    Per API (every API, or those named): the element types supported, the sizes of the buffers
    its tensors may use, rules in force on one product only, and rules whose constraint differs
    (decided by the solver: the limits that differ, such as a range or a buffer capacity, or a
    witness: field values the rule accepts on one product and refuses on the other).

    \b
    Examples:
      ascverify diff-products atlas-a2 atlas-350
      ascverify diff-products atlas-a2 atlas-training BlockReduceMin
      ascverify diff-products ascend-950pr atlas-a3 --format json

    A rule whose comparison the solver gives up on is listed as "undecided", neither a
    difference nor the absence of one.

    Exit status: 0 no difference, 1 differences listed, 2 an unknown product or API, or no
    difference established but some comparison undecided, 130 interrupted.
    """
    from ..engines.product_diff import diff_api, diff_lines

    a, b = product_for(product_a, field="A"), product_for(product_b, field="B")
    if a.id == b.id:
        raise InputError(f"{product_a!r} and {product_b!r} are the same product ({a.id})", field="B")
    models = [model_for(n) for n in api_names] if api_names else list(apis())

    with budget(time_budget):
        diffs = [diff_api(m, a.id, b.id) for m in models]
        spent = time_budget is not None and budget_exhausted()
    if fmt == "json":
        print_json({"a": a.id, "b": b.id,
                    "buffers": {buf: {a.id: a.buffer_size(buf), b.id: b.buffer_size(buf)} for buf in BUFFERS},
                    "apis": [d.to_json() for d in diffs]})
    else:
        emit(joined_lines([line for d in diffs for line in diff_lines(d)]))
    differ = [d for d in diffs if d.differs]
    undecided = [d for d in diffs if d.undecided]
    verb = "differs" if len(differ) == 1 else "differ"
    emit_note(f"diff-products: {a.id} vs {b.id}: {len(differ)} of {plural(len(diffs), 'API')} {verb}"
               + (f"; {f'undecided: the time budget ({time_budget:g} s) ran out' if spent else UNDECIDED} comparing "
                  f"{plural(sum(len(d.undecided) for d in undecided), 'rule')} of {plural(len(undecided), 'API')}"
                  if undecided else ""))
    sys.exit(1 if differ else 2 if undecided else 0)
