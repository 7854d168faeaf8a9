"""Driving a real VS Code (code-server, shown in Debian's chromium, driven by Playwright over CDP) the
way a person does: keyboard shortcuts, the command palette, quick picks, the Problems panel, hovers,
the suggest widget, notifications. Everything waits for what it expects to see (no fixed sleeps
decide a result); a wait that runs out fails with what the screen showed.

`code_server()` starts one code-server + chromium pair for a test module (see the fixtures in
conftest.py); `Workbench` is the page with the helpers the tests use.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.editors.groups import kill_group, start_group

try:
    from playwright.sync_api import Locator, Page, sync_playwright
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError as e:  # pragma: no cover - depends on the machine
    # The modules importing this one are skipped as a whole (locally) or fail (CI=true), as for
    # every missing peer: a plain `pytest` without Playwright collects everything else.
    problem = f"{e}: Playwright for Python is missing, run .ci/install-vscode-peer"
    if os.environ.get("CI") == "true":
        raise ImportError(f"{problem} (CI=true: a missing peer fails instead of skipping)") from e
    pytest.skip(problem, allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("LAIT_TEST_ARTIFACTS") or ROOT / ".artifacts")
"""Where failing end-to-end tests leave their screenshots (`.artifacts/` is ignored by git)."""
IMAGES = ROOT / "docs" / "images"
"""The pictures of the README and docs/editors.md, taken by the end-to-end tests when LAIT_UPDATE_IMAGES=1."""
PEER = ROOT / "tests" / "peers" / "code-server"
CODE_SERVER_VERSION: str = json.loads((PEER / "package.json").read_text(encoding="utf-8"))["dependencies"][
    "code-server"
]
T = TypeVar("T")

# What every test profile sets: nothing from outside, nothing that pops up on its own.
BASE_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "update.mode": "none",
    "git.enabled": False,
    "remote.autoForwardPorts": False,
    "editor.minimap.enabled": False,
    "editor.codeLens": True,
    "editor.hover.delay": 100,
    "files.autoSave": "off",
    "window.restoreWindows": "none",
}

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    "--window-size=1400,900",
]


def screenshot_if_failed(request: pytest.FixtureRequest, workbench: Workbench) -> None:
    """After a failing test (setup or call; see conftest.py), keeps the screen as it was."""
    reports = [getattr(request.node, f"report_{when}", None) for when in ("setup", "call")]
    if not any(getattr(r, "failed", False) for r in reports):
        return
    module = request.node.module.__name__.rsplit(".", 1)[-1]
    path = ARTIFACTS / "vscode" / f"{module}.{re.sub(r'[^A-Za-z0-9_.-]+', '_', request.node.name)}.png"
    try:
        workbench.screenshot(path)
        print(f"screenshot of the failure: {path}")
    except Exception as e:  # the browser may be what failed
        print(f"no screenshot: {e}")


def labels(rows: Locator) -> list[str]:
    """The aria-labels of ``rows``, read in one go (a list re-rendered meanwhile cannot break it)."""
    found: list[str] = rows.evaluate_all("els => els.map(e => e.getAttribute('aria-label') || '')")
    return found


class UiTimeout(AssertionError):
    """A wait for something on screen ran out."""


def code_server_binary() -> Path:
    base = Path(os.environ.get("LAIT_PEERS_DIR") or Path.home() / ".cache" / "lait")
    binary = base / f"code-server-{CODE_SERVER_VERSION}" / "node_modules" / ".bin" / "code-server"
    if not binary.exists():
        raise AssertionError(
            f"code-server {CODE_SERVER_VERSION} is not installed: run .ci/install-vscode-peer"
        )
    return binary


def chromium_binary() -> str:
    found = shutil.which("chromium")
    if found is None:
        raise AssertionError("chromium is missing: run .ci/install-vscode-peer (apt-get install chromium)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 20.0, every: float = 0.1) -> T:
    """Polls ``probe`` until it returns something truthy; fails naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise UiTimeout(f"waited {timeout:.0f} s for {what}")
        time.sleep(every)


@dataclass
class Instance:
    """One running code-server with the folder ``workspace`` open, and its log files."""

    url: str
    workspace: Path
    home: Path
    log: Path


@contextlib.contextmanager
def code_server(
    home: Path,
    workspace: Path,
    vsix: Path,
    settings: dict[str, Any],
    env: dict[str, str],
    *,
    trust: bool = False,
) -> Iterator[Workbench]:
    """A fresh profile under ``home`` with ``vsix`` installed and ``settings`` as the user settings,
    code-server serving ``workspace``, and chromium showing it. ``trust=False`` starts with workspace
    trust disabled (every folder trusted); ``trust=True`` keeps VS Code's trust prompt and
    Restricted Mode."""
    binary = code_server_binary()
    data, extensions, profile = home / "data", home / "extensions", home / "chromium"
    (data / "User").mkdir(parents=True, exist_ok=True)
    # code-server reads the settings file at start (it did not notice later changes from outside).
    user_settings = {**BASE_SETTINGS, "security.workspace.trust.enabled": trust, **settings}
    (data / "User" / "settings.json").write_text(json.dumps(user_settings, indent=2), encoding="utf-8")
    common = ["--config", str(home / "code-server.yaml"), "--user-data-dir", str(data)]
    common += ["--extensions-dir", str(extensions)]
    proc_env = {**os.environ, **env, "XDG_CONFIG_HOME": str(home / "xdg"), "XDG_DATA_HOME": str(home / "xdg")}
    installed = subprocess.run(
        [str(binary), *common, "--install-extension", str(vsix)],
        env=proc_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert installed.returncode == 0 and "successfully installed" in installed.stdout, (
        installed.stdout + installed.stderr
    )
    port = _free_port()
    log = home / "code-server.log"
    args = [str(binary), *common, "--bind-addr", f"127.0.0.1:{port}", "--auth", "none"]
    args += ["--disable-telemetry", "--disable-update-check", "--disable-getting-started-override"]
    if not trust:
        args.append("--disable-workspace-trust")
    args.append(str(workspace))
    with log.open("wb") as out:
        server = start_group(args, stdout=out, stderr=subprocess.STDOUT, env=proc_env, cwd=home)
    browser_proc: subprocess.Popen[bytes] | None = None
    try:
        url = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            if server.poll() is not None:
                raise AssertionError(f"code-server exited:\n{log.read_text(errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    return True
            except OSError:
                return False

        wait_for("code-server to answer", healthy, timeout=60)
        shutil.rmtree(profile, ignore_errors=True)
        with (home / "chromium.log").open("wb") as out:
            browser_proc = start_group(
                [chromium_binary(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "HOME": str(home)},
            )
        active = profile / "DevToolsActivePort"
        wait_for("chromium's DevTools port", lambda: active.exists() and active.read_text().strip(), 30)
        devtools = int(active.read_text().split()[0])
        with sync_playwright() as playwright:
            browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{devtools}")
            page = browser.contexts[0].pages[0]
            page.set_viewport_size({"width": 1400, "height": 900})
            page.goto(f"{url}/?folder={workspace}")
            workbench = Workbench(page, Instance(url, workspace, home, log))
            workbench.wait_ready()
            try:
                yield workbench
            finally:
                with contextlib.suppress(Exception):
                    browser.close()
    finally:
        if browser_proc is not None:
            kill_group(browser_proc)
        kill_group(server)


@dataclass
class Problem:
    """One row of the Problems panel."""

    severity: str
    message: str
    code: str
    line: int
    column: int
    file: str = ""
    """The file's path relative to the workspace folder, as its header row shows it."""


@dataclass
class QuickInput:
    """What the quick input widget (quick pick or input box) shows."""

    title: str
    placeholder: str
    message: str
    items: list[str]


@dataclass(frozen=True)
class TreeRow:
    level: int
    label: str
    description: str
    icon: str
    """The codicon classes of the row's icon (``codicon-pass``)."""


class Workbench:
    def __init__(self, page: Page, instance: Instance) -> None:
        self.page = page
        self.instance = instance

    # --- waiting
    def wait_ready(self) -> None:
        self.page.wait_for_selector(".monaco-workbench", timeout=90_000)
        self.page.wait_for_selector(".statusbar", timeout=30_000)

    def status_texts(self) -> list[str]:
        items = self.page.locator(".statusbar-item")
        return [" ".join(t.split()) for t in items.all_inner_texts()]  # an icon may break the line

    def wait_status(self, pattern: str, timeout: float = 120) -> str:
        """The first status bar text matching ``pattern`` (regex), once one does."""
        regex = re.compile(pattern)
        return wait_for(
            f"a status bar item matching {pattern!r} (shown: {self.status_texts()})",
            lambda: next((t for t in self.status_texts() if regex.search(t)), None),
            timeout,
        )

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path))

    def picture(self, name: str) -> None:
        """With LAIT_UPDATE_IMAGES=1, the screen as docs/images/<name>.png (shown in the README and docs/editors.md)."""
        if os.environ.get("LAIT_UPDATE_IMAGES") == "1":
            self.screenshot(IMAGES / f"{name}.png")

    # --- keyboard
    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)

    def escape_all(self) -> None:
        for _ in range(3):
            self.page.keyboard.press("Escape")

    # --- files and the editor
    def open_file(self, relative: str) -> None:
        """Quick Open (Ctrl+P), wait for the file in the results, open it and wait for its tab."""
        name = Path(relative).name
        parent = str(Path(relative).parent)  # Quick Open rows read "<name> <folder>, ..."
        parent = "" if parent == "." else parent
        self.press("Control+p")
        box = self.page.locator(".quick-input-widget input")
        box.wait_for(state="visible", timeout=10_000)
        box.fill(relative)
        wanted = f"{name} {parent}".strip()
        rows = self.page.locator(".quick-input-widget .quick-input-list .monaco-list-row")
        wait_for(
            f"{relative} in Quick Open",
            lambda: any(label.startswith(wanted) for label in labels(rows)),
            timeout=30,
        )
        tab = self.page.locator(f'.tabs-container .tab.active[aria-label^="{name}"]')
        for _ in range(3):
            # A click while Quick Open refreshes its results can be lost: click again while it is open.
            if self.quick_input() is None:
                break
            found = [i for i, label in enumerate(labels(rows)) if label.startswith(wanted)]
            with contextlib.suppress(PlaywrightTimeout):
                if found:
                    rows.nth(found[0]).click(timeout=5_000)
                tab.wait_for(timeout=5_000)
                break
        tab.wait_for(timeout=10_000)
        self.editor_text_area().wait_for(timeout=10_000)

    def editor_text_area(self) -> Locator:
        return self.page.locator(".editor-group-container.active .monaco-editor textarea.inputarea").first

    def focus_editor(self) -> None:
        self.editor_text_area().focus()

    def goto(self, line: int, column: int = 1) -> None:
        self.focus_editor()
        self.press("Control+g")
        box = self.page.locator(".quick-input-widget input")
        box.wait_for(state="visible", timeout=10_000)
        box.fill(f":{line}:{column}")
        self.press("Enter")
        wait_for(
            f"the cursor at {line}:{column}",
            lambda: any(t == f"Ln {line}, Col {column}" for t in self.status_texts()),
            timeout=10,
        )

    def replace_line(self, line: int, text: str) -> None:
        """Replaces the text of ``line`` after its indentation, as if typed (without auto-closing)."""
        self.goto(line, 1)
        self.press("End", "Shift+Home")  # from the end, Home stops at the first non-blank
        self.page.keyboard.insert_text(text)

    def is_dirty(self) -> bool:
        return self.page.locator(".tabs-container .tab.active.dirty").count() > 0

    def wait_dirty(self) -> None:
        """Waits until the active editor has unsaved changes (an edit was applied)."""
        wait_for("an unsaved change", self.is_dirty, 10)

    def save(self) -> None:
        self.press("Control+s")
        wait_for(
            "the editor to be saved",
            lambda: not self.is_dirty(),
            timeout=10,
        )

    # --- the command palette and quick inputs
    def run_command(self, title: str) -> None:
        """F1, type the command's title, run the row that equals it."""
        self.press("F1")
        box = self.page.locator(".quick-input-widget input")
        box.wait_for(state="visible", timeout=10_000)
        box.fill(f">{title}")
        wait_for(
            f"command {title!r} in the palette",
            lambda: any(
                label.startswith(title)
                for label in labels(
                    self.page.locator(".quick-input-widget .quick-input-list .monaco-list-row")
                )
            ),
            timeout=15,
        )
        self.press("Enter")

    def quick_input(self) -> QuickInput | None:
        widget = self.page.locator(".quick-input-widget")
        if widget.count() == 0 or not widget.first.is_visible():
            return None
        w = widget.first

        def text(selector: str) -> str:
            found = w.locator(selector)
            return found.first.inner_text().strip() if found.count() and found.first.is_visible() else ""

        box = w.locator("input").first
        items = labels(w.locator(".quick-input-list .monaco-list-row"))
        return QuickInput(
            title=text(".quick-input-title"),
            placeholder=box.get_attribute("placeholder") or box.get_attribute("aria-label") or "",
            message=text(".quick-input-message"),
            items=items,
        )

    def wait_quick_input(
        self, what: str, match: Callable[[QuickInput], bool], timeout: float = 30
    ) -> QuickInput:
        seen: list[QuickInput | None] = [None]

        def probe() -> QuickInput | None:
            current = self.quick_input()
            seen[0] = current
            return current if current is not None and match(current) else None

        try:
            return wait_for(what, probe, timeout, every=0.15)
        except UiTimeout as e:
            raise UiTimeout(f"{e}; the quick input showed {seen[0]}") from None

    def pick(self, label: str) -> None:
        """Chooses the quick pick item whose label starts with ``label`` (filtering by typing it)."""
        self.wait_quick_input(f"the item {label!r}", lambda q: any(i.startswith(label) for i in q.items))
        box = self.page.locator(".quick-input-widget input").first
        box.fill(label)
        wait_for(
            f"{label!r} first after filtering",
            lambda: (
                (self.quick_input() or QuickInput("", "", "", [])).items[:1] != []
                and (self.quick_input() or QuickInput("", "", "", [])).items[0].startswith(label)
            ),
            timeout=10,
        )
        self.press("Enter")

    def answer(self, text: str) -> None:
        """Types ``text`` into the open input box and presses Enter."""
        box = self.page.locator(".quick-input-widget input").first
        box.fill(text)
        self.press("Enter")

    # --- panels and widgets
    _ROWS = """els => els.map(e => ({
        index: Number(e.getAttribute('data-index') || '-1'),
        last: e.getAttribute('data-last-element') === 'true',
        label: e.getAttribute('aria-label') || '',
        level: e.getAttribute('aria-level') || '',
        name: (e.querySelector('.label-name') || {}).textContent || '',
        folder: (e.querySelector('.label-description') || {}).textContent || '',
        message: (e.querySelector('.marker-message') || {}).innerText || '',
        code: (e.querySelector('.marker-code') || {}).innerText || '',
        line: (e.querySelector('.marker-line') || {}).innerText || '',
    }))"""

    def _all_rows(self, panel: Locator) -> list[dict[str, Any]]:
        """Every row of the Problems panel's list in order. The list renders only the rows in view:
        when it is taller than the panel, it is scrolled through with the mouse wheel (and back)."""
        # Not the sticky copies of a scrolled-away file header (.monaco-tree-sticky-container).
        rows = panel.locator(".monaco-list-rows > .monaco-list-row")
        seen: dict[int, dict[str, Any]] = {r["index"]: r for r in rows.evaluate_all(self._ROWS)}
        sizes: dict[str, float] = panel.locator(".monaco-list").first.evaluate(
            """e => ({rows: (e.querySelector('.monaco-list-rows') || {}).offsetHeight || 0,
                      view: e.clientHeight})"""
        )
        box = panel.locator(".monaco-list").first.bounding_box()
        if sizes["rows"] <= sizes["view"] + 1 or box is None:
            return [seen[i] for i in sorted(seen)]
        self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self.page.mouse.wheel(0, -100_000)
        for _ in range(200):
            time.sleep(0.05)  # the list renders the scrolled rows on the next frame
            found = rows.evaluate_all(self._ROWS)
            before = len(seen)
            seen.update({r["index"]: r for r in found})
            if any(r["last"] for r in found) and len(seen) == before:
                break
            self.page.mouse.wheel(0, sizes["view"] / 2)
        self.page.mouse.wheel(0, -100_000)
        return [seen[i] for i in sorted(seen)]

    def problems(self) -> list[Problem]:
        """The Problems panel's rows (opened with Ctrl+Shift+M), file headers left out (each row
        carries the file of the header above it)."""
        panel = self.page.locator(".markers-panel")
        if panel.count() == 0 or not panel.first.is_visible():
            self.press("Control+Shift+m")
            panel.first.wait_for(timeout=10_000)
        rows = self._all_rows(panel)
        found = []
        file = ""
        for row in rows:
            head = re.match(r"(Error|Warning|Info): ", row["label"])
            position = re.fullmatch(r"\[Ln (\d+), Col (\d+)\]", row["line"].strip())
            if head is None or position is None:
                if row["level"] == "1":  # a file's header row: name, then its folder
                    folder = row["folder"].strip()
                    file = f"{folder}/{row['name'].strip()}" if folder else row["name"].strip()
                continue
            found.append(
                Problem(
                    severity=head.group(1).lower(),
                    message=row["message"].strip(),
                    code=row["code"].strip(),
                    line=int(position.group(1)),
                    column=int(position.group(2)),
                    file=file,
                )
            )
        return found

    def park_mouse(self) -> None:
        """The mouse over the active editor's line-number gutter: off the title bar and the tabs
        (whose hovers use the same widget), and off the text, whose mouse hover would replace the
        hover the keyboard asked for (it did under load: the jq hover of the line under the mouse)."""
        gutter = self.page.locator(".editor-group-container.active .monaco-editor .margin").first
        box = gutter.bounding_box()
        if box is None:
            self.page.mouse.move(5, 450)
            return
        self.page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)

    def hover_text(self, containing: str) -> str:
        """Shows the hover at the cursor (Ctrl+K Ctrl+I) and returns the text of the hover that
        contains ``containing`` (the workbench's own hovers, e.g. of the title bar under the mouse,
        use the same widget)."""
        self.park_mouse()
        self.focus_editor()
        self.press("Control+k", "Control+i")
        hover = self.page.locator(".monaco-hover-content")
        seen: list[list[str]] = [[]]

        def probe() -> str | None:
            seen[0] = [" ".join(t.split()) for t in hover.all_inner_texts()]
            return next((t for t in seen[0] if containing in t), None)

        try:
            return wait_for(f"a hover with {containing!r}", probe, 10)
        except UiTimeout as e:
            raise UiTimeout(f"{e}; hovers shown: {seen[0]}") from None

    def suggestions(self) -> list[str]:
        """Triggers completion (Ctrl+Space) and returns the suggest widget's item labels."""
        self.press("Control+Space")
        rows = self.page.locator(".suggest-widget .monaco-list-row")
        return wait_for("the suggest widget", lambda: labels(rows), 15)

    def code_actions(self) -> list[str]:
        """Opens Quick Fix (Ctrl+.) at the cursor and returns the action titles."""
        rows = self.page.locator(".action-widget .monaco-list-row.action")
        none = self.page.get_by_text("No code actions available")
        # VS Code answers a manual Quick Fix with "No code actions available" when the diagnostics are
        # republished while it asks (after a save they are, once per re-check): ask again then.
        for _ in range(3):
            self.focus_editor()
            self.press("Control+.")

            def menu_or_none() -> list[str] | bool | None:
                found = labels(rows)
                if found:
                    return found
                return True if none.count() and none.first.is_visible() else None

            got = wait_for("the quick fix menu", menu_or_none, 15)
            if isinstance(got, list):
                return got
            self.press("Escape")
            time.sleep(1)
        return wait_for("the quick fix menu", lambda: labels(rows), 1)

    def apply_code_action(self, title: str) -> None:
        """Moves to the action ``title`` in the open Quick Fix menu with the arrow keys and applies it."""
        titles = labels(self.page.locator(".action-widget .monaco-list-row.action"))
        assert title in titles, titles
        for _ in range(len(titles)):
            focused = self.page.locator(".action-widget .monaco-list-row.action.focused")
            if focused.count() and focused.first.get_attribute("aria-label") == title:
                break
            self.press("ArrowDown")
        self.press("Enter")

    def notifications(self) -> list[str]:
        toasts = self.page.locator(".notifications-toasts .notification-toast")
        return [t.strip() for t in toasts.all_inner_texts()]

    def webview(self) -> Any:
        """The content frame of the visible webview (VS Code nests it in two iframes)."""
        return self.page.frame_locator("iframe.webview.ready").last.frame_locator("#active-frame")

    def widen_side_bar(self, width: int) -> None:
        """Drags the side bar's edge until it is ``width`` pixels wide."""
        box = self.page.locator(".part.sidebar").first.bounding_box()
        assert box is not None
        edge, middle = box["x"] + box["width"] - 1, box["y"] + box["height"] / 2
        self.page.mouse.move(edge, middle)
        self.page.mouse.down()
        self.page.mouse.move(box["x"] + width, middle, steps=8)
        self.page.mouse.up()

    def tree_rows(self, view: str) -> list[TreeRow]:
        """The rendered rows of the tree view titled ``view`` (a side bar pane), top to bottom."""
        pane = self.page.locator(".pane", has=self.page.locator(".pane-header", has_text=view)).first
        rows: list[dict[str, Any]] = pane.locator(".monaco-list-row").evaluate_all(
            """els => els.map(e => ({
                level: Number(e.getAttribute('aria-level') || '0'),
                label: (e.querySelector('.label-name') || {}).textContent || '',
                description: (e.querySelector('.label-description') || {}).textContent || '',
                icon: [...e.querySelectorAll('[class*="codicon-"]')]
                    .filter(i => !i.classList.contains('monaco-tl-twistie'))
                    .flatMap(i => [...i.classList].filter(c => c.startsWith('codicon-')
                        && !c.startsWith('codicon-tree-item'))).join(' '),
            }))"""
        )
        return [TreeRow(r["level"], r["label"].strip(), r["description"].strip(), r["icon"]) for r in rows]

    def tree_row(self, view: str, label: str) -> Locator:
        pane = self.page.locator(".pane", has=self.page.locator(".pane-header", has_text=view)).first
        return pane.locator(".monaco-list-row", has=self.page.locator(".label-name", has_text=label)).first

    def code_lens(self, text: str) -> Locator:
        return self.page.locator(".editor-group-container.active .codelens-decoration a", has_text=text).first
