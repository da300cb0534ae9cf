"""synth / gen random: distinct valid cases per second and how far they spread, against a Z3 enumerator.

Generators, per API in one context (atlas-a2 and half where supported):
- ``Space.sample`` (what ``ascverify synth`` uses): random targets per field, relaxed on conflict;
- ``strategies.cases`` drawn by a ``@given`` test (generate phase only, no database);
- baseline: a plain Z3 blocking-clause enumerator: a solver with every rule; loop check, model,
  add ``Or(var != value)`` over the argument fields.

Sizes: ``Space.sample`` is asked for as many cases as a pilot run (10 cases, its own process) says
fit in about 12 s (at least 20, at most 300); the strategy and the enumerator stop at 1,000 cases or
12 s. Diversity, over the first cases of each generator (at most 1,000; compared at equal counts):
the number of distinct values per argument field (the median over the fields; the sum in the
details), and the share of the argument fields' domain ends (lo and hi of
`ascverify.spec.domains.field_domains`, conditional rules included) that some case hits.

Space construction is not timed. Each generator runs in a fresh process (Z3's speed depends on the history
of the process's global context); the solver's generators once (each run lasts seconds), `strategies.cases`
and its two Hypothesis baselines (one integer per example; as many integers as the strategy makes choices)
three times in alternation, their medians reported (`_alternated`).

Instructions (full runs, with valgrind installed): for an API whose timed `strategies.cases` rate stays under
1,000 cases/s, the instructions per example of `strategies.cases` against Hypothesis's one-integer ceiling (each the
difference of two runs, `COUNTED` examples apart, after the same warm-up), counted by valgrind's cachegrind: a
reading that does not move with the machine's load, as the timed rates on a shared machine do (20-30% between runs).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from ascverify.engines import interrupts, solver as solver_module

from .common import (Config, Figure, at_least, collect, count_instructions, distinct_key, load_models, note, per_api,
                     pick_context, safe_ratio)

NAME = "gen"
#: The product to generate for when the API supports it (with half when listed), else its first product.
PRODUCT = "atlas-a2"


def arg_fields(model: Any) -> list[str]:
    return [f.name for f in model.fields if model.param_kinds.get(f.param) != "tensor"]


def ends(model: Any, ctx: Any) -> dict[str, tuple[int, int]]:
    """(lo, hi) of each argument field's structured domain (fields with more than one value)."""
    from ascverify.spec.domains import field_domains

    out = {}
    doms = field_domains(model, ctx, conditional=True)
    for name in arg_fields(model):
        d = doms.get(name)
        if d is None or d.empty or d.values_count() < 2:
            continue
        out[name] = (d.nth(0), d.nth(d.values_count() - 1))
    return out


def present_values(envs: Sequence[dict], model: Any, name: str) -> list[Any]:
    """Field ``name``'s values over the cases where its parameter is given: an optional parameter left out (its
    ``.present`` flag false) has no value, whatever placeholder the case holds for it (a generator that varies the
    placeholder spreads nothing)."""
    param = next((f.param for f in model.fields if f.name == name), name)
    flag = f"{param}.present"
    if name == flag:
        return [e[name] for e in envs]
    return [e[name] for e in envs if e.get(flag, True)]


def diversity(envs: Sequence[dict], model: Any, bounds: dict[str, tuple[int, int]]) -> dict[str, Any]:
    fields = arg_fields(model)
    per_field = {f: len(set(present_values(envs, model, f))) for f in fields}
    hits = 0
    missed = []
    for f, (lo, hi) in bounds.items():
        seen = {int(x) for x in present_values(envs, model, f)}
        for end, x in (("lo", lo), ("hi", hi)):
            if x in seen:
                hits += 1
            else:
                missed.append(f"{f}.{end}")
    counts = sorted(per_field.values())
    median = statistics.median(counts) if counts else 0
    return {"distinct_values": sum(per_field.values()), "median_distinct": median, "per_field": per_field,
            "boundary_share": 100.0 * hits / max(1, 2 * len(bounds)), "missed": missed}


def enumerate_blocking(space: Any, n: int, budget_s: float) -> tuple[list[Any], float]:
    """The baseline: check, model, block the model's argument values; repeat."""
    import z3

    s = space.solver(seed=0)
    fields = [space.vars[f] for f in arg_fields(space.model)]
    out: list[Any] = []
    t0 = time.perf_counter()
    while len(out) < n and time.perf_counter() - t0 < budget_s:
        if s.check() != z3.sat:
            break
        m = s.model()
        out.append(space.case_from(m, origin=f"enum:{len(out)}"))
        s.add(z3.Or([v != m.eval(v, model_completion=True) for v in fields]))
    return out, time.perf_counter() - t0


def distinct_valid(cases: Sequence[Any]) -> list[Any]:
    from ascverify import check_case

    seen: set = set()
    out = []
    for c in cases:
        k = distinct_key(c)
        if k in seen or not check_case(c).valid:
            continue
        seen.add(k)
        out.append(c)
    return out


def choices_per_case(model: Any, product: str, dtype: str, seed: int, n: int = 60) -> int:
    """The mean number of choices Hypothesis makes per example of `strategies.cases` (its filter's retries included),
    read off the engine's record of the example (``ConjectureData.nodes``, an internal: bench code only)."""
    from hypothesis import strategies as st

    from ascverify.strategies import cases as st_cases

    @st.composite
    def counted(draw: Any) -> int:
        draw(st_cases(model, product=product, dtype=dtype))
        return len(draw.__self__.nodes)

    got, _ = collect(counted(), n, seed=seed)
    return max(1, round(statistics.mean(got))) if got else 1


def _integers(k: int) -> Any:
    """k integers per example (`collect` draws them with an empty body)."""
    from hypothesis import strategies as st

    one = st.integers(0, 2**16)

    @st.composite
    def draw_k(draw: Any) -> int:
        for _ in range(k):
            draw(one)
        return k

    return draw_k()


def _generate(kind: str, api: str, n: int, seed: int, budget_s: float) -> dict[str, Any]:
    """Run one generator (in a fresh process): the distinct valid cases' field values and the wall time."""
    from ascverify.engines.solver import Space
    from ascverify.strategies import cases as st_cases

    model = {m.name: m for m in load_models()}[api]
    product, dtype = pick_context(model, PRODUCT)
    ctx = model.context(product, dtype)
    space = Space(model, ctx)  # not timed
    if kind == "synth-one-solver":  # the baseline of the renewal figure: one solver for the whole sampling
        solver_module.FRESH_SOLVER_EVERY = 10**12
        kind = "synth"
    if kind == "synth":  # what `ascverify synth` runs: the warning rules held too (cases that draw no warning)
        t0 = time.perf_counter()
        with interrupts.solver_region():
            got = list(solver_module.iter_sample_quiet(model, ctx, n, seed=seed))
        seconds = [time.perf_counter() - t0]
    elif kind in ("sample", "pilot"):
        t0 = time.perf_counter()
        got = space.sample(n, seed=seed)
        seconds = [time.perf_counter() - t0]
    elif kind == "gen-random":  # what `ascverify gen --mode random` builds (the construction, seeded; no goldens)
        from ascverify.engines.gen import generate

        t0 = time.perf_counter()
        gen = generate(model, ctx, "random", n, seed)
        seconds = [time.perf_counter() - t0]
        got = [g.case for g in gen.cases]
    elif kind == "trivial":  # Hypothesis's own ceiling: a @given test drawing one integer, trivial body
        from hypothesis import strategies as st

        got_ints, t = collect(st.integers(0, 2**16), n, seed=seed, budget_s=budget_s or None)
        return {"envs": [{} for _ in got_ints], "drawn": len(got_ints), "seconds": [t], "median": t}
    elif kind == "same-choices":  # Hypothesis drawing as many integers per example as strategies.cases makes choices
        k = choices_per_case(model, product, dtype, seed)
        got_ints, t = collect(_integers(k), n, seed=seed, budget_s=budget_s or None)
        return {"envs": [{} for _ in got_ints], "drawn": len(got_ints), "seconds": [t], "median": t, "choices": k}
    elif kind == "enum":
        got, t = enumerate_blocking(space, n, budget_s)
        seconds = [t]
    else:
        seconds = []
        for rep in range(max(1, int(kind.split(":")[1]))):
            got, t = collect(st_cases(model, product=product, dtype=dtype), n, seed=seed + rep,
                             budget_s=budget_s or None)
            seconds.append(t)
    good = distinct_valid(got)
    return {"envs": [dict(c.env) for c in good], "drawn": len(got), "seconds": seconds,
            "median": statistics.median(seconds)}


_CTX: list[Any] = []


def _mp_context() -> Any:
    """A forkserver context whose server has imported ascverify, z3 and hypothesis but used no solver;
    spawn where forkserver is not available."""
    if not _CTX:
        try:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["bench.gen_bench", "ascverify", "ascverify.models", "ascverify.engines.solver",
                                        "ascverify.strategies", "z3", "hypothesis"])
        except ValueError:
            ctx = multiprocessing.get_context("spawn")
        _CTX.append(ctx)
    return _CTX[0]


def _fresh(kind: str, api: str, n: int, seed: int, budget_s: float) -> dict[str, Any]:
    """`_generate` in a fresh process: Z3's speed depends on what the process's global context saw before
    (the enumerator ran 6 to 50 times slower after other solver work in the same process)."""
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=_mp_context()) as pool:
        return pool.submit(_generate, kind, api, n, seed, budget_s).result()


#: Rounds of the strategies figure and its two Hypothesis baselines, alternated (full runs; quick runs: one).
ROUNDS = 3


def _alternated(api: str, n: int, budget: float, rounds: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """`strategies.cases`, Hypothesis's one-integer ceiling and Hypothesis drawing as many integers as the strategy
    makes choices, each run ``rounds`` times in alternation (ceiling, strategy, same choices, then again; each run in
    a fresh process, with its own seed): a machine whose speed moves within minutes moves all three alike. Each result
    gets ``rate`` (the median over the rounds of distinct valid cases, or examples, per second) and ``seconds`` (the
    rounds' times); the strategy's ``envs`` are its first round's cases."""
    runs: dict[str, list[dict[str, Any]]] = {"trivial": [], "strategies:1": [], "same-choices": []}
    seeds = {"trivial": 4, "strategies:1": 2, "same-choices": 5}
    for i in range(rounds):
        for kind in runs:
            runs[kind].append(_fresh(kind, api, n, seeds[kind] + 10 * i, budget))
    out = []
    for kind, got in runs.items():
        counts = [len(g["envs"]) if kind == "strategies:1" else g["drawn"] for g in got]
        result = dict(got[0])
        result["seconds"] = [g["median"] for g in got]
        result["rate"] = statistics.median(c / max(g["median"], 1e-9) for c, g in zip(counts, got))
        result["median"] = statistics.median(result["seconds"])
        out.append(result)
    trivial, strat, same = out
    return strat, trivial, same


#: Examples between the two counted runs of `instructions_per_example` (`COUNT_BASE` and `COUNT_BASE` + `COUNTED`
#: examples, each after `COUNT_WARMUP` in a test of their own).
COUNTED = 250
COUNT_BASE = 50
COUNT_WARMUP = 50
ROOT = Path(__file__).resolve().parents[1]


def count_run(kind: str, api: str, n: int) -> None:
    """What a counted process runs (``python -c``): `COUNT_WARMUP` examples of ``kind`` ("strategies": the API's
    `strategies.cases` in the bench's context; "trivial": one integer), then ``n`` more in a second @given test."""
    from hypothesis import strategies as st

    from ascverify.strategies import cases as st_cases

    if kind == "trivial":
        strategy = st.integers(0, 2**16)
    else:
        model = {m.name: m for m in load_models()}[api]
        product, dtype = pick_context(model, PRODUCT)
        strategy = st_cases(model, product=product, dtype=dtype)
    collect(strategy, COUNT_WARMUP, seed=99)
    if n:
        collect(strategy, n, seed=2)


_TRIVIAL_COUNT: list[float] = []


def instructions_per_example(kind: str, api: str) -> float | None:
    """Instructions per example of ``kind`` (see `count_run`), from two counted runs `COUNTED` examples apart (imports,
    warm-up and the start of each @given test cancel out); None without valgrind. The trivial count is taken once per
    run."""
    if kind == "trivial" and _TRIVIAL_COUNT:
        return _TRIVIAL_COUNT[0]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed package runs: its bytecode cached (warmed first)

    def cmd(n: int) -> list[str]:
        return [sys.executable, "-c", f"from bench.gen_bench import count_run; count_run({kind!r}, {api!r}, {n})"]

    subprocess.run(cmd(0), cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # .pyc
    counts = [count_instructions(cmd(n), cwd=str(ROOT), env=env) for n in (COUNT_BASE, COUNT_BASE + COUNTED)]
    if None in counts:
        return None
    per = (counts[1] - counts[0]) / COUNTED
    if kind == "trivial":
        _TRIVIAL_COUNT.append(per)
    return per


def instruction_figure(model: Any, rate_trivial: float) -> Figure | None:
    """`strategies.cases`' instructions per example against Hypothesis's ceiling's, and the rate that ratio gives at
    the ceiling timed in this run (target: 1,000 cases/s); None without valgrind."""
    ours, ceiling = instructions_per_example("strategies", model.name), instructions_per_example("trivial", "")
    if ours is None or ceiling is None:
        note(f"gen: {model.name}: no instruction count (valgrind missing or failed)")
        return None
    implied = rate_trivial * ceiling / ours
    return at_least(Figure(
        NAME, f"{model.name}: strategies.cases instructions per example against Hypothesis's one-integer ceiling",
        implied, "cases/s at this run's ceiling", "@given drawing one integer, empty body", rate_trivial,
        "examples/s", safe_ratio(ceiling, ours),
        detail=f"valgrind cachegrind: {ours / 1e6:.2f} M instructions per example against the ceiling's "
               f"{ceiling / 1e6:.2f} M ({ours / ceiling:.2f}x; runs {COUNTED} examples apart after {COUNT_WARMUP} "
               f"of warm-up); the value is the ceiling's timed rate scaled by that ratio; a count does not move "
               f"with the load"), 1000, on="value")


def bench_api(model: Any, cfg: Config) -> list[Figure]:
    product, dtype = pick_context(model, PRODUCT)
    ctx = model.context(product, dtype)
    bounds = ends(model, ctx)
    first = 1000
    budget = max(1.0, (3 if cfg.quick else 12) * min(1.0, cfg.scale))
    n_sample = cfg.size(300, 6, minimum=3)
    if not cfg.quick:  # Space.sample runs 1 to 1,000 cases/s depending on the API: size it to the budget
        pilot = _fresh("pilot", model.name, 10, 7, 0)
        rate = len(pilot["envs"]) / max(pilot["median"], 1e-9)
        n_sample = max(20, min(n_sample, int(rate * budget)))
    n_st = cfg.size(1000, 40, minimum=5)
    sample = _fresh("sample", model.name, n_sample, 1, 0)
    strat, trivial, same = _alternated(model.name, n_st, budget, 1 if cfg.quick else ROUNDS)
    n_rand = cfg.size(3000, 100, minimum=10)
    rand = _fresh("gen-random", model.name, n_rand, 3, 0)
    n_enum = max(len(sample["envs"]), len(strat["envs"]), min(first, n_st))
    enum = _fresh("enum", model.name, n_enum, 0, budget)
    good_sample, good_st, good_enum = sample["envs"], strat["envs"], enum["envs"]
    t_sample, t_enum = sample["median"], enum["median"]

    rate_sample = len(good_sample) / t_sample
    rate_st = strat["rate"]
    rate_enum = len(good_enum) / t_enum
    where = f"{model.name} on {product} ({dtype})"

    def div_pair(ours: Sequence[dict]) -> tuple[dict, dict, int]:
        k = min(first, len(ours), len(good_enum))
        return diversity(ours[:k], model, bounds), diversity(good_enum[:k], model, bounds), k

    d_sample, d_enum_s, k_s = div_pair(good_sample)
    d_st, d_enum_st, k_st = div_pair(good_st)
    d_rand, d_enum_r, k_r = div_pair(rand["envs"])
    rate_rand = len(rand["envs"]) / rand["median"]
    rate_trivial, rate_same = trivial["rate"], same["rate"]
    def rate_figure(who: str, rate: float, detail: str, seconds: list[float]) -> Figure:
        """``who``'s distinct valid cases per second against the enumerator's (target: 1,000 per second)."""
        return at_least(Figure(NAME, f"{model.name}: {who} distinct valid cases/s", rate, "cases/s",
                               "Z3 blocking-clause enumerator", rate_enum, "cases/s", safe_ratio(rate, rate_enum),
                               detail=f"{where}; {detail}; target: thousands per second", samples=seconds,
                               baseline_samples=enum["seconds"]), 1000, on="value")

    figures = [
        rate_figure("gen --mode random", rate_rand,
                    f"{len(rand['envs'])} distinct valid of {n_rand} asked in {rand['median']:.2f} s (the seeded "
                    f"construction of `generate`, no inputs or goldens)", rand["seconds"]),
        Figure(NAME, f"{model.name}: Hypothesis's ceiling, a @given test drawing one integer", rate_trivial,
               "examples/s", detail="what `strategies.cases` runs inside: the engine's own cost per example, no "
                                    "construction at all (the strategies figure below cannot exceed it)",
               samples=trivial["seconds"]),
        at_least(Figure(NAME, f"{model.name}: strategies.cases against Hypothesis's one-integer ceiling", rate_st,
                        "cases/s", "@given drawing one integer, empty body", rate_trivial, "examples/s",
                        safe_ratio(rate_st, rate_trivial),
                        detail=f"distinct valid cases/s of `strategies.cases` over the ceiling; {same['choices']} "
                               f"choices per example against 1", samples=strat["seconds"],
                        baseline_samples=trivial["seconds"]), 0.5),
        at_least(Figure(NAME, f"{model.name}: strategies.cases against Hypothesis drawing as many choices",
                        rate_st, "cases/s", f"@given drawing {same['choices']} integers, empty body", rate_same,
                        "examples/s", safe_ratio(rate_st, rate_same),
                        detail="the engine's cost for the choices a case takes (counted on `strategies.cases`' "
                               "examples), without the construction and its check", samples=strat["seconds"],
                        baseline_samples=same["seconds"]), 0.5),
        rate_figure("Space.sample", rate_sample,
                    f"{len(good_sample)} distinct valid of {n_sample} asked in {t_sample:.2f} s; enumerator "
                    f"{len(good_enum)} distinct valid of {enum['drawn']} in {t_enum:.2f} s", sample["seconds"]),
        rate_figure("strategies.cases", rate_st,
                    f"{len(good_st)} distinct valid of {strat['drawn']} drawn; Hypothesis's own ceiling here (one "
                    f"integer per example): {rate_trivial:,.0f} examples/s", strat["seconds"]),
        *spread_figures(model, "Space.sample", d_sample, d_enum_s, k_s, len(bounds)),
        *spread_figures(model, "strategies.cases", d_st, d_enum_st, k_st, len(bounds)),
        *spread_figures(model, "gen --mode random", d_rand, d_enum_r, k_r, len(bounds)),
    ]
    if not cfg.quick and rate_st < 1000:  # the load-free reading of the figure the timed rate leaves under target
        counted = instruction_figure(model, rate_trivial)
        if counted is not None:
            figures.append(counted)
    return figures


def spread_figures(model: Any, who: str, ours: dict, enum: dict, k: int, n_bounds: int) -> list[Figure]:
    """How far ``who``'s first ``k`` cases spread against the enumerator's first ``k``: distinct values per argument
    field (median) and domain ends hit."""
    return [
        at_least(Figure(NAME, f"{model.name}: {who} median distinct values per argument (first {k})",
                        ours["median_distinct"], "values", "enumerator, same count", enum["median_distinct"],
                        "values", safe_ratio(ours["median_distinct"], enum["median_distinct"]),
                        detail=f"sum over fields {ours['distinct_values']} vs {enum['distinct_values']}; "
                               f"per field: {ours['per_field']} vs {enum['per_field']}"), 1),
        at_least(Figure(NAME, f"{model.name}: {who} domain ends hit (first {k})", ours["boundary_share"],
                        "%", "enumerator, same count", enum["boundary_share"], "%",
                        safe_ratio(ours["boundary_share"], enum["boundary_share"]),
                        detail=f"{2 * n_bounds} ends; missed: {', '.join(ours['missed']) or 'none'}; "
                               f"enumerator missed: {', '.join(enum['missed']) or 'none'}"), 1),
    ]


#: The API and product of the renewal figure: the one whose sampling slowed most with one solver (synth BlockReduceMax
#: -p atlas-a2 -n 2000 wrote 985 cases in 5 minutes)
RENEWAL_API = "BlockReduceMax"


def renewal_figure(cfg: Config) -> Figure:
    """`ascverify synth`'s sampling (`iter_sample_quiet`: the warning rules held too) of N cases with the solver
    renewed every `FRESH_SOLVER_EVERY` tries, against one solver for the whole sampling (the code before the
    renewal), each in a fresh process, alternated over the rounds."""
    n = cfg.size(300, 120, minimum=5)
    rounds = 1 if cfg.quick or cfg.scale < 0.1 else 2
    renewed, single = [], []
    for i in range(rounds):
        for kind, out in (("synth", renewed), ("synth-one-solver", single)):
            got = _fresh(kind, RENEWAL_API, n, 3 + i, 0)
            out.append((got["median"], len(got["envs"])))
    t_new = statistics.median(t for t, _ in renewed)
    t_one = statistics.median(t for t, _ in single)
    return Figure(NAME, f"{RENEWAL_API}: synth's sampling of {n} cases, solver renewed every "
                        f"{solver_module.FRESH_SOLVER_EVERY} tries", t_new, "s",
                  baseline="one solver for the whole sampling", baseline_value=t_one, baseline_unit="s",
                  ratio=t_one / max(t_new, 1e-9),
                  detail=f"{rounds} round(s) alternated, fresh processes; cases found {[c for _, c in renewed]} vs "
                         f"{[c for _, c in single]}",
                  samples=[t for t, _ in renewed])


def run(cfg: Config) -> list[Figure]:
    return per_api(NAME, bench_api, cfg) + [renewal_figure(cfg)]
