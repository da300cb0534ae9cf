"""`ascverify gen`: test cases with inputs, golden outputs and a manifest (random, boundary, negative)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

import click

from ..engines.outputs import OutputFolder, is_stdout
from ..spec.errors import one_line
from .budget import TIME_BUDGET_OPTION
from .common import (FORCE_OPTION, emit, emit_error, emit_note, folder_option_value, joined_lines, main, model_for,
                     plural, product_for, supported_type, verbose)
from .show_cmd import gen_html, gen_html_check, html_option
from .options import api_argument, product_option, verbosity_options, workers_option


@main.command()
@api_argument()
@product_option("Product to generate for.", required=True, dest="product_name")
@click.option("-n", "count", type=click.IntRange(min=1, max=1_000_000), default=None, metavar="N",
              help="How many cases: N in random mode (default 100; fewer only when there are fewer distinct valid "
                   "cases, and a line says so); at most N in boundary and negative modes (default: one per target).")
@click.option("-o", "--output", "out", required=True, metavar="DIR", help="Folder for the cases (created if needed).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S",
              help="Seed: the same seed writes the same cases.")
@click.option("--mode", type=click.Choice(("random", "boundary", "negative")), default="random", show_default=True,
              help="random: valid cases spread over the legal space; boundary: extremes and both sides of every "
                   "rule's boundary; negative: cases that break one rule each.")
@click.option("--dtype", metavar="T", help="Element type T (default: the first type the product supports).")
@workers_option(0, "Used by the random mode's construction; the cases are the same whatever N.")
@FORCE_OPTION
@TIME_BUDGET_OPTION
@html_option("a page of the generation (summary, rule coverage of the cases, memory maps)")
@verbosity_options(verbose_help="Also list every coverage target no case reaches (default: the first 50).")
def gen(api: str, product_name: str, count: int | None, out: str, seed: int, mode: str, dtype: str | None,
        workers: int = 0, force: bool = False, time_budget: float | None = None, html: str | None = None) -> None:
    """Generate test cases of API with inputs, golden outputs and a manifest.

    Writes DIR/case_NNNN/ per case (case.json, inputs/NAME.bin, golden/NAME.bin: raw
    little-endian as numpy `tofile` writes them; goldens from the core, for valid cases) and
    DIR/manifest.json: every case in msOpST terms (op, input_desc/output_desc with format, type,
    shape, value_range; attr; expect success or failed), the rules each case breaks, and the
    mode's report: random: the technique and the diversity (distinct values per field, domain
    ends hit); boundary: every target (field extremes, just legal / just illegal per rule) and
    why the impossible ones are; negative: the rules that cannot be broken alone and the rules
    they drag along. Case directories appear whole (written under a temporary name, then
    renamed); the manifest is written last, also after Ctrl-C (then "complete": false).

    The random mode leaves out calls whose mask is set by an earlier call (isSetMask=false with
    MASK_PLACEHOLDER): alone, their outputs are unspecified. The negative mode writes the
    rules kernel authors get wrong first (overlaps, alignment, sizes and buffer bounds, masks),
    the limits of the parameters' C types last. In the boundary and negative modes every value is
    one a case file can hold (a target past a 64-bit type is skipped, with the reason); in every
    mode each case written, read back as `check` reads it, gets the verdict its manifest entry
    says (else exit status 1). A case with legal arguments for which no data drawn keeps a rule on
    tensor contents (a BilinearInterpolation offset reading a block the call already stored over)
    is written as failing, with that rule, and the target it was to show is not covered.

    DIR must be new, empty, or an earlier `gen` output (its manifest lists the files it wrote:
    case folders are replaced and those beyond N removed only when they hold nothing else).
    --force writes into a folder that holds other files; a file or folder ascverify did not
    write is never deleted, and a case folder in the way that holds one is refused.

    \b
    Examples:
      ascverify gen BilinearInterpolation --product atlas-a2 -n 200 -o cases/ --seed 1
      ascverify gen BlockReduceMin --product atlas-350 --dtype float --mode boundary -o bnd/
      ascverify gen block_reduce_min --product atlas-a2 --mode negative -o neg/
      ascverify check cases/case_0000/case.json

    Exit status: 0 every case shows what it should, 1 some case does not (a model or core bug:
    see "problem" in the manifest), 2 bad input (unknown API, product or type, an unsupported
    product, a DIR that cannot be written or holds files in the way) or, with --time-budget, the
    budget ran out (the cases found are written, the targets left listed as undecided), 130
    interrupted (Ctrl-C or SIGTERM: the cases found so far are written, for at most 10 s, with
    the manifest listing them; a second Ctrl-C is let pass, a third stops at once).
    """
    from ..engines.gen import RANDOM_DEFAULT, generate

    model = model_for(api)
    product = product_for(product_name)
    tname = supported_type(model, product, dtype)
    folder_option_value(out)
    from ..engines.gen.output import GEN_FORMAT, legacy_gen_files, tmp_cases_of_ours

    outdir = Path(out)
    gen_html_check(html, outdir)  # before the output folder is made: a refused page leaves nothing behind
    OutputFolder(outdir, manifest="manifest.json", fmt=GEN_FORMAT, force=force, legacy=legacy_gen_files,
                 ignore=tmp_cases_of_ours(outdir))  # refuse an unusable DIR before generating
    ctx = model.context(product.id, tname)
    t0 = time.perf_counter()
    g = generate(model, ctx, mode, count, seed, jobs=workers, time_budget=time_budget,
                 on_interrupt="return")
    t_gen = time.perf_counter() - t0
    if g.report.get("interrupted") and not g.cases and (outdir / "manifest.json").exists():
        # stopped before a case was found, over an earlier output: left as it was (a new folder gets the manifest
        # of what was tried, "complete": false)
        emit_error(one_line(f"gen: interrupted ({g.report['interrupted']}) before any case was found: nothing written, "
                            f"{outdir} left as it was" + ("; the HTML page was not written" if html else "")))
        sys.exit(130)
    try:
        doc = _write_found(g, outdir, limit=count if mode != "random" else None, force=force,
                           keep_data=html is not None,  # the page classifies the cases with their data
                           progress=_stop_notice(g))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM while writing: say what is on disk (exit 130)
        if g.written is None:
            emit_error(one_line(f"gen: interrupted before writing: nothing written, {outdir} left as it was"
                                + ("; the HTML page was not written" if html else "")))
        else:
            emit_error(one_line(f"gen: interrupted while writing: {plural(g.written, 'case')} written in {outdir} "
                                "(manifest.json lists them, \"complete\": false)"
                                + ("; the HTML page was not written" if html else "")))
        raise
    gen_html(html, doc, [gc.case for gc in g.cases])
    t_all = time.perf_counter() - t0
    lines = [f"gen: {plural(len(doc['cases']), mode + ' case')} of {model.name} on {product.id} (T={tname}) in {outdir}: "
             f"{doc['counts']['success']} expect success, {doc['counts']['failed']} expect failed"]
    if mode == "random":
        div = g.report["diversity"]
        rate = g.report["constructed"]["kept"] / g.report["construction_seconds"] if g.report.get("construction_seconds") else 0
        lines.append(f"gen: technique: {g.report['technique']}; {rate:,.0f} valid cases/s constructed; "
                     f"median {div['median_distinct_per_argument_field']} distinct values per argument field; "
                     f"{div['domain_ends_hit']} of {div['domain_ends']} domain ends hit")
        if g.report.get("left_out"):
            lines.append(f"gen: left out: {g.report['left_out']}")
        asked = count if count is not None else RANDOM_DEFAULT
        if len(doc["cases"]) < asked:
            lines.append(_shortfall(len(doc["cases"]), asked, g.report))
    else:
        cov = doc["coverage"]
        shown = {k: v for k, v in cov.items() if isinstance(v, int)}
        lines.append("gen: targets: " + ", ".join(f"{v} {k}" for k, v in shown.items()))
        shown_t = [t for t in cov["not_covered"] if t["status"] != "context"]
        limit = len(shown_t) if verbose() else 50
        for t in shown_t[:limit]:
            lines.append(f"gen:   {t['status']}: {t['target']}: {t.get('reason', '')}")
        if len(shown_t) > limit:
            lines.append(f"gen:   ... and {len(shown_t) - limit} more (manifest.json: coverage; -v lists them)")
        context = sorted({t["rule"] for t in cov["not_covered"] if t["status"] == "context"})
        if context:
            lines.append(f"gen:   context: {len(context)} rules read no field here (they are about the product or "
                         f"the element types): {', '.join(context)}")
        for t in cov.get("not_alone", []):
            lines.append(f"gen:   not alone: [{t['rule']}] drags along {', '.join(t['drags_along'])}")
    problems = [c for c in doc["cases"] if c.get("problem")]
    for c in problems[:20]:
        lines.append(f"gen: problem: {c['case_name']}: {c['problem']}")
    if g.report.get("stopped"):
        lines.append(f"gen: stopped: {g.report['stopped']}; "
                     + (f"{len(doc['cases'])} written, {g.report['left_unwritten']}" if g.report.get("left_unwritten")
                        else "the cases found are written")
                     + (", the targets left undecided" if mode != "random" else ""))
    lines.append(f"gen: {t_gen:.2f} s generating, {t_all - t_gen:.2f} s writing inputs and goldens")
    text = "".join(one_line(line) + "\n" for line in lines).rstrip("\n")
    (emit_error if problems or g.report.get("stopped") else emit_note)(text)
    if not is_stdout(html):  # (`--html -`: standard output is the page's alone)
        emit(joined_lines([one_line(str(outdir / "manifest.json"))]))
    sys.exit(130 if g.report.get("interrupted") else 1 if problems else 2 if g.report.get("stopped") else 0)


def _write_found(g: Any, outdir: Path, **kwargs: Any) -> dict[str, Any]:
    """`write_generation`, once more when a Ctrl-C or SIGTERM came after the generation and before the folder was
    touched (``g.written`` still None): that stop is dealt with like one during the generation, and the cases found
    are written."""
    from ..engines.gen import stop_generation
    from ..engines.gen.output import write_generation

    try:
        return write_generation(g, outdir, **kwargs)
    except KeyboardInterrupt as exc:
        if g.written is not None or g.report.get("interrupted"):
            raise
        stop_generation(g, exc)
    return write_generation(g, outdir, **kwargs)


def _stop_notice(g: Any) -> Callable[[int, int], None]:
    """A `write_generation` progress callback that says once, when the first case is written after a Ctrl-C or
    SIGTERM stopped the generation, that the cases found are being written and how to stop at once."""
    from ..engines.gen.output import WRITE_AFTER_STOP_SECONDS

    said = []

    def notice(done: int, total: int) -> None:
        if not said and g.report.get("interrupted"):
            said.append(True)
            emit_note(one_line(f"gen: {g.report['stopped']}: writing the {plural(total, 'case')} found, each with its "
                               f"golden, for at most {WRITE_AFTER_STOP_SECONDS:g} s (Ctrl-C twice more stops at once; "
                               f"manifest.json lists what is written)"))

    return notice


def _shortfall(found: int, asked: int, report: dict[str, Any]) -> str:
    """The line saying why the random mode wrote fewer cases than asked for: stopped, or no more to be found."""
    if report.get("stopped"):
        return f"gen: {found} of the {asked} cases asked for: {report['stopped']}, the search did not finish"
    return (f"gen: {found} of the {asked} cases asked for: no more distinct valid cases were found (an API with few "
            f"or no arguments has few)")
