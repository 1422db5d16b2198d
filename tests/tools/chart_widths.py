"""List every chart that is drawn wider than its box, on every page.

    python tests/tools/chart_widths.py [WIDTH]     (default: 390, a phone)

For each ``[data-testid="stVegaLiteChart"]`` shown on a page, compares the width
of what Vega drew (the extent of the marks, axes and legends in the chart's
``svg``, including what the ``svg`` clips) with the width of the chart's box,
in both languages, and prints every chart with what is wrong with it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent)]

from apprun import CHROMIUM, CHROMIUM_ARGS, open_app, running_app
from screenshots import page_paths

from course_app.i18n import LANGS

# Per chart on the page: its box; the width of what Vega drew (the first group
# of its svg holds every mark, axis and legend, including what the svg clips);
# how far any text (axis labels and titles, legends) reaches outside the box;
# how many pairs of upright axis labels overlap; and the start of its alt text.
MEASURE = r"""() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
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
    let overlaps = 0;
    for (const axis of svg ? svg.querySelectorAll('.role-axis-label') : []) {
      // Shown, upright labels only: Vega hides a label it drops for overlap
      // (opacity 0), and a tilted label's bounding box is not its shape.
      const rs = [...axis.querySelectorAll('text')]
        .filter(t => t.textContent.trim() && t.getAttribute('opacity') !== '0')
        .filter(t => !/rotate\((?!0\))/.test(t.getAttribute('transform') || ''))
        .map(t => t.getBoundingClientRect());
      for (let i = 0; i < rs.length; i++)
        for (let j = i + 1; j < rs.length; j++) {
          const a = rs[i], b = rs[j];
          if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
              Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) overlaps++;
        }
    }
    return {
      box: Math.round(box.width),
      drawn: Math.round(Math.max(drawn.right, box.right) - Math.min(drawn.left, box.left)),
      outside: Math.round(outside),
      overlaps,
      label: (el.getAttribute('aria-label') || '').slice(0, 60),
    };
  })"""


def measure(page, url: str) -> list[dict]:
    """The charts of the page at ``url``, each with its box and drawn width."""
    open_app(page, url)
    page.wait_for_timeout(800)  # let Vega finish drawing
    # Scroll through the page so that charts drawn lazily get their size.
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 1e6)")
    page.wait_for_timeout(300)
    return page.evaluate(MEASURE)


def problems(chart: dict, slack: int = 3) -> list[str]:
    """What is wrong with one measured chart: drawn wider than its box (beyond a
    few pixels of stroke), text outside the box, axis labels on top of each other."""
    found = []
    if chart["drawn"] > chart["box"] + slack:
        found.append(f"drawn {chart['drawn']} px in a {chart['box']} px box")
    if chart["outside"] > slack:
        found.append(f"text {chart['outside']} px outside the box")
    if chart["overlaps"]:
        found.append(f"{chart['overlaps']} overlapping axis labels")
    return found


def main(width: int) -> None:
    from playwright.sync_api import sync_playwright

    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for lang in LANGS:
            context = browser.new_context(viewport={"width": width, "height": 844})
            page = context.new_page()
            for name, path in page_paths().items():
                charts = measure(page, f"{url}/{path}?lang={lang}")
                for k, c in enumerate(charts):
                    flag = "; ".join(problems(c)) or "ok"
                    print(
                        f"{lang} {name:12} #{k} box {c['box']:4} drawn {c['drawn']:4}  {flag}  {c['label']!r}"
                    )
            context.close()
        browser.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 390)
