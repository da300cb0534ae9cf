"""`ascverify fuzz`, `ascverify replay` and `ascverify selftest`: fuzz campaigns, their reproducers, the checker's check."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Sequence

import click

from ..engines.interrupts import EXIT_INTERRUPTED
from ..engines.outputs import Inputs, check_distinct_outputs, check_file_path, is_stdout, shown_output
from ..engines.report import table_text
from ..spec.errors import InputError, did_you_mean, one_line, shown_path
from .common import (FORMAT_OPTION, emit, emit_error, emit_note, folder_option_value, main, model_for, plural,
                     print_json, stdout_failure)
from .fuzz_config import CONFIG_FILES, CONFIG_TARGETS, check_config_writes, read_config
from .show_cmd import fuzz_html_finish, fuzz_html_start, html_option
from .options import FiniteFloatRange, api_argument, product_option, timeout_option, verbosity_options, workers_option

#: Where the command's context keeps the campaign file's name (for messages about what it set).
_CONFIG_META = "ascverify.fuzz.config"


def _config_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value == "":  # not "no campaign file": a whole default campaign ran (audit 20)
        raise InputError("an empty path: give a file or folder name (`-`: standard input or output, where the option "
                         "takes it)", field="--config")
    if value:
        ctx.default_map = {**(ctx.default_map or {}), **read_config(value, ctx.command)}
        ctx.meta[_CONFIG_META] = value
    return value


def _config_target(target: str | None, target_cmd: str | None, allowed: bool) -> tuple[str | None, str | None]:
    """The target to run: one given on the command line, else one the campaign file names, which runs only with
    ``allowed`` (--config-target) and is printed on standard error first; InputError otherwise."""
    ctx = click.get_current_context()
    source = click.core.ParameterSource
    typed = [k for k in CONFIG_TARGETS if ctx.get_parameter_source(k) == source.COMMANDLINE]
    if typed:  # the command line's target, whatever the file names
        if allowed:
            raise InputError("give --config-target or --target/--target-cmd, not both", field="--config-target")
        return (target if "target" in typed else None), (target_cmd if "target_cmd" in typed else None)
    from_file = [k for k in CONFIG_TARGETS if ctx.get_parameter_source(k) == source.DEFAULT_MAP]
    where = ctx.meta.get(_CONFIG_META, "")
    if not from_file:
        if allowed:
            raise InputError("no campaign file names a target (target or target_cmd)", field="--config-target")
        return target, target_cmd
    named = "; ".join(f"{k} = {ctx.params[k]!r}" for k in from_file)
    if not allowed:
        raise InputError(f"the campaign file names a target ({one_line(named)}); it runs only with --config-target "
                         "(or give --target / --target-cmd)", where=where, field="--config")
    emit_error(one_line(f"fuzz: running the target the campaign file {where} names: {named}"))
    return target, target_cmd


def _never_over_the_target(target: str | None, outputs: tuple[tuple[str, str | None], ...]) -> None:
    """Refuse a report file that is the Python target's own source (the implementation under test is an input)."""
    # (the campaign engine is imported where the command runs: `fuzz --help` starts without Z3 and Hypothesis)
    from ..engines.fuzz.targets import target_source

    source = target_source(target) if target else None
    if source is None:
        return
    inputs = Inputs([(source, "the --target implementation")])
    for field, path in outputs:
        if path:
            check_file_path(path, field, inputs)


def _target(target: str | None, target_cmd: str | None) -> dict[str, str] | None:
    if target and target_cmd:
        raise InputError("give --target or --target-cmd, not both", field="--target")
    if target:
        return {"kind": "python", "spec": target}
    if target_cmd:
        return {"kind": "command", "spec": target_cmd}
    return None


@main.command()
@api_argument("apis", nargs=-1, required=False)
@click.option("--config", "config_file", metavar="FILE", is_eager=True, expose_value=False, callback=_config_callback,
              help="A campaign file (TOML, or JSON): options by name; command-line options override it. Its "
                   "target runs only with --config-target; the files it names are written under the current folder, "
                   "replacing no file there that ascverify did not write.")
@product_option("Product to fuzz (repeatable; default: every supported one).", multiple=True)
@click.option("--target", metavar="MODULE:FUNCTION", help="Python implementation under test (also path/file.py:function).")
@click.option("--target-cmd", metavar="'PROG {dir}'", help="External implementation under test: a command reading {dir}.")
@click.option("--config-target", is_flag=True,
              help="Run the target the campaign file names (target or target_cmd): printed on standard error before "
                   "it runs. Only for campaign files you trust.")
@click.option("--kind", multiple=True, type=click.Choice(("invariants", "negative", "differential")),
              help="What to run (default: invariants and negative without a target, differential with one).")
@click.option("--examples", type=click.IntRange(min=1), default=100, show_default=True, metavar="N",
              help="Cases per API and product (negative campaigns run a quarter).")
@click.option("--time", "seconds", type=FiniteFloatRange(min=1), metavar="SECONDS",
              help="Run for this long (wall clock) instead of a number of cases.")
@click.option("--seed", type=click.IntRange(min=0), metavar="S", help="Campaign seed (default: random, printed).")
@click.option("--rtol", type=FiniteFloatRange(min=0), metavar="RTOL",
              help="Relative tolerance for float outputs (default per type).")
@click.option("--atol", type=FiniteFloatRange(min=0), metavar="ATOL",
              help="Absolute tolerance for float outputs (default per type).")
@click.option("--error-ratio", type=FiniteFloatRange(0, 1), metavar="R",
              help="Largest share of float elements outside rtol/atol that still passes (default per type).")
@click.option("--exact", is_flag=True,
              help="Compare every output bit for bit (the core is bit-exact), floats too: no tolerance; a NaN the "
                   "call computes matches any NaN (which NaN the hardware gives is not documented).")
@click.option("--keep-unspecified", is_flag=True,
              help="Also run cases whose outputs the core leaves wholly unspecified (by default they are skipped: "
                   "they compare nothing).")
@timeout_option("Time a target may take for one case.", default=10.0)
@click.option("--junit", metavar="FILE", help="Write a JUnit XML report (`-`: standard output).")
@click.option("--report", metavar="FILE", help="Write the JSON summary (`-`: standard output).")
@html_option("the campaign's report (summary, findings with their memory maps, coverage over time)")
@click.option("--findings", default="ascverify-findings", show_default=True, metavar="DIR",
              help="Folder for the reproducers of findings.")
@click.option("--database", metavar="DIR|redis://HOST:PORT/DB|none",
              help="Example database shared by runs and machines (default: DIR/.examples of --findings).")
@workers_option(1)
@click.option("--shard", metavar="K/N", help="Run shard K of N (N machines share a campaign).")
@click.option("--shrink/--no-shrink", default=True, show_default=True, help="Shrink each failure before saving it.")
@click.option("--coverage/--no-coverage", default=False, show_default=True,
              help="Print the rule coverage table on standard error (so does -v); the --report file always holds it.")
@verbosity_options(verbose_help="Also print the rule coverage table on standard error.",
                   quiet_help="No progress display and no summary (findings and errors still print).")
def fuzz(apis: tuple[str, ...], product: tuple[str, ...], target: str | None, target_cmd: str | None,
         config_target: bool, kind: tuple[str, ...], examples: int, seconds: float | None, seed: int | None, rtol: float | None,
         atol: float | None, error_ratio: float | None, timeout: float, junit: str | None, report: str | None,
         findings: str, database: str | None, workers: int, shard: str | None, shrink: bool, coverage: bool,
         quiet: bool, verbose: bool = False, html: str | None = None, exact: bool = False,
         keep_unspecified: bool = False) -> None:
    """Fuzz the core, or an implementation against the core, with generated valid cases.

    Without a target, every API's valid cases are run against the models' invariants, and cases
    breaking exactly one rule check the model against the core. With --target (a Python function
    `f(case: dict, inputs: dict[str, ndarray]) -> dict[str, ndarray]`) or --target-cmd (a command
    reading DIR/case.json and DIR/inputs/*.bin, writing DIR/outputs/*.bin), every case's inputs go
    to both and the outputs are compared over the elements the call writes (the rest must keep their
    old contents bit for bit): integers, registers and the loads' outputs (Load3DBitMode,
    LoadDataWithStride: bytes copied) bit for bit, floats with np.isclose(rtol, atol, equal_nan) and a
    largest share of mismatches among the written elements (half: 1e-3, 1e-5, 1e-3; float: 1e-4,
    1e-5, 1e-4), a written NaN or infinity exactly, and the sign of a written zero where the spec
    notes fix it (BilinearInterpolation, BlockReduceSum; BlockReduceMax/Min on atlas-350 and for
    float on atlas-a2/a3); --exact compares floats bit for bit too, but a NaN the call computes
    matches any NaN. Reports give the largest ULP distance, and the summary counts the passing
    cases whose written elements differ from the core's bits within the tolerance. Tensor contents
    mix ordinary values with ±0, ±inf, NaN, subnormals, the largest values and sums that need
    rounding; fields' extremes, rules' boundaries and the values where a narrower integer wraps
    (255/256, 65535/65536) come early and often; cases whose outputs the core leaves unspecified are
    skipped. A register-writing call (LoadAlign, MaskGenWithRegTensor) is a target too: the function
    returns {"MaskReg": bytes} (or {"registers": {"mask": {"0": bytes}}}; a command writes
    DIR/outputs/registers.json), and the registers the call reads come in case["registers"].

    The items (one per API, product and kind) run in two passes: first 16 cases of every item, so
    that a bug of one product shows within seconds, then the rest of each item's cases (or time); a
    failure a first look finds is shrunk when every item has had its look, before the other items
    run their rest. Each finding is shrunk, then saved at once as a folder under --findings
    (case.json, inputs, expected, actual, diff.txt, coverage.json) that `ascverify replay` runs
    again; findings print one per line on standard output, and nothing else does: progress (with the
    live count of findings), the summary and, with -v or --coverage, the rule coverage table go to
    standard error (the --report file holds the coverage too). A --target-cmd whose program cannot
    be found is bad input (exit 2) before anything runs. An item stopped by Ctrl-C or by --time is a
    skipped testcase in the JUnit report. Ctrl-C or SIGTERM stops the campaign cleanly: findings are
    kept, reports written for what ran. Rerunning with the same --database replays stored failures
    first (so does every machine sharing it).

    \b
    Examples:
      ascverify fuzz BlockReduceMin -p atlas-a2 --examples 50
      ascverify fuzz BilinearInterpolation -p atlas-a2 --target examples/targets/bilinear_buggy.py:bilinear
      ascverify fuzz BilinearInterpolation -p atlas-a2 --target-cmd 'python3 examples/targets/case_dir.py examples/targets/bilinear_numpy.py:bilinear {dir}' --time 10 --junit fuzz.xml
      ascverify fuzz --config ci/campaign.toml --shard 2/4 --examples 10

    Exit status: 0 no finding, 1 findings, 2 bad options or target, 3 internal error,
    130 interrupted.
    """
    from ..engines.fuzz.campaign import CampaignConfig, run_campaign
    from ..engines.fuzz.progress import Display

    ctx = click.get_current_context()
    source = click.core.ParameterSource
    if seconds is not None and ctx.get_parameter_source("examples") == source.COMMANDLINE:
        if ctx.get_parameter_source("seconds") == source.COMMANDLINE:
            raise InputError("give --examples or --time, not both", field="--time")
        seconds = None  # --examples on the command line overrides a campaign file's time
    target, target_cmd = _config_target(target, target_cmd, config_target)
    campaign_file = ctx.meta.get(_CONFIG_META, "")
    target_spec = _target(target, target_cmd)
    folder_option_value(findings, "--findings")  # folders: `-` (standard output) cannot hold them
    if database is not None:
        folder_option_value(database, "--database")
    if target_cmd:
        _check_command(target_cmd)
    for name in apis:
        model_for(name)  # an unknown API named as every command names it (field API, the APIs listed)
    config = CampaignConfig(
        apis=tuple(apis), products=tuple(product), kinds=tuple(kind) or None, target=target_spec,
        examples=None if seconds is not None else examples, time_budget=seconds, seed=seed, rtol=rtol, atol=atol, error_ratio=error_ratio,
        timeout=timeout, findings=findings, database=database, workers=workers,
        shard=_shard(shard, campaign_file if ctx.get_parameter_source("shard") == source.DEFAULT_MAP else None),
        shrink=shrink, junit=junit, report=report, exact=exact,
        keep_unspecified=keep_unspecified)
    from ..engines.fuzz.campaign import plan

    # (the campaign file is an input: a report written over it would lose it)
    check_distinct_outputs((("--config", click.get_current_context().meta.get(_CONFIG_META)), ("--report", report),
                            ("--junit", junit), ("--html", html)))
    _never_over_the_target(target, (("--report", report), ("--junit", junit), ("--html", html)))
    # the campaign file's report and JUnit file replace only a file ascverify wrote (one typed here: any file)
    check_config_writes(campaign_file, [(k, ctx.params[k]) for k in CONFIG_FILES
                                        if ctx.get_parameter_source(k) == source.DEFAULT_MAP])
    items = plan(config)
    if not items:
        raise _nothing_to_fuzz(config, target_cmd)
    # a report on standard output (`--report -`, `--junit -`, `--html -`) has it alone: finding lines go to stderr
    display = Display(items=len(items), quiet=quiet, seconds=seconds,
                      total_cases=None if seconds is not None else _total(items, config),
                      out=sys.stderr if any(is_stdout(p) for p in (report, junit, html)) else None)
    timeline = fuzz_html_start(html, display)  # --html: the display, recording cases and coverage over time
    try:
        result = run_campaign(config, display=timeline or display, print_coverage=False)
    finally:
        display.close()
    if (coverage or verbose) and not quiet:
        from ..engines.fuzz.reports import coverage_lines

        lines = coverage_lines(result.coverage, apis=list(dict.fromkeys(u.api for u in items)))
        if lines:
            emit_error("\n".join(lines).rstrip("\n"))
    status = fuzz_html_finish(html, result, timeline, result.exit_status)
    _results_stream_failed(display.lost_output)
    sys.exit(status)


def _shard(text: str | None, campaign_file: str | None) -> tuple[int, int]:
    """``--shard K/N`` as (K, N); a bad value from a campaign file (``campaign_file``) is named by the file and key."""
    from ..engines.fuzz.plan import parse_shard

    try:
        return parse_shard(text)
    except InputError as exc:
        if campaign_file is None:
            raise
        raise InputError(f"shard: {exc.message}", where=campaign_file, field="--config") from None


def _results_stream_failed(lost: OSError | None) -> None:
    """When a finding line could not be written to standard output: a closed pipe stops as every command's does
    (141); another error (a full disk) is one line naming standard output, exit status 2, as `emit` says it (the
    findings are saved and in the reports either way)."""
    if lost is not None:
        raise stdout_failure(lost)


def _nothing_to_fuzz(config: Any, target_cmd: str | None) -> InputError:
    """Why a campaign planned no item, naming the option that emptied it: the products, or a target given for APIs
    that have no output tensor to compare."""
    from ..engines.fuzz.plan import has_outputs, select_models

    models = select_models(config.apis)
    if config.target and models and not any(has_outputs(m) for m in models):
        names = ", ".join(m.name for m in models)
        return InputError(f"nothing to fuzz: a differential campaign compares outputs (tensors, registers), and {names} "
                          f"{'has' if len(models) == 1 else 'have'} none (drop the target to run its invariants)",
                          field="--target-cmd" if target_cmd else "--target")
    return InputError("nothing to fuzz: no API supports the products given"
                      + (" (a differential campaign needs APIs with output tensors)" if config.target else ""),
                      field="--product")


#: Shell words that run no program of their own: a command starting with one is not checked for its program.
_SHELL_WORDS = {"exec", "env", "cd", "(", "{", "if", "for", "while", "case", "!", "time", "command", "builtin", "eval",
                ".", "source", "nice", "timeout", "nohup", "sh", "bash"}


def _check_command(template: str) -> None:
    """The program a --target-cmd runs exists (on PATH, or as a path from the current folder) and can be run;
    InputError (exit 2) before the campaign starts otherwise. Commands starting with shell syntax are left to the
    shell."""
    import shlex
    import shutil

    try:
        words = shlex.split(template.replace("{dir}", "DIR"))
    except ValueError:
        return  # unbalanced quotes: the shell words it (each case then fails alike)
    while words and "=" in words[0] and not words[0].startswith("="):  # VAR=value prog ...
        words = words[1:]
    if not words or words[0] in _SHELL_WORDS or any(c in words[0] for c in "$`;|&<>*?"):
        return
    prog = words[0]
    if "/" in prog:
        if not os.path.isfile(prog):
            raise InputError(f"{prog!r}: no such program", field="--target-cmd")
        if not os.access(prog, os.X_OK):
            raise InputError(f"{prog!r} is not executable (chmod +x, or run it through its interpreter)",
                             field="--target-cmd")
    elif shutil.which(prog) is None:
        raise InputError(f"{prog!r}: command not found (not on PATH)", field="--target-cmd")


def _total(items: Any, config: Any) -> int:
    from ..engines.fuzz.plan import item_examples

    return sum(item_examples(u, config.examples, config.negative_share) for u in items)


@main.command()
@click.argument("folders", nargs=-1, required=True, metavar="DIR...")
@click.option("--target", metavar="MODULE:FUNCTION", help="Replay differential findings against this Python target.")
@click.option("--target-cmd", metavar="'PROG {dir}'", help="Replay differential findings against this command.")
@click.option("--recorded-target", is_flag=True,
              help="Run the target each finding records (its finding.json names a shell command or a Python file "
                   "to import): printed on standard error before it runs. Only for findings you trust.")
@timeout_option("Time the target may take for one finding (default: the campaign's).")
@click.option("--rtol", type=FiniteFloatRange(min=0), metavar="RTOL", help="Relative tolerance (default: the campaign's).")
@click.option("--atol", type=FiniteFloatRange(min=0), metavar="ATOL", help="Absolute tolerance (default: the campaign's).")
@click.option("--error-ratio", type=FiniteFloatRange(0, 1), metavar="R", help="Allowed share of mismatches.")
@FORMAT_OPTION
@verbosity_options()
def replay(folders: tuple[str, ...], target: str | None, target_cmd: str | None, timeout: float | None,
           rtol: float | None, atol: float | None, error_ratio: float | None, fmt: str = "text",
           recorded_target: bool = False) -> None:
    """Run saved findings again.

    Each DIR is a finding folder written by `ascverify fuzz`, or a findings folder (`fuzz --findings
    DIR`: each finding folder in it is replayed, in name order). Invariant and negative findings rerun
    the core with the recorded case and seed; differential findings feed the saved inputs to the
    target given with --target or --target-cmd and compare with the core. The target a finding
    records (a shell command, a Python file) runs only with --recorded-target, which prints it on
    standard error first: a finding folder may come from someone else. One line per folder:
    `DIR: still fails: ...` or `DIR: fixed`; with --format json one document, {"results": [{"folder",
    "status": "still fails"|"fixed"|"unreadable", "key", "check", "message"}], "summary": {...}}.

    \b
    Examples:
      ascverify replay ascverify-findings --target examples/targets/bilinear_numpy.py:bilinear
      ascverify replay ascverify-findings/BilinearInterpolation-atlas-a2-* --recorded-target
      ascverify replay ascverify-findings --target-cmd 'python3 examples/targets/case_dir.py examples/targets/bilinear_numpy.py:bilinear {dir}'
      ascverify replay ascverify-findings --target examples/targets/bilinear_numpy.py:bilinear --format json

    Exit status: 0 every finding passes now, 1 some still fails, 2 a folder could not be read or a
    differential finding has no target to run (each such folder is one line on standard error; the
    others are replayed), 130 interrupted (the findings replayed by then are reported, the JSON
    document with "interrupted": true).
    """
    from ..engines.fuzz.reproducers import finding_folders, replay as replay_one
    from ..engines.fuzz.targets import make_target

    if recorded_target and (target or target_cmd):
        raise InputError("give --recorded-target or --target/--target-cmd, not both", field="--recorded-target")
    if target_cmd:
        _check_command(target_cmd)  # a program that is not there is bad input (2), as for `fuzz`, not a finding
    tgt = make_target(_target(target, target_cmd))
    results: list[dict[str, Any]] = []  # --format json: one document at the end
    try:
        for folder in (str(f) for given in folders for f in finding_folders(Path(given))):
            shown = shown_path(folder)
            try:
                res = replay_one(Path(folder), target=tgt, timeout=timeout, rtol=rtol, atol=atol,
                                 error_ratio=error_ratio, recorded_target=recorded_target,
                                 announce=lambda line: emit_error(f"replay: {line}"))
            except InputError as exc:  # this folder cannot be replayed: said, and the others are
                emit_error(one_line(f"ascverify: {exc.line()}"))
                results.append({"folder": shown, "status": "unreadable", "key": None, "check": None,
                                "message": exc.line()})
                continue
            message = " ".join(res.message.split())[:500]
            results.append({"folder": shown, "status": "still fails" if res.failing else "fixed", "key": res.key,
                            "check": res.meta.get("check"), "message": message})
            if fmt == "json":
                continue
            if res.failing:
                emit(one_line(f"{folder}: still fails: {res.key}: {message}") + "\n")
            else:
                emit(one_line(f"{folder}: fixed ({res.meta.get('check')} passes now)") + "\n")
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the findings replayed so far are reported, then exit 130
        _replay_summary(results, fmt, interrupted=True)
        raise
    finally:
        if tgt is not None:
            tgt.close()
    sys.exit(_replay_summary(results, fmt))


def _replay_summary(results: list[dict[str, Any]], fmt: str, *, interrupted: bool = False) -> int:
    """Print replay's JSON document (``--format json``) and its summary line; the exit status. ``interrupted``: a
    signal stopped it after ``results`` (the document says ``"interrupted": true``, its exit status 130)."""
    unreadable = sum(r["status"] == "unreadable" for r in results)
    failing = sum(r["status"] == "still fails" for r in results)
    done = len(results) - unreadable
    status = EXIT_INTERRUPTED if interrupted else 2 if unreadable else 1 if failing else 0
    if fmt == "json":
        doc: dict[str, Any] = {"results": results, "summary": {"replayed": done, "still_fail": failing,
                                                               "fixed": done - failing, "unreadable": unreadable,
                                                               "exit_status": status}}
        if interrupted:
            doc["interrupted"] = True
        print_json(doc)
    emit_note(f"{plural(done, 'finding')} replayed: {failing} still fail, {done - failing} fixed"
              + (f"; {plural(unreadable, 'folder')} could not be replayed" if unreadable else "")
              + ("; interrupted before the others" if interrupted else ""))
    return status


@main.command()
@api_argument("apis", nargs=-1, required=False)
@click.option("--mutant", "mutants", multiple=True, metavar="NAME", help="Only this mutant (repeatable).")
@click.option("--examples", type=click.IntRange(min=1), default=60, show_default=True, metavar="N",
              help="Cases per mutant and API at most (a killed mutant stops at its first failure).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S", help="Seed of the campaigns.")
@workers_option(1)
@click.option("--list", "list_only", is_flag=True, help="List the mutants and exit.")
@click.option("--report", metavar="FILE", help="Write the outcomes as JSON (`-`: standard output, the table then goes to "
                                               "standard error).")
@verbosity_options(quiet_help="No line per mutant on standard error (the table and the kill rate still print).")
def selftest(apis: tuple[str, ...], mutants: tuple[str, ...], examples: int, seed: int, workers: int, list_only: bool,
             report: str | None) -> None:
    """Check the checker: fuzz deliberately broken variants of the core.

    Each mutant breaks the core's semantics one way (mask words swapped, stores one block late,
    accumulate instead of overwrite, masked lanes stored, a stride ignored, and more per API); a
    short invariants campaign per mutant and API must fail (the mutant is killed). A control run
    per API first checks that the unmutated core passes. Prints one line per mutant and the kill
    rate; generic mutants that change nothing on an API are not counted there.

    \b
    Examples:
      ascverify selftest --list
      ascverify selftest BlockReduceMin --mutant mask-words-swapped
      ascverify selftest SetVectorMask --examples 20 --report selftest.json

    Exit status: 0 every mutant killed (and the control runs pass), 1 otherwise, 2 bad usage.
    """
    from ..engines.fuzz.mutants import all_mutants, describe_mutants, run_selftest
    from ..engines.fuzz.plan import select_models

    if report:
        from ..engines.fuzz.campaign import check_report_path

        check_report_path(report, "--report")  # before the campaigns run, not after
    if list_only:
        rows = [(m["name"], m["apis"], m["description"]) for m in describe_mutants()]
        emit(table_text(("mutant", "applies to", "what it breaks"), rows))
        return
    known = {m.name for m in all_mutants()}
    for name in mutants:
        if name not in known:
            raise InputError(f"unknown mutant {name!r}{did_you_mean(name, known)}", field="--mutant")
    for name in apis:
        model_for(name)
    names = [m.name for m in select_models(apis)]
    seen: list[Any] = []

    def show(o: Any) -> None:
        seen.append(o)
        if o.mutant == "(none)":
            emit_note(f"selftest: control {o.api}: {o.status} ({o.cases} cases, {o.elapsed:.1f} s)")
        else:
            by = f" by {o.killed_by}" if o.killed_by else ""
            emit_note(f"selftest: {o.mutant} on {o.api}: {o.status}{by} ({plural(o.cases, 'case')}, {o.elapsed:.1f} s)")

    try:
        outcomes = run_selftest(names, mutant_names=mutants or None, examples=examples, seed=seed,
                                workers=workers, on_outcome=show)
    except (KeyboardInterrupt, InputError):  # Ctrl-C or SIGTERM (exit 130), a worker that died (WorkerDied, exit 2):
        if report:  # the outcomes so far are the report asked for
            _selftest_report(report, seen, complete=False)
            where = "on standard output" if is_stdout(report) else shown_output(report)
            emit_error(one_line(f"selftest: interrupted: the report {where} holds the "
                                    f"{plural(len(seen), 'outcome')} so far"))
        raise
    rows = [(o.mutant, o.api, o.status, o.killed_by or "-", str(o.cases)) for o in outcomes if o.mutant != "(none)"]
    say = emit_error if is_stdout(report) else emit  # `--report -`: standard output is the JSON report's alone
    say(table_text(("mutant", "api", "outcome", "killed by", "cases"), rows).rstrip("\n") + ("\n" if say is emit else ""))
    killed, counted, rate, controls_ok = _selftest_tally(outcomes)
    say((f"kill rate: {killed}/{counted} ({rate:.0%})" if counted else
         "kill rate: none of the mutants is exercised by the APIs named (nothing to kill)")
        + ("" if controls_ok else "; a control run failed: the unmutated core does not pass its own invariants")
        + ("\n" if say is emit else ""))
    if report:
        _selftest_report(report, outcomes, complete=True)
    sys.exit(0 if controls_ok and killed == counted else 1)


def _selftest_tally(outcomes: Sequence[Any]) -> tuple[int, int, float, bool]:
    """Mutants killed, mutants counted, the kill rate, and whether every control run passed."""
    from ..engines.fuzz.mutants import kill_rate

    killed, counted = kill_rate(outcomes)
    controls_ok = all(o.status == "passed" for o in outcomes if o.mutant == "(none)")
    return killed, counted, killed / counted if counted else 1.0, controls_ok


def _selftest_report(path: str, outcomes: Sequence[Any], *, complete: bool) -> None:
    """`selftest --report`: the outcomes as JSON (``complete`` false: the run was interrupted, these are the jobs
    that ended before)."""
    from ..engines.fuzz.reports import write_json

    killed, counted, rate, controls_ok = _selftest_tally(outcomes)
    write_json(path, {"complete": complete, "killed": killed, "counted": counted, "kill_rate": rate,
                      "controls_pass": controls_ok, "outcomes": [o.to_json() for o in outcomes]})
