"""Targets for the campaign tests: the shipped numpy BilinearInterpolation with one element too large on some
products (a bug any case shows), written as a module into a test's folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_wrong_on(folder: Path, products: tuple[str, ...], name: str = "wrong_on") -> str:
    """``FILE.py:f`` in ``folder``: examples/targets/bilinear_numpy.py's bilinear with every element of dst one too
    large on ``products``."""
    (folder / f"{name}.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('ref', {str(ROOT / 'examples/targets/bilinear_numpy.py')!r})\n"
        "ref = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(ref)\n"
        "def f(case, inputs):\n"
        "    out = ref.bilinear(case, inputs)\n"
        f"    if case['product'] in {tuple(products)!r}:\n"
        "        out = {k: v + 1 for k, v in out.items()}  # every element of dst one too large\n"
        "    return out\n")
    return f"{name}.py:f"
