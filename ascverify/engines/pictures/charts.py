"""The charts of the HTML pages, drawn with matplotlib as inline SVG (no script, nothing fetched when viewed).

Each function returns an ``<svg>`` element (text) to place in a page, or "" when there is nothing to draw; and
`colour_scale` gives a heat map's cell colours from a matplotlib colour map.
"""

from __future__ import annotations

import io
from typing import Any, Sequence

from .figure import inline_svg

#: Okabe and Ito's colour-blind-safe colours for the series.
SERIES = ("#0072B2", "#009E73", "#D55E00", "#CC79A7", "#E69F00", "#56B4E9")


def _rc() -> dict[str, Any]:
    return {"svg.fonttype": "none", "svg.hashsalt": "ascverify", "font.size": 9, "font.sans-serif": ["DejaVu Sans"],
            "axes.spines.top": False, "axes.spines.right": False,
            # text from input (a file name holding "$...$") drawn as it is, never parsed as TeX math
            "text.parse_math": False}


def _svg(fig: Any, gid: str) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = inline_svg(buf.getvalue())
    return text.replace("<svg ", f'<svg role="img" aria-label="{gid}" data-chart="{gid}" ', 1)


def _figure(w: float = 7.5, h: float = 2.6) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h))


def rate_chart(samples: Sequence[tuple[float, int]]) -> str:
    """Cases so far and examples per second over the campaign's time."""
    import matplotlib

    if len(samples) < 2:
        return ""
    t = [s[0] for s in samples]
    n = [s[1] for s in samples]
    rates_t, rates = [], []
    k0 = 0
    for k in range(1, len(samples)):  # examples/s over windows of at least one second (or one sample)
        while k0 < k - 1 and t[k] - t[k0 + 1] >= 1.0:
            k0 += 1
        dt = t[k] - t[k0]
        if dt > 0:
            rates_t.append(t[k])
            rates.append((n[k] - n[k0]) / dt)
    with matplotlib.rc_context(_rc()):
        fig = _figure()
        ax = fig.add_subplot(1, 1, 1)
        ax.plot(t, n, color=SERIES[0], label="cases so far", linewidth=1.6)
        ax.set_xlabel("seconds since the start")
        ax.set_ylabel("cases", color=SERIES[0])
        ax2 = ax.twinx()
        ax2.spines["right"].set_visible(True)
        ax2.plot(rates_t, rates, color=SERIES[2], label="examples/s", linewidth=1.0, alpha=0.9)
        ax2.set_ylabel("examples/s", color=SERIES[2])
        ax2.set_ylim(bottom=0)
        ax.set_title("cases and examples per second over time", loc="left")
        return _svg(fig, "examples per second over time")


def coverage_chart(points: Sequence[tuple[float, int, dict[str, int]]]) -> str:
    """Rule coverage over time: rules seen inside, at their boundary and broken, as shares of the rules seen."""
    import matplotlib

    if not points:
        return ""
    t = [0.0] + [p[0] for p in points]
    with matplotlib.rc_context(_rc()):
        fig = _figure()
        ax = fig.add_subplot(1, 1, 1)
        total = max(p[2]["rules"] for p in points) or 1
        for k, (key, label) in enumerate((("boundary", "at the boundary"), ("violated", "broken"),
                                          ("interior", "inside"))):
            ax.step(t, [0.0] + [100.0 * p[2][key] / total for p in points], where="post", color=SERIES[k],
                    label=f"rules seen {label}", linewidth=1.4)
        ax.set_ylim(0, 105)
        ax.set_xlabel("seconds since the start")
        ax.set_ylabel(f"% of {total} rules")
        ax.legend(loc="upper left", frameon=False, fontsize=8)
        ax.set_title("rule coverage over time (updated as each item ends)", loc="left")
        return _svg(fig, "rule coverage over time")


def bar_chart(labels: Sequence[str], values: Sequence[float], *, title: str, xlabel: str, marks: Sequence[int] = ()
              ) -> str:
    """Horizontal bars, one per label (``marks``: counts drawn beside the bars, e.g. findings)."""
    import matplotlib

    if not labels:
        return ""
    with matplotlib.rc_context(_rc()):
        fig = _figure(7.5, 0.45 + 0.28 * len(labels))
        ax = fig.add_subplot(1, 1, 1)
        y = list(range(len(labels)))[::-1]
        ax.barh(y, values, color=SERIES[0], height=0.6)
        ax.set_yticks(y, labels)
        ax.set_xlabel(xlabel)
        ax.set_title(title, loc="left")
        top = max(values) if values else 0
        for yi, v, m in zip(y, values, list(marks) or [0] * len(values)):
            note = f"{v:,.1f}" if isinstance(v, float) and v != int(v) else f"{v:,.0f}"
            if m:
                note += f"  ({m} finding{'s' if m != 1 else ''})"
            ax.text(v + top * 0.01, yi, note, va="center", fontsize=8, color="#D62728" if m else "#333333")
        ax.set_xlim(0, top * 1.3 if top else 1)
        return _svg(fig, title)


def colour_scale(fraction: float, cmap: str = "Blues") -> tuple[str, str]:
    """Background and text colour of a heat map cell for ``fraction`` in [0, 1] (white text on dark cells)."""
    import matplotlib
    from matplotlib.colors import to_hex

    f = min(max(float(fraction), 0.0), 1.0)
    rgba = matplotlib.colormaps[cmap](0.08 + 0.85 * f if f > 0 else 0.0)
    luminance = 0.2126 * rgba[0] + 0.7152 * rgba[1] + 0.0722 * rgba[2]
    return to_hex(rgba), "#ffffff" if luminance < 0.5 else "#000000"
