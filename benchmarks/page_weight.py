"""Benchmark: what every page of the built book weighs, and how long a slow phone takes to show it.

For each page of the table of contents (``_toc.yml``, the order of ``tests/browser``), on the
built site (``_build/html``, served on 127.0.0.1 by this script):

* ``html bytes``, ``image bytes``, ``own bytes``: the page's HTML file and the images it shows
  (each file once), as ``tests/browser`` budgets them (``page_checks.own_bytes``);
* ``first screen bytes``, ``first screen requests``: everything a fresh Chromium tab (no cache)
  fetches to show the page's first screen on a 400 x 860 px phone, not scrolled, until the network
  has been idle (theme, scripts, fonts, MathJax and the images near the screen included);
* ``load s``, ``first paint s`` (the variable columns): the same first visit on a throttled phone,
  Chromium's DevTools protocol limiting the network to 1.6 Mb/s down and 0.75 Mb/s up with a
  150 ms round trip, and the CPU to a quarter of this machine's speed; the time from navigation
  to the load event and to the first contentful paint, median of ``--repeats`` visits.

Bytes are counted from the served files (the test server does not compress; a web server that
gzips HTML, CSS and JavaScript sends fewer). Times depend on this machine and its load: they are
compared between pages of one run, never with a budget (``tests/browser`` asserts the bytes).

    jupyter-book build . -W -n --keep-going        # first: the site to measure
    python benchmarks/page_weight.py                # every page, one visit each
    python benchmarks/page_weight.py --pages book/figures notebooks/01-naive-bayes/05-speed --repeats 3
    python benchmarks/page_weight.py --out data/derived/benchmark-page-weight.csv
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

import pandas as pd
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import page_checks as checks  # noqa: E402  (tests/browser: the detectors the browser test shares)

#: the throttled phone: Chromium DevTools' network and CPU emulation
NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 0.75e6 / 8}
CPU_SLOWDOWN = 4
PHONE = {"width": 400, "height": 860}

_TIMING = """() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return {load: nav.loadEventEnd / 1000, paint: paint ? paint.startTime / 1000 : null};
}"""


def toc_pages(root: Path) -> list[str]:
    """Every page of ``_toc.yml`` (the root first), as the browser test visits them."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries or []:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc["parts"]:
        walk(part["chapters"])
    return pages


def throttled_visit(browser: object, url: str) -> dict[str, float | None]:
    """Load and first-paint times (s) of a cold visit of ``url`` on the throttled phone."""
    context = browser.new_context(viewport=PHONE)  # type: ignore[attr-defined]
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Network.emulateNetworkConditions", NETWORK)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        page.goto(url, wait_until="load", timeout=600_000)
        return page.evaluate(_TIMING)
    finally:
        context.close()


def measure(site_root: Path, pages: list[str], repeats: int) -> pd.DataFrame:
    from playwright.sync_api import sync_playwright

    if checks.CHROMIUM is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    rows = []
    with checks.Served(site_root) as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=checks.CHROMIUM, args=checks.CHROMIUM_ARGS)
        try:
            for name in tqdm(pages, desc="pages", file=sys.stderr):
                html = site_root / f"{name}.html"
                own, images = checks.own_bytes(html, site_root)
                fetched = checks.first_screen(browser, site + f"{name}.html", site, site_root, **PHONE)
                times = [throttled_visit(browser, site + f"{name}.html") for _ in range(repeats)]
                paints = [t["paint"] for t in times if t["paint"] is not None]
                rows.append({
                    "page": name,
                    "html bytes": html.stat().st_size,
                    "image bytes": sum(images.values()),
                    "own bytes": own,
                    "first screen bytes": sum(fetched.values()),
                    "first screen requests": len(fetched),
                    "load s": statistics.median(t["load"] for t in times),
                    "first paint s": statistics.median(paints) if paints else float("nan"),
                })
        finally:
            browser.close()
    return pd.DataFrame(rows)


def _kb(n: float) -> str:
    return f"{n / 1000:.0f} kB"


def _mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB"


def readme_table(table: pd.DataFrame) -> str:
    """The summary README.md quotes (markdown), computed from the measured table: per kind of page,
    the medians (and largest) of its own bytes, its first screen's bytes and its throttled times."""
    figures = table[table["page"] == "book/figures"]
    notebooks = table[table["page"].str.startswith("notebooks/")]
    others = table[~table["page"].str.startswith("notebooks/") & (table["page"] != "book/figures")]
    lines = ["| pages | own bytes, median (max) | first screen, median (max) | "
             "load on the throttled phone, median (max) | first paint, median |",
             "|---|---|---|---|---|"]
    for label, rows in ((f"{len(notebooks)} notebook pages", notebooks),
                        (f"{len(others)} landing and back-matter pages", others)):
        lines.append(f"| {label} | {_kb(rows['own bytes'].median())} ({_kb(rows['own bytes'].max())}) | "
                     f"{_mb(rows['first screen bytes'].median())} ({_mb(rows['first screen bytes'].max())}) | "
                     f"{rows['load s'].median():.1f} s ({rows['load s'].max():.1f} s) | "
                     f"{rows['first paint s'].median():.1f} s |")
    for row in figures.itertuples(index=False):
        lines.append(f"| the Figures page (lazy images) | {_mb(row[3])} | {_mb(row[4])} | {row[6]:.1f} s | {row[7]:.1f} s |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html",
                        help="the built book (default: _build/html, made by jupyter-book build)")
    parser.add_argument("--pages", nargs="+", help="pages to measure (default: every page of _toc.yml)")
    parser.add_argument("--repeats", type=int, default=1, help="throttled visits per page (median)")
    parser.add_argument("--out", type=Path, help="write the table as CSV (data/derived/benchmark-page-weight.csv)")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"no built book in {args.site}: run `jupyter-book build . -W -n --keep-going` first")
    if args.out and args.out.resolve().parent != (ROOT / "data" / "derived").resolve():
        parser.error("--out must name a file of data/derived/ (it is written with compendium.stable.write_derived)")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        parser.error("chromium is not installed (apt-get install chromium)")
    pages = args.pages or toc_pages(ROOT)
    table = measure(args.site, pages, args.repeats)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_rows", 200):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    notebooks = table[table["page"].str.startswith("notebooks/")]
    print(f"\nnotebook pages: own bytes max {notebooks['own bytes'].max()}, first screen bytes median "
          f"{int(notebooks['first screen bytes'].median())}, load median {notebooks['load s'].median():.1f} s "
          f"(throttled phone, {args.repeats} visit(s) each)")
    print("\nfor README.md:\n" + readme_table(table))
    if args.out:
        from compendium.stable import write_derived

        print(f"wrote {write_derived(table, args.out.name, digits=2, root=ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
