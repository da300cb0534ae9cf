"""strategies: examples per second and valid rate of `ascverify.strategies.cases` against a naive strategy.

The naive baseline draws every field on its own: ``st.integers(lo, hi)`` over the field's type range
(a mask as a count in its type range or a list of 64-bit words), a tensor's position among its
declared positions, its address and size up to the largest buffer it may live in; then
``.filter(lambda c: check_case(c).valid)``. Its valid rate before the filter is measured on the
unfiltered strategy (which is also the "unconstrained" speed `cases` is compared with); the filtered
strategy runs under a time cap (it may find nothing).

Figures per API (every product and element type the API supports):
- `cases` examples/s against the naive unconstrained strategy (nearly as fast is the target);
- valid rate of `raw_cases` (the construction without the final check: valid by construction?)
  against the naive valid rate;
- valid examples/s of `cases` against the naive strategy with the checker as filter.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

from .common import Config, Figure, StopDrawing, at_least, collect, per_api, safe_ratio

NAME = "strategies"


def naive_cases(model: Any) -> Any:
    """Every field drawn independently over its type range (tensors up to their largest buffer)."""
    from hypothesis import strategies as st

    from ascverify.cases.case import Case
    from ascverify.cases.parse import _set_arg
    from ascverify.spec.params import BoolType, EnumType, MaskArg
    from ascverify.spec.products import POSITION_BUFFER
    from ascverify.spec.rules import POSITION_NAMES

    contexts = [model.context(p, t) for p in model.supported_products() for t in model.support[p]]

    @st.composite
    def draw_case(draw: Any) -> Any:
        ctx = draw(st.sampled_from(contexts))
        env = model.default_env()
        for a in model.args:
            if isinstance(a, MaskArg):
                count = model.field_by_name[f"{a.name}.count"].type
                value = draw(st.one_of(st.integers(count.lo, count.hi),
                                       st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=model.mask_words)))
                _set_arg(env, a, value, a.name)
                if a.placeholder:
                    env[f"{a.name}.placeholder"] = False
            elif isinstance(a.type, BoolType):
                env[a.name] = draw(st.booleans())
            elif isinstance(a.type, EnumType):
                env[a.name] = draw(st.integers(0, len(a.type.choices) - 1))
            else:
                env[a.name] = draw(st.integers(a.type.lo, a.type.hi))
        for t in model.tensors:
            pos = draw(st.sampled_from(t.positions))
            cap = ctx.product.buffer_size(POSITION_BUFFER[pos])
            env[f"{t.name}.position"] = POSITION_NAMES.index(pos)
            env[f"{t.name}.addr"] = draw(st.integers(0, cap))
            env[f"{t.name}.size"] = draw(st.integers(0, cap // ctx.sizeof(t.name)))
            if t.optional:
                env[f"{t.name}.present"] = draw(st.booleans())
        return Case(model, ctx, env, origin="naive")

    return draw_case()


def bench_api(model: Any, cfg: Config) -> list[Figure]:
    from ascverify import check_case
    from ascverify.strategies import cases, raw_cases

    n = cfg.size(400, 40, minimum=5)
    reps = 3 if not cfg.quick else 1
    cap_s = max(0.2, (0.5 if cfg.quick else 10.0) * min(1.0, cfg.scale))

    budget = max(0.5, (2.0 if cfg.quick else 6.0) * min(1.0, cfg.scale))

    strategies = {"cases": (cases(model), 1), "raw": (raw_cases(model), 2), "naive": (naive_cases(model), 3)}
    rates: dict[str, list[float]] = {k: [] for k in strategies}
    times: dict[str, list[float]] = {k: [] for k in strategies}
    last: dict[str, list[Any]] = {}
    for rep in range(reps):  # in alternation, so that load changes hit all three alike
        for name, (strategy, seed) in strategies.items():
            got, t = collect(strategy, n, seed=seed + 10 * rep, budget_s=budget)
            rates[name].append(len(got) / t)
            times[name].append(t)
            last[name] = got

    def summary(name: str) -> tuple[float, list[float], list[Any], float]:
        """Median examples/s over the runs of up to n examples (each capped at ``budget`` s)."""
        return statistics.median(rates[name]), times[name], last[name], statistics.median(times[name])

    rate_cases, s_cases, got_cases, t_cases = summary("cases")
    rate_raw, s_raw, got_raw, t_raw = summary("raw")
    rate_naive, s_naive, got_naive, t_naive = summary("naive")
    valid_cases = sum(check_case(c).valid for c in got_cases)
    valid_raw = sum(check_case(c).valid for c in got_raw)
    valid_naive = sum(check_case(c).valid for c in got_naive)
    valid_rate_cases = rate_cases * valid_cases / max(1, len(got_cases))

    # the naive strategy filtered by the checker, under a time cap
    tried = [0]
    t_start = [0.0]

    def valid(c: Any) -> bool:
        # the filter runs inside the draws, where the test body may never be reached: stop by time here
        if time.perf_counter() - t_start[0] > cap_s:
            raise StopDrawing
        tried[0] += 1
        return check_case(c).valid

    t_start[0] = time.perf_counter()
    filtered, t_filt = collect(naive_cases(model).filter(valid), n, seed=4, budget_s=cap_s)
    rate_filt = len(filtered) / t_filt
    broken_raw = Counter(v.id for c in got_raw for v in check_case(c).violations)
    share = 100.0 * valid_naive / max(1, len(got_naive))
    figures = [
        at_least(Figure(NAME, f"{model.name}: cases() examples/s", rate_cases, "ex/s", "naive integers() per field, "
                        "unfiltered", rate_naive, "ex/s", safe_ratio(rate_cases, rate_naive),
                        detail=f"{len(got_cases)} examples (last run; median run {t_cases:.2f} s, cap {budget:.0f} s), "
                               f"{valid_cases} valid; ratio = cases / unconstrained (target: nearly as fast, read as "
                               f">= 0.5)",
                        samples=s_cases, baseline_samples=s_naive), 0.5),
        at_least(Figure(NAME, f"{model.name}: raw_cases() valid rate (construction alone)",
                        100.0 * valid_raw / max(1, len(got_raw)), "%", "naive valid rate before the filter", share, "%",
                        None, detail=f"{valid_raw}/{len(got_raw)} valid by construction at {rate_raw:,.0f} ex/s; "
                                     f"naive {valid_naive}/{len(got_naive)}; rules raw_cases broke: "
                                     f"{dict(broken_raw) or 'none'}",
                        samples=s_raw), 100, on="value"),
        at_least(Figure(NAME, f"{model.name}: cases() valid rate", 100.0 * valid_cases / max(1, len(got_cases)), "%",
                        "naive valid rate before the filter", share, "%", None,
                        detail=f"{valid_cases}/{len(got_cases)}"), 100, on="value"),
        Figure(NAME, f"{model.name}: valid examples/s, cases() vs naive + filter" + ("" if filtered else
               " (ratio: lower bound)"), valid_rate_cases, "ex/s",
               "naive .filter(check_case valid)", rate_filt, "ex/s",
               safe_ratio(valid_rate_cases, rate_filt if filtered else 1 / t_filt),
               detail=f"naive+filter: {len(filtered)} valid in {t_filt:.2f} s ({tried[0]} filter calls, cap "
                      f"{cap_s:.0f} s)" + ("" if filtered else "; it found none, so the ratio is a lower bound "
                                                               "(as if it had found one)")),
    ]
    return figures


def run(cfg: Config) -> list[Figure]:
    return per_api(NAME, bench_api, cfg)
