"""List every chart that is drawn wider than its box or is hard to read, on every page.

    python tests/tools/chart_widths.py [WIDTH]     (default: 390, a phone)

For each ``[data-testid="stVegaLiteChart"]`` shown on a page, in both
languages: compares the width of what Vega drew (the extent of the marks, axes
and legends in the chart's ``svg``, including what the ``svg`` clips) with the
width of the chart's box, and measures its plot area's height, the labels drawn
over each other, the titles cut by the box and the series sharing a colour.
Prints every chart with what is wrong with it, then the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent)]

from helpers.apprun import CHROMIUM, CHROMIUM_ARGS, open_all_folds, open_app, page_paths, running_app, settle

from course_app.i18n import LANGS

# Per chart on the page: its box; the width of what Vega drew (the first group
# of its svg holds every mark, axis and legend, including what the svg clips);
# how far any text (axis labels and titles, legends) reaches outside the box;
# the plot area (the background of Vega-Lite's root group: the marks' frame,
# axes and legends excluded); the pairs of labels (axis labels and text marks)
# drawn over each other, tilted ones by their true, turned outline (each as
# wide as its text and as tall as its font size); the titles
# (axis, legend, chart) and legend labels not wholly inside the box; the colours
# that two swatches of one legend share; and the start of its alt text.
MEASURE = r"""() => {
  // The four corners of a text on screen: its own box through its transform,
  // so that a tilted label is a turned rectangle, not its bounding box.
  // Its height is the font size (the em box, where the glyphs are), centred
  // in the line box, which a CJK font makes about 1.45 em tall.
  const corners = t => {
    const b = t.getBBox(), m = t.getScreenCTM();
    const em = Math.min(b.height, parseFloat(t.getAttribute('font-size')) || b.height);
    const top = b.y + (b.height - em) / 2, bottom = top + em;
    return [[b.x, top], [b.x + b.width, top], [b.x + b.width, bottom], [b.x, bottom]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  // Two convex outlines overlap (by more than 1 px) unless some edge's normal separates them.
  const overlap = (p, q) => {
    for (const poly of [p, q])
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
        const len = Math.hypot(x2 - x1, y2 - y1);
        if (len < 0.01) continue;
        const nx = (y1 - y2) / len, ny = (x2 - x1) / len;
        const span = poly2 => poly2.map(([x, y]) => x * nx + y * ny);
        const a = span(p), b = span(q);
        const depth = Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b));
        if (depth <= 1) return false;
      }
    return true;
  };
  const shown = t => t.textContent.trim() && t.getAttribute('opacity') !== '0'
    && getComputedStyle(t).visibility !== 'hidden';
  const colourOf = s => {
    const f = s.getAttribute('fill');
    return f && f !== 'transparent' && f !== 'none' ? f : s.getAttribute('stroke');
  };
  return [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
  .filter(el => el.getBoundingClientRect().width > 0)
  .map(el => {
    const box = el.getBoundingClientRect();
    const svg = el.querySelector('svg.marks');
    const g = svg && svg.querySelector('g');
    const drawn = g ? g.getBoundingClientRect() : box;
    const texts = svg ? [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()) : [];
    let outside = 0;
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      outside = Math.max(outside, box.left - r.left, r.right - box.right);
    }
    const frame = svg && svg.querySelector('.role-frame.root > g > path.background');
    const plot = frame ? frame.getBoundingClientRect() : {width: 0, height: 0};
    const labels = svg ? [...svg.querySelectorAll('.role-axis-label text, .role-mark text')] : [];
    labels.splice(0, labels.length, ...labels.filter(shown));
    const outlines = labels.map(corners);
    const overlapping = [];
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++)
        if (overlap(outlines[i], outlines[j]))
          overlapping.push([labels[i].textContent, labels[j].textContent]);
    const clip = svg ? svg.getBoundingClientRect() : box;
    const inner = {left: Math.max(box.left, clip.left), right: Math.min(box.right, clip.right),
                   top: Math.max(box.top, clip.top), bottom: Math.min(box.bottom, clip.bottom)};
    const titled = svg ? [...svg.querySelectorAll(
      '.role-axis-title text, .role-legend-title text, .role-title-text text, .role-legend-label text')]
      .filter(shown) : [];
    const cut = titled.filter(t => {
      const r = t.getBoundingClientRect();
      return r.left < inner.left - 4 || r.right > inner.right + 4
        || r.top < inner.top - 4 || r.bottom > inner.bottom + 4;
    }).map(t => t.textContent);
    const shared = [];
    for (const legend of svg ? svg.querySelectorAll('.role-legend') : []) {
      const colours = [...legend.querySelectorAll('.role-legend-symbol path')].map(colourOf);
      shared.push(...colours.filter((c, i) => colours.indexOf(c) !== i));
    }
    return {
      box: Math.round(box.width),
      drawn: Math.round(Math.max(drawn.right, box.right) - Math.min(drawn.left, box.left)),
      outside: Math.round(outside),
      plot: Math.round(plot.height),
      plot_width: Math.round(plot.width),
      overlapping,
      cut,
      shared,
      label: (el.getAttribute('aria-label') || '').slice(0, 60),
    };
  });
}"""


def measure(page, url: str) -> list[dict]:
    """The charts of the page at ``url``, each with its box and drawn width."""
    open_app(page, url, timeout_ms=180_000)  # a busy machine's first run of a page is slow
    open_all_folds(page)  # the charts inside folds too
    settle(page)
    # Scroll through the page so that charts drawn lazily get their size.
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 1e6)")
    settle(page)
    return page.evaluate(MEASURE)


# The least height of a plot area: a laptop's (1280 px wide) and a phone's.
MIN_PLOT = {"laptop": 120, "phone": 100}


def problems(chart: dict, slack: int = 3) -> list[str]:
    """What is wrong with one measured chart's width: drawn wider than its box
    (beyond a few pixels of stroke), text outside the box."""
    found = []
    if chart["drawn"] > chart["box"] + slack:
        found.append(f"drawn {chart['drawn']} px in a {chart['box']} px box")
    if chart["outside"] > slack:
        found.append(f"text {chart['outside']} px outside the box")
    return found


def unreadable(chart: dict, min_plot: int) -> dict[str, str]:
    """What makes one measured chart hard to read, by kind: a plot area lower
    than ``min_plot`` px ("short"), labels drawn over each other ("overlap"),
    a title or legend label cut by the chart's box ("cut"), two series of one
    legend in the same colour ("colour")."""
    found = {}
    if chart["plot"] < min_plot:
        found["short"] = f"plot {chart['plot']} px tall"
    if chart["overlapping"]:
        found["overlap"] = f"{len(chart['overlapping'])} label pairs overlap, e.g. {chart['overlapping'][:3]}"
    if chart["cut"]:
        found["cut"] = f"cut: {chart['cut'][:3]}"
    if chart["shared"]:
        found["colour"] = f"colours shared: {chart['shared']}"
    return found


def main(width: int) -> None:
    from playwright.sync_api import sync_playwright

    size = "phone" if width < 600 else "laptop"
    counts: dict[str, int] = {}
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for lang in LANGS:
            context = browser.new_context(viewport={"width": width, "height": 844})
            page = context.new_page()
            for name, path in page_paths().items():
                for k, c in enumerate(measure(page, f"{url}/{path}?lang={lang}")):
                    found = unreadable(c, MIN_PLOT[size])
                    counts["views"] = counts.get("views", 0) + 1
                    for kind in ["any", *found] if found else []:
                        counts[kind] = counts.get(kind, 0) + 1
                    flag = "; ".join([*problems(c), *found.values()]) or "ok"
                    print(
                        f"{lang} {name:12} #{k} box {c['box']:4} plot {c['plot']:4}  {flag}  {c['label']!r}"
                    )
            context.close()
        browser.close()
    print(counts)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 390)
