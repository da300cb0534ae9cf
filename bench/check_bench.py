"""check: cases per second of `ascverify check` on a JSON Lines file, against checking the same cases with Z3.

The file mixes every registered API, product and element type: each line is a valid case drawn with
`ascverify.strategies.cases` or, for half of the lines, one of a pool of mutants (such a case with an
argument, a tensor field, the product or the type changed at random, again until it breaks a rule,
up to 4 times), so that about half break a rule. Building the file is not timed.

Figures (each measurement timed in alternation with its baseline, medians of ``repeats`` runs):
- CLI: ``ascverify check --format json FILE > /dev/null`` as a subprocess (startup included), with
  one worker per core (``--workers 0``) and in one process (``--workers 1``, the default) when the option exists
  (``--jobs`` in older trees), against a subprocess that only
  parses every line of the same file with orjson (``python -c``: its startup included too);
- floor: a process that parses each line with orjson, visits each argument and tensor once and writes one result
  line, against the same orjson baseline: the least a checker written in Python pays per case (no target);
- many files: ``ascverify check`` of the first 2,000 cases as one-case files (``gen`` writes a case.json per case)
  against the same cases in one JSON Lines file (no target);
- startup: ``ascverify check`` of a 1-case file against ``python -c "import numpy"``, both with
  bytecode caches (PYTHONPYCACHEPREFIX in a temporary folder, as an installed package has them), wall
  and CPU time (os.wait4);
- memory: the peak resident size of ``check --workers 1`` on the file three times over against the file (constant
  memory: the ratio stays near 1; the file is larger than the checker's window of 65,536 cases, so both runs fill
  it and any growth past it shows);
- in-process: `read_cases` + `check_cases` (the public API; the cyclic GC paused as the CLI does), and
  `check_cases` alone on the parsed cases;
- Z3 calls made while reading and checking every case (counted by wrapping z3's entry points): none.
- instructions (when valgrind is installed; full runs only, about 4 minutes): the instructions `check` and the
  orjson loop execute on the whole file, counted by valgrind's cachegrind. Unlike time, a count does not move with
  the machine's load, so it says where `check` stands against the 6x target when the timed ratio swings between
  runs (it is not the target itself: orjson's C code and Python's interpreter do not run the same number of
  instructions per cycle).
- Z3 baseline: per case, the case's values substituted into every rule's term of the API's `Space`
  (built once per API and context, not timed) and simplified to true/false: an honest per-case query
  that yields the same list of broken rules. Measured on a sample of the cases.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from .common import (Config, Figure, at_least, at_most, collect, count_instructions, interleaved, load_models, note,
                     safe_ratio, skip, usable_cores)

NAME = "check"
ROOT = Path(__file__).resolve().parents[1]

# -- building the file --------------------------------------------------------------------------------------------


def base_pool(per_api: int, seed: int = 0) -> list[dict[str, Any]]:
    """Valid cases of every registered API (JSON dicts), drawn with `strategies.cases`."""
    from ascverify.strategies import cases

    out: list[dict[str, Any]] = []
    for i, model in enumerate(load_models()):
        try:
            got, _ = collect(cases(model), per_api, seed=seed + i)
            out.extend(c.to_json() for c in got)
        except Exception as exc:  # noqa: BLE001 - a model in progress elsewhere must not stop the benchmark
            skip(NAME, model.name, f"strategies.cases raised {type(exc).__name__}: {str(exc)[:200]}")
    return out


def _int_field_range(model: Any, name: str) -> tuple[int, int]:
    f = model.field_by_name.get(name)
    return (f.type.lo, f.type.hi) if f is not None else (0, 2**16)


def mutate(doc: dict[str, Any], rng: random.Random, models: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` with one field changed: an argument, a tensor's place or size, the product or type."""
    from ascverify.spec.products import PRODUCT_IDS, POSITIONS

    doc = orjson.loads(orjson.dumps(doc))
    model = models[doc["api"]]
    what = rng.random()
    args, tensors = doc["args"], doc["tensors"]
    if what < 0.45 and args:
        name = rng.choice(sorted(args))
        value = args[name]
        if isinstance(value, bool):
            args[name] = not value
        elif isinstance(value, list):  # bitwise mask: drop, add or zero words
            k = rng.random()
            args[name] = [] if k < 0.2 else ([0] * len(value) if k < 0.5 else value + [rng.getrandbits(64)])
        elif isinstance(value, int):
            lo, hi = _int_field_range(model, name if name in model.field_by_name else f"{name}.count")
            k = rng.random()
            if k < 0.3:
                args[name] = value + rng.choice((-1, 1))
            elif k < 0.5:
                args[name] = rng.choice((lo, hi, 0))
            elif k < 0.6:
                args[name] = [rng.getrandbits(64) for _ in range(rng.randint(1, 2))] \
                    if model.param_kinds.get(name) == "mask" else rng.randint(lo, hi)
            else:
                low = max(lo, 0)
                args[name] = rng.randint(low, max(low, min(hi, 4 * abs(value) + 8)))
        elif isinstance(value, str):  # an enum: another of its names; a placeholder mask: a count
            choices = getattr(getattr(model.field_by_name.get(name), "type", None), "choices", None)
            args[name] = rng.choice(choices) if choices else rng.randint(0, 200)
    elif what < 0.9 and tensors:
        name = rng.choice(sorted(tensors))
        t = tensors[name]
        k = rng.random()
        if k < 0.3:
            t["addr"] = max(0, t["addr"] + rng.choice((-32, -16, -2, 2, 16, 32, 512)))
        elif k < 0.55:
            t["size"] = max(0, t["size"] // rng.choice((2, 3, 4)) - rng.randint(0, 4))
        elif k < 0.7:
            t["position"] = rng.choice(POSITIONS)
        elif k < 0.9:
            other = rng.choice(sorted(tensors))
            t["addr"] = tensors[other]["addr"] + rng.randint(0, 4) * 32
        else:
            t["addr"] = t["addr"] + rng.choice((1, 4, 16)) * 1024 * 64
    elif what < 0.95:
        doc["product"] = rng.choice(PRODUCT_IDS)
    else:
        doc["dtype"] = rng.choice(("half", "float", "int16", "uint8"))
    return doc


def _invalid(doc: dict[str, Any]) -> bool:
    """The case is readable and breaks a rule."""
    from ascverify import check_case, parse_case
    from ascverify.spec.errors import InputError

    try:
        return not check_case(parse_case(doc)).valid
    except InputError:
        return False


def build_file(path: Path, n: int, *, seed: int = 0, per_api: int = 150, invalid_share: float = 0.5,
               tries: int = 4, mutants_max: int = 2000) -> dict[str, Any]:
    """Write ``n`` cases (JSON Lines) to ``path``, each drawn from the pool of valid cases or, for
    ``invalid_share`` of them, from a pool of mutants (a valid case mutated, again up to ``tries`` times,
    until it breaks a rule). Returns counts by API."""
    rng = random.Random(seed)
    models = {m.name: m for m in load_models()}
    pool = base_pool(per_api, seed)
    lines: list[bytes] = []
    counts: dict[str, int] = {}
    mutants: list[dict[str, Any]] = []
    for _ in range(max(20, min(n // 2, mutants_max))):
        doc = rng.choice(pool)
        for _ in range(tries):
            doc = mutate(doc, rng, models)
            if _invalid(doc):
                break
        mutants.append(doc)
    for _ in range(n):
        doc = rng.choice(mutants if rng.random() < invalid_share else pool)
        counts[doc["api"]] = counts.get(doc["api"], 0) + 1
        lines.append(orjson.dumps(doc))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return {"cases": n, "pool": len(pool), "mutants": len(mutants), "by_api": counts, "bytes": path.stat().st_size}


def build_distinct_file(path: Path, n: int, *, seed: int = 0) -> dict[str, Any]:
    """Write ``n`` cases (JSON Lines) no two of which are alike but for a name: half drawn valid with
    `strategies.cases` (each once), the other half each a valid case mutated once (`mutate`; most break a rule, a few
    stay valid). Unlike `named_lines`, no case's content repeats, so nothing read or checked once serves two lines.
    Returns counts as `build_file`."""
    rng = random.Random(seed)
    models = {m.name: m for m in load_models()}
    want_valid = n - n // 2
    pool = base_pool(-(-want_valid // max(1, len(models))) + 8, seed)
    rng.shuffle(pool)  # the valid half taken from every API, not the first ones registered
    lines: dict[bytes, None] = {}
    for doc in pool:
        if len(lines) >= want_valid:
            break
        lines.setdefault(orjson.dumps(doc))
    tries = 0
    while len(lines) < n and tries < 20 * n:
        tries += 1
        lines.setdefault(orjson.dumps(mutate(rng.choice(pool), rng, models)))
    out = list(lines)
    rng.shuffle(out)
    counts: dict[str, int] = {}
    for line in out:
        api = orjson.loads(line)["api"]
        counts[api] = counts.get(api, 0) + 1
    path.write_bytes(b"\n".join(out) + b"\n")
    return {"cases": len(out), "pool": len(pool), "by_api": counts, "bytes": path.stat().st_size}


def named_lines(data: bytes) -> bytes:
    """JSON Lines ``data`` with a ``name`` of its own put first in each line's object: every line distinct."""
    return b"".join(b'{"name":"c%d",' % i + line[1:] + b"\n"
                    for i, line in enumerate(data.splitlines()) if line.startswith(b"{"))


def repeated_share(path: Path) -> float:
    """The share of a file's lines that repeat an earlier line."""
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    return 1 - len(set(lines)) / max(1, len(lines))


# -- the Z3 baseline ------------------------------------------------------------------------------------------------


class Z3Checker:
    """Per case: substitute the case's values into each rule's Z3 term and simplify (one Space per API, context)."""

    def __init__(self) -> None:
        self.spaces: dict[tuple, Any] = {}

    def space(self, case: Any) -> Any:
        from ascverify.engines.solver import Space

        key = (case.model.name, case.ctx.key)
        sp = self.spaces.get(key)
        if sp is None:
            sp = self.spaces[key] = Space(case.model, case.ctx, include_warnings=True)
            sp._bench_terms = list(sp.terms.items())  # noqa: SLF001 - cached for the timed loop
        return sp

    @staticmethod
    def check(space: Any, case: Any) -> list[str]:
        """Ids of the rules (symbolic ones, errors and warnings) that the case breaks, by Z3."""
        import z3

        subs = []
        for name, var in space.vars.items():
            val = case.env[name]
            subs.append((var, z3.BoolVal(bool(val)) if z3.is_bool(var) else z3.IntVal(int(val))))
        broken = []
        for rid, term in space._bench_terms:  # noqa: SLF001
            t = z3.simplify(z3.substitute(term, *subs))
            if z3.is_true(t):
                continue
            if not z3.is_false(t):  # a bounded quantifier that simplify cannot decide: ask the solver
                s = z3.Solver()
                s.set("timeout", space.timeout_ms)
                s.add(z3.Not(t))
                if s.check() == z3.unsat:
                    continue
            broken.append(rid)
        return broken


def count_solver_calls(fn: Any) -> int:
    """How many Z3 solver checks, simplifications and substitutions ``fn()`` makes (untimed run)."""
    import z3

    calls = [0]
    patched = []

    def wrap(owner: Any, name: str) -> None:
        orig = getattr(owner, name)

        def counted(*a: Any, **k: Any) -> Any:
            calls[0] += 1
            return orig(*a, **k)

        patched.append((owner, name, orig))
        setattr(owner, name, counted)

    for owner, name in ((z3.Solver, "check"), (z3.Optimize, "check"), (z3, "simplify"), (z3, "substitute")):
        wrap(owner, name)
    try:
        fn()
    finally:
        for owner, name, orig in patched:
            setattr(owner, name, orig)
    return calls[0]


# -- the benchmark --------------------------------------------------------------------------------------------------

def _samples_of(fn: Any, arg: Any, k: int) -> list[Any]:
    return [fn(arg) for _ in range(k)]



#: The other ways `check` writes its output whose memory is measured (a later option overrides --format json).
MEMORY_MODES = (("--format sarif", ("--format", "sarif")), ("--product atlas-a3", ("--product", "atlas-a3")))


def _cli(path: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ascverify", "check", "--format", "json", *extra, path]


def _env(pycache: str) -> dict[str, str]:
    """The subprocesses' environment: bytecode caches allowed (PYTHONDONTWRITEBYTECODE dropped), kept in
    ``pycache`` instead of the source tree (an installed package has its .pyc files, and numpy's are there)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


_ENV: dict[str, str] | None = None


def _spawn(cmd: list[str]) -> tuple[float, float, int, int]:
    """Run ``cmd`` (stdout discarded): wall seconds, CPU seconds (user + system), peak resident KiB, exit status."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(ROOT), env=_ENV)
    _, status, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


#: Runs ``python -m ascverify ARGS...`` (argv[2:]) and writes its peak resident size in KiB to the file argv[1] at
#: exit: VmHWM of /proc/self/status, the high-water mark of this program's own memory. The rusage of `os.wait4` is
#: not: Linux carries ru_maxrss over exec, so a child forked from this (large) bench process reports the bench's
#: size (every run measured 601 MiB, whatever the file).
_PEAK_WRAPPER = """
import atexit, resource, runpy, sys
out = sys.argv[1]

def peak():
    try:
        with open("/proc/self/status") as f:
            kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(out, "w") as f:
        f.write(str(kib))

atexit.register(peak)
sys.argv = ["ascverify", *sys.argv[2:]]
runpy.run_module("ascverify", run_name="__main__", alter_sys=True)
"""


def _peak_kib(args: list[str], scratch: Path) -> int:
    """The peak resident size (KiB) of ``ascverify ARGS...`` in its own process (see `_PEAK_WRAPPER`)."""
    out = scratch / "peak.txt"
    subprocess.run([sys.executable, "-c", _PEAK_WRAPPER, str(out), *args], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=str(ROOT), env=_ENV)
    return int(out.read_text())


def _orjson_cmd(path: str) -> list[str]:
    """A process that reads the file and parses every line with orjson (the baseline of `check`)."""
    code = ("import orjson, sys\n"
            "with open(sys.argv[1], 'rb') as f:\n"
            "    for line in f:\n"
            "        orjson.loads(line)\n")
    return [sys.executable, "-c", code, path]


def _floor_cmd(path: str) -> list[str]:
    """A process that does the least any checker written in Python does per case: parse the line with orjson,
    visit each argument and tensor once, write one result line (to /dev/null). A yardstick for `check`'s ratio:
    what is left of the 6x budget once a Python loop over the cases is paid."""
    code = ("import orjson, sys, os\n"
            "out = open(os.devnull, 'w')\n"
            "with open(sys.argv[1], 'rb') as f:\n"
            "    for i, line in enumerate(f):\n"
            "        d = orjson.loads(line)\n"
            "        n = sum(1 for _ in d['args'].values()) + sum(1 for _ in d['tensors'].values())\n"
            "        out.write('{\"index\":%d,\"api\":\"%s\",\"product\":\"%s\",\"fields\":%d,'\n"
            "                  '\"violations\":[],\"warnings\":[]}\\n' % (i, d['api'], d['product'], n))\n")
    return [sys.executable, "-c", code, path]


def _instructions(cmd: list[str]) -> int | None:
    """Instructions ``cmd`` executes in the bench's environment, or None without valgrind."""
    return count_instructions(cmd, cwd=str(ROOT), env=_ENV)


def _instruction_figure(path: Path, one: Path, n: int, tmp: Path) -> Figure | None:
    """`check --workers 1`'s instructions on the whole file against the orjson loop's (startup counted on a 1-case
    file and an empty file, for the per-case figures). The whole file, not a part: the checker's costs per API and
    context are spread over its windows' cases (measured per case: 180k instructions in a 10,000-case file, 95k in
    a 30,000-case one), so a part would overstate the whole. Under valgrind a case takes about 50 times as long as
    natively: ~4 minutes for 100,000 cases."""
    empty = tmp / "empty.jsonl"
    empty.write_bytes(b"")
    counts = [_instructions(cmd) for cmd in (_cli(str(path)), _cli(str(one)), _orjson_cmd(str(path)),
                                               _orjson_cmd(str(empty)))]
    if None in counts:
        return None
    check_n, check_1, orjson_n, orjson_0 = counts
    per_check = (check_n - check_1) / max(1, n - 1)
    per_orjson = (orjson_n - orjson_0) / n
    return at_most(Figure(
        NAME, f"instructions, check vs orjson parsing the file ({n:,} cases)", check_n / 1e9, "G instructions",
        "orjson.loads of every line, own process", orjson_n / 1e9, "G instructions", safe_ratio(check_n, orjson_n),
        detail=f"valgrind cachegrind, both whole processes; per case {per_check / 1e3:,.0f}k instructions against "
               f"orjson's {per_orjson / 1e3:,.1f}k ({per_check / per_orjson:.1f}x); startup {check_1 / 1e9:.2f} G "
               f"against {orjson_0 / 1e9:.2f} G; a count does not move with the load (the timed ratio does); the "
               f"target is on time, this is its load-free reading"), 6)


def _workers_option() -> str | None:
    """The option of `check` that sets its worker processes in the tree measured (``--workers``; ``--jobs`` in
    older trees), or None."""
    try:
        from ascverify.cli import main

        names = {o for p in main.commands["check"].params for o in p.opts}
    except Exception:  # noqa: BLE001 - the CLI in progress elsewhere
        return None
    return next((o for o in ("--workers", "--jobs") if o in names), None)


def _run_cli(path: str, *extra: str) -> None:
    r = subprocess.run(_cli(path, *extra), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=str(ROOT), env=_ENV)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"ascverify check exited {r.returncode}: {r.stderr.decode()[-500:]}")


def run(cfg: Config) -> list[Figure]:
    from ascverify import check_cases, read_cases
    from ascverify.checking.program import check_program

    n = cfg.size(100_000, 10_000, minimum=20)
    z3_sample = cfg.size(300, 40, minimum=5)
    reps = cfg.repeats
    figures: list[Figure] = []
    global _ENV
    with tempfile.TemporaryDirectory(prefix="ascverify-bench-") as tmp:
        _ENV = _env(str(Path(tmp) / "pycache"))
        path = Path(tmp) / "cases.jsonl"
        t0 = time.perf_counter()
        info = build_file(path, n, per_api=cfg.size(150, 20, minimum=5), mutants_max=2000 if not cfg.quick else 500)
        note(f"check: built {n:,} cases ({info['bytes'] / 1e6:.1f} MB, pool {info['pool']} valid + "
             f"{info['mutants']} mutants, by API "
             f"{info['by_api']}) in {time.perf_counter() - t0:.1f} s")
        one = Path(tmp) / "one.jsonl"
        one.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n")

        # the same cases, each line made distinct by a name of its own: no line is seen twice, so `check` reads and
        # checks every one (the bench's file draws its 100,000 lines from a few thousand distinct ones)
        distinct = Path(tmp) / "distinct.jsonl"
        distinct.write_bytes(named_lines(path.read_bytes()))
        repeats = repeated_share(path)
        # cases no two of which are alike (a fuzzer's output): nothing read or checked once serves two lines
        unique = Path(tmp) / "unique.jsonl"
        t0 = time.perf_counter()
        uinfo = build_distinct_file(unique, n, seed=1)
        note(f"check: built {uinfo['cases']:,} distinct cases ({uinfo['bytes'] / 1e6:.1f} MB) in "
             f"{time.perf_counter() - t0:.1f} s")

        triple = Path(tmp) / "triple.jsonl"
        triple.write_bytes(path.read_bytes() * 3)

        # many one-case files (as `gen` writes them, one case.json per case) and the same cases in one file
        n_files = cfg.size(2000, 300, minimum=10)
        folder = Path(tmp) / "files"
        folder.mkdir()
        first = path.read_bytes().split(b"\n")[:n_files]
        files = []
        for k, line in enumerate(first):
            files.append(str(folder / f"case_{k:05d}.json"))
            Path(files[-1]).write_bytes(line + b"\n")
        joined = Path(tmp) / "first.jsonl"
        joined.write_bytes(b"\n".join(first) + b"\n")

        # (a) the command line, startup included, against orjson parsing the same file in its own process
        workers = _workers_option()
        jobs1 = workers is not None
        single: tuple[str, ...] = (workers, "1") if workers is not None else ()
        # "cli": one worker per core (the parallel path; `--workers 0`); "cli1": one process (the default)
        every_core: tuple[str, ...] = (workers, "0") if workers is not None else ()
        cli_tasks = {"cli": (lambda: _run_cli(str(path), *every_core), None),
                     "orjson": (lambda: _spawn(_orjson_cmd(str(path))), None),
                     "floor": (lambda: _spawn(_floor_cmd(str(path))), None)}
        if jobs1:
            cli_tasks["cli1"] = (lambda: _run_cli(str(path), *single), None)
            cli_tasks["distinct"] = (lambda: _run_cli(str(distinct), *single), None)
            cli_tasks["orjson_distinct"] = (lambda: _spawn(_orjson_cmd(str(distinct))), None)
            cli_tasks["unique"] = (lambda: _run_cli(str(unique), *single), None)
            cli_tasks["orjson_unique"] = (lambda: _spawn(_orjson_cmd(str(unique))), None)
        _run_cli(str(one))  # warm: the first run writes the .pyc files
        got = interleaved(cli_tasks, reps)
        t_cli, s_cli, _ = got["cli"]
        t_orjson, s_orjson, _ = got["orjson"]
        t_floor, s_floor, _ = got["floor"]
        t_cli1, s_cli1 = got["cli1"][:2] if jobs1 else (t_cli, s_cli)
        distinct_runs = (got["distinct"][:2], got["orjson_distinct"][:2]) if jobs1 else None
        unique_runs = (got["unique"][:2], got["orjson_unique"][:2]) if jobs1 else None

        # (a') many files against one file of the same cases, one process each, in alternation
        many = interleaved({"files": (lambda: _spawn([*_cli(files[0])[:-1], *files]), None),
                            "one": (lambda: _spawn(_cli(str(joined))), None)}, reps)
        t_files, s_files, _ = many["files"]
        t_joined, s_joined, _ = many["one"]

        # (a'') --product all (each case on every product) with 2 workers against one process, text output
        n_all = min(n, cfg.size(30_000, 8_000, minimum=20))
        first_all = Path(tmp) / "first_all.jsonl"
        first_all.write_bytes(b"\n".join(path.read_bytes().split(b"\n")[:n_all]) + b"\n")
        all_mib = first_all.stat().st_size / 2**20
        all_args = ("--format", "text", "--product", "all")
        on_all = interleaved({w: (lambda w=w: _spawn(_cli(str(first_all), *all_args, workers, w)), None)
                              for w in ("1", "2")}, reps) if workers else None

        # (b) startup on a 1-case file against importing numpy, wall and CPU time, in alternation
        starts = interleaved({"check": (lambda: _spawn(_cli(str(one))), None),
                              "numpy": (lambda: _spawn([sys.executable, "-c", "import numpy"]), None)},
                             max(reps, 5) * 2)
        t_start, s_start, _ = starts["check"]
        t_numpy, s_numpy, _ = starts["numpy"]
        cpu_start = statistics.median(x[1] for x in _samples_of(_spawn, _cli(str(one)), max(reps, 5)))
        cpu_numpy = statistics.median(x[1] for x in _samples_of(_spawn, [sys.executable, "-c", "import numpy"],
                                                                  max(reps, 5)))

        # (c) memory: the file three times over against the file, one process each
        check_args = _cli(str(path))[3:]  # check --format json
        rss_all = max(_peak_kib([*check_args[:-1], *single, str(triple)], Path(tmp)) for _ in range(2))
        rss_once = max(_peak_kib([*check_args[:-1], *single, str(path)], Path(tmp)) for _ in range(2))
        # ... and the outputs that were built at the end until 2026-12-02 (one run each: a SARIF log of the triple
        # file takes most of a minute)
        rss_modes = {label: (_peak_kib([*check_args[:-1], *single, *flags, str(triple)], Path(tmp)),
                             _peak_kib([*check_args[:-1], *single, *flags, str(path)], Path(tmp)))
                     for label, flags in MEMORY_MODES}

        # (d) instructions, when valgrind is here (not timed: counted)
        instruction_fig = None if cfg.quick else _instruction_figure(path, one, n, Path(tmp))
        if instruction_fig is None:
            note("check: no instruction counts (full runs only, with valgrind installed)")

        # (b) in process: read + check, GC paused as in the CLI; the Z3 baseline in alternation
        def in_process() -> list[Any]:
            entries = list(read_cases(str(path)))
            cases = [e.case for e in entries if e.case is not None]
            return check_cases(cases)

        results = in_process()
        n_read = len(results)
        valid = sum(r.valid for r in results)
        cases = [r.case for r in results]
        solver_calls = count_solver_calls(in_process)

        # the Z3 baseline on a sample of the same cases (spaces built before timing)
        rng = random.Random(1)
        sample_idx = rng.sample(range(len(cases)), min(z3_sample, len(cases)))
        sample = [cases[i] for i in sample_idx]
        z = Z3Checker()
        pairs = [(z.space(c), c) for c in sample]
        agree = 0

        def z3_all() -> list[list[str]]:
            return [Z3Checker.check(sp, c) for sp, c in pairs]

        got = interleaved({"proc": (in_process, None), "chk": (lambda: check_cases(cases), None),
                           "z3": (z3_all, None)}, reps, gc_off=True)
        t_proc, s_proc, results = got["proc"]
        t_chk, s_chk, _ = got["chk"]
        t_z3, s_z3, z3_out = got["z3"]
        concrete = [results[i] for i in sample_idx]
        for zr, cr in zip(z3_out, concrete):
            c_broken = {v.id for v in cr.violations} | {v.id for v in cr.warnings}
            agree += set(zr) == c_broken
        if agree != len(sample):
            note(f"check: Z3 and the concrete checker disagree on {len(sample) - agree} of {len(sample)} sampled cases")

        # (e) a program of 4,096 calls (a kernel's loop of one call) against the same calls checked as single cases
        program = _long_program(4096)
        calls = [call.case for call in program.calls]
        got = interleaved({"program": (lambda: check_program(program), None),
                           "cases": (lambda: check_cases(calls), None)}, reps, gc_off=True)
        t_prog, s_prog, _ = got["program"]
        t_calls, s_calls, _ = got["cases"]

    per_case_z3 = t_z3 / len(sample)
    per_case_proc = t_proc / n_read
    per_case_chk = t_chk / n_read
    cli_rate = n / t_cli
    def against_orjson(label: str, runs: tuple, cases: int, detail: str) -> Figure:
        """check's time on a file against orjson parsing it, both in their own process (target 6x)."""
        (t, s), (t_o, s_o) = runs
        return at_most(Figure(NAME, f"{label} ({cases:,} cases)", t, "s", "orjson.loads of every line, own process",
                              t_o, "s", safe_ratio(t, t_o), detail=f"{detail}; {cases / t:,.0f} cases/s",
                              samples=s, baseline_samples=s_o), 6)

    figures.append(against_orjson(
        f"CLI{' --workers 1' if jobs1 else ''} time vs orjson parsing the file",
        ((t_cli1, s_cli1), (t_orjson, s_orjson)), n, f"ratio = check / orjson (lower is better); both subprocesses, startup included; "
           f"orjson alone {n / t_orjson:,.0f} lines/s"))
    if distinct_runs is not None:
        figures.append(against_orjson(
            "CLI --workers 1 time vs orjson, every line distinct (each named)", distinct_runs, n,
            f"the same cases as above, each line given a name of its own: no line repeats, so none is read or checked "
            f"once for many (`cases.repeats`); the bench's file repeats {repeats:.0%} of its lines"))
    if unique_runs is not None:
        figures.append(against_orjson(
            "CLI --workers 1 time vs orjson, every case distinct", unique_runs, uinfo["cases"],
            "half valid cases drawn once each, half a valid case mutated once (`build_distinct_file`): no two cases "
            "alike, as a fuzzer writes them"))
    if instruction_fig is not None:
        figures.append(instruction_fig)
    figures.append(Figure(
        NAME, f"floor: the least Python loop over the cases vs orjson ({n:,} cases)", t_floor, "s",
        "orjson.loads of every line, own process", t_orjson, "s", safe_ratio(t_floor, t_orjson),
        detail=f"the loop: orjson.loads, each argument and tensor visited, one result line written, own process; "
               f"ratio = floor / orjson; no target: the yardstick of the 6x target, which leaves "
               f"{max(0.0, 6 * t_orjson - t_floor) / n * 1e6:.1f} µs per case above this loop for startup, "
               f"validation, rules and messages; check --workers 1 takes {(t_cli1 - t_floor) / n * 1e6:.1f} µs "
               f"there ({t_cli1 / t_floor:.1f}x the loop)",
        samples=s_floor, baseline_samples=s_orjson))
    figures.append(Figure(
        NAME, f"CLI on {n_files:,} one-case files vs the same cases in one JSON Lines file", t_files, "s",
        "check of the one file", t_joined, "s", safe_ratio(t_files, t_joined),
        detail="ratio = files / one file (lower is better; no target); the cases of many files share the checker's "
               "windows, and a file of fewer than 32 cases is read case by case",
        samples=s_files, baseline_samples=s_joined))
    if on_all is not None:
        figures.append(Figure(
            NAME, f"check --product all --workers 2 vs --workers 1 ({n_all:,} cases, text)", on_all["2"][0], "s",
            "--workers 1 (one process)", on_all["1"][0], "s", safe_ratio(on_all["2"][0], on_all["1"][0]),
            detail=f"ratio = 2 workers / one process (lower is better; no target); each case checked on every "
                   f"product; {all_mib:.1f} MiB (the workers take files of "
                   f"2 MiB and more); {usable_cores()} usable cores",
            samples=on_all["2"][1], baseline_samples=on_all["1"][1]))
    figures.append(at_most(Figure(
        NAME, "CLI startup (1-case file) vs python -c 'import numpy'", t_start, "s",
        "python -c 'import numpy'", t_numpy, "s", safe_ratio(t_start, t_numpy),
        detail=f"wall, medians in alternation; CPU time {cpu_start:.3f} s vs {cpu_numpy:.3f} s "
               f"({safe_ratio(cpu_start, cpu_numpy) or 0:.2f}x); bytecode caches on for both; "
               f"Z3 is not imported by check",
        samples=s_start, baseline_samples=s_numpy), 1.5))
    figures.append(at_most(Figure(
        NAME, f"check peak memory, {3 * n:,} cases vs {n:,}", rss_all / 1024, "MiB",
        f"the {n:,} cases once", rss_once / 1024, "MiB", safe_ratio(rss_all, rss_once),
        detail="peak resident size (VmHWM at exit) of check --workers 1 --format json; ratio near 1 = constant memory",
        samples=[rss_all / 1024], baseline_samples=[rss_once / 1024]), 1.5))
    for label, (many, once) in rss_modes.items():
        figures.append(at_most(Figure(
            NAME, f"check {label} peak memory, {3 * n:,} cases vs {n:,}", many / 1024, "MiB",
            f"the {n:,} cases once", once / 1024, "MiB", safe_ratio(many, once),
            detail=f"peak resident size (VmHWM at exit) of check --workers 1 --format json {label}; ratio near 1 = "
                   f"constant memory", samples=[many / 1024], baseline_samples=[once / 1024]), 1.5))
    figures.append(at_least(Figure(
        NAME, f"CLI --workers 0 cases/s ({n:,}-case JSONL, startup incl., one worker per core)", cli_rate, "cases/s",
        "Z3 per-case substitute+simplify", 1 / per_case_z3, "cases/s", safe_ratio(cli_rate, 1 / per_case_z3),
        detail=f"median {t_cli:.3f} s for {n:,} cases; {valid:,} valid ({100 * valid / n_read:.0f}%); "
               f"startup {t_start:.3f} s; excluding startup {n / max(t_cli - t_start, 1e-9):,.0f} cases/s",
        samples=s_cli, baseline_samples=s_z3), 50_000, on="value"))
    if jobs1:
        figures.append(at_least(Figure(
            NAME, "CLI --workers 1 cases/s (startup incl.)", n / t_cli1, "cases/s",
            "Z3 per-case substitute+simplify", 1 / per_case_z3, "cases/s", safe_ratio(n / t_cli1, 1 / per_case_z3),
            detail=f"median {t_cli1:.3f} s; one process (the default; --workers 0 runs {usable_cores()} workers)",
            samples=s_cli1, baseline_samples=s_z3), 50_000, on="value"))
    figures.append(at_least(Figure(
        NAME, "in-process read+check cases/s", n_read / t_proc, "cases/s",
        "Z3 per-case substitute+simplify", 1 / per_case_z3, "cases/s", safe_ratio(per_case_z3, per_case_proc),
        detail=f"{per_case_proc * 1e6:.1f} µs/case concrete (read_cases + check_cases) vs "
               f"{per_case_z3 * 1e3:.2f} ms/case Z3 on {len(sample)} sampled cases; ratio = Z3 / concrete per case; "
               f"Z3 agrees on {agree}/{len(sample)}",
        samples=s_proc, baseline_samples=s_z3), 300))
    figures.append(Figure(NAME, "Z3 calls during read+check", float(solver_calls), "calls",
                          detail="z3 Solver/Optimize.check, simplify and substitute calls while reading and checking "
                                 "every case (target: none)", target="0", target_of="value", met=solver_calls == 0))
    figures.append(Figure(
        NAME, "check_cases only cases/s (parsed cases)", n_read / t_chk, "cases/s",
        "Z3 per-case substitute+simplify", 1 / per_case_z3, "cases/s", safe_ratio(per_case_z3, per_case_chk),
        detail=f"{per_case_chk * 1e6:.2f} µs/case", samples=s_chk, baseline_samples=s_z3))
    figures.append(Figure(
        NAME, f"check_program of {len(calls):,} calls vs check_cases of the same calls", t_prog, "s",
        "check_cases of the calls as single cases", t_calls, "s", safe_ratio(t_prog, t_calls),
        detail=f"ratio = program / cases (lower is better; no target): the calls put in their state one after "
               f"another, then checked together; {len(calls) / t_prog:,.0f} calls/s",
        samples=s_prog, baseline_samples=s_calls))
    return figures


def _long_program(n: int) -> Any:
    """The shipped BlockReduceMin program with its call repeated about ``n`` times, a SetVectorMask before every
    third call (the state changes along the program)."""
    from ascverify.cases.program import parse_program

    doc = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    setter, call = doc["calls"][0], doc["calls"][1]
    doc["calls"] = [setter] + [c for k in range(n // 2) for c in ((setter, call) if k % 2 else (call, call))]
    return parse_program(doc)
