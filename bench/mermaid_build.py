#!/usr/bin/env python3
"""The VS Code graph view's mermaid build (editors/vscode/dist/mermaid.min.js, flowcharts only, built
by tools/bundle.js) against mermaid's full browser build (tools/node_modules/mermaid/dist/
mermaid.min.js), in the same headless Chromium: the time from loading the script to a rendered
`lait graph`-shaped flowchart, interleaved (flow, full, flow, ...), and both sizes.

    (cd editors/vscode && node tools/bundle.js) && python3 bench/mermaid_build.py --runs 5

Needs Chromium and Playwright for Python (.ci/install-vscode-peer). Prints medians and the ratio.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOW = ROOT / "editors" / "vscode" / "dist" / "mermaid.min.js"
FULL = ROOT / "editors" / "vscode" / "tools" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
GRAPH = """flowchart TD
  start([start]) --> s1["classify (prompt)"]
  s1 --> s2{"route (switch)"}
  s2 -->|bug| s3["review (agent)"]
  s2 -->|question| s4["answer (prompt)"]
  s3 --> s5[/"reply (write)"/]
  s4 --> s5
  s5 --> finish([end])
"""
RENDER = """async (graph) => {
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
  const { svg } = await mermaid.render("g" + Math.random().toString(36).slice(2), graph);
  return svg.length;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="lait-mermaid-bench-")
    chromium = shutil.which("chromium") or "chromium"
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-address=127.0.0.1"]
    browser = subprocess.Popen(
        [chromium, *flags, "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        active = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (active.exists() and active.read_text().strip()):
            if time.monotonic() > deadline:
                raise SystemExit("chromium did not start")
            time.sleep(0.1)
        port = int(active.read_text().split()[0])
        builds = {
            "flowchart-only": FLOW.read_text(encoding="utf-8"),
            "full": FULL.read_text(encoding="utf-8"),
        }
        times: dict[str, list[float]] = {name: [] for name in builds}
        sizes: dict[str, int] = {}
        with sync_playwright() as playwright:
            page = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}").contexts[0].pages[0]
            for _ in range(args.runs):
                for name, code in builds.items():
                    page.set_content("<div></div>")  # a fresh document: the script is parsed again
                    started = time.perf_counter()
                    page.add_script_tag(content=code)
                    sizes[name] = page.evaluate(RENDER, GRAPH)
                    times[name].append(time.perf_counter() - started)
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)
    flow, full = statistics.median(times["flowchart-only"]), statistics.median(times["full"])
    print(
        f"script size: flowchart-only {FLOW.stat().st_size / 1e6:.2f} MB, full {FULL.stat().st_size / 1e6:.2f} MB"
    )
    print(f"load + render (median of {args.runs}): flowchart-only {flow:.3f} s, full {full:.3f} s")
    print(
        f"ratio full / flowchart-only: {full / flow:.2f}x; SVG sizes {sizes['flowchart-only']} / {sizes['full']} bytes"
    )


if __name__ == "__main__":
    main()
