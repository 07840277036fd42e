// The drawn table: each seed game's position as the human's seat sees it, drawn from the
// ViewState the page asked for (proto3 JSON: camelCase fields, enums as their names) and from
// the room's component data (the engine's own files, served at data/<game>/<file>.json).
// It shows only what is in that view: the view is all the page draws from.
// Every symbol has a title (shown on hover, and on a tap by the browser) and a legend.

const DATA_FILES = {
  london: ["cards", "board"],
  oliver_twist: ["board", "components"],
  fagins_gang: ["board"],
};

const cache = {};

// The component data of `game` (an object of parsed files by name); {} for a game that needs none.
export async function componentData(game) {
  if (!DATA_FILES[game]) return {};
  if (!cache[game]) {
    cache[game] = Promise.all(DATA_FILES[game].map(async (name) => {
      const answer = await fetch(`data/${game}/${name}.json`);
      if (!answer.ok) throw new Error(`data/${game}/${name}.json: HTTP ${answer.status}`);
      return [name, await answer.json()];
    })).then(Object.fromEntries);
    cache[game].catch(() => { delete cache[game]; });
  }
  return cache[game];
}

// An element with attributes (a false, null or undefined one left out; "on..." a listener) and children.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

// A proto enum's JSON name to its short form: "PHASE_BUY" -> "buy".
function enumName(value, prefix) {
  if (typeof value !== "string") return "";
  return value.startsWith(prefix) ? value.slice(prefix.length).toLowerCase().replace(/_/g, " ") : value;
}

function seatTag(seat, human) {
  return el("span", { class: `seat-tag seat-${seat}`, title: `seat ${seat}${seat === human ? " (you)" : ""}` },
    seat === human ? `seat ${seat} (you)` : `seat ${seat}`);
}

function legend(items) {
  return el("details", { class: "legend" }, el("summary", {}, "Legend"),
    el("dl", {}, ...items.flatMap(([symbol, text]) => [el("dt", {}, symbol), el("dd", {}, text)])));
}

// ------------------------------------------------------------------------------------------
// London

const LONDON_COLOURS = {
  blue: "blue", brown: "brown", grey: "grey", pink: "pink",
};

function londonCards(data) {
  if (!data.cardIndex) data.cardIndex = Object.fromEntries(data.cards.cards.map((c) => [c.id, c]));
  return data.cardIndex;
}

function londonBoroughs(data) {
  if (!data.boroughIndex) data.boroughIndex = Object.fromEntries(data.board.boroughs.map((b) => [b.id, b]));
  return data.boroughIndex;
}

// One card: its colour as the card's colour, cost, VP, deck letter and effect text.
function londonCard(card, extra = {}) {
  const flags = [];
  if (extra.faceDown) flags.push("flipped face down: its powers are gone");
  if (extra.kept) flags.push("kept face up by a Hospital");
  if (extra.placedThisTurn) flags.push("placed this turn: nothing may go on it this turn");
  if (extra.activated) flags.push("activated in this Run City");
  if (extra.known) flags.push("every seat knows it is in this hand: taken from the Card Display");
  if (!card) {
    return el("div", { class: "card unknown", title: "a card not in the room's data" }, "?");
  }
  const title = `${card.name} (deck ${card.deck}, ${card.colour}): costs £${card.cost}, ` +
    `${card.vp} VP at the end. ${card.text}${flags.length ? " — " + flags.join("; ") : ""}`;
  const node = el("div", {
    class: `card colour-${LONDON_COLOURS[card.colour] || "grey"}${extra.faceDown ? " face-down" : ""}` +
      `${extra.known ? " known" : ""}`,
    "data-card": card.id, title,
  },
  el("div", { class: "card-head" },
    el("span", { class: "cost", title: `cost: £${card.cost}` }, `£${card.cost}`),
    el("span", { class: "vp", title: `${card.vp} victory points at the end` }, `${card.vp} VP`)),
  el("div", { class: "card-name" }, card.name),
  el("div", { class: "card-text" }, extra.faceDown ? "flipped: no power" : card.text),
  el("div", { class: "card-foot" },
    el("span", { class: "deck", title: `from deck ${card.deck}` }, card.deck),
    extra.shopsMoney ? el("span", { class: "shops", title: `£${extra.shopsMoney} stored on these Shops` },
      `£${extra.shopsMoney} stored`) : null,
    extra.faceDown ? el("span", { class: "flag", title: "flipped face down" }, "⤓ flipped") : null,
    extra.kept ? el("span", { class: "flag", title: "kept face up by a Hospital" }, "✚ kept") : null,
    extra.placedThisTurn ? el("span", { class: "flag", title: "placed this turn" }, "★ new") : null,
    extra.activated ? el("span", { class: "flag", title: "activated in this Run City" }, "⚡ run") : null));
  return node;
}

function letters(l) {
  const x = l || {};
  return ["a", "b", "c"].filter((k) => x[k]).map((k) => `${x[k]} from deck ${k.toUpperCase()}`).join(", ");
}

function drawLondon(ln, data, human) {
  const cards = londonCards(data);
  const boroughs = londonBoroughs(data);
  const seats = ln.seats || [];
  const phase = enumName(ln.phase, "PHASE_");
  const active = phase === "over" ? -1 : ln.activePlayer || 0;     // nobody plays once it is over
  const root = el("div", { class: "drawn london" });

  // The deck's letters leave out the cards put back on top; their letters are listed apart (LN-86).
  const deckLeft = ["a", "b", "c"].reduce((n, k) => n + ((ln.deckLetters || {})[k] || 0), 0)
    + (ln.deckTopLetters || []).length;
  root.append(el("p", { class: "table-status" },
    `Turn ${(ln.turns || 0) + 1} · ${phase || "?"}`, ...(active >= 0 ? [" · ", seatTag(active, human), " to play"] : []),
    ln.lastRound ? el("span", { class: "flag", title: "the deck's last card is taken" },
      ` · last round${ln.turnsLeft !== undefined ? `: ${ln.turnsLeft} turns left` : ""}`) : ""));

  // The supply: deck, discard pile, Underground counters.
  root.append(el("p", { class: "supply" },
    el("span", { title: `the deck: ${letters(ln.deckLetters) || "empty"}` }, `deck ${deckLeft}`),
    " · ",
    el("span", { title: "the discard pile, face up" }, `discard ${(ln.discard || []).length}`),
    " · ",
    el("span", { title: "Underground counters in the supply" },
      el("span", { class: "tube" }, "U"), ` ${ln.undergroundLeft ?? "?"} Underground counters left`)));

  // The Card Display, top row and bottom row (LN-19).
  const display = el("section", { class: "ln-display", "aria-label": "The Card Display" },
    el("h4", {}, "Card Display"));
  for (const [name, row] of [["top row", ln.displayTop || []], ["bottom row", ln.displayBottom || []]]) {
    display.append(el("div", { class: "card-row", "aria-label": `Card Display, ${name}` },
      el("span", { class: "row-name" }, name),
      ...(row.length ? row.map((id) => londonCard(cards[id])) : [el("span", { class: "muted" }, "empty")])));
  }
  root.append(display);

  // Cards put back on the deck by University of London: known to the seat that put them back (LN-85).
  if ((ln.deckTop || []).length) {
    root.append(el("section", { class: "ln-looked" }, el("h4", {}, "On top of the deck, drawn next (you put them back)"),
      el("div", { class: "card-row" }, ...ln.deckTop.map((id) => londonCard(cards[id])))));
  }
  // University's look (only the active seat sees the cards; others see their letters).
  if ((ln.looked || []).length || (ln.lookedLetters || []).length) {
    root.append(el("section", { class: "ln-looked" }, el("h4", {}, "Looked at (University of London)"),
      el("div", { class: "card-row" }, ...((ln.looked || []).length ? ln.looked.map((id) => londonCard(cards[id]))
        : (ln.lookedLetters || []).map((l) => el("div", { class: "card back", title: "a card you cannot see" },
          enumName(l, "LETTER_").toUpperCase()))))));
  }

  // Each seat: money, loans, VP, poverty; hand; stacks in play.
  seats.forEach((s, p) => {
    const mine = p === human;
    const box = el("section", { class: `ln-seat seat-${p}${p === active ? " active" : ""}`,
      "aria-label": `seat ${p}` });
    box.append(el("h4", {}, seatTag(p, human), p === active ? " ◀ to play" : ""));
    box.append(el("p", { class: "purse" },
      el("span", { class: "money", title: "money (£)" }, `£${s.money || 0}`),
      el("span", { class: "loans", title: "loans taken: each £10, repaid at £15 or −7 VP at the end" },
        `${s.loans || 0} loan${s.loans === 1 ? "" : "s"}`),
      el("span", { class: "vp-counters", title: "VP counters won during the game" }, `★ ${s.vpCounters || 0} VP`),
      el("span", { class: "poverty", title: "poverty points" }, `☹ ${s.poverty || 0} poverty`),
      el("span", { class: "counters", title: "building counters not yet on the board" },
        `⌂ ${s.buildingCountersLeft ?? "?"} counters left`)));
    // The hand: the cards this seat may see, and a back per card it cannot.
    const hand = s.hand || [];
    const known = [...(s.handKnown || [])];
    const hidden = s.handHidden || {};
    const handRow = el("div", { class: `card-row hand${mine ? " mine" : ""}`, "aria-label": `seat ${p}'s hand` });
    for (const id of hand) {
      const k = known.indexOf(id);
      if (k >= 0) known.splice(k, 1);
      handRow.append(londonCard(cards[id], { known: !mine && k >= 0 }));
    }
    for (const letter of ["a", "b", "c"]) {
      for (let i = 0; i < (hidden[letter] || 0); i++) {
        handRow.append(el("div", { class: "card back", title: `a card you cannot see, from deck ${letter.toUpperCase()}` },
          letter.toUpperCase()));
      }
    }
    box.append(el("h5", {}, `Hand: ${s.handSize || 0} card${s.handSize === 1 ? "" : "s"}`), handRow);
    // Play Cards: the card being placed has left the hand (PHASE_WHERE, PHASE_PAY).
    if (p === active && ln.placing) {
      const onto = ln.placingOnStack !== undefined ? `onto stack ${ln.placingOnStack}` : "";
      box.append(el("h5", {}, `Being placed ${onto}`.trim()), el("div", { class: "card-row placing" }, londonCard(cards[ln.placing])));
    }
    // The Building Display: each stack bottom first; only the top card is uncovered (LN-30).
    const stacks = s.stacks || [];
    const display = el("div", { class: "stacks", "aria-label": `seat ${p}'s stacks in play` });
    stacks.forEach((stack, i) => {
      const placed = stack.cards || [];
      const column = el("div", { class: "stack", title: `stack ${i}: ${placed.length} card${placed.length === 1 ? "" : "s"}, only the top one uncovered` },
        el("span", { class: "stack-name" }, `stack ${i}`));
      placed.forEach((c, j) => {
        const top = j === placed.length - 1;
        const card = cards[c.card];
        if (top) {
          column.append(londonCard(card, { faceDown: c.faceDown, kept: c.kept, placedThisTurn: c.placedThisTurn,
            activated: c.activated, shopsMoney: c.shopsMoney }));
        } else {
          column.append(el("div", { class: `covered colour-${card ? card.colour : "grey"}${c.faceDown ? " face-down" : ""}`,
            title: `covered: ${card ? card.name : c.card}${c.faceDown ? ", flipped" : ""}` },
          card ? card.name : c.card));
        }
      });
      display.append(column);
    });
    box.append(el("h5", {}, `In play: ${stacks.length} stack${stacks.length === 1 ? "" : "s"}`),
      stacks.length ? display : el("p", { class: "muted" }, "no cards in play"));
    root.append(box);
  });

  // The boroughs: north bank, the Thames, south bank; owners' counters, Underground, price.
  const owners = {};
  seats.forEach((s, p) => (s.boroughs || []).forEach((b) => { owners[b] = p; }));
  const underground = new Set(ln.underground || []);
  const map = el("section", { class: "ln-map", "aria-label": "The boroughs" }, el("h4", {}, "Boroughs"));
  for (const bank of ["north", "south"]) {
    const row = el("div", { class: `bank ${bank}` });
    for (const b of data.board.boroughs.filter((x) => x.bank === bank)) {
      const bridges = Object.entries(b.neighbours || {}).filter(([, how]) => how === "bridge")
        .map(([id]) => boroughs[id] ? boroughs[id].name : id);
      const owner = owners[b.id];
      row.append(el("div", {
        class: `borough${owner !== undefined ? ` owned seat-${owner}` : ""}${b.thames ? " thames" : ""}`,
        "data-borough": b.id,
        title: `${b.name}: costs £${b.cost}, draws ${b.cards} cards, ${b.vp} VP` +
          (owner !== undefined ? `; seat ${owner}'s building counter` : "; free") +
          (underground.has(b.id) ? "; an Underground counter" : "") +
          (b.thames ? "; on the Thames" : "") + (bridges.length ? `; bridge to ${bridges.join(", ")}` : "") +
          (b.start ? "; a first purchase may be made here" : ""),
      },
      el("span", { class: "b-name" }, b.name),
      el("span", { class: "b-figures" }, `£${b.cost} · ${b.cards} cards · ${b.vp} VP`),
      el("span", { class: "b-marks" },
        owner !== undefined ? el("span", { class: `counter seat-${owner}` }, `⌂${owner}`) : null,
        underground.has(b.id) ? el("span", { class: "tube" }, "U") : null,
        bridges.length ? el("span", { class: "bridge" }, "⌒") : null,
        b.start ? el("span", { class: "start" }, "•") : null)));
    }
    map.append(row);
    if (bank === "north") map.append(el("div", { class: "river", title: "the Thames: crossed only at a bridge (⌒)" }, "~ the Thames ~"));
  }
  root.append(map);

  root.append(legend([
    ["£n", "a card's cost to place or a borough's price; a seat's money"],
    ["n VP", "victory points: a card's at the end, a borough's; ★ VP counters won so far"],
    ["colour", "a card's colour: placing a card expends another of the same colour from the hand"],
    ["A B C", "the deck a card comes from; a card back shows only its letter"],
    ["⤓ flipped", "turned face down after its activation: its powers are gone"],
    ["★ new, ⚡ run, ✚ kept", "placed this turn, activated in this Run City, kept by a Hospital"],
        ["☹", "poverty points"],
    ["⌂", "building counters: left to place, or a seat's on a borough"],
    ["U", "an Underground counter"],
    ["⌒", "a bridge over the Thames from this borough"],
    ["•", "a first purchase of the game may be made here"],
    ["dotted border", "a borough you may buy now: click it or its button"],
    ["n cards", "cards drawn when the borough is bought"],
    ["dashed border", "a card every seat knows is in that hand: taken from the Card Display"],
  ]));
  return root;
}

// What a London move's button adds to its label: a borough's price, a card's cost.
function londonMoveNote(typed, data) {
  if (!typed) return null;
  if (typed.borough && /BUY/.test(typed.kind || "")) {
    const b = londonBoroughs(data)[typed.borough];
    if (b) return el("span", { class: "price", title: `costs £${b.cost}, draws ${b.cards} cards, ${b.vp} VP` },
      `£${b.cost} · ${b.cards} cards · ${b.vp} VP`);
  }
  if (typed.card) {
    const c = londonCards(data)[typed.card];
    if (c) return el("span", { class: `price swatch colour-${c.colour}`, title: `${c.name} (${c.colour}): costs £${c.cost}, ${c.vp} VP. ${c.text}` },
      `£${c.cost} · ${c.vp} VP`);
  }
  return null;
}


// ------------------------------------------------------------------------------------------
// Oliver Twist

// Each token kind: a short mark on the map, a colour, and its name for people.
const OT_TOKENS = {
  apple: ["a", "#c62828", "apple"],
  handkerchief: ["h", "#6a1b9a", "handkerchief"],
  brooch: ["Br", "#ad8a00", "brooch"],
  necklace: ["Ne", "#00897b", "necklace"],
  ring: ["Ri", "#d84315", "ring"],
  watch: ["Wa", "#37474f", "watch"],
  wallet: ["$", "#2e7d32", "wallet (8 pounds each with Nancy)"],
  character: ["Ch", "#4e342e", "character token: draw a Character card"],
  burglary: ["Bu", "#000000", "burglary token: draw Burglary cards"],
  tool: ["t", "#546e7a", "tool"],
};

const OT_TOOL_MARKS = { bag: "B", rope: "R", crowbar: "C", lantern: "L", lockpick: "P" };

function otToken(id, data) {
  // "apple_2", "start_brooch", "tool_rope", "wallet", "character", "burglary".
  const start = id.startsWith("start_");
  const base = start ? id.slice(6) : id;
  if (base.startsWith("tool_")) {
    const tool = base.slice(5);
    return { mark: `t${OT_TOOL_MARKS[tool] || "?"}`, colour: OT_TOKENS.tool[1], start, name: `tool: ${tool}` };
  }
  const [type, value] = base.split("_");
  const [mark, colour, name] = OT_TOKENS[type] || ["?", "#999", base];
  const object = ((data.components || {}).objects || []).find((o) => o.id === base);
  const coins = object ? object.coins : null;
  return {
    mark: value ? `${mark}${value}` : mark, colour, start,
    name: `${start ? "starting " : ""}${name}${coins !== null ? ` (coin value ${coins})` : ""}`,
  };
}

// "artful_dodger" -> "Artful Dodger": a Character card's name as the cards print it.
function otCharacterName(id) {
  return id.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
}

function otChip(id, data, extra = "") {
  if (!id) return el("span", { class: "ot-chip hidden-token", title: `a token you cannot see${extra}` }, "?");
  const t = otToken(id, data);
  return el("span", { class: `ot-chip${t.start ? " start" : ""}`, style: `--tok: ${t.colour}`, title: t.name + extra,
    "data-token": id }, t.mark);
}

function drawOliver(ot, data, human) {
  const side = ot.night ? data.board.night : data.board.day;
  const root = el("div", { class: "drawn oliver" });
  const over = enumName(ot.phase, "PHASE_") === "over";
  const active = over ? -1 : ot.activePlayer || 0;       // nobody acts once it is over
  root.append(el("p", { class: "table-status" },
    `${ot.night ? "Night" : "Day"} · ${enumName(ot.phase, "PHASE_")}`,
    ...(active >= 0 ? [" · ", seatTag(active, human), " to act"] : []),
    ` · Fagin's rewards taken ${ot.rewardsTaken || 0}/5`));

  // The street map: spaces at their places on the board's side, streets between them.
  const board = ot.board || [];
  const spaces = Object.fromEntries(side.spaces.map((sp) => [sp.id, sp]));
  const unit = 10;
  const xs = side.spaces.map((sp) => sp.x), ys = side.spaces.map((sp) => sp.y);
  const w = (Math.max(...xs) + 1.5) * unit, h = (Math.max(...ys) + 1.5) * unit;
  const closed = (ot.players || 0) <= 2;
  const map = svg("svg", { class: "ot-map", viewBox: `${-unit * 0.75} ${-unit * 0.75} ${w} ${h}`, role: "img",
    "aria-label": `the street map (${ot.night ? "night" : "day"} side)` });
  for (const [a, b] of side.edges) {
    const pa = spaces[a], pb = spaces[b];
    if (!pa || !pb) continue;
    const yellow = pa.yellow && pb.yellow;
    map.append(svg("line", { x1: pa.x * unit, y1: pa.y * unit, x2: pb.x * unit, y2: pb.y * unit,
      class: `street${yellow ? " yellow" : ""}${yellow && closed ? " closed" : ""}` }));
  }
  const line = new Set(ot.line || []);
  for (const sp of side.spaces) {
    const cell = board[sp.id] || {};
    const token = cell.token || "";
    const t = token ? otToken(token, data) : null;
    const pawn = sp.id === ot.pawn;
    const parts = [`space ${sp.id} (${sp.kind}${sp.yellow ? ", yellow: closed with 2 players" : ""})`];
    if (pawn) parts.push("the Gang pawn");
    if (t) parts.push(t.name + (cell.faceDown ? ", face down: you looked" : ""));
    else if (cell.faceDown) parts.push("a face-down token you have not seen");
    else parts.push("empty");
    if ((cell.knownBy || []).length) parts.push(`looked at by seat ${cell.knownBy.join(", ")}`);
    if (line.has(sp.id)) parts.push("in the line being taken");
    const g = svg("g", { class: `space kind-${sp.kind}${pawn ? " pawn" : ""}${cell.faceDown ? " face-down" : ""}` +
      `${line.has(sp.id) ? " in-line" : ""}`, "data-space": String(sp.id) }, svg("title", {}, parts.join("; ")));
    const r = sp.kind === "square" ? 4.4 : 4;
    g.append(svg("circle", { cx: sp.x * unit, cy: sp.y * unit, r, ...(t ? { style: `--tok: ${t.colour}` } : {}) }));
    const label = pawn ? "@" : t ? t.mark : cell.faceDown ? "?" : "";
    if (label) {
      g.append(svg("text", { x: sp.x * unit, y: sp.y * unit + 1.6, "text-anchor": "middle",
        class: t && t.start ? "start" : "" }, label));
    }
    g.append(svg("text", { x: sp.x * unit + 3.6, y: sp.y * unit - 3.2, class: "space-id" }, String(sp.id)));
    map.append(g);
  }
  root.append(el("div", { class: "ot-map-box" }, map));

  // Each seat: money, stash, tools, Police file, Character and Burglary cards, as this seat may see them.
  (ot.seats || []).forEach((s, p) => {
    const mine = p === human;
    const stash = s.stash || [];
    const stashSize = s.stashSize ?? stash.length;
    const file = s.policeFile || [];
    const fileSize = s.policeFileSize ?? file.length;
    const box = el("section", { class: `ot-seat seat-${p}${p === active ? " active" : ""}`, "aria-label": `seat ${p}` },
      el("h4", {}, seatTag(p, human), p === active ? " ◀ to act" : ""),
      el("p", { class: "purse" }, el("span", { class: "money", title: "money (£)" }, `£${s.money || 0}`),
        el("span", { title: "Character cards in hand" }, `${s.characterCount ?? (s.characters || []).length} Character cards`),
        el("span", { title: "Burglary cards kept: their values count at the end" },
          `${s.burglaryCount ?? (s.burglaryCards || []).length} Burglary cards`),
        s.finalScore ? el("span", { title: "final score: money plus Burglary cards" }, `= ${s.finalScore}`) : null));
    const row = (name, title, chips) => el("div", { class: "ot-row", title },
      el("span", { class: "row-name" }, name), ...(chips.length ? chips : [el("span", { class: "muted" }, "none")]));
    const hiddenStash = Math.max(0, stashSize - stash.length);
    box.append(row(`stash ${stashSize}/9`, "the stash: Objects, at most 9, hidden from the others",
      [...stash.map((id) => otChip(id, data)),
        ...Array.from({ length: hiddenStash }, (_, i) => otChip("", data,
          i < (s.stashStarting || 0) - stash.filter((x) => x.startsWith("start_")).length ? " (a starting token)" : ""))]));
    box.append(row("tools", "Tools in front of the Lair", (s.tools || []).map((tool) => otChip(`tool_${tool}`, data))));
    box.append(row(`Police file ${fileSize}`, "the Police file: hidden from the others; revealed at nightfall",
      [...file.map((id) => otChip(id, data)),
        ...Array.from({ length: Math.max(0, fileSize - file.length) }, () => otChip("", data))]));
    if (mine && (s.characters || []).length) {
      const effects = Object.fromEntries(((data.components || {}).characters || []).map((c) => [c.id, c.effect]));
      box.append(row("characters", "your Character cards", s.characters.map((c) =>
        el("span", { class: "ot-card", title: effects[c] || otCharacterName(c) }, otCharacterName(c)))));
    }
    if ((s.burglaryCards || []).length) {
      box.append(row("burglary", "Burglary cards kept", s.burglaryCards.map((v) =>
        el("span", { class: "ot-card", title: `a Burglary card worth ${v} at the end` }, String(v)))));
    }
    root.append(box);
  });

  root.append(legend([
    ["@", "the Gang pawn"],
    ["a1 a2", "apples worth 1 or 2"], ["h1 h2", "handkerchiefs worth 1 or 2"],
    ["Br Ne Ri Wa", "brooch, necklace, ring, watch"], ["$", "wallet"],
    ["Ch", "character token: draw a Character card"], ["Bu", "burglary token"],
    ["tB tR tC tL tP", "tools: bag, rope, crowbar, lantern, lockpick"],
    ["underlined", "a starting token"], ["?", "a token you cannot see (face down, or another seat's)"],
    ["dashed street", "a yellow street, closed with 2 players"],
    ["ringed space", "a space in the line being taken"],
    ["grey space with a mark", "a face-down token you looked at"],
    ["dotted ring", "a space you may choose: click it or its button"],
  ]));
  return root;
}

// The space a "space N" move names (proto3 JSON leaves out space 0), or null for other moves.
function otSpaceOf(typed) {
  return typed && typed.kind === "KIND_SPACE" ? typed.space || 0 : null;
}

// An Oliver Twist move's note: the token on the space a "space N" move names.
function oliverMoveNote(typed, state, data) {
  const space = otSpaceOf(typed);
  if (space === null || !state) return null;
  const cell = (state.board || [])[space];
  if (!cell) return null;
  if (!cell.token) return el("span", { class: "price", title: cell.faceDown ? "a face-down token you have not seen" : "empty" },
    cell.faceDown ? "?" : "empty");
  const t = otToken(cell.token, data);
  return el("span", { class: "price", title: t.name }, t.mark);
}

// ------------------------------------------------------------------------------------------
// Kids of London

// The character tiles (KL-1): what robbing each one brings.
const KL_CHARACTERS = {
  merchant: ["Merchant", "4 coins to the highest card"],
  left_priest: ["Left Priest", "5 coins, handed on to the left neighbour"],
  right_priest: ["Right Priest", "5 coins, handed on to the right neighbour"],
  jeweller: ["Jeweller", "6 coins to the highest card"],
  banker: ["Banker", "7 coins to the highest card"],
  prince: ["Prince/Comedian", "8 coins shared by the robbers who take the prince, or 0 for the comedian"],
  beggar: ["Beggar", "its robber loses 3 coins"],
};

function klCharacter(id) {
  const key = enumName(id, "CHARACTER_").replace(/ /g, "_");
  // No tile face up (between hours, or once the game is over): "none", never the enum's own name.
  return KL_CHARACTERS[key] || ["none", ""];
}

function klCard(value, attrs = {}) {
  return el("span", { class: `kl-card${attrs.down ? " down" : ""}`, title: attrs.title ||
    `Street Child card ${value}: the highest card robs the character, the lowest takes its value in coins`,
  "data-card": attrs.down ? null : String(value) }, attrs.down ? "?" : String(value));
}

function drawKids(kl, data, human) {
  const root = el("div", { class: "drawn kids" });
  const [name, effect] = klCharacter(kl.character);
  root.append(el("p", { class: "table-status" }, `Hour ${Math.min(9, (kl.turn || 0) + 1)}/9 · ${enumName(kl.phase, "PHASE_")}`));
  root.append(el("div", { class: "kl-character", title: effect || "no character face up" },
    el("span", { class: "row-name" }, "character "), el("strong", {}, name), effect ? el("span", { class: "muted" }, ` — ${effect}`) : null,
    el("span", { class: "muted", title: "character tiles still face down (their order is unknown)" },
      ` · ${(kl.pile || []).length} tiles to come`)));
  (kl.seats || []).forEach((s, p) => {
    const down = s.card !== undefined && s.card !== null;
    root.append(el("section", { class: `kl-seat seat-${p}`, "aria-label": `seat ${p}` },
      el("h4", {}, seatTag(p, human), " ", el("span", { class: "money", title: "coins" }, `● ${s.coins || 0} coins`)),
      el("div", { class: "kl-row" }, el("span", { class: "row-name" }, "put down"),
        down ? klCard(s.card, { title: `card ${s.card}, put down this hour` })
          : s.chosen ? klCard(0, { down: true, title: "a card put down face down: you cannot see it" })
            : el("span", { class: "muted" }, "nothing yet")),
      el("div", { class: `kl-row hand${p === human ? " mine" : ""}`, "aria-label": `seat ${p}'s hand` },
        el("span", { class: "row-name", title: s.chosen && !down ? "the card put down face down is one of these" : "cards not yet played" },
          s.chosen && !down ? "hand (one is down)" : "hand"), ...(s.hand || []).map((v) => klCard(v)))));
  });
  if (kl.fictitious) {
    const f = kl.fictitious;
    root.append(el("section", { class: "kl-seat", "aria-label": "the fictitious player" },
      el("h4", { title: "the 2-player game's fictitious player" }, "fictitious player ",
        el("span", { class: "money" }, `● ${f.coins || 0} coins`)),
      el("div", { class: "kl-row" }, el("span", { class: "row-name" }, "face up"),
        f.card !== undefined && f.card !== null ? klCard(f.card) : el("span", { class: "muted" }, "nothing yet"))));
  }
  root.append(legend([
    ["0 … 8", "Street Child cards; the highest robs the character, the lowest takes its value; 8s are gang leaders"],
    ["?", "a card put down face down that you cannot see"],
    ["●", "coins"],
  ]));
  return root;
}

// ------------------------------------------------------------------------------------------
// Gangs of Kyoto

function gkCard(c, attrs = {}) {
  const kind = enumName(c.kind, "KIND_");
  const bells = c.bells || 0, value = c.value || 0;
  const dots = (n) => el("span", { class: "bells" }, "●".repeat(n));
  const marks = {
    exploration: [String(value), bells ? dots(bells) : null, c.draw ? "↧" : null],
    bell: [dots(Math.max(1, bells))], discard: ["✕"], "stay late": ["18"], refuse: ["⊘"],
  };
  const titles = {
    exploration: `exploration card: time ${value}${bells ? `, ${bells} bell${bells > 1 ? "s" : ""}` : ""}` +
      `${c.draw ? ", a draw symbol: its receiver takes a card off the deck" : ""}`,
    bell: `Bell card: ${bells} bell${bells === 1 ? "" : "s"}, straight to the victory pile`,
    discard: "Discard card: discards itself and the row's rightmost card",
    "stay late": "Stay Late: the row's limit is 18 while it lies there",
    refuse: "Refuse card: lets its owner refuse a later card",
  };
  return el("span", { class: `gk-card ${kind.replace(/ /g, "-")}`, title: attrs.title || titles[kind] || kind,
    "data-kind": kind }, ...(attrs.back ? ["?"] : (marks[kind] ?? [kind])));
}

function drawKyoto(gk, data, human) {
  const root = el("div", { class: "drawn kyoto" });
  const active = enumName(gk.phase, "PHASE_") === "over" ? -1 : gk.activePlayer || 0;     // nobody deals once over
  root.append(el("p", { class: "table-status" }, `Round ${(gk.rounds || 0) + 1} · ${enumName(gk.phase, "PHASE_")}`,
    ...(active >= 0 ? [" · ", seatTag(active, human), " deals"] : []),
    el("span", { title: "the holder of the First Player card" }, ` · first player: seat ${gk.firstPlayer || 0}`)));
  if (gk.revealed) root.append(el("p", { class: "gk-revealed" }, "revealed, to give: ", gkCard(gk.revealed)));
  if (gk.arriving) root.append(el("p", { class: "gk-revealed" }, `arriving at seat ${gk.receiver || 0}: `, gkCard(gk.arriving)));
  root.append(el("p", { class: "supply" },
    el("span", { title: "cards in the deck and face down in the deal" },
      `${(gk.unseen || []).length + (gk.deck || []).length} cards unseen`), " · ",
    el("span", { title: "the discard pile (face up)" }, `discard ${(gk.discard || []).length}`)));
  (gk.seats || []).forEach((s, p) => {
    const row = s.row || [];
    const pile = s.victoryPile || [];
    const hidden = Math.max(0, (s.hiddenBellCount || 0) - (s.hiddenBells || []).length);
    root.append(el("section", { class: `gk-seat seat-${p}${p === active ? " active" : ""}`, "aria-label": `seat ${p}` },
      el("h4", {}, seatTag(p, human), (gk.received || []).includes(p) ? " ✓ received" : "",
        el("span", { class: "money", title: "bells you can count in the victory pile" }, ` ${s.bells || 0} bell${s.bells === 1 ? "" : "s"}`)),
      el("div", { class: "gk-row", "aria-label": `seat ${p}'s row` },
        el("span", { class: "row-name", title: "the row's time total and its limit: over it, the row is busted" },
          `row ${s.rowSum || 0}/${s.limit || 13}`), ...(row.length ? row.map((c) => gkCard(c)) : [el("span", { class: "muted" }, "empty")])),
      el("div", { class: "gk-row gk-pile", "aria-label": `seat ${p}'s victory pile` },
        el("span", { class: "row-name" }, "VP pile"),
        ...pile.map((c) => gkCard(c)), ...(s.hiddenBells || []).map((c) => gkCard(c)),
        ...Array.from({ length: hidden }, () => gkCard({ kind: "KIND_BELL" }, { back: true, title: "a face-down Bell card you have not seen" })),
        ...(pile.length || hidden ? [] : [el("span", { class: "muted" }, "empty")]))));
  });
  root.append(legend([
    ["n", "an exploration card's time value"], ["●", "a bell (gold)"], ["↧", "draw symbol"],
    ["✕", "Discard card"], ["18", "Stay Late"], ["⊘", "Refuse card"],
    ["row n/13", "the row's time total and its limit"],
  ]));
  return root;
}

// ------------------------------------------------------------------------------------------
// Fagin's Gang

const FG_COLOURS = { blue: "#2f6db5", purple: "#7b1fa2", green: "#2e7d32", yellow: "#e0a800", black: "#222", red: "#c62828" };

function drawFagin(fg, data, human) {
  const board = data.board;
  const root = el("div", { class: "drawn fagin" });
  const active = enumName(fg.phase, "PHASE_") === "over" ? -1 : fg.activePlayer || 0;     // nobody plays once over
  const colours = board.colours;
  const trading = enumName(fg.phase, "PHASE_") === "market" && fg.marketSeat !== undefined;
  root.append(el("p", { class: "table-status" }, `Round ${(fg.round || 0) + 1} · ${enumName(fg.phase, "PHASE_")}`,
    ...(active >= 0 ? [" · ", seatTag(trading ? fg.marketSeat : active, human),
      trading ? " trades at Smithfield Market" : " to play"] : [])));
  const cube = (c, n, title) => el("span", { class: "fg-cube", style: `--cube: ${FG_COLOURS[colours[c]]}`, title }, String(n));
  // The market: the price wheel's prices, stalls, warehouses.
  root.append(el("div", { class: "fg-market" },
    el("span", { class: "row-name", title: `the price wheel at position ${fg.wheel || 0}: each colour's price in shillings` },
      "prices"), ...colours.map((c, i) => cube(i, `${(fg.prices || [])[i] ?? "?"}s`, `${board.goods[i]} (${c}): sells at ${(fg.prices || [])[i]} shillings`)),
    el("span", { class: "row-name" }, "stalls"), ...colours.map((c, i) => cube(i, (fg.stalls || [])[i] || 0, `${board.goods[i]} on the market stall`)),
    el("span", { class: "row-name" }, "warehouses"), ...colours.map((c, i) => cube(i, (fg.warehouses || [])[i] || 0, `${board.goods[i]} left in the warehouse`))));
  // The locations: each track from the street up to level 5, urchins and the constable on it.
  const tracks = el("div", { class: "fg-tracks" }, el("div", { class: "fg-track fg-levels", "aria-hidden": "true" },
    el("span", {}, ""), ...board.locations[0].spaces.map((sp) => el("span", { class: "fg-level" },
      sp.level === "street" ? "street" : `level ${sp.level}`))));
  board.locations.forEach((loc, l) => {
    const cons = (fg.constables || [])[l] || {};
    const track = el("div", { class: "fg-track", style: `--cube: ${FG_COLOURS[loc.colour]}`, "aria-label": loc.name },
      el("span", { class: "fg-name", title: `${loc.name}: ${board.goods[l]} (${loc.colour})` }, loc.name));
    loc.spaces.forEach((sp, i) => {
      const here = (fg.urchins || []).filter((u) => (u.location || 0) === l && (u.space || 0) === i);
      const con = (cons.space || 0) === i;
      const loot = [sp.shillings ? `${sp.shillings} shillings` : "", sp.white ? `${sp.white} white hands` : "",
        ...sp.goods.map((n, c) => (n ? `${n} ${board.goods[c]}` : "")).filter(Boolean)].filter(Boolean).join(", ");
      track.append(el("span", { class: `fg-space${con ? " constable" : ""}`, "data-space": `${l}:${i}`,
        title: `${loc.name}, ${sp.level === "street" ? "the street" : `level ${sp.level}`}: steals ${loot || "nothing"}` +
          (con ? `; the constable, facing ${cons.facingUp ? "up" : "down"}` : "") +
          (here.length ? `; urchins of seat ${here.map((u) => u.seat || 0).join(", ")}` : "") },
      con ? el("span", { class: "fg-constable" }, cons.facingUp ? "C▲" : "C▼") : null,
      ...here.map((u) => el("span", { class: `fg-urchin seat-${u.seat || 0}` }, String(u.seat || 0)))));
    });
    tracks.append(track);
  });
  root.append(tracks);
  (fg.seats || []).forEach((s, p) => {
    root.append(el("section", { class: `fg-seat seat-${p}${p === active ? " active" : ""}`, "aria-label": `seat ${p}` },
      el("h4", {}, seatTag(p, human)),
      el("p", { class: "purse" }, el("span", { class: "money", title: "shillings" }, `${s.shillings || 0}s`),
        el("span", { title: "urchins brought home to Fagin: three win" }, `⌂ ${s.home || 0} home`),
        el("span", { title: "urchins in Fagin's den, ready to enter a location" }, `◍ ${s.den ?? 0} in the den`)),
      el("div", { class: "fg-goods" }, ...colours.map((c, i) => cube(i, (s.goods || [])[i] || 0, `${board.goods[i]} held`)))));
  });
  root.append(legend([
    ["n (coloured)", "goods cubes of that colour: books, jewellery, fruit, pocket watches, silverware, handkerchiefs"],
    ["ns", "shillings; a price on the wheel"],
    ["C▲ C▼", "a constable and the way its arrow faces"],
    ["n (round)", "an urchin of seat n"], ["⌂", "urchins home with Fagin"], ["◍", "urchins in the den"],
    ["track", "a location's spaces, the street (left) to level 5 (right)"],
  ]));
  return root;
}

// A Fagin's Gang market move's note: the colour's price on the wheel now (FG-16).
function faginMoveNote(typed, state, data) {
  if (!typed || !typed.colour || !state || !/SELL|BUY/.test(typed.kind || "")) return null;
  const colour = enumName(typed.colour, "COLOUR_");
  const i = data.board.colours.indexOf(colour);
  const price = (state.prices || [])[i];
  if (i < 0 || price === undefined) return null;
  if (/SELL/.test(typed.kind)) {
    return el("span", { class: "price", title: `${data.board.goods[i]}: sold at the wheel's price now, ${price} shillings` },
      `${price}s`);
  }
  return el("span", { class: "price", title: `${data.board.goods[i]}: the wheel's price now is ${price} shillings; a purchase costs more` },
    `wheel ${price}s`);
}

// ------------------------------------------------------------------------------------------
// The entry points

const DRAWERS = {
  london: (state, data, human) => drawLondon(state.london, data, human),
  oliver_twist: (state, data, human) => drawOliver(state.oliverTwist, data, human),
  kids_of_london: (state, data, human) => drawKids(state.kidsOfLondon, data, human),
  gangs_of_kyoto: (state, data, human) => drawKyoto(state.gangsOfKyoto, data, human),
  fagins_gang: (state, data, human) => drawFagin(state.faginsGang, data, human),
};

// A legal action's typed form is the game's field of Action's oneof ({"id": 16, "label": "buy City",
// "london": {"kind": "KIND_BUY", "borough": "city"}}).
const MOVE_NOTES = {
  london: (action, state, data) => londonMoveNote(action.london, data),
  oliver_twist: (action, state, data) => oliverMoveNote(action.oliverTwist, state && state.oliverTwist, data),
  fagins_gang: (action, state, data) => faginMoveNote(action.faginsGang, state && state.faginsGang, data),
};

// The drawn piece a legal move acts on, if any: a borough to buy, a space of the street map.
const MOVE_PIECES = {
  london: (action) => (action.london && action.london.borough && /BUY/.test(action.london.kind || "")
    ? `.borough[data-borough="${action.london.borough}"]` : null),
  oliver_twist: (action) => {
    const space = otSpaceOf(action.oliverTwist);
    return space === null ? null : `g.space[data-space="${space}"]`;
  },
};

// Makes the drawn pieces that legal moves act on pressable: each presses its move's button
// (the buttons stay, labelled, for keyboards and screen readers).
export function linkMoves(game, root, moves) {
  const piece = MOVE_PIECES[game];
  if (!piece || !root) return;
  for (const { action, button } of moves) {
    const selector = piece(action);
    const node = selector && root.querySelector(selector);
    if (!node) continue;
    node.classList.add("choice");
    node.setAttribute("data-action-id", String(action.id));
    node.addEventListener("click", () => { if (!button.disabled) button.click(); });
    const title = node.querySelector("title");
    if (title) title.textContent += ` — click: ${action.label}`;
    else node.title += ` — click: ${action.label}`;
  }
}

// A component's name for people, from the identifier a game may give it on the wire (a
// belief's item, say): Oliver Twist's token and Character ids, Gangs of Kyoto's card codes,
// London's card ids. Anything else (already a name) is returned as it is.
export function componentName(game, id, data = {}) {
  if (typeof id !== "string" || !id) return id;
  if (game === "oliver_twist" && /^[a-z][a-z0-9_]*$/.test(id)) {
    const characters = ((data.components || {}).characters || []).map((c) => c.id);
    if (characters.includes(id)) return `${otCharacterName(id)} (Character card)`;
    return otToken(id, data).name;
  }
  if (game === "gangs_of_kyoto") {
    const code = /^(\d+)(?:\+(\d+)b)?(d)?$/.exec(id);
    if (code) {
      const bells = Number(code[2] || 0);
      return `a ${code[1]}${bells ? ` with ${bells} bell${bells > 1 ? "s" : ""}` : ""}${code[3] ? " with a draw symbol" : ""}`;
    }
  }
  if (game === "london" && data.cards) {
    const card = londonCards(data)[id];
    if (card) return card.name;
  }
  return id;
}

// Whether the page can draw `game`'s table.
export function canDraw(game) {
  return Boolean(DRAWERS[game]);
}

// The drawn table of `state` (a ViewState's state) for seat `human`, or null if the game has none.
export function drawTable(game, state, data, human) {
  const draw = DRAWERS[game];
  return draw ? draw(state, data, human) : null;
}

// A move's extra note on its button (a price, a card's cost, a space's token), or null.
export function moveNote(game, action, state, data) {
  const note = MOVE_NOTES[game];
  return note ? note(action, state, data) : null;
}
