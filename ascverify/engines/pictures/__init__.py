"""Pictures: memory maps of cases (text, SVG, PNG) and HTML pages of campaigns and generations.

- `memory_map.build_map(case)`: what a map shows, as data (tensors per buffer, regions, per-iteration reads and
  writes from the core's trace, the rules broken and the faults found, each mark named by its rule);
- `text.render` / `text.print_map`: the map in 80 columns, readable without colour (rich styles repeat it);
- `figure.render_bytes(map, "svg" | "png")`: the map drawn with matplotlib;
- `html_report.fuzz_page` / `html_report.gen_page`: one self-contained HTML file per campaign or generation
  (imported on its own: it loads the fuzz engine);
- `timeline.Timeline`: cases and rule coverage over a campaign's time, recorded from its display.
"""

from .memory_map import MemoryMap, build_map
from .text import plain, print_map, render

__all__ = ["MemoryMap", "build_map", "plain", "print_map", "render"]
