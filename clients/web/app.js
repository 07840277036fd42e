// The fagin browser frontend: play against the bots, step through a game, analyse a position.
//
// It calls the server through @fagin/client (clients/ts), the typed client generated from
// the .proto files, bundled by the build as fagin-client.js: the Connect protocol's unary
// form, POST /fagin.v1.Fagin/<Method> with proto3 JSON. The page uses the client's JSON form
// (createFaginJsonClient), since what it keeps is JSON: positions the user pastes and
// downloads, records it saves, loads and keeps in the browser's storage. The server is
// stateless, so the page holds its game to send back: the full state of each position, and
// the game's complete record (fagin.v1.GameRecord), which it saves and loads as a file, keeps
// in the browser's storage to resume after a reload, and cuts to take a move back; it renders
// only what the human's seat sees (that seat's view: ApplyAction's `view` with the seat as
// `observer`, or ViewState), except in analysis mode, where the user brings the position.

import { canDraw, componentData, componentName, drawTable, el, linkMoves, moveNote } from "./table.js";
import { Code, ConnectError, InvalidRequestJsonError, codeToString, createFaginJsonClient } from "./fagin-client.js";

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------------------------------
// The API

// The server that served the page, at the page's own address (the API's paths are relative to
// it, as the page's files are). The token is read from its field at each call. The page goes
// where its user went already: over plain HTTP to a server bound beyond loopback too, which
// warns so when it starts (allowPlaintextToken).
const api = createFaginJsonClient(new URL(".", location.href).href.replace(/\/$/, ""), {
  token: () => $("token").value.trim(),
  allowPlaintextToken: true,
});

// Bot levels. The server maps SearchSettings.level (1-10) to each game's calibrated budget,
// algorithm and temperature. A server older than the field refuses it as an unknown field;
// there a level is played as this many iterations of the default search, a geometric ladder
// from a near-random bot to a strong one.
const LEVEL_ITERATIONS = [10, 30, 100, 300, 1000, 2000, 5000, 10000, 20000, 50000];
// Hints and analysis name their budget outright and show the search's best estimate
// (temperature 0: the most visited move), never a bot level's draw at a temperature.
const HINT_BUDGETS = [1000, 5000, 20000, 100000];
const HINT_DEFAULT = 5000;
// The analysis slider's steps: iterations, or seconds of search.
const ANALYSIS_ITERATIONS = [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000];
const ANALYSIS_SECONDS = [0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 15, 20, 30, 45, 60];
let serverKnowsLevel = true;

function levelSearch(level, seed, useLevel) {
  return useLevel ? { level, seed: String(seed) }
    : { iterations: String(LEVEL_ITERATIONS[level - 1]), seed: String(seed) };
}

// A search with an explicit budget for a hint or an analysis: iterations or ms, best estimate.
function budgetSearch(budget, seed) {
  const search = { seed: String(seed), temperature: 0 };
  if (budget.iterations) search.iterations = String(budget.iterations);
  else search.timeMs = String(Math.round(budget.seconds * 1000));
  return search;
}

function budgetText(budget) {
  return budget.iterations ? `${budget.iterations.toLocaleString("en")} iterations` : `${budget.seconds} s`;
}

// A session name no one can guess (128 random bits as 32 hex digits): on a server without
// tokens it is all that keeps a bot's tree its own. crypto.getRandomValues, not
// crypto.randomUUID, which a page served over plain HTTP from another host does not have.
function newSessionName() {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// A bot's move. `where`: the position, as { state } or { record }. `session`: the bot seat's
// session (RecommendRequest.session), or none: with one, the server keeps the seat's search
// tree between its moves and goes on from it, and the search stops once the move is decided
// (SearchSettings.stopWhenDecided), which plays stronger for the same time. The session also
// goes as the fagin-session header, by which a balancer in front of several servers sends
// the seat's every move to the server that keeps its tree.
async function recommend(where, seat, level, seed, session) {
  const kept = session ? { session } : {};
  const headers = session ? { "fagin-session": session } : {};
  const search = (useLevel) => ({ ...levelSearch(level, seed, useLevel), ...(session ? { stopWhenDecided: true } : {}) });
  if (serverKnowsLevel) {
    try {
      return await api.recommend({ ...where, seat, ...kept, search: search(true) }, { headers });
    } catch (e) {
      // Only the server's "no such field" answer: a server that knows `level` and refuses a
      // value must show its error, not be played at another strength.
      if (!(e instanceof ConnectError && e.code === Code.InvalidArgument && /no field named "level"/.test(e.rawMessage))) throw e;
      serverKnowsLevel = false;
    }
  }
  return api.recommend({ ...where, seat, ...kept, search: search(false) }, { headers });
}

// ------------------------------------------------------------------------------------------
// Small helpers

function showError(e) {
  // A failed call is not still searching: the status lines drop what they said it was doing.
  if (document.body.classList.contains("busy") || /…$/.test($("status").textContent)) $("status").textContent = "";
  if (/…$/.test($("analysis-status").textContent)) $("analysis-status").textContent = "";
  const box = $("error");
  box.textContent = e instanceof InvalidRequestJsonError ? `Not sent: ${e.rawMessage}`
    : e instanceof ConnectError ? `The server refused: ${codeToString(e.code)}: ${e.rawMessage}` : `Error: ${e.message || e}`;
  box.hidden = false;
  console.error(e);
}

function clearError() {
  $("error").hidden = true;
}

function option(value, text, selected = false) {
  const o = document.createElement("option");
  o.value = String(value);
  o.textContent = text;
  o.selected = selected;
  return o;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function gameOf(state) {
  return Object.keys(state || {})[0] || "";
}

function pendingOf(status) {
  if (status.terminal || status.chance) return [];
  return status.pendingSeats && status.pendingSeats.length ? status.pendingSeats : [status.currentSeat];
}

function formatReturn(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(3);
}

const STATS_MEANINGS = {
  move: "a move the searching seat could make; ✔ the one played (a hint's: the best-rated)",
  visits: "how many of the search's iterations tried this move: the more, the surer its value",
  value: "the move's mean return to the searching seat in the search: in a seed game its chance to win (0 to 1)",
  policy: "the search's policy: the move's share of the visits, or of its average strategy (for the regret-matching searches)",
};

// The statistics of one search: a row per action, its visits, mean value and policy as a bar.
function statsTable(rec, caption) {
  const rows = [...rec.actions].sort((a, b) => Number(b.visits) - Number(a.visits) || b.policy - a.policy);
  const table = el("table", { class: "stats" },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {},
      header("Move", STATS_MEANINGS.move), header("Visits", STATS_MEANINGS.visits),
      header("Value", STATS_MEANINGS.value), header("Policy", STATS_MEANINGS.policy))));
  const body = el("tbody");
  for (const s of rows) {
    const share = Math.max(0, Math.min(1, s.policy));
    const pct = `${(100 * share).toFixed(1)}%`;
    const bar = el("div", { class: "policy" },
      el("div", { class: "bar", "aria-hidden": "true" }, el("div", { class: "fill", style: `width: ${pct}` })),
      el("span", {}, pct));
    const chosen = rec.action && s.action.id === rec.action.id;
    body.append(el("tr", chosen ? { class: "chosen" } : {},
      el("th", { scope: "row" }, s.action.label + (chosen ? " ✔" : "")),
      el("td", {}, String(Number(s.visits))),
      el("td", {}, s.meanValue.toFixed(3)),
      el("td", {}, bar)));
  }
  table.append(body);
  const notes = (rec.notes || []).map((n) => el("li", {}, n));
  const settings = rec.settings || {};
  const summary = el("p", { class: "summary" },
    `${Number(rec.iterations)} iterations, ${Number(rec.nodes)} nodes, ${rec.elapsedMs < 10 ? rec.elapsedMs.toFixed(1) : Math.round(rec.elapsedMs)} ms` +
    (settings.algorithm ? `, ${settings.algorithm}` : "") +
    (rec.session && rec.session.continued
      ? `; went on from the tree it kept from its last move (a head start of ${Number(rec.session.headStart)} visits)` : "") +
    (rec.stopReason === "STOP_REASON_DECIDED" ? "; stopped once its move was decided" : ""));
  const box = el("div", {}, el("div", { class: "table-scroll" }, table), summary,
    el("details", { class: "legend key-box", open: "" }, el("summary", {}, "Key to the figures"),
      tableKey([["Visits", STATS_MEANINGS.visits], ["Value", STATS_MEANINGS.value],
        ["Policy", STATS_MEANINGS.policy], ["✔", "the move played (or, for a hint, the move the search rates best)"]])));
  if (notes.length) box.append(el("ul", { class: "notes" }, ...notes));
  return box;
}

// The analysis of a position (RecommendRequest.analysis): the candidates best first with
// win % as a bar, the margin ± its standard error, visits, prior and the principal variation;
// then the position's value and the beliefs, each share as a bar.
function shareBar(share, text) {
  const pct = `${(100 * Math.max(0, Math.min(1, share))).toFixed(1)}%`;
  return el("div", { class: "policy" },
    el("div", { class: "bar", "aria-hidden": "true" }, el("div", { class: "fill", style: `width: ${pct}` })),
    el("span", {}, text || pct));
}

// A column heading with its meaning on hover (title) and, for a short one, its full name (abbr).
function header(text, meaning) {
  return el("th", { scope: "col", title: meaning }, el("abbr", { title: meaning }, text));
}

// A key under a table: each symbol or column and what it means, always shown (a phone has no hover).
function tableKey(items) {
  return el("dl", { class: "key" }, ...items.flatMap(([term, meaning]) => [el("dt", {}, term), el("dd", {}, meaning)]));
}

function signed(x, digits) {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;
}

function percent(share) {
  return `${(100 * share).toFixed(1)}%`;
}

// A seed game's analysis has win probabilities; a reference game's (returns in chips, say)
// has only each candidate's mean value, shown in their place.
function analysisTable(rec, caption, gameId = "", data = {}) {
  const rows = [...rec.actions].filter((s) => s.analysis).sort((a, b) => a.analysis.rank - b.analysis.rank);
  const wins = rows.some((s) => s.analysis.winProbability !== undefined);
  const margins = rows.some((s) => s.analysis.scoreMargin !== undefined);
  const closeCall = Boolean(rec.tooCloseToCall);
  const meanings = {
    move: "the candidate move, best first; ✔ the move the search picked",
    win: wins ? "the seat's chance to win after this move, as the search estimates it; ≥ its lower bound"
      : "the move's mean value: the seat's average return after it in the search (in the game's own units); ± its standard error",
    margin: "the seat's expected final score less the best other seat's, in the game's own units; ± its standard error",
    visits: "how many of the search's iterations tried this move: the more, the surer its figures",
    prior: "the move's prior, 0 to 1: how often the game's own move policy picks it, where the search is guided by one (London); else an even share",
    plan: "the most likely continuation the search found, moves in order",
  };
  const heads = [header("Move", meanings.move), header(wins ? "Win" : "Value", meanings.win)];
  if (margins) heads.push(header("Margin", meanings.margin));
  heads.push(header("Visits", meanings.visits), header("Prior", meanings.prior));
  const table = el("table", { class: "stats analysis" }, el("caption", {}, caption), el("thead", {}, el("tr", {}, ...heads)));
  const columns = heads.length;
  const body = el("tbody");
  for (const s of rows) {
    const x = s.analysis;
    let winCell;
    if (x.winProbability !== undefined) {
      const lower = Math.max(0, x.winProbabilityLcb || 0);
      winCell = el("td", { class: "win", "data-label": "Win" }, shareBar(x.winProbability,
        `${percent(x.winProbability)} (≥ ${percent(Math.min(lower, x.winProbability))})`));
    } else {
      winCell = el("td", { class: "value", "data-label": "Value" }, `${(s.meanValue || 0).toFixed(3)} ± ${(x.winProbabilityError || 0).toFixed(3)}`);
    }
    const cells = [winCell];
    if (margins) {
      cells.push(el("td", { class: "margin", "data-label": "Margin" }, x.scoreMargin !== undefined
        ? `${signed(x.scoreMargin, 2)} ± ${(x.scoreMarginError || 0).toFixed(2)}` : "–"));
    }
    cells.push(el("td", { class: "visits", "data-label": "Visits" }, String(Number(s.visits || 0))),
      el("td", { class: "prior", "data-label": "Prior" }, (x.prior || 0).toFixed(3)));
    const plan = (x.pv || []).map((m) => {
      const seat = m.seat === undefined ? 0 : m.seat;
      const who = seat === rec.seat || seat === -1 ? "" : `[seat ${seat}] `;
      return who + m.action.label + (Number(m.visits || 0) === 0 && seat === rec.seat ? "°" : "");
    }).join("; ");
    const chosen = rec.action && s.action.id === rec.action.id;
    const close = Boolean(x.closeToBest);
    const marks = (chosen ? " ✔" : "") + (close ? " ≈" : "");
    const classes = [chosen ? "chosen" : "", close ? "close" : ""].filter(Boolean).join(" ");
    body.append(el("tr", { class: [classes, plan ? "has-plan" : ""].filter(Boolean).join(" ") || null },
      el("th", { scope: "row", title: close ? "within the error of the best move's win chance: too close to tell apart" : null },
        s.action.label + marks), ...cells));
    // The plan on a row of its own, under its move: a column of it made the table too wide for a phone.
    if (plan) {
      body.append(el("tr", { class: `plan-row${classes ? ` ${classes}` : ""}` },
        el("td", { class: "plan", colspan: String(columns) }, el("span", { class: "plan-label" }, "plan: "), plan)));
    }
  }
  table.append(body);
  const box = el("div", { class: "analysis-box" });
  if (closeCall) {
    box.append(el("p", { class: "close-call", role: "note" }, "Too close to call: ",
      el("span", {}, "the best moves (marked ≈) are within each other's error; the search cannot tell which is better. " +
        "A longer search may separate them.")));
  }
  box.append(el("div", { class: "table-scroll" }, table));
  const root = rec.root || {};
  if (root.winProbabilities && root.winProbabilities.length) {
    box.append(el("p", { class: "summary position" }, "Position: " +
      root.winProbabilities.map((w, p) => `seat ${p} wins ${percent(w)}`).join(", ") +
      (root.scoreMargins ? "; margins " + root.scoreMargins.map((m, p) => `seat ${p} ${signed(m, 2)}`).join(", ") : "")));
  }
  box.append(el("p", { class: "summary search" },
    `${Number(rec.iterations)} iterations, ${Number(rec.nodes)} nodes, ${Math.round(rec.elapsedMs || 0)} ms.`));
  const key = [
    [wins ? "Win" : "Value", meanings.win],
    ...(wins ? [["≥ n%", "the lower bound of the win chance: the estimate less 1.96 standard errors"]] : []),
    ...(margins ? [["Margin ± e", meanings.margin]] : []),
    ["Visits", meanings.visits],
    ["Prior", meanings.prior],
    ["plan", meanings.plan],
    ["✔", "the move the search picked"],
    ["≈", "close to the best: within its error, so the two cannot be told apart yet"],
    ["°", "past the search tree: the game's rollout policy finishes the turn"],
    ["[seat n]", "a move of another seat in the plan"],
  ];
  if (root.winProbabilities && root.winProbabilities.length) {
    key.push(["Position", "the position's value as the search found it: each seat's chance to win (and score margin)"]);
  }
  const beliefs = rec.beliefs ? rec.beliefs.places || [] : [];
  if (beliefs.some((place) => (place.items || []).some((item) => Math.abs((item.copies || 0) - (item.share || 0)) > 1e-9))) {
    key.push(["×n", "the copies there on average, where the item has several copies (the % is the share of guesses with at least one)"]);
  }
  if (beliefs.length) key.push(["n%", "beliefs: the share of the search's guesses at the hidden cards (determinizations) that put the item there"]);
  if (rec.beliefs) {
    box.append(el("h3", {}, beliefs.length
      ? `What seat ${rec.seat} cannot see (${Number(rec.beliefs.determinizations || 0)} determinizations)`
      : "Beliefs: nothing hidden that the search's determinizations fix"));
    for (const place of beliefs) {
      const t = el("table", { class: "stats beliefs" }, el("caption", {}, place.place));
      const b = el("tbody");
      for (const item of place.items || []) {
        const copies = item.copies || 0, share = item.share || 0;
        b.append(el("tr", {}, el("th", { scope: "row" }, componentName(gameId, item.item, data)),
          el("td", { class: "belief" }, shareBar(share, percent(share) +
            (Math.abs(copies - share) > 1e-9 ? ` (×${copies.toFixed(2)})` : "")))));
      }
      t.append(b);
      box.append(el("div", { class: "table-scroll" }, t));
    }
  }
  box.append(el("details", { class: "legend key-box", open: "" }, el("summary", {}, "Key to the figures"), tableKey(key)));
  const notes = (rec.notes || []).map((n) => el("li", {}, n));
  if (notes.length) box.append(el("ul", { class: "notes" }, ...notes));
  return box;
}

// ------------------------------------------------------------------------------------------
// Setting up a game

let games = [];

function fillLevelSelect(select, chosen) {
  select.replaceChildren(...LEVEL_ITERATIONS.map((_, i) => option(i + 1, `Level ${i + 1}`, i + 1 === chosen)));
}

function currentGameInfo() {
  return games.find((g) => g.id === $("game").value);
}

function updateSetup() {
  const info = currentGameInfo();
  if (!info) return;
  const players = $("players");
  const keep = Number(players.value) || info.minPlayers;
  players.replaceChildren();
  for (let n = info.minPlayers; n <= info.maxPlayers; n++) players.append(option(n, String(n), n === keep));
  if (!players.value) players.value = String(info.minPlayers);
  const options = $("options");
  options.replaceChildren(...info.options.map((o) => el("label", { title: o.description },
    `${o.name} `, el("input", { "data-option": o.name, placeholder: o.defaultValue, spellcheck: "false" }))));
  updateSeats();
}

function updateSeats() {
  const n = Number($("players").value);
  const human = $("human-seat");
  const keepHuman = Math.min(Number(human.value) || 0, n - 1);
  human.replaceChildren(...Array.from({ length: n }, (_, s) => option(s, `Seat ${s}`, s === keepHuman)));
  const levels = $("bot-levels");
  const kept = Object.fromEntries([...levels.querySelectorAll("select")].map((s) => [s.dataset.seat, Number(s.value)]));
  levels.replaceChildren();
  for (let s = 0; s < n; s++) {
    if (s === keepHuman) continue;
    const select = el("select", { "data-seat": String(s), id: `level-${s}` });
    fillLevelSelect(select, kept[s] || 3);
    levels.append(el("label", {}, `Seat ${s} `, select));
  }
}

async function loadGames() {
  const answer = await api.listGames({});
  games = answer.games;
  const select = $("game");
  select.replaceChildren(...games.map((g) => option(g.id, g.name, g.id === "kids_of_london")));
  updateSetup();
}

// ------------------------------------------------------------------------------------------
// Playing

// One game: the positions in order. history[0] is the opening; history[i] the position after
// move i, with who made it (`by`), its label (`label`, shown to the human only when it is
// theirs or revealed), for a bot's move its search (`rec`), and the human's view of it
// (`view`) and moves in it (`legal`, when it is to decide) as ApplyAction brought them.
// `game.record` is the game's complete record (GameRecord) to its latest position; each entry
// keeps how many of its moves lead to it (`moves`). A game resumed from a record starts with
// one entry, its position, which has no `state`: the calls are sent the record instead.
let game = null;
let generation = 0;        // a new game or a take-back makes the running bot loop stop
let busy = 0;

function seedFor(ply, salt) {
  return (game.seed * 1009 + ply * 17 + salt) % 2147483647;
}

function revealed() {
  return game.over || $("open-stats").checked;
}

// The human's view of position i: the one ApplyAction brought with the move, else (the
// opening, or a server older than ApplyActionResponse.view) asked for once; either way kept
// with the entry for stepping back and forth.
async function viewAt(i) {
  const entry = game.history[i];
  if (!entry.view) entry.view = await api.viewState({ ...whereAt(i), seat: game.human });
  return entry.view;
}

// The record to position i: the game's record cut to the moves that led to it.
function recordAt(i) {
  return { ...game.record, moves: game.record.moves.slice(0, game.history[i].moves) };
}

// Position i for a call: its state, or (a resumed game's first position) its record.
function whereAt(i) {
  const entry = game.history[i];
  return entry.state ? { state: entry.state } : { record: recordAt(i) };
}

// ------------------------------------------------------------------------------------------
// Game records: saved, loaded, kept in the browser's storage, and cut to take a move back

const STORAGE_KEY = "fagin-game";

// The game in localStorage after every move: its record, the human's seat, the bots' levels,
// the seed and whether the bots' statistics are shown, so that a reload resumes it.
function keepGame() {
  if (!game) return;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ record: game.record, human: game.human,
      levels: game.levels, seed: game.seed, openStats: $("open-stats").checked, keepTrees: $("keep-trees").checked }));
  } catch (e) {
    console.warn("the game cannot be kept in the browser's storage", e);
  }
}

function saveRecord() {
  if (!game) return;
  download(`${game.info.id}-record.json`, JSON.stringify(game.record, null, 2));
}

// A record's game id: its `game`, or its set-up start's ("oliverTwist" is oliver_twist).
function recordGame(record) {
  return record.game || gameOf(record.start).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

// Checks the shape of a record read from a file; the server checks its moves.
function parsedRecord(text) {
  let record;
  try {
    record = JSON.parse(text);
  } catch (e) {
    throw new Error(`the file is not JSON: ${e.message}`);
  }
  // A saved NewGame or ApplyAction answer holds the record under "record".
  if (record && typeof record === "object" && record.record && typeof record.record === "object") record = record.record;
  if (!record || typeof record !== "object" || Array.isArray(record)) {
    throw new Error("the file is not a game record: a JSON object with the game and its moves is expected");
  }
  if (record.viewer !== undefined && record.viewer !== null) {
    throw new Error(`the file is seat ${record.viewer}'s view of a game, not a complete record: the bots need every move`);
  }
  if (!Array.isArray(record.moves || [])) throw new Error("the record's moves are not a list");
  const id = recordGame(record);
  if (!id) throw new Error("the record names no game (record.game)");
  if (!games.some((g) => g.id === id)) {
    throw new Error(`the record's game '${id}' is not served here; served: ${games.map((g) => g.id).join(", ")}`);
  }
  return { ...record, moves: record.moves || [] };
}

async function loadRecordFile() {
  const input = $("load-record");
  const file = input.files[0];
  if (!file) return;
  clearError();
  try {
    const record = parsedRecord(await file.text());
    await resume(record, formSettings(record), `Loaded ${file.name}`);
  } catch (e) {
    showError(e);
  } finally {
    input.value = "";
  }
}

// The form's seat, levels and seed for a record's game: the game and player count are the
// record's (set in the form); the seat and levels are the form's where the count allows.
function formSettings(record) {
  const id = recordGame(record);
  if ($("game").value !== id) {
    $("game").value = id;
    updateSetup();
  }
  if (record.players) {
    $("players").value = String(record.players);
    updateSeats();
  }
  const levels = {};
  for (const s of $("bot-levels").querySelectorAll("select")) levels[Number(s.dataset.seat)] = Number(s.value);
  let seed = Number($("seed").value);
  if (!$("seed").value) seed = Math.floor(Math.random() * 1_000_000);
  return { human: Number($("human-seat").value), levels, seed };
}

// Plays on from a complete record: the server replays and checks it (a bad move is refused
// naming it), then the bots move until it is the human's turn.
async function resume(record, settings, how) {
  const info = games.find((g) => g.id === recordGame(record));
  const myGeneration = ++generation;
  setBusy(+1, "Replaying the record…");
  let view;
  try {
    view = await api.viewState({ record, seat: settings.human });
  } finally {
    setBusy(-1);
  }
  if (myGeneration !== generation) return;
  const players = record.players || (view.status.returns || []).length || info.minPlayers;
  game = { id: myGeneration, info, players, human: settings.human, levels: settings.levels, seed: settings.seed,
    over: false, at: 0, hint: null, sessions: {}, record, resumed: `${how}: ${record.moves.length} moves played.`,
    history: [{ status: view.status, view, moves: record.moves.length, events: [] }] };
  for (let s = 0; s < players; s++) if (s !== game.human && !game.levels[s]) game.levels[s] = 3;
  $("game-area").hidden = false;
  $("setup-panel").open = false;
  $("view-seat").textContent = `Seat ${game.human} (you)`;
  $("result").hidden = true;
  keepGame();
  await advance(myGeneration);
}

// The game kept in the browser's storage, resumed at its position (after a reload).
async function resumeKept() {
  const text = localStorage.getItem(STORAGE_KEY);
  if (!text) return;
  let kept;
  try {
    kept = JSON.parse(text);
    kept.record = parsedRecord(JSON.stringify(kept.record));
  } catch (e) {
    localStorage.removeItem(STORAGE_KEY);
    return;
  }
  $("open-stats").checked = Boolean(kept.openStats);
  $("keep-trees").checked = kept.keepTrees !== false;
  $("game").value = recordGame(kept.record);
  updateSetup();
  if (kept.record.players) $("players").value = String(kept.record.players);
  $("human-seat").value = String(kept.human);
  updateSeats();
  for (const [seat, level] of Object.entries(kept.levels || {})) {
    const select = $(`level-${seat}`);
    if (select) select.value = String(level);
  }
  $("seed").value = String(kept.seed);
  try {
    await resume(kept.record, { human: kept.human, levels: { ...kept.levels }, seed: kept.seed },
      "Resumed the game kept in this browser");
  } catch (e) {
    showError(e);
  }
}

// Where the human's last move is in the record (-1: none).
function lastHumanMove() {
  if (!game) return -1;
  const moves = game.record.moves;
  for (let k = moves.length - 1; k >= 0; k--) if (moves[k].seat === game.human) return k;
  return -1;
}

// One click: the human's last move and the bots' replies after it are undone (the record cut
// before that move), and the human plays again from the position it was made in.
async function takeBackLastMove() {
  if (!game || busy) return;
  const k = lastHumanMove();
  if (k < 0) return;
  clearError();
  const keep = game.history.findIndex((entry) => entry.moves === k);
  game.record = { ...game.record, moves: game.record.moves.slice(0, k) };
  if (keep >= 0) {
    game.history = game.history.slice(0, keep + 1);
  } else {
    // A resumed game does not hold the position before its first: it is asked for by record.
    game.resumed = `Took back to move ${k} of the record.`;
    game.history = [{ moves: k, events: [] }];
    const view = await api.viewState({ record: game.record, seat: game.human });
    game.history[0].view = view;
    game.history[0].status = view.status;
  }
  game.over = false;
  game.hint = null;
  $("result").hidden = true;
  keepGame();
  await advance(++generation);
}

function setBusy(delta, text) {
  busy += delta;
  if (text !== undefined) $("status").textContent = text;
  document.body.classList.toggle("busy", busy > 0);
  for (const b of $("actions").querySelectorAll("button")) b.disabled = busy > 0;
  for (const id of ["start", "hint", "take-back", "undo", "load-record"]) $(id).disabled = busy > 0;
}

async function startGame(event) {
  event.preventDefault();
  clearError();
  const info = currentGameInfo();
  const players = Number($("players").value);
  const human = Number($("human-seat").value);
  let seed = Number($("seed").value);
  if (!$("seed").value) {
    seed = Math.floor(Math.random() * 1_000_000);
    $("seed").value = String(seed);
  }
  const options = {};
  for (const input of $("options").querySelectorAll("input")) {
    if (input.value.trim()) options[input.dataset.option] = input.value.trim();
  }
  const levels = {};
  for (const s of $("bot-levels").querySelectorAll("select")) levels[Number(s.dataset.seat)] = Number(s.value);
  const myGeneration = ++generation;
  setBusy(+1, "Dealing…");
  try {
    const answer = await api.newGame({ game: info.id, players, options, seed: String(seed) });
    if (myGeneration !== generation) return;
    game = { id: myGeneration, info, players, human, levels, seed, over: false, at: 0, hint: null, sessions: {},
      record: answer.record, history: [{ state: answer.state, status: answer.status, moves: answer.record.moves.length }] };
    game.history[0].events = eventsOf(answer);     // the opening deal, as the human saw it
    $("game-area").hidden = false;
    $("setup-panel").open = false;        // the table, not the form, once a game is on
    $("view-seat").textContent = `Seat ${human} (you)`;
    $("result").hidden = true;
    keepGame();
  } catch (e) {
    showError(e);
    return;
  } finally {
    setBusy(-1);
  }
  await advance(myGeneration);
}

// Plays the bots until the human is to move or the game is over.
async function advance(myGeneration) {
  try {
    for (;;) {
      if (myGeneration !== generation) return;
      const last = game.history.length - 1;
      const { status } = game.history[last];
      game.at = last;
      if (status.terminal) {
        game.over = true;
        await render();
        return;
      }
      if (status.chance) {        // only met if a client stopped at one: resolve it from the seed
        await applyMove(null, null, null, myGeneration);
        continue;
      }
      const bot = pendingOf(status).find((s) => s !== game.human);
      if (bot === undefined) {
        await render();
        return;
      }
      await render(`Seat ${bot} (bot, level ${game.levels[bot]}) is thinking…`);
      setBusy(+1);
      // Keeping its tree, a bot is sent the game's record, not the position's state: the
      // record carries the history the seat saw, by which London and Gangs of Kyoto find the
      // seat's earlier tree again on a later turn. The record is complete (the page deals the
      // game); the search for a seat uses only what that seat could see.
      const keep = $("keep-trees").checked;
      if (keep) game.sessions[bot] ??= newSessionName();
      let rec;
      try {
        rec = await recommend(keep ? { record: recordAt(last) } : whereAt(last), bot, game.levels[bot],
          seedFor(last, bot), keep ? game.sessions[bot] : undefined);
      } finally {
        setBusy(-1);
      }
      if (myGeneration !== generation) return;
      await applyMove(bot, rec.action, rec, myGeneration);
    }
  } catch (e) {
    showError(e);
  }
}

async function applyMove(seat, action, rec, myGeneration) {
  const last = game.history.length - 1;
  // Only the human's events: what its seat saw of the move (ApplyActionResponse.events).
  // The move is applied to the position's state, and the record extended by what the answer
  // says was applied (as the server extends a record it is sent: the decision by id, then each
  // chance outcome): the whole record is sent only from a resumed game's first position.
  const request = { ...whereAt(last), seed: String(seedFor(last, 101)), observer: game.human };
  if (seat !== null) {
    request.seat = seat;
    request.actionId = action.id;
  }
  setBusy(+1);
  try {
    const answer = await api.applyAction(request);
    if (myGeneration !== generation) return;
    const seen = eventsOf(answer);
    // The answer carries the human's view of the new position, and its moves if it is to
    // decide there (the request names it as `observer`): no ViewState or LegalActions call.
    game.record = answer.record || { ...game.record, moves: game.record.moves.slice(0, game.history[last].moves)
      .concat((answer.applied || []).map((a, j) => (j === 0 && seat !== null ? { seat, actionId: a.id } : { actionId: a.id }))) };
    game.history.push({ state: answer.state, status: answer.status, by: seat,
      label: action ? action.label : "chance", rec, events: seen, view: answer.view,
      legal: answer.legalActions, moves: game.record.moves.length });
    game.hint = null;
    keepGame();
  } finally {
    setBusy(-1);
  }
}

// The human's events in a NewGame or ApplyAction answer (SeatEvents; seat 0 is left out of JSON).
function eventsOf(answer) {
  const seen = (answer.events || []).find((e) => (e.seat || 0) === game.human);
  return seen ? seen.events || [] : [];
}

async function humanMove(action) {
  if (busy) return;
  clearError();
  // The buttons belong to the position being left: none may be pressed twice.
  $("actions").replaceChildren();
  $("hint").hidden = true;
  const myGeneration = generation;
  try {
    await applyMove(game.human, action, null, myGeneration);
  } catch (e) {
    showError(e);
    return;
  }
  await advance(myGeneration);
}

function seatName(seat) {
  if (seat === null || seat === undefined) return "Chance";
  if (seat === game.human) return `Seat ${seat} (you)`;
  return `Seat ${seat} (bot, level ${game.levels[seat]})`;
}

// Shows position `game.at`: the human's view of it, the human's moves if it is theirs to
// play, the statistics of the move that led to it, the move list and the result.
async function render(statusText) {
  const i = game.at;
  const latest = i === game.history.length - 1;
  const entry = game.history[i];
  const view = await viewAt(i);
  $("table").textContent = view.text;
  // The drawn table, from the same view and the room's component data; the text view stays
  // one click away (and is the table for the games without a drawing).
  const drawn = canDraw(game.info.id);
  const data = drawn ? await componentData(game.info.id) : {};
  $("drawn-table").replaceChildren(...(drawn ? [drawTable(game.info.id, view.state, data, game.human)] : []));
  $("drawn-table").hidden = !drawn;
  $("text-toggle").hidden = !drawn;
  showText(!drawn || $("text-toggle").getAttribute("aria-expanded") === "true");
  $("step-label").textContent = `Position ${i} of ${game.history.length - 1}`;
  $("first").disabled = $("back").disabled = i === 0;
  $("forward").disabled = $("last").disabled = latest;
  $("take-back").hidden = latest;
  $("undo").hidden = lastHumanMove() < 0;
  $("record-moves").textContent = `at move ${game.history[i].moves} of the record's ${game.record.moves.length} moves`;

  const humanToMove = latest && !game.over && pendingOf(entry.status).includes(game.human)
    && !pendingOf(entry.status).some((s) => s !== game.human);
  const actions = $("actions");
  actions.replaceChildren();
  if (humanToMove) {
    // The moves ApplyAction brought; asked for only at the opening (or of an older server).
    const legal = entry.legal || await api.legalActions({ ...whereAt(i), seat: game.human });
    const moves = [];
    for (const a of legal.actions) {
      const note = moveNote(game.info.id, a, view.state, data);
      const button = el("button", { type: "button", class: "move", "data-action-id": String(a.id),
        onclick: () => humanMove(a) }, a.label, ...(note ? [" ", note] : []));
      actions.append(button);
      moves.push({ action: a, button });
    }
    linkMoves(game.info.id, $("drawn-table"), moves);
  }
  $("hint").hidden = !humanToMove;
  $("status").textContent = statusText
    ?? (game.over ? "The game is over."
      : !latest ? `Looking back: position ${i} (the game is at position ${game.history.length - 1}).`
        : humanToMove ? "Your move." : "");

  renderStats(entry);
  const keepInSight = renderLog();
  if (game.over) renderResult(game.history[game.history.length - 1]);
  for (const b of actions.querySelectorAll("button")) b.disabled = busy > 0;
  // Last, once the page is complete: scrolling lays the page out, and a change after it
  // would lay it out again.
  keepInSight();
}

function renderStats(entry) {
  const box = $("stats");
  box.replaceChildren();
  if (game.hint && game.at === game.history.length - 1) {
    box.append(statsTable(game.hint, `Hint for you (${budgetText(game.hintBudget)}, the best-rated move)`));
  }
  if (entry.by === undefined || entry.by === null) {
    if (!game.hint) box.append(el("p", {}, "No move led to this position."));
    return;
  }
  if (!entry.rec) {
    box.append(el("p", {}, `${seatName(entry.by)} played ${entry.label}.`));
  } else if (revealed()) {
    box.append(statsTable(entry.rec, `${seatName(entry.by)}: ${entry.rec.action.label}`));
  } else {
    box.append(el("p", {}, `${seatName(entry.by)} has moved. Its statistics show what it holds and chose: `
      + "they are shown when the game is over."));
  }
}

function renderLog() {
  // The opening chance events (a deal, the first character), as the human saw them.
  const opening = game.history[0].events || [];
  $("opening").hidden = !opening.length && !game.resumed;
  // A set-up told card by card (summedUp) is given by the summary that ends it.
  const told = opening.filter((e) => !e.summedUp);
  $("opening").textContent = game.resumed || (opening.length ? `The opening: ${told.map((e) => e.label).join("; ")}` : "");
  // Only the moves not yet listed are added (the list was rebuilt at every step, so a long
  // game slowed down move by move): entries of another game, or past a take-back, go first.
  const log = $("log");
  if (log.dataset.game !== `${game.id}:${game.resumed || ""}`) {
    log.replaceChildren();
    log.dataset.game = `${game.id}:${game.resumed || ""}`;
  }
  const before = log.children.length;
  while (log.children.length > game.history.length - 1) log.lastElementChild.remove();
  for (let i = log.children.length + 1; i < game.history.length; i++) log.append(logItem(game.history[i], i));
  const current = log.querySelector('button[aria-current="step"]');
  if (current) current.setAttribute("aria-current", "false");
  if (game.at > 0) log.children[game.at - 1].querySelector("button.event").setAttribute("aria-current", "step");
  // The newest move is what the player needs to see next: a new one is scrolled into sight,
  // in the log's box and on the page (the box alone never scrolled, so the bots' last moves
  // were out of sight). Stepping through the game keeps the chosen move in sight within the
  // box only: the page stays where the player pressed (a step button, a move of the log).
  // Returns the scroll to make, for the caller to do once the page is complete.
  const stepped = log.dataset.at !== String(game.at);
  log.dataset.at = String(game.at);
  if (log.children.length > before && game.at === game.history.length - 1) {
    const newest = log.lastElementChild;
    return () => (newest.querySelector(".summaries > li:last-child") || newest).scrollIntoView({ block: "nearest" });
  }
  if (stepped && game.at > 0) {
    const chosen = log.children[game.at - 1];
    return () => scrollWithin($("log-box"), chosen);
  }
  return () => {};
}

// Scrolls `box` (and only it) so that `item` is in sight in it.
function scrollWithin(box, item) {
  const shown = box.getBoundingClientRect(), at = item.getBoundingClientRect();
  if (at.top < shown.top) box.scrollTop -= shown.top - at.top;
  else if (at.bottom > shown.bottom) box.scrollTop += Math.min(at.bottom - shown.bottom, at.top - shown.top);
}

// Who made a move, as a badge in the seat's colour: the events' labels name the seat
// themselves, so the line does not repeat it; the badge adds what the label cannot (a bot's level).
function moverBadge(seat) {
  if (seat === null || seat === undefined) return el("span", { class: "who chance", title: "a chance event" }, "chance");
  const you = seat === game.human;
  return el("span", { class: `who seat-tag seat-${seat}`, "data-seat": String(seat),
    title: you ? `seat ${seat}: you` : `seat ${seat}: a bot playing at level ${game.levels[seat]}` },
  you ? "you" : `bot L${game.levels[seat]}`);
}

//: More chance outcomes than this in one move's events are folded into a count (logItem).
const CHANCE_LINES_SHOWN = 3;

// One move of the log, told as the human's seat saw it, then any round or game summary it brought.
function logItem(entry, i) {
  const told = entry.events || [];
  const moves = told.filter((e) => !e.summary && !e.summedUp);
  let summaries = told.filter((e) => e.summary);
  // A set-up told card by card or token by token (summedUp) is shown as the summary that
  // ends it: the run's own lines stay in the list, hidden, so that the log keeps one item
  // per move of the game.
  const summedUp = !moves.length && told.some((e) => e.summedUp);
  const who = entry.by === null || entry.by === undefined ? "chance" : entry.by === game.human ? "you" : `seat ${entry.by}`;
  // A run of chance outcomes after a move (Oliver Twist's board refilled token by token) is
  // one clause and a count, its lines a click away: a log line stays a line people read.
  const chance = moves.filter((e) => e.seat === undefined || e.seat === null);
  const folded = chance.length > CHANCE_LINES_SHOWN;
  const shown = folded ? moves.filter((e) => !chance.includes(e)).concat(chance.slice(0, 1)) : moves;
  let text = moves.length ? shown.map((e) => e.label).join("; ") : `${who} made a move you cannot see`;
  if (folded) text += ` (and ${chance.length - 1} more chance events)`;
  if (summedUp) {
    text = summaries.length ? summaries[0].label : told.find((e) => e.summedUp).label;
    summaries = summaries.slice(1);
  }
  const item = el("li", { value: String(i), "data-seat": entry.by === null || entry.by === undefined ? null : String(entry.by),
    class: entry.by !== null && entry.by !== undefined && entry.by !== game.human ? "by-bot" : null },
  el("div", { class: "line" }, moverBadge(entry.by),
    el("button", { type: "button", class: "link event", "aria-current": "false", onclick: () => goTo(i) }, text)));
  if (summedUp && !told.some((e) => e.summary)) item.hidden = true;
  if (folded) {
    item.append(el("details", { class: "chance-run" }, el("summary", {}, `the ${chance.length} chance events`),
      el("ul", {}, ...chance.map((e) => el("li", {}, e.label)))));
  }
  if (summaries.length) {
    item.append(el("ul", { class: "summaries" },
      ...summaries.map((e) => el("li", { class: "summary" }, e.label))));
  }
  return item;
}

// The game's end: whether the human won, the server's sentence saying why the winners won,
// and each seat's final score with its parts (StateStatus.final_scores), seats as columns so
// that the table stays narrow on a phone whatever the game's number of categories.
function renderResult(final) {
  const status = final.status;
  const scores = status.finalScores;
  const returns = status.returns || [];
  const box = $("result");
  let winners;
  if (scores) {
    winners = scores.winners || [];
  } else {
    const best = Math.max(...returns);
    winners = returns.map((r, s) => (r === best ? s : -1)).filter((s) => s >= 0);
  }
  const verdict = winners.includes(game.human)
    ? (winners.length > 1 ? "You share the win." : "You win.") : "You lose.";
  box.replaceChildren(el("p", { class: "verdict" }, verdict), el("h3", {}, "Result"));
  if (scores) {
    box.append(el("p", { class: "explanation" }, scores.explanation), finalScoresTable(scores, winners));
    const notes = scores.seats.filter((s) => s.note);
    if (notes.length) {
      box.append(el("ul", { class: "score-notes" },
        ...notes.map((s) => el("li", {}, `${scoreColumnName(s)}: ${s.note}`))));
    }
  } else {
    box.append(el("ul", {}, ...returns.map((r, s) => el("li", {}, `${seatName(s)}: ${formatReturn(r)}`))));
  }
  box.hidden = false;
}

function scoreColumnName(seatScore) {
  if (seatScore.seat === game.human) return "You";
  return seatScore.name.charAt(0).toUpperCase() + seatScore.name.slice(1);
}

function scoreAmount(unit, x) {
  if (unit === "£") return x < 0 ? `−£${-x}` : `£${x}`;
  return String(x).replace("-", "−");
}

// FinalScores as a table: a row per part (its detail as the cell's title), then the totals,
// the winners' columns marked.
function finalScoresTable(scores, winners) {
  const seats = scores.seats;
  const names = [];
  for (const s of seats) for (const p of s.parts || []) if (!names.includes(p.name)) names.push(p.name);
  const head = el("tr", {}, el("th", { scope: "col" }, ""),
    ...seats.map((s) => el("th", { scope: "col", class: winners.includes(s.seat) ? "winner" : "" },
      scoreColumnName(s) + (winners.includes(s.seat) ? " ★" : ""))));
  const rows = names.map((name) => el("tr", {}, el("th", { scope: "row" }, name),
    ...seats.map((s) => {
      const part = (s.parts || []).find((p) => p.name === name);
      if (!part) return el("td", {}, "");
      const attrs = part.detail ? { title: part.detail } : {};
      return el("td", attrs, scoreAmount(scores.unit, part.points));
    })));
  const unit = scores.unit === "£" ? "" : ` (${scores.unit})`;
  const total = el("tr", { class: "total" }, el("th", { scope: "row" }, (scores.partsAddUp ? "Total" : "Score") + unit),
    ...seats.map((s) => el("td", {}, scoreAmount(scores.unit, s.total))));
  const caption = scores.partsAddUp ? "Final scores by category" : "Final scores; the rows below rank level seats, in order";
  return el("div", { class: "scores-wrap" }, el("table", { class: "final-scores" }, el("caption", {}, caption),
    el("thead", {}, head), el("tbody", {}, ...rows, total)));
}

// The table's text (ViewState.text) under the drawing, or not; the only table for the games
// that have no drawing.
function showText(shown) {
  $("table").hidden = !shown;
  $("text-toggle").setAttribute("aria-expanded", String(shown));
}

async function goTo(i) {
  if (!game) return;
  game.at = Math.max(0, Math.min(game.history.length - 1, i));
  try {
    await render();
  } catch (e) {
    showError(e);
  }
}

async function takeBack() {
  if (!game || busy) return;
  game.history = game.history.slice(0, game.at + 1);
  game.record = { ...game.record, moves: game.record.moves.slice(0, game.history[game.at].moves) };
  keepGame();
  game.over = false;
  game.hint = null;
  $("result").hidden = true;
  await advance(++generation);
}

async function hint() {
  clearError();
  const last = game.history.length - 1;
  const view = await viewAt(last);
  const budget = { iterations: Number($("hint-budget").value) || HINT_DEFAULT };
  setBusy(+1, `Searching for your best move (${budgetText(budget)})…`);
  try {
    // The human's view, not the full state: the hint can only use what the seat knows.
    game.hint = await api.recommend({ state: view.state, seat: game.human,
                                      search: budgetSearch(budget, seedFor(last, 7)) });
    game.hintBudget = budget;
  } catch (e) {
    showError(e);
  } finally {
    setBusy(-1);
  }
  await render();
}

async function downloadView() {
  try {
    const view = await viewAt(game.at);
    download(`${game.info.id}-seat${game.human}-position${game.at}.json`, JSON.stringify(view.state, null, 2));
  } catch (e) {
    showError(e);
  }
}

async function analyseView() {
  try {
    const view = await viewAt(game.at);
    $("position").value = JSON.stringify(view.state, null, 2);
    $("analysis-seat").value = String(game.human);
    selectTab("analyse");
  } catch (e) {
    showError(e);
  }
}

// ------------------------------------------------------------------------------------------
// Analysis mode

function pastedPosition() {
  const text = $("position").value.trim();
  if (!text) throw new Error("paste a position first");
  let state;
  try {
    state = JSON.parse(text);
  } catch (e) {
    throw new Error(`the position is not JSON: ${e.message}`);
  }
  // A saved NewGame, ApplyAction or ViewState answer holds the position under "state".
  if (state && typeof state === "object" && state.state && typeof state.state === "object") state = state.state;
  if (!state || typeof state !== "object" || Array.isArray(state)) {
    throw new Error('the position must be a JSON object such as {"kuhnPoker": {...}}');
  }
  return state;
}

async function analysisSeat(state) {
  const given = $("analysis-seat").value.trim();
  if (given !== "") return Number(given);
  const legal = await api.legalActions({ state });
  if (legal.status.terminal) throw new Error("the game is over in this position: no seat is to move");
  return pendingOf(legal.status)[0];
}

async function showPosition() {
  clearError();
  $("analysis-stats").replaceChildren();
  try {
    const state = pastedPosition();
    const seat = await analysisSeat(state);
    const view = await api.viewState({ state, seat });
    $("analysis-table").textContent = view.text;
    $("analysis-table").hidden = false;
    const s = view.status;
    $("analysis-status").textContent = s.terminal
      ? `The game is over. ${s.finalScores ? s.finalScores.explanation : s.returns.map(formatReturn).join(", ") + "."}`
      : `Seat ${seat}'s view. To move: ${pendingOf(s).map((x) => `seat ${x}`).join(", ") || "chance"}.`;
    return { state, seat };
  } catch (e) {
    showError(e);
    return null;
  }
}

async function bestMove() {
  const shown = await showPosition();
  if (!shown) return;
  const budget = analysisBudget();
  $("analysis-status").textContent = `Searching for seat ${shown.seat}'s best move (${budgetText(budget)})…`;
  $("best-move").disabled = true;
  try {
    const rec = await api.recommend({ state: shown.state, seat: shown.seat, search: budgetSearch(budget, 1),
                                      analysis: { beliefs: true } });
    // The position's oneof field ("oliverTwist") is the game's id in camelCase.
    const gameId = gameOf(shown.state).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const data = canDraw(gameId) ? await componentData(gameId) : {};
    $("analysis-stats").replaceChildren(analysisTable(rec, `Best plays for seat ${shown.seat} (${budgetText(budget)})`,
      gameId, data));
    $("analysis-status").textContent = `Best move for seat ${shown.seat}: ${rec.action.label}.`;
  } catch (e) {
    showError(e);
  } finally {
    $("best-move").disabled = false;
  }
}

function analysisBudget() {
  const step = Number($("analysis-budget").value);
  return $("analysis-unit").value === "time" ? { seconds: ANALYSIS_SECONDS[step] }
    : { iterations: ANALYSIS_ITERATIONS[step] };
}

function showAnalysisBudget() {
  $("analysis-budget-value").textContent = budgetText(analysisBudget());
}

async function loadPositionFile() {
  const file = $("position-file").files[0];
  if (file) $("position").value = await file.text();
}

function downloadPosition() {
  clearError();
  try {
    const state = pastedPosition();
    download(`${gameOf(state) || "position"}.json`, JSON.stringify(state, null, 2));
  } catch (e) {
    showError(e);
  }
}

// ------------------------------------------------------------------------------------------
// Wiring

function selectTab(name) {
  for (const tab of ["play", "analyse"]) {
    $(tab).hidden = tab !== name;
    $(`tab-${tab}`).setAttribute("aria-pressed", String(tab === name));
  }
}

function init() {
  $("token").value = sessionStorage.getItem("fagin-token") || "";
  $("token").addEventListener("change", () => {
    sessionStorage.setItem("fagin-token", $("token").value.trim());
    if (!games.length) loadGames().catch(showError);
  });
  $("tab-play").addEventListener("click", () => selectTab("play"));
  $("tab-analyse").addEventListener("click", () => selectTab("analyse"));
  $("game").addEventListener("change", updateSetup);
  $("players").addEventListener("change", updateSeats);
  $("human-seat").addEventListener("change", updateSeats);
  $("setup").addEventListener("submit", startGame);
  $("open-stats").addEventListener("change", () => game && render().catch(showError));
  $("first").addEventListener("click", () => goTo(0));
  $("back").addEventListener("click", () => goTo(game.at - 1));
  $("forward").addEventListener("click", () => goTo(game.at + 1));
  $("last").addEventListener("click", () => goTo(game.history.length - 1));
  $("take-back").addEventListener("click", takeBack);
  $("undo").addEventListener("click", () => takeBackLastMove().catch(showError));
  $("save-record").addEventListener("click", saveRecord);
  $("load-record").addEventListener("change", () => loadRecordFile());
  $("hint").addEventListener("click", hint);
  $("text-toggle").addEventListener("click", () => showText($("table").hidden));
  $("download-view").addEventListener("click", downloadView);
  $("analyse-view").addEventListener("click", analyseView);
  $("show-position").addEventListener("click", showPosition);
  $("best-move").addEventListener("click", bestMove);
  $("position-file").addEventListener("change", () => loadPositionFile().catch(showError));
  $("download-position").addEventListener("click", downloadPosition);
  $("hint-budget").replaceChildren(...HINT_BUDGETS.map((n) => option(n, `${n.toLocaleString("en")} iterations`,
                                                                         n === HINT_DEFAULT)));
  $("analysis-budget").addEventListener("input", showAnalysisBudget);
  $("analysis-unit").addEventListener("change", showAnalysisBudget);
  showAnalysisBudget();
  document.addEventListener("keydown", (e) => {
    if (!game || $("play").hidden || e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowLeft") goTo(game.at - 1);
    else if (e.key === "ArrowRight") goTo(game.at + 1);
  });
  loadGames().then(resumeKept).catch(showError);
}

init();
