"""The HTML report in a real browser: Debian's headless Chromium, driven by Selenium through its chromedriver.

The page is loaded from a file, as a reviewer opens the downloaded artifact.
What is checked is what a reader sees: the run grid's cells, each call's
block and what focusing it shows, that no request leaves the page, that
hostile text from a recording stays text, and axe-core's accessibility rules
(colour contrast among them) run in the same browser.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli

pytestmark = pytest.mark.xdist_group("chromium")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
AXE = ROOT / "tests" / "servers" / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOT = ROOT / "docs" / "images" / "html-report.png"
SAMPLE_CHECK = ("check", "--config", "samples/.toolreplay.yml")


def _missing() -> str | None:
    for program in (CHROMIUM, CHROMEDRIVER):
        if not os.access(program, os.X_OK):
            return f"{program} is not installed (Debian's chromium and chromium-driver; .ci/run installs them)"
    try:
        import selenium  # noqa: F401, PLC0415
    except ImportError:
        return "selenium is not installed (the dev extra)"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    reason = _missing()
    if reason is not None:
        pytest.skip(reason)
    from selenium import webdriver  # noqa: PLC0415 - only where the browser is
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _requests(driver: Any) -> list[str]:
    """Every URL a page asked for since the last call (Chromium's network log), leaving out what Chromium's own
    pages (chrome://, its tooltips and new-tab page) load for themselves, which no page of ours can ask for."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            params = message["params"]
            if not str(params.get("documentURL", "")).startswith(("chrome:", "chrome-untrusted:", "devtools:")):
                urls.append(params["request"]["url"])
    return urls


def _open(driver: Any, page: Path) -> list[str]:
    """Load ``page`` and return the URLs of every request it made, its own included."""
    _requests(driver)  # drop what came before
    driver.get(page.as_uri())
    driver.execute_script("return document.readyState")
    return _requests(driver)


@pytest.fixture(scope="module")
def samples_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("html") / "report.html"
    result = run_cli(*SAMPLE_CHECK, "--html", str(page), cwd=ROOT)
    assert result.code == 1, result.stderr
    return page


def _drawn(driver: Any, elements: list[Any]) -> list[tuple[list[str], str, str]]:
    """Each element's classes, its text as drawn (innerText, trimmed as WebDriver's own text is) and its title:
    read in one round trip to the browser, where asking each element costs a round trip per question."""
    read = "return arguments[0].map(e => [e.className, e.innerText, e.getAttribute('title') || ''])"
    return [(css.split(), text.strip(), title) for css, text, title in driver.execute_script(read, elements)]


def _grid(driver: Any) -> Any:
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    sections = [s for s in driver.find_elements(By.CSS_SELECTOR, "section.unit") if "replay " in s.text[:200]]
    assert len(sections) == 1
    return sections[0].find_element(By.CSS_SELECTOR, "table.grid")


def test_the_samples_grid_shows_the_deletion_in_9_edited_runs_and_no_unchanged_one(
    browser: Any, samples_page: Path
) -> None:
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    requests = _open(browser, samples_page)
    assert requests == [samples_page.as_uri()], "the page asked for something besides itself"
    grid = _grid(browser)
    columns = _drawn(browser, grid.find_elements(By.CSS_SELECTOR, "thead th.run"))
    assert len(columns) == 40
    assert ["b" in css for css, _, _ in columns] == [False] * 20 + [True] * 20  # b: unchanged
    assert [text for _, text, _ in columns] == [str(n) for n in range(1, 21)] * 2
    every = grid.find_elements(By.CSS_SELECTOR, "tbody tr")
    rows = [row for row in every if "delete_path" in row.text and "backup-before-delete" not in row.text]
    assert len(rows) == 1
    row = rows[0]
    cells = _drawn(browser, row.find_elements(By.TAG_NAME, "td")[1:41])  # after the behaviour's number: one per run
    # the policy the deletions break has a row of its own, filled in the very runs that deleted
    broken = [row for row in every if "backup-before-delete" in row.text]
    assert len(broken) == 1
    policy_cells = _drawn(browser, broken[0].find_elements(By.TAG_NAME, "td")[1:41])
    assert ["h" in css for css, _, _ in policy_cells] == ["h" in css for css, _, _ in cells]
    assert "VIOLATED" in broken[0].text
    assert "9/20 vs 0/20" in broken[0].text
    assert len(cells) == 40
    assert all("b" in css for css, _, _ in cells[20:])
    assert [text == "■" for _, text, _ in cells].count(True) == 9
    assert sum("h" in css for css, _, _ in cells[:20]) == 9
    assert sum("h" in css for css, _, _ in cells[20:]) == 0
    # a filled cell says so in text too, not by its colour alone
    assert {cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td.h")} == {"■"}
    assert "9/20 vs 0/20" in row.text
    assert "DESTRUCTIVE" in row.text
    # the verdict comes first, in words
    assert browser.find_element(By.TAG_NAME, "h1").text == "toolreplay check: FAIL"
    findings = browser.find_element(By.ID, "findings").text
    assert "samples/ops/prompt-v2.txt:2" in findings
    # the deletions were never recorded: the finding names the recording, not a line of it
    assert "not in the recording" in findings
    assert "samples/ops/session.json:170" not in findings


def test_each_call_is_a_block_with_its_class_in_letters_and_its_call_on_focus(browser: Any, samples_page: Path) -> None:
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    _open(browser, samples_page)
    blocks = browser.find_elements(By.CSS_SELECTOR, "ol.tl li")
    assert blocks
    letters = {"r": "R", "w": "W", "d": "D", "u": "?"}
    drawn = _drawn(browser, blocks)
    for classes, text, title in drawn:
        css = " ".join(classes)
        assert text.rstrip("*") == letters[css[0]], "a block's class must read without its colour"
        assert css.endswith("x") == text.endswith("*")  # never recorded: starred and dashed
        assert re.match(r"[a-z_]+\(.*\)", title), "hovering names the call and its arguments"
    deletion = next(block for block, (_, _, title) in zip(blocks, drawn, strict=True) if "delete_path" in title)
    assert deletion.text == "D*"  # answered by a stub: the recording never made it
    assert browser.execute_script("return getComputedStyle(arguments[0]).borderTopStyle", deletion) == "dashed"
    browser.execute_script("arguments[0].focus()", deletion)
    shown = browser.execute_script("return getComputedStyle(arguments[0], '::after').content", deletion)
    assert "delete_path(host=" in shown
    assert "stub" in shown
    assert browser.execute_script("return document.scripts.length") == 0  # nothing to disable: it reads as is


def test_the_page_passes_axe_cores_accessibility_rules(browser: Any, samples_page: Path) -> None:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (npm install --prefix tests/servers)")
    _open(browser, samples_page)
    browser.execute_script(AXE.read_text(encoding="utf-8"))
    browser.set_script_timeout(60)
    result = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r)).catch(e => done({error: String(e)}));"
    )
    assert "error" not in result, result
    violations = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]
    assert violations == []
    assert any(rule["id"] == "color-contrast" for rule in result["passes"] + result["incomplete"])


def test_the_screenshot_of_the_samples_report(browser: Any, samples_page: Path, tmp_path: Path) -> None:
    """The README's picture, taken by this code; TOOLREPLAY_UPDATE_SCREENSHOT=1 writes it into docs/."""
    _open(browser, samples_page)
    browser.set_window_size(1280, 900)
    # the top of the page down to the end of the replay's timelines: the verdict, the grid, the runs
    height = browser.execute_script(
        "const s = [...document.querySelectorAll('section.unit')][0];"
        "const last = [...s.querySelectorAll('ol.tl')].pop().getBoundingClientRect().bottom + window.scrollY;"
        "return Math.ceil(last + 24 + window.outerHeight - window.innerHeight);"
    )
    browser.set_window_size(1280, min(int(height), 4000))
    png = base64.b64decode(browser.get_screenshot_as_base64())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) > 20_000
    width = int.from_bytes(png[16:20], "big")
    assert width == 1280
    target = SCREENSHOT if os.environ.get("TOOLREPLAY_UPDATE_SCREENSHOT") else tmp_path / "report.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(png)


HOSTILE = (
    "</code></td><script>document.title='pwned'</script>"
    "<img src='http://127.0.0.1:9/img' onerror=\"document.title='pwned'\">"
    "<link rel=stylesheet href=//127.0.0.1:9/css>"
    '" onfocus="document.title=\'pwned\'" x="{{7*7}}\u202eevil\u0000\u001b[31m'
)


def test_hostile_text_from_a_recording_stays_text(browser: Any, tmp_path: Path) -> None:
    """Tool arguments that try markup, attribute escapes, template syntax, a bidi override and controls: the page
    shows them as written-out text, runs nothing and loads nothing. (The renderer's handling of a lone surrogate is
    a unit test.)"""
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    text = (SAMPLES / "ops" / "session-edited.json").read_text(encoding="utf-8")
    hostile = json.dumps(HOSTILE)[1:-1]
    edited = tmp_path / "hostile.json"
    edited.write_text(text.replace("/var/log/ci/2026-07", hostile), encoding="utf-8")
    page = tmp_path / "diff.html"
    result = run_cli("diff", str(SAMPLES / "ops" / "session.json"), str(edited), "--html", str(page), cwd=tmp_path)
    assert result.code == 1, result.stderr
    requests = _open(browser, page)
    assert requests == [page.as_uri()]
    assert browser.title == "toolreplay diff: FAIL"
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.find_elements(By.CSS_SELECTOR, "link") == []
    assert browser.execute_script("return document.scripts.length") == 0
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "<script>document.title='pwned'</script>" in body
    assert "{{7*7}}" in body  # data, never a template
    assert "\\u202eevil\\u0000\\u001b[31m" in body  # the override written out by the page, the controls by JSON
    assert "\u202e" not in body
    blocks = browser.find_elements(By.CSS_SELECTOR, "ol.tl li")
    assert any("onfocus=" in title for _, _, title in _drawn(browser, blocks))
    assert browser.execute_script("return arguments[0].filter(b => b.hasAttribute('onfocus')).length", blocks) == 0


def test_the_side_by_side_cites_only_lines_the_reader_can_open(tmp_path: Path) -> None:
    """A program's replayed run is read from a log the replay does not keep: the side by side cites the recorded
    session's lines (a file in the repository) and none of the run's."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    import sys  # noqa: PLC0415

    agent = f"cmd:{sys.executable} {{here}}/ops/mcp_agent.py --mcp-config {{mcp_config}} --system {{system}} "
    agent += "--seed {seed} {task}"
    page = tmp_path / "replay.html"
    args = ["replay", "ops/session.json", "--agent", agent, "--system", "ops/prompt-v2.txt", "--seed", "2"]
    done = run_cli(*args, "--on-unrecorded", "stub", "--stubs", "ops/stubs.json", "--html", str(page))
    assert done.code in (0, 1), done.stderr
    text = page.read_text(encoding="utf-8")
    rows = re.findall(r'<td class="a">(.*?)</td><td class="kind">.*?</td><td class="b">(.*?)</td></tr>', text)
    assert rows, "the page draws a side by side"
    assert any("line " in a for a, _ in rows)  # the recording's calls keep their lines
    assert not any(re.search(r'muted">line \d', b) for _, b in rows)  # the run's log is not kept: no line of it
