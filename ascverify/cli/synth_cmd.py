"""`ascverify synth`: distinct valid cases from the solver."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import InputError, did_you_mean
from .common import (
    atomic_write,
    emit,
    emit_error,
    joined_lines,
    main,
    model_for,
    product_for,
)


@main.command()
@click.argument("api")
@click.option("--product", "product_name", required=True, metavar="P", help="Product to synthesize for.")
@click.option("-n", "count", type=click.IntRange(min=1, max=1_000_000), default=10, show_default=True,
              help="How many distinct valid cases.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed (same seed, same cases).")
@click.option("--dtype", metavar="T", help="Element type T (default: the API's default type on the product).")
@click.option("--fix", "fixes", multiple=True, metavar="NAME=VALUE",
              help="Hold an argument (hRepeat=2, mask=[1,0]) or tensor field (dst.addr=0, dst.position=VECOUT).")
@click.option("-o", "--output", "out", metavar="FILE", help="Write the cases here (JSON Lines) instead of stdout.")
def synth(api: str, product_name: str, count: int, seed: int, dtype: str | None, fixes: tuple[str, ...],
          out: str | None) -> None:
    """Write N distinct valid cases of API (JSON Lines), found by the solver.

    Each case draws random targets for the fields and keeps as many as the rules allow, so the
    cases spread over the legal space. When the --fix values make every case illegal, the command
    exits 1 and names a minimal set of conflicting rules with their sources.

    \b
    Examples:
      ascverify synth BilinearInterpolation --product atlas-a2 -n 20 --seed 1
      ascverify synth BilinearInterpolation --product atlas-a2 --fix vROffset=128 --fix dstBlkStride=8
    """
    from ..dtypes import lookup_dtype, dtype_names
    from ..solver import Space, Unsatisfiable, parse_fixes

    model = model_for(api)
    product = product_for(product_name)
    if dtype is not None and lookup_dtype(dtype) is None:
        raise InputError(f"unknown element type {dtype!r}{did_you_mean(dtype, dtype_names())}", field="--dtype")
    t = lookup_dtype(dtype).name if dtype else (model.support.get(product.id) or (model.default_dtype,))[0]
    space = Space(model, model.context(product.id, t))
    try:
        cases = space.sample(count, seed=seed, fixes=parse_fixes(model, fixes))
    except Unsatisfiable as exc:
        lines = [f"synth: no valid {model.name} case on {product.id} with T={t}; these conflict:"]
        lines += [f"  fix {f.given}" for f in exc.fixes]
        lines += [f"  [{r.id}] {r.help or r.message} ({r.citation})" for r in exc.rules]
        emit(joined_lines(lines))
        raise click.exceptions.Exit(1)
    text = "".join(json.dumps(c.to_json(), separators=(",", ":")) + "\n" for c in cases)
    if out:
        atomic_write(Path(out), lambda f: f.write(text.encode()))
    else:
        emit(text)
    if len(cases) < count:
        emit_error(f"synth: found {len(cases)} distinct valid cases of the {count} asked for")

