"""What every benchmark shares: figures, repeated timing with medians, Hypothesis collection, machine info."""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ascverify.cli.options import usable_cores


@dataclass
class Config:
    """How big and how often: ``quick`` is the CI setting (well under a minute on 2 cores)."""

    quick: bool = False
    #: scale factor for sizes (tests use a tiny one)
    scale: float = 1.0

    @property
    def repeats(self) -> int:
        if self.scale < 0.1:  # smoke tests: one of each
            return 1
        return 2 if self.quick else 5

    def size(self, full: int, quick: int, minimum: int = 1) -> int:
        return max(minimum, int(round((quick if self.quick else full) * self.scale)))


@dataclass
class Figure:
    """One measured figure, its baseline measured in the same run, and their ratio.

    ``ratio`` is oriented so that larger is better for ascverify (e.g. baseline time / our time),
    unless ``ratio_note`` says otherwise. ``target`` is the brief's threshold on ``target_of``
    (``"ratio"`` or ``"value"``), with ``met`` its verdict (None: no target).
    """

    bench: str
    figure: str
    value: float
    unit: str
    baseline: str = ""
    baseline_value: float | None = None
    baseline_unit: str = ""
    ratio: float | None = None
    target: str = ""
    target_of: str = "ratio"
    met: bool | None = None
    detail: str = ""
    samples: list[float] = field(default_factory=list)
    baseline_samples: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def at_least(figure: Figure, threshold: float, on: str = "ratio") -> Figure:
    """Set the figure's target ``>= threshold`` on its ratio or value, and whether it is met."""
    x = figure.ratio if on == "ratio" else figure.value
    figure.target = f">= {fmt_number(threshold)}" + ("x" if on == "ratio" else f" {figure.unit}")
    figure.target_of = on
    figure.met = None if x is None or not math.isfinite(x) else bool(x >= threshold)
    return figure


def at_most(figure: Figure, threshold: float, on: str = "ratio") -> Figure:
    x = figure.ratio if on == "ratio" else figure.value
    figure.target = f"<= {fmt_number(threshold)}" + ("x" if on == "ratio" else f" {figure.unit}")
    figure.target_of = on
    figure.met = None if x is None or not math.isfinite(x) else bool(x <= threshold)
    return figure


def timed_once(fn: Callable[[], Any], setup: Callable[[], Any] | None = None, gc_off: bool = False) -> tuple[float, Any]:
    """Wall time of one ``fn()`` (``setup()`` first, not timed; cyclic GC off during it when ``gc_off``) and its result."""
    if setup is not None:
        setup()
    was = gc.isenabled()
    if gc_off:
        gc.collect()
        gc.disable()
    try:
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out
    finally:
        if gc_off and was:
            gc.enable()


def median_time(fn: Callable[[], Any], repeats: int, *, setup: Callable[[], Any] | None = None,
                warmup: bool = False, gc_off: bool = False) -> tuple[float, list[float], Any]:
    """Median wall time of ``fn()`` over ``repeats`` runs (``setup()`` before each, not timed); the last result."""
    if warmup:
        if setup is not None:
            setup()
        fn()
    times: list[float] = []
    out = None
    for _ in range(max(1, repeats)):
        seconds, out = timed_once(fn, setup, gc_off)
        times.append(seconds)
    return statistics.median(times), times, out


def fmt_number(x: float | None) -> str:
    """A number for the table: thousands separators, three significant digits below 100."""
    if x is None:
        return "-"
    if not math.isfinite(x):
        return str(x)
    ax = abs(x)
    if ax >= 100:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    if ax == 0:
        return "0"
    return f"{x:.3g}"


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.3g} µs"
    return f"{seconds * 1e9:.3g} ns"


def fmt_value(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    if unit == "s":
        return fmt_time(x)
    if unit == "%":
        return f"{x:.1f}%"
    return f"{fmt_number(x)} {unit}".strip()


# -- Hypothesis ---------------------------------------------------------------------------------------------------

class StopDrawing(Exception):
    """Raised from inside a drawing loop when the time budget is spent."""


def collect(strategy: Any, n: int, *, seed: int = 0, budget_s: float | None = None,
            on_case: Callable[[Any], None] | None = None) -> tuple[list[Any], float]:
    """Draw up to ``n`` examples by running a ``@given`` test (generate phase only, no database).

    Returns the examples and the wall time. ``strategy.example()`` is not used: it is slow and
    not meant for this. Stops early (keeping what was drawn) after ``budget_s`` seconds.
    """
    from hypothesis import HealthCheck, Phase, given, seed as hseed, settings
    from hypothesis.errors import Unsatisfiable

    got: list[Any] = []
    t0 = time.perf_counter()

    @hseed(seed)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False)
    @given(strategy)
    def body(x: Any) -> None:
        if budget_s is not None and time.perf_counter() - t0 > budget_s:
            raise StopDrawing
        got.append(x)
        if on_case is not None:
            on_case(x)

    try:
        body()
    except (StopDrawing, Unsatisfiable):
        pass
    except BaseException as exc:  # hypothesis wraps the stop in its own reporting on some versions
        if "StopDrawing" not in repr(exc) and not isinstance(getattr(exc, "__cause__", None), StopDrawing):
            raise
    return got, time.perf_counter() - t0


# -- machine ------------------------------------------------------------------------------------------------------

def count_instructions(cmd: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None) -> int | None:
    """Instructions ``cmd`` executes (valgrind's cachegrind, cache simulation off; a count does not move with the
    machine's load as a time does), or None without valgrind or when it fails."""
    try:
        r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                            *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env,
                           timeout=1800)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in r.stderr.decode(errors="replace").splitlines():
        if "I" in line and "refs:" in line:
            return int(line.rsplit(":", 1)[1].strip().replace(",", ""))
    return None


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = usable_cores()
    versions: dict[str, str] = {}
    for mod, attr in (("numpy", "__version__"), ("z3", None), ("hypothesis", "__version__"), ("orjson", "__version__"),
                      ("ascverify", "__version__")):
        try:
            m = __import__(mod)
            versions[mod] = m.get_version_string() if attr is None else getattr(m, attr)
        except Exception as exc:  # noqa: BLE001 - machine info never fails the run
            versions[mod] = f"unavailable ({type(exc).__name__})"
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        load = []
    return {"cpu": cpu, "cores": os.cpu_count(), "usable_cores": usable, "load_average": load,
            "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "executable": sys.executable, **versions}


def note(msg: str) -> None:
    """A progress or diagnostic line (stderr, so that the table stays clean)."""
    print(msg, file=sys.stderr, flush=True)


def distinct_key(case: Any) -> tuple:
    """What makes two cases the same case: API, context and every field value."""
    return (case.model.name, case.ctx.key, tuple(sorted(case.env.items())))


def safe_ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0 or not math.isfinite(a) or not math.isfinite(b):
        return None
    return a / b


def chunks(seq: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for i in range(0, len(seq), size):
        yield seq[i:i + size]


_MODELS_NOTED = [False]


def load_models() -> list[Any]:
    """Every registered API model; when a model module does not import (work in progress elsewhere),
    a note and the models registered before it."""
    from ascverify.spec import registry

    try:
        return list(registry.apis())
    except Exception as exc:  # noqa: BLE001 - a broken model must not stop the other benchmarks
        if not _MODELS_NOTED[0]:
            _MODELS_NOTED[0] = True
            note(f"bench: a model module does not import ({type(exc).__name__}: {exc}); "
                 f"benchmarking the models registered before it")
        return list(registry._MODELS.values())  # noqa: SLF001


def pick_context(model: Any, product: str = "atlas-a2") -> tuple[str, str]:
    """(product, dtype) to benchmark an API in: ``product`` when supported (its first type, half if listed)."""
    products = model.supported_products()
    pid = product if product in products else products[0]
    types = model.support[pid]
    return pid, ("half" if "half" in types else types[0])


#: (benchmark, API, reason) for every API a benchmark had to skip in this run
SKIPPED: list[tuple[str, str, str]] = []


def skip(bench: str, api: str, reason: str) -> None:
    """Record and print that ``bench`` skipped ``api`` (e.g. a model still in progress raised)."""
    SKIPPED.append((bench, api, reason))
    note(f"{bench}: {api}: skipped ({reason})")


def per_api(bench: str, bench_api: Callable[[Any, Config], list[Figure]], cfg: Config) -> list[Figure]:
    """``bench_api(model, cfg)`` for every registered API; an API whose run raises is skipped (`skip`): a model in
    progress elsewhere must not stop the benchmark."""
    figures: list[Figure] = []
    for model in load_models():
        if not model.args:  # SetMaskCount / SetMaskNorm: one case per product and type, nothing to generate fast
            skip(bench, model.name, "no arguments: its every case is a product and a type, nothing to draw")
            continue
        try:
            figures.extend(bench_api(model, cfg))
        except Exception as exc:  # noqa: BLE001 - see above
            skip(bench, model.name, f"{type(exc).__name__}: {str(exc)[:200]}")
    return figures


def interleaved(tasks: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]], repeats: int, *,
                gc_off: bool = False, warmup: bool = False) -> dict[str, tuple[float, list[float], Any]]:
    """Time several tasks in alternation (A B C, B C A, ...), so that a shared machine's load changes
    hit the measurement and its baseline alike. Per task: (median seconds, samples, last result).
    ``tasks``: name -> (fn, setup run untimed before each call, or None)."""
    names = list(tasks)
    samples: dict[str, list[float]] = {n: [] for n in names}
    last: dict[str, Any] = {}
    if warmup:
        for n in names:
            fn, setup = tasks[n]
            if setup is not None:
                setup()
            fn()
    for rep in range(max(1, repeats)):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for n in order:
            fn, setup = tasks[n]
            seconds, last[n] = timed_once(fn, setup, gc_off)
            samples[n].append(seconds)
    return {n: (statistics.median(samples[n]), samples[n], last.get(n)) for n in names}
