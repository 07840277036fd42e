"""The browser frontend (clients/web), end to end in headless Chromium: Debian's ``chromium``
driven by Playwright (no browser download), against a real server's HTTP port.

``make test`` installs chromium when it can (root with apt-get, as in CI); without it this
test is skipped locally and fails in CI (CI=true), so that CI never passes without it.
"""
import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from fagin.server.config import BUILTIN_FRONTEND, ServerConfig

from ..serving import TEST_CONFIG, RunningServer
from .test_metrics import free_port

ROOT = Path(__file__).resolve().parents[2]
#: Where the test leaves its screenshot of the finished game.
SCREENSHOT = ROOT / "build" / "screenshots" / "kids_of_london.png"
CHROMIUM = shutil.which("chromium")
#: Moves the human may make in one game of Kids of London (9 hours, at most 2 choices an hour).
MAX_MOVES = 30


def _chromium():
    if CHROMIUM is None:
        message = "chromium is not installed: apt-get install chromium (make test does it as root)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        b = p.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def site():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, "http_port": free_port()}))
    yield f"http://127.0.0.1:{srv.server.http.port}/"
    srv.stop()


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_the_frontend_is_served_by_default(site):
    assert ServerConfig().http_static_dir == BUILTIN_FRONTEND
    assert {"index.html", "app.js", "style.css"} <= set(os.listdir(BUILTIN_FRONTEND))
    status, page = _get(site)
    assert status == 200 and b'<script type="module" src="app.js">' in page
    assert _get(site + "app.js")[0] == 200
    # Empty: the port serves the API only.
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, "http_port": free_port(),
                                        "http_static_dir": ""}))
    try:
        assert _get(f"http://127.0.0.1:{srv.server.http.port}/")[0] == 404
    finally:
        srv.stop()


def bot_moves_told(page):
    """The log's text for every bot move (after "Seat N (bot, level L): "), each checked to
    be a described event: not the bare "moved" the log showed before (issue 26)."""
    entries = page.locator("#log > li > button").all_inner_texts()
    told = [text.split(": ", 1)[1] for text in entries if "(bot, level" in text.split(": ", 1)[0]]
    for text in told:
        assert text.strip() and text != "moved" and text != "made a move you cannot see", entries
    return told


def test_a_game_of_kids_of_london_played_through_the_page(browser, site):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page_errors, view_seats, api_methods = [], [], []
    page.on("pageerror", lambda error: page_errors.append(error))

    def seen(request):
        if "/fagin.v1.Fagin/" in request.url:
            method = request.url.rsplit("/", 1)[1]
            api_methods.append(method)
            if method == "ViewState":
                view_seats.append(json.loads(request.post_data)["seat"])
    page.on("request", seen)

    page.goto(site)
    page.wait_for_selector("#game option[value=kids_of_london]", state="attached")
    page.select_option("#game", "kids_of_london")
    page.select_option("#players", "3")
    page.select_option("#human-seat", "0")
    page.select_option("#level-1", "1")
    page.select_option("#level-2", "2")
    page.fill("#seed", "11")
    page.click("#start")

    moves = 0
    while True:
        page.wait_for_selector("#result:not([hidden]), #actions button.move:enabled", timeout=20_000)
        if page.is_visible("#result"):
            break
        # During the game the page shows what seat 0 sees and nothing of the bot's search.
        assert page.locator("#stats table.stats").count() == 0
        # Each bot move is told as seat 0 saw it: that a card went down, never which (KL-23).
        told = bot_moves_told(page)
        assert all(text.endswith("puts a card down") or "chooses" in text or "takes" in text
                   or "robs" in text for text in told), told
        buttons = page.locator("#actions button.move")
        buttons.nth(moves % buttons.count()).click()
        moves += 1
        assert moves <= MAX_MOVES, "the game does not end"

    assert moves >= 8          # a card an hour for eight hours; the ninth hour's is forced (KL-3)
    # Every hour's reveal and thefts are in the log, and the game's end.
    summaries = page.locator("#log .summary").all_inner_texts()
    assert sum("the cards are" in s for s in summaries) == 9, summaries
    assert any(s.startswith("game over") for s in summaries), summaries
    result = page.inner_text("#result")
    assert "Seat 0 (you)" in result and "Seat 1 (bot, level 1)" in result and "Seat 2 (bot, level 2)" in result
    assert any(verdict in result for verdict in ("You win.", "You lose.", "You share the best result."))
    # Every view the page asked for, and so every table it drew, is seat 0's.
    assert view_seats and set(view_seats) == {0}
    assert set(api_methods) <= {"ListGames", "NewGame", "LegalActions", "ApplyAction", "ViewState", "Recommend"}
    assert "Recommend" in api_methods

    # Once the game is over, the bots' statistics are shown: a row per legal action, policy as bars.
    page.locator("#log button", has_text="Seat 1 (bot, level 1)").last.click()
    page.wait_for_selector("#stats table.stats")
    assert page.locator("#stats table.stats tbody tr").count() >= 1
    assert page.locator("#stats .bar").count() == page.locator("#stats table.stats tbody tr").count()
    at_bot_move = page.inner_text("#step-label")

    # Stepping back to the opening and forward again.
    page.click("#first")
    page.wait_for_function("document.getElementById('step-label').textContent.startsWith('Position 0 of')")
    opening = page.inner_text("#table")
    page.click("#forward")
    page.wait_for_function("document.getElementById('step-label').textContent.startsWith('Position 1 of')")
    assert page.inner_text("#table")
    page.click("#last")
    page.wait_for_function("document.getElementById('back').disabled === false"
                           " && document.getElementById('forward').disabled === true")
    assert page.inner_text("#table") != opening

    # The screenshot: the finished game, at the bot's last move with its statistics.
    page.locator("#log button", has_text="Seat 1 (bot, level 1)").last.click()
    page.wait_for_function(f"document.getElementById('step-label').textContent === {at_bot_move!r}")
    page.wait_for_selector("#stats table.stats")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert SCREENSHOT.stat().st_size > 10_000
    assert not page_errors, page_errors
    page.close()


def test_statistics_on_request_hint_download_take_back(browser, site):
    page = browser.new_page(accept_downloads=True)
    page_errors, recommended = [], []
    page.on("pageerror", lambda error: page_errors.append(error))
    page.on("request", lambda r: r.url.endswith("/Recommend") and recommended.append(json.loads(r.post_data)))
    page.goto(site)
    page.wait_for_selector("#game option[value=leduc_poker]", state="attached")
    page.select_option("#game", "leduc_poker")
    page.select_option("#human-seat", "1")
    page.select_option("#level-0", "2")
    page.fill("#seed", "3")
    page.check("#open-stats")
    page.click("#start")
    page.wait_for_selector("#actions button.move:enabled")
    # Seat 0 (the bot) has moved; asked for, its statistics are shown at once.
    assert "Seat 0 (bot, level 2)" in page.inner_text("#stats caption")
    # The level reached the server: as `level`, or as its iterations where the server has no such field.
    assert recommended[-1]["search"].get("level") == 2 or recommended[-1]["search"]["iterations"] == "30"

    # A hint is searched on seat 1's view: the bot's card is not in it. It names its budget and
    # shows the best estimate: iterations and temperature 0, never a bot level's draw.
    page.select_option("#hint-budget", "1000")
    page.click("#hint")
    page.wait_for_selector("#stats caption:has-text('Hint for you')")
    hint = recommended[-1]
    assert hint["seat"] == 1 and hint["state"]["leducPoker"]["privateCards"][0] == -1
    assert hint["search"]["iterations"] == "1000" and hint["search"]["temperature"] == 0
    assert "level" not in hint["search"]
    assert "1,000 iterations" in page.inner_text("#stats caption")

    # The download is seat 1's view too, a position the analysis mode takes as it is.
    with page.expect_download() as download:
        page.click("#download-view")
    saved = json.loads(Path(download.value.path()).read_text())
    assert saved["leducPoker"]["privateCards"][0] == -1
    assert download.value.suggested_filename == "leduc_poker-seat1-position1.json"

    # Play on from the opening: the bot moves again, and it is seat 1's turn at position 1.
    page.locator("#actions button.move").first.click()
    page.wait_for_selector("#result:not([hidden]), #actions button.move:enabled")
    page.click("#first")
    page.click("#take-back")
    page.wait_for_function("document.getElementById('step-label').textContent === 'Position 1 of 1'")
    page.wait_for_selector("#actions button.move:enabled")
    assert page.locator("#log li").count() == 1
    assert not page_errors, page_errors
    page.close()


def test_analysis_mode_finds_the_best_move_of_a_pasted_position(browser, site):
    page = browser.new_page()
    page_errors, recommended = [], []
    page.on("pageerror", lambda error: page_errors.append(error))
    page.on("request", lambda r: r.url.endswith("/Recommend") and recommended.append(json.loads(r.post_data)))
    page.goto(site)
    page.wait_for_selector("#game option[value=kuhn_poker]", state="attached")
    page.click("#tab-analyse")
    # Kuhn poker: seat 0 holds the king (2) and is first to act.
    page.fill("#position", json.dumps({"kuhnPoker": {"cards": [2, 0], "actions": []}}))
    # An explicit budget on a slider (iterations or seconds), never a bot level.
    page.locator("#analysis-budget").fill("3")
    assert page.inner_text("#analysis-budget-value") == "1,000 iterations"
    page.click("#best-move")
    page.wait_for_selector("#analysis-stats table.stats")
    assert page.locator("#analysis-stats table.stats tbody tr").count() == 2      # pass, bet
    assert "Best move for seat 0" in page.inner_text("#analysis-status")
    assert page.inner_text("#analysis-table")
    assert recommended[-1]["search"] == {"seed": "1", "temperature": 0, "iterations": "1000"}
    # An analysis request (issue 25): the plays best first, with win (here a value: a reference
    # game's returns are chips), margin, visits, prior and plan, and what the beliefs found.
    assert recommended[-1]["analysis"] == {"beliefs": True}
    headers = page.locator("#analysis-stats table.analysis thead th").all_inner_texts()
    assert headers == ["Move", "Win", "Margin", "Visits", "Prior", "Plan"]
    plans = page.locator("#analysis-stats table.analysis td.plan").all_inner_texts()
    assert len(plans) == 2 and all(plans)
    assert "nothing hidden" in page.inner_text("#analysis-stats h3")
    page.select_option("#analysis-unit", "time")
    assert page.inner_text("#analysis-budget-value") == "1 s"

    # A position that is not JSON is refused on the page, naming the problem.
    page.fill("#position", "{not json")
    page.click("#best-move")
    page.wait_for_selector("#error:not([hidden])")
    assert "not JSON" in page.inner_text("#error")

    # A position the server refuses: its message, with the field, reaches the page.
    page.fill("#position", json.dumps({"kuhnPoker": {"cards": [2, 2], "actions": []}}))
    page.click("#best-move")
    page.wait_for_function("document.getElementById('error').textContent.includes('invalid_argument')")
    assert "cards" in page.inner_text("#error")
    # The status line no longer says it is searching (it stayed on "Searching..." after an error).
    assert "Searching" not in page.inner_text("#analysis-status")
    assert not page_errors, page_errors
    page.close()


SEED_GAMES = ("kids_of_london", "london", "oliver_twist", "gangs_of_kyoto", "fagins_gang")


@pytest.mark.parametrize("width", [390, 1280])
def test_every_seed_game_fits_the_screen(browser, site, width):
    """At a phone's 390 px and a laptop's 1,280 px, nothing overflows once a game is on (at 390
    px the page was 583-1,415 px wide: a 1fr grid track grew to the table's longest line), and
    the set-up form has folded away above the game."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page_errors = []
    page.on("pageerror", lambda error: page_errors.append(error))
    page.goto(site)
    page.wait_for_selector("#game option[value=london]", state="attached")
    for game_id in SEED_GAMES:
        if not page.evaluate("document.getElementById('setup-panel').open"):
            page.click("#setup-panel > summary")        # a new game: the form opens again
        page.select_option("#game", game_id)
        page.select_option("#players", "3")
        page.fill("#seed", "5")
        stale = page.query_selector("#log > li")      # the last game's log, gone once this one is drawn
        page.click("#start")
        if stale is not None:
            stale.wait_for_element_state("hidden", timeout=30_000)
        page.wait_for_selector("#result:not([hidden]), #actions button.move:enabled", timeout=30_000)
        assert not page.evaluate("document.getElementById('setup-panel').open"), game_id
        # The human's first options, until the bots have moved too: each is a described event.
        for _ in range(40):
            if page.is_visible("#result") or bot_moves_told(page):
                break
            page.locator("#actions button.move").first.click()
            page.wait_for_selector("#result:not([hidden]), #actions button.move:enabled", timeout=60_000)
        assert bot_moves_told(page), f"{game_id}: no bot move in the log: {page.inner_text('#log')!r}"
        widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], f"{game_id} at {width} px: the page is {widths[0]} px wide"
        shot = ROOT / "build" / "screenshots" / f"{game_id}-{width}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
    assert not page_errors, page_errors
    page.close()
