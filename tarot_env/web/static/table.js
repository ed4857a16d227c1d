// The page of `tarot serve`: one WebSocket, the lobby, a table, the leaderboard.
// Every text that comes from the server (names above all) is put in the page with textContent,
// never as HTML: a name such as <img onerror=...> shows as those characters.
import { face as cardFace } from "./cards.js";

// what the menus offer comes from the server's welcome (the games, their titles and player counts,
// the room's robots and settings' limits): the page keeps no copy of them
let PLAYERS = {};
let TITLES = {};
let ROBOTS = [];
let LIMITS = {};
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SETTINGS = [
  ["time_per_turn", "Time per turn (seconds)", "number", "any"],
  ["deals", "Deals per game", "number", "1"],
  ["chips", "Play for chips", "checkbox"],
  ["stake", "Stake per game (chips)", "number", "1"],
  ["practice", "Practice (counts for nothing)", "checkbox"],
  ["private", "Private table (invitation link)", "checkbox"],
  ["spectators", "Spectators allowed", "checkbox"],
];

const $ = (id) => document.getElementById(id);
let ws = null;
let me = null;
let current = null; // the table message last received
let deadline = null; // local time (ms) when the turn runs out
let nextDeal = null;
let invite = null; // from an invitation link: #table=ID&invite=TOKEN
let inviteTable = null;

/** An element with text children only (strings become text nodes, never HTML). */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
  if (text) setTimeout(() => { if (box.textContent === text) box.hidden = true; }, 6000);
}

function show(section) {
  for (const id of ["home", "lobby", "table", "leaderboard"]) $(id).hidden = id !== section;
  document.body.classList.toggle("at-table", section === "table"); // the table fills the window (table.css)
  if (section === "home") loadLeaders();
}

// ------------------------------------------------------------------------------------- cards
// A card is a button showing its face from the sprite the project draws (static/cards.svg, made by
// tarot_env/web/cards_svg.py), named by the one notation of docs/interface.md (KH, T21, EX; KS, ANG, MAT):
// the same name the log, the buttons and the end of a deal write. Its accessible name says it in words.
const FR_SUITS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const BO_SUITS = { S: "spade (swords)", B: "bastoni (batons)", C: "coppe (cups)", D: "denari (coins)" };
const RANK_WORDS = { K: "king", Q: "queen", N: "knight", J: "jack", A: "ace" };
const BO_TRUMPS = { ANG: "Angelo, the highest trump", MON: "Mondo", SOL: "Sole", LUN: "Luna", BEG: "Bégato, the lowest trump", MAT: "Matto, the excuse" };

function french() { return !current || current.table.env.startsWith("french"); }

function cardWords(name) {
  if (name === "EX") return "the Excuse";
  if (name in BO_TRUMPS && !french()) return BO_TRUMPS[name];
  let m = /^M([1-4])$/.exec(name);
  if (m && !french()) return `Moro ${m[1]}`;
  m = /^T(\d+)$/.exec(name);
  if (m) return `trump ${m[1]}`;
  m = /^(10|[1-9AJNQK])([SHDCB])$/.exec(name);
  if (m) return `${RANK_WORDS[m[1]] || m[1]} of ${(french() ? FR_SUITS : BO_SUITS)[m[2]]}`;
  return name;
}

/** The face of card ``name``: an <svg> using the sprite's symbol (a name not of the notation draws nothing). */
function face(name) {
  return cardFace(name, french());
}

function cardEl(c, extra = {}) {
  const b = el("button", { class: `card s${c.suit}`, type: "button", "data-card": c.name, ...extra }, face(c.name));
  b.append(el("span", { class: "name" }, c.name));
  b.setAttribute("aria-label", `${c.name}: ${cardWords(c.name)}`);
  return b;
}

/** The table's log and the server's lines in a player's words: names for player_N, "1 bout", no snake_case. */
function words(t, line) {
  let text = line.replace(/\bplayer_(\d+)\b/g, (_, p) => seatName(t, Number(p)));
  let who = "";
  for (const s of t.seats) {
    if (s.name && text.startsWith(`${s.name}: `)) { who = `${s.name}: `; text = text.slice(who.length); break; }
  }
  text = text.replace(/\bwith 1 bouts\b/g, "with 1 bout").replace(/\b([a-z]+)_([a-z]+)\b/g, "$1 $2").replace(/\bpoignee\b/g, "poignée");
  return who + text;
}

function seatName(t, p) {
  const s = t.seats[p];
  return s && s.name ? s.name : `seat ${p}`;
}

// ------------------------------------------------------------------------------------- connection
// The page closes its socket when it is hidden for good or put in the back-forward cache (pagehide),
// so that the room learns at once that the person has gone and a robot takes his seat; shown again
// from that cache (pageshow, persisted), it connects again and the hello gives the seat back. The
// server also pings every few seconds and drops a socket that stays silent (a laptop asleep, a
// network gone): the page answers every ping with a pong.
let hidden = false;

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${proto}://${location.host}/ws`);
  ws = socket;
  socket.addEventListener("open", () => {
    const token = localStorage.getItem("tarot-token");
    const name = localStorage.getItem("tarot-name");
    if (token || name) send({ type: "hello", ...(token ? { token } : {}), ...(name ? { name } : {}) });
  });
  socket.addEventListener("message", (ev) => receive(JSON.parse(ev.data)));
  socket.addEventListener("close", () => {
    if (ws !== socket) return; // an old socket, already replaced
    document.body.dataset.connected = "no";
    if (!hidden) setTimeout(() => { if (ws === socket && !hidden) connect(); }, 1000);
  });
}

window.addEventListener("pagehide", () => {
  hidden = true;
  if (ws) ws.close(1001, "page hidden");
});
window.addEventListener("pageshow", (ev) => {
  hidden = false;
  if (ev.persisted && (!ws || ws.readyState >= WebSocket.CLOSING)) connect();
});

function receive(m) {
  if (m.type === "ping") {
    send({ type: "pong" });
  } else if (m.type === "welcome") {
    me = m.user;
    ({ games: PLAYERS, titles: TITLES, robots: ROBOTS, limits: LIMITS } = m);
    fillGames();
    localStorage.setItem("tarot-token", m.token);
    localStorage.setItem("tarot-name", m.user.name);
    document.body.dataset.connected = "yes";
    $("hello-form").hidden = true;
    $("me-info").textContent = `${m.user.name} — ${m.user.chips} chips, ${m.user.xp} XP`;
    if (inviteTable !== null && !current) send({ type: "watch", table: inviteTable, invite });
    if (quickGame === "hello") { quickGame = "create"; send({ type: "create", env: "french_tarot_v0", players: 4 }); }
    else if (!current) show("lobby");
  } else if (m.type === "lobby") { // the whole list: on coming to the lobby
    lobby = new Map(m.tables.map((t) => [t.id, t]));
    renderLobby();
  } else if (m.type === "lobby_update") { // what changed since: tables added or changed (whole), ids removed
    for (const t of m.tables) lobby.set(t.id, t);
    for (const id of m.removed) lobby.delete(id);
    renderLobby();
  } else if (m.type === "table") {
    current = m;
    if (m.me) $("me-info").textContent = `${m.me.name} — ${m.me.chips} chips, ${m.me.xp} XP`;
    renderTable(m.table);
    show("table");
    if (quickGame === "create") quickStep(m.table);
    // the écart being sent: the next card once the table has answered the one before
    if (sending.length && m.table.deal && m.table.deal.aside && m.table.turn === m.table.you) sendAside(m.table.deal);
    document.body.dataset.tableMessages = String(Number(document.body.dataset.tableMessages || 0) + 1);
  } else if (m.type === "left") { // the owner closed the table to spectators: back to the lobby
    current = null;
    show("lobby");
    showError(m.message);
  } else if (m.type === "leaderboard") {
    renderLeaders(m.rows);
  } else if (m.type === "error") {
    if (m.about === "move") { $("refusal").textContent = m.message; sending = []; if (current) renderTable(current.table); }
    else showError(m.message);
  }
}

// ------------------------------------------------------------------------------------- lobby
let lobby = new Map(); // table id -> the table's summary: the whole list, then each change applied

function renderLobby() {
  const body = $("tables").querySelector("tbody");
  body.replaceChildren();
  for (const t of [...lobby.values()].sort((a, b) => a.id - b.id)) {
    const seats = t.seats.map((s) => (s.kind === "empty" ? "—" : (s.owner ? "★" : "") + s.name)).join(", ");
    const actions = el("td");
    const inv = inviteTable === t.id ? invite : undefined;
    if (t.state === "waiting" || t.state === "over") {
      t.seats.forEach((s) => {
        if (s.kind === "empty") {
          actions.append(el("button", { type: "button", class: "join", onclick: () => send({ type: "join", table: t.id, seat: s.seat, ...(inv ? { invite: inv } : {}) }) }, `sit at ${s.seat}`));
        }
      });
    }
    if (t.spectators) actions.append(el("button", { type: "button", class: "watch", onclick: () => send({ type: "watch", table: t.id, ...(inv ? { invite: inv } : {}) }) }, "watch"));
    body.append(el("tr", { "data-table": String(t.id) }, el("td", {}, t.id), el("td", {}, t.title + (t.private ? " (private)" : "")), el("td", {}, seats), el("td", {}, t.state), actions));
  }
}

function fillGames() {
  const menu = $("create-env");
  const chosen = menu.value; // a welcome after a reconnection keeps the game chosen
  menu.replaceChildren(...Object.keys(PLAYERS).map((env) => el("option", { value: env }, TITLES[env])));
  if (chosen in PLAYERS) menu.value = chosen;
  fillPlayers();
}

function fillPlayers() {
  const env = $("create-env").value;
  $("create-players").replaceChildren(...PLAYERS[env].map((n) => el("option", { value: String(n) }, n)));
}

// ------------------------------------------------------------------------------------- table
// where each seat sits around the felt, the viewer's seat at the bottom (a spectator sees seat 0 there);
// play goes anticlockwise in both games, so the next seat to play sits at the bottom player's right
const PLACES = {
  2: ["bottom", "top"],
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  5: ["bottom", "right", "top-right", "top-left", "left"],
  6: ["bottom", "right", "top-right", "top", "top-left", "left"],
};
function place(t, p) {
  const n = t.seats.length;
  const bottom = t.you === null ? 0 : t.you;
  return PLACES[n][(p - bottom + n) % n];
}

let aside = []; // the cards chosen for the écart or the discard, not yet sent (undo takes them back)
let sending = []; // the chosen cards being sent, one move per table message
let collected = null; // the number of the last trick drawn going to its winner
let chelemAsked = null; // the deal ("table/game/deal") whose chelem button was pressed: its confirmation shows

function renderTable(t) {
  const youSeat = t.you;
  const deal = t.deal;
  $("table-title").textContent = `#${t.id} ${t.title}`;
  $("table-state").textContent = `${t.state}${t.game_no ? ` — game ${t.game_no}, deals played ${t.deal_no}/${t.settings.deals}` : ""}` + (t.practice ? ` — ${t.practice}` : t.settings.chips ? ` — for ${t.settings.stake} chips` : " — for points");
  $("settings-button").classList.toggle("changed", t.changed.length > 0);
  $("settings-button").title = t.changed.length ? `changed by the owner: ${t.changed.join(", ")}` : "table settings";
  // the invitation link, to the owner, while it can bring someone: a seat to fill, or a private table to watch
  // (a guest alone with robots at a full table has nobody to invite)
  $("invite-box").hidden = !(t.invite && (t.seats.some((s) => s.kind === "empty") || (t.private && t.spectators)));
  if (t.invite) $("invite-link").value = `${location.origin}/#table=${t.id}&invite=${t.invite}`;
  renderSettings(t);
  renderOwnerBar(t);
  const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest("#hand .card, #moves button, #aside-bar button") : null;
  const focusKey = focused ? (focused.dataset.card || focused.id || focused.dataset.action) : null;

  // seats around the felt (a grid: table.css places each seat and each card of the trick by its place)
  $("felt").dataset.players = String(t.seats.length);
  const seats = $("seats");
  seats.replaceChildren();
  t.seats.forEach((s) => {
    const d = el("div", { class: `seat at-${place(t, s.seat)}` + (t.turn === s.seat ? " turn" : ""), "data-seat": String(s.seat) });
    if (s.owner) d.append(el("span", { class: "star", title: "table owner" }, "★ "));
    d.append(el("span", { class: "name" }, s.kind === "empty" ? "(empty)" : s.name));
    if (s.seat === youSeat) d.append(el("span", { class: "tag" }, "you"));
    if (s.kind === "robot") d.append(el("span", { class: "tag" }, "robot"));
    if (s.robot_plays) d.append(el("span", { class: "tag away" }, s.abandoned ? "abandoned: robot plays" : "away: robot plays"));
    if (deal) {
      const pl = deal.players[s.seat];
      const bits = [`${pl.cards} card${pl.cards === 1 ? "" : "s"}`];
      if (deal.dealer === s.seat) bits.push("dealer");
      if (pl.bid) bits.push(pl.bid === "pass" ? "passed" : `bid ${pl.bid.replace("_", " ")}`);
      if (pl.tricks !== undefined) bits.push(`${pl.tricks} trick${pl.tricks === 1 ? "" : "s"}`);
      d.append(el("div", { class: "info" }, bits.join(" · ")));
      if (pl.poignee) d.append(el("div", { class: "shown" }, `${pl.poignee} poignée: ${pl.shown.map((c) => c.name).join(" ")}`));
      if (pl.declared) d.append(el("div", { class: "shown" }, `declared ${pl.declared}: ${pl.shown.map((c) => c.name).join(" ")}`));
    }
    d.append(el("div", { class: "total" }, `total ${t.totals[s.seat]}`));
    if (s.kind === "empty" && youSeat === null && (t.state === "waiting" || t.state === "over")) {
      d.append(el("button", { type: "button", class: "join", onclick: () => send({ type: "join", table: t.id, seat: s.seat, ...(invite ? { invite } : {}) }) }, "sit here"));
    }
    seats.append(d);
  });

  // whose turn, the contract
  $("turn").textContent = t.turn === null ? (t.state === "between" ? "between deals" : t.state) : (t.turn === youSeat ? "your turn" : `${seatName(t, t.turn)} to play`);
  deadline = t.time_left === null ? null : Date.now() + t.time_left * 1000;
  nextDeal = t.next_deal_in === null ? null : Date.now() + t.next_deal_in * 1000;
  tick();
  let contract = "";
  if (deal && deal.contract) {
    const c = deal.contract;
    contract = `${seatName(t, c.taker)} ${deal.game === "french" ? "took" : "plays alone:"} ${c.name.replace("_", " ")}` + (c.chelem ? ", chelem announced" : "") + (c.called ? `, called ${c.called}` : "") + (c.partner !== undefined ? ` (partner ${seatName(t, c.partner)})` : "");
  }
  if (deal && deal.sides) contract += (contract ? " — " : "") + deal.sides.map((side) => side.map((p) => seatName(t, p)).join(" & ")).join(" against ");
  $("contract").textContent = contract;

  // the trick in the middle, each card in front of who played it; a finished trick goes to its winner
  $("trick").replaceChildren(...(deal ? deal.trick.map((x) => el("span", { class: `played at-${place(t, x.seat)}` }, cardEl(x.card, { disabled: true }))) : []));
  const last = deal ? deal.last_trick : null;
  if (last && collected !== `${t.id}/${t.game_no}/${t.deal_no}/${last.no}`) {
    collected = `${t.id}/${t.game_no}/${t.deal_no}/${last.no}`;
    collect(t, last);
  }
  $("last-trick").replaceChildren(...(last ? [...last.cards.map((x) => el("span", { class: "played" }, cardEl(x.card, { disabled: true }), el("small", {}, seatName(t, x.seat)))), el("span", { class: "winner" }, `won by ${seatName(t, last.winner)}`)] : []));
  $("chien-box").hidden = !(deal && deal.chien);
  $("chien").replaceChildren(...(deal && deal.chien ? deal.chien.map((c) => cardEl(c, { disabled: true })) : []));
  renderLegend(t);

  // the prompt, the hand and the moves
  const moves = deal ? deal.moves : [];
  const asideNeed = deal && deal.aside ? deal.aside : 0;
  if (!asideNeed) { aside = []; sending = []; }
  $("prompt").textContent = deal && deal.prompt ? deal.prompt : "";
  const hand = $("hand");
  hand.replaceChildren();
  const cardMoves = new Set();
  if (deal && deal.hand) {
    for (const c of deal.hand) {
      const playable = c.action !== undefined && c.action !== null;
      const chosen = aside.includes(c.name) || sending.includes(c.name);
      const cls = playable ? (c.legal ? "legal" : "illegal") : "";
      const b = cardEl(c, { class: `card s${c.suit} ${cls}${chosen ? " chosen" : ""}` });
      if (playable) {
        if (c.legal) cardMoves.add(c.name);
        b.dataset.action = String(c.action);
        if (asideNeed) {
          b.title = c.legal ? (chosen ? "chosen: click to take it back" : "choose this card") : "may not be put aside";
          b.setAttribute("aria-pressed", chosen ? "true" : "false");
          b.addEventListener("click", () => chooseAside(c, asideNeed));
        } else {
          b.title = c.legal ? "play this card" : "not legal now (click to see why)";
          b.addEventListener("click", () => { $("refusal").textContent = ""; send({ type: "move", action: c.action }); });
        }
      } else {
        b.disabled = true;
      }
      hand.append(b);
    }
  }
  // a chelem is announced in two steps: its button asks for a confirmation in the page, only Yes sends it
  // (and it comes after "No chelem", which takes the focus first)
  const dealKey = `${t.id}/${t.game_no}/${t.deal_no}`;
  if (!moves.some((m) => m.verb === "chelem")) chelemAsked = null;
  const shown = moves.filter((m) => !(m.card && cardMoves.has(m.card)));
  const ordered = [...shown.filter((m) => m.verb !== "chelem"), ...shown.filter((m) => m.verb === "chelem")];
  $("moves").replaceChildren(...ordered.map((m) => {
    if (m.verb === "chelem" && chelemAsked === dealKey) return chelemConfirm(m);
    const go = m.verb === "chelem" ? () => { chelemAsked = dealKey; renderTable(current.table); $("chelem-confirm").focus(); } : () => { $("refusal").textContent = ""; send({ type: "move", action: m.action }); };
    const b = el("button", { type: "button", class: "move", "data-action": String(m.action), "data-verb": m.verb || "", title: m.help || "", onclick: go }, m.label || m.text);
    return m.help ? el("span", { class: "move-box" }, b, el("small", { class: "move-help" }, m.help)) : b;
  }));
  renderAside(asideNeed);
  layoutHand();
  const priv = [];
  if (deal && deal.ecart) priv.push(`your écart: ${deal.ecart.map((c) => c.name).join(" ")}`);
  else if (deal && deal.ecart_trumps) priv.push(`trumps in the taker's écart (shown): ${deal.ecart_trumps.map((c) => c.name).join(" ")}`);
  if (deal && deal.discards) priv.push(`your discards: ${deal.discards.map((c) => c.name).join(" ")}`);
  if (deal && deal.extra) priv.push(`+${deal.extra} cards to pick up after the claims`);
  $("private").textContent = priv.join(" — ");
  if (!moves.length) $("refusal").textContent = "";
  keepFocus(focusKey, t.turn === youSeat && moves.length > 0);

  // results, cancellation, log
  const res = $("result");
  res.replaceChildren();
  if (t.last_result) res.append(dealResult(t));
  if (t.game_result) {
    const g = t.game_result;
    const text = g.cancelled ? "Game annulled by agreement: no points, no XP, stakes returned." : `Game over: won by ${g.winners.map((p) => seatName(t, p)).join(", ")}. ${g.official ? "Official game" : `Not counted (${g.reason})`}; XP: ${g.xp.map((x, p) => `${seatName(t, p)} ${x}`).join(", ")}` + (t.stakes.some((s) => s) ? `; chips: ${g.chips_net.map((x, p) => `${seatName(t, p)} ${x >= 0 ? "+" : ""}${x}`).join(", ")}, bank ${g.bank}` : "");
    res.append(el("p", { class: "game-result" }, text));
  }
  renderCancel(t);
  $("scores").textContent = `totals: ${t.seats.map((s) => `${seatName(t, s.seat)} ${t.totals[s.seat]}`).join(", ")}`;
  $("events").replaceChildren(...t.events.map((e) => el("li", {}, words(t, e))));
  $("records").replaceChildren(...(t.records.length ? [el("span", {}, "Deal records (replay with tarot replay FILE): "), ...t.records.map((r) => el("a", { href: `/api/records/${r}`, download: `record${r}.json` }, `#${r} `))] : []));
}

/** The chelem's confirmation, in place of its button: what it promises, Yes (sends it) and Cancel. */
function chelemConfirm(m) {
  const yes = el("button", { type: "button", class: "move", id: "chelem-confirm", "data-action": String(m.action), "data-verb": "chelem", onclick: () => { chelemAsked = null; $("refusal").textContent = ""; send({ type: "move", action: m.action }); } }, "Yes, announce a chelem");
  const no = el("button", { type: "button", id: "chelem-cancel", onclick: () => { chelemAsked = null; renderTable(current.table); } }, "Cancel");
  return el("span", { class: "confirm-box", role: "group", "aria-label": "confirm the chelem" },
    el("span", { class: "question" }, "Announce a chelem? You must then win every trick: +400 if you do, −200 if you fail."), yes, no);
}

/** The hand's columns: one row of cards, or two (on a narrow screen) when one row would overlap them so
 * much that a card showed less than half its width or its name ran into the next one's; the cards overlap,
 * the last of a row whole. */
function layoutHand() {
  const hand = $("hand");
  const n = hand.childElementCount;
  if (!n) { hand.style.gridTemplateColumns = ""; return; }
  const width = hand.clientWidth;
  const cw = parseFloat(getComputedStyle(hand.firstElementChild).width) || 60;
  const label = Math.max(0, ...[...hand.querySelectorAll(".card .name")].map((e) => e.getBoundingClientRect().width)) + 3;
  const fits = (k) => k <= 1 || (width - cw) / (k - 1) >= Math.max(cw * 0.52, label);
  const perRow = !width || fits(n) ? n : Math.ceil(n / 2);
  hand.style.gridTemplateColumns = perRow > 1 ? `repeat(${perRow - 1}, minmax(0, var(--hand-cw))) var(--hand-cw)` : "var(--hand-cw)";
}

/** The finished trick's cards drawn in the middle, then moved off toward its winner's seat. */
function collect(t, last) {
  const layer = $("collect");
  const cards = last.cards.map((x) => el("span", { class: `played at-${place(t, x.seat)}` }, cardEl(x.card, { disabled: true, tabindex: "-1" })));
  const group = el("div", { class: "going", "data-winner": String(last.winner) }, ...cards);
  layer.replaceChildren(group);
  $("trick-note").textContent = `trick ${last.no} to ${seatName(t, last.winner)}`;
  requestAnimationFrame(() => requestAnimationFrame(() => group.classList.add(`to-${place(t, last.winner)}`)));
  setTimeout(() => { if (group.parentNode) group.remove(); }, 1400);
}

// ------------------------------------------------------------------------------ the écart, a discard
// The person chooses the cards, sees how many are left, may take the last one back (Undo), and only
// Confirm sends them: one move per card, each once the table has answered the one before.
function chooseAside(c, need) {
  if (sending.length) return;
  $("refusal").textContent = "";
  if (aside.includes(c.name)) aside = aside.filter((n) => n !== c.name);
  else if (!c.legal) { send({ type: "move", action: c.action }); return; } // the rules say why not
  else if (aside.length < need) aside.push(c.name);
  renderTable(current.table);
}

function renderAside(need) {
  $("aside-bar").hidden = !need;
  if (!need) return;
  const left = need - aside.length;
  $("aside-count").textContent = sending.length ? `putting ${sending.length} aside…` : `${aside.length} of ${need} chosen` + (left ? ` — choose ${left} more` : " — confirm, or undo");
  $("aside-undo").disabled = !aside.length || sending.length > 0;
  $("aside-confirm").disabled = left !== 0 || sending.length > 0;
}

function sendAside(deal) {
  const name = sending[0];
  const c = deal.hand.find((h) => h.name === name);
  if (!c) { sending = sending.slice(1); return; }
  sending = sending.slice(1);
  send({ type: "move", action: c.action });
}

function keepFocus(key, myTurn) {
  const active = document.activeElement;
  const typing = active && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName);
  let target = null;
  if (key) target = document.querySelector(`#hand .card[data-card="${CSS.escape(key)}"], #aside-bar #${CSS.escape(key)}, #moves button[data-action="${CSS.escape(key)}"]`);
  // the écart chosen with the keyboard: once enough cards are chosen, Confirm takes the focus
  if (target && target.matches("#hand .card") && !$("aside-bar").hidden && !$("aside-confirm").disabled) target = $("aside-confirm");
  if (target && target.disabled) target = null;
  if (!target && myTurn && !typing && (!active || active === document.body || key)) {
    const confirm = $("aside-confirm");
    target = !$("aside-bar").hidden && !confirm.disabled ? confirm : document.querySelector("#hand .card.legal, #moves button.move");
  }
  if (target && target !== active) target.focus();
}

/** How the last deal ended, term by term as the rules page computes it (the server's breakdown, with names). */
function dealResult(t) {
  const r = t.last_result;
  const box = el("div", { class: "deal-result" });
  const score = t.deal && t.deal.score;
  const n = (p) => seatName(t, p);
  if (!score || score.result === "thrown_in" || (score.game === "french" && score.result !== "played")) {
    box.append(el("p", {}, words(t, r.summary) + (r.redeal ? " — dealt again" : "")));
    return box;
  }
  if (score.game === "french") {
    const bouts = `${score.bouts} bout${score.bouts === 1 ? "" : "s"}`;
    box.append(el("p", { class: "headline" }, `${n(score.taker)} took a ${score.contract}` + (score.partner !== null ? ` with ${n(score.partner)}` : "") + `: ${score.attack_points} points with ${bouts}, ${score.threshold} needed — contract ${score.made ? "made" : "lost"}.`));
    const rows = score.terms.map((term) => el("tr", {}, el("td", {}, (term.seat !== undefined ? `${n(term.seat)}: ` : "") + term.what), el("td", {}, term.how), el("td", { class: "num" }, term.points === null ? "" : signed(term.points))));
    // the contract and petit au bout are multiplied (×2 for a garde: their lines say so), the poignées and the chelem are not
    rows.push(el("tr", { class: "sum" }, el("td", {}, "score of the attack"), el("td", {}, "added up"), el("td", { class: "num" }, signed(score.unit))));
    box.append(el("table", { class: "breakdown" }, el("tbody", {}, ...rows)));
  } else {
    const sides = score.sides || [];
    const head = el("tr", {}, el("th", {}, ""), ...sides.map((side) => el("th", {}, side.map(n).join(" & "))));
    const rows = (score.rows || []).map((row) => el("tr", {}, el("td", {}, row.what), ...row.points.map((v) => el("td", { class: "num" }, String(v)))));
    if (score.total) rows.push(el("tr", { class: "sum" }, el("td", {}, "total"), ...score.total.map((v) => el("td", { class: "num" }, String(v)))));
    box.append(el("p", { class: "headline" }, `hand ${t.deal_no}: ` + handVerdict(t, score)));
    if (sides.length) box.append(el("table", { class: "breakdown" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  }
  box.append(el("p", { class: "scores" }, "scores: " + score.scores.map((v, p) => `${n(p)} ${signed(v)}`).join(", ") + (r.redeal ? " — dealt again" : "")));
  return box;
}

function handVerdict(t, s) {
  const n = (p) => seatName(t, p);
  if (s.claimer !== undefined) return `${n(s.claimer)} claimed ${s.claim_value}: ${s.result === "claimed" ? "right" : "wrong, below the target"}`;
  if (s.soloist !== undefined) return `${n(s.soloist)} played alone (${s.contract}) and ${s.soloist_won ? "won" : "lost"}` + (s.poste !== undefined ? `; the winner's ${s.winner_points} points are ${s.poste} poste` : "");
  if (s.losers) return s.losers.length ? `lost by ${s.losers.map(n).join(" and ")}` : "nobody lost";
  return "the hand is played out";
}

function signed(v) { return `${v > 0 ? "+" : ""}${v}`; }

/** The Bolognese cards explained: the suits, the courts and the trumps in order, with their faces. */
function renderLegend(t) {
  const box = $("legend");
  box.hidden = french();
  if (french() || $("legend-body").childElementCount) return;
  const item = (name, text) => el("div", { class: "legend-item" }, cardEl({ name, suit: 0 }, { disabled: true, tabindex: "-1" }), el("span", {}, text));
  $("legend-body").append(
    el("p", {}, "Suits: spade S (swords), bastoni B (batons), coppe C (cups), denari D (coins). Courts: K re, Q regina, N cavallo, J fante; then A and 10 … 6 (in coppe and denari the small cards run backwards: A 6 7 8 9 10, the ace highest)."),
    el("div", { class: "legend-row" }, item("KS", "K re"), item("QB", "Q regina"), item("NC", "N cavallo"), item("JD", "J fante"), item("AD", "A asso")),
    el("p", {}, "Trumps, highest first: ANG Angelo, MON Mondo, SOL Sole, LUN Luna, T16 … T5, the four Mori M1 … M4 (equal: the last one played wins), BEG Bégato. MAT the Matto excuses its holder and never wins."),
    el("div", { class: "legend-row" }, item("ANG", "Angelo"), item("MON", "Mondo"), item("SOL", "Sole"), item("LUN", "Luna"), item("T16", "T16 Stella"), item("T5", "T5 Amore"), item("M1", "M1 Moro"), item("BEG", "Bégato"), item("MAT", "Matto")),
  );
}

// what may change between two deals of a game (settings.BETWEEN_DEALS): the rest is fixed until the game ends
const BETWEEN_DEALS = ["private", "spectators"];
let settingsState = null; // the table's state when the settings were last drawn

function renderSettings(t) {
  const panel = $("settings-panel");
  const editable = t.owner_is_you && t.state !== "playing";
  const rows = SETTINGS.map(([key, label, type, step]) => {
    const input = el("input", { type, id: `set-${key}`, "data-setting": key });
    if (type === "checkbox") input.checked = t.settings[key];
    else { input.value = String(t.settings[key]); [input.min, input.max] = LIMITS[key].map(String); input.step = step; }
    const fixed = t.state === "between" && !BETWEEN_DEALS.includes(key);
    input.disabled = !editable || fixed;
    return el("div", { class: t.changed.includes(key) ? "changed" : "" }, el("label", {}, `${label} `, input), t.changed.includes(key) ? " (changed)" : "", editable && fixed ? el("span", { class: "fixed" }, " (fixed until the game ends)") : "");
  });
  const children = [...rows];
  if (editable) {
    children.push(el("button", {
      type: "button", id: "save-settings", onclick: () => {
        const changes = {};
        for (const [key, , type] of SETTINGS) {
          const input = $(`set-${key}`);
          const value = type === "checkbox" ? input.checked : Number(input.value);
          if (value !== t.settings[key]) changes[key] = value;
        }
        if (Object.keys(changes).length) send({ type: "settings", changes });
      },
    }, "Save settings"));
  }
  children.push(el("button", { type: "button", id: "close-settings", onclick: () => { $("settings-panel").hidden = true; } }, "Close"));
  // open until closed (⚙ or Close), or until a deal starts: the settings do not change during one
  const open = !panel.hidden && !(t.state === "playing" && settingsState !== "playing");
  settingsState = t.state;
  panel.replaceChildren(...children);
  panel.hidden = !open;
}

function renderOwnerBar(t) {
  const bar = $("owner-bar");
  bar.replaceChildren();
  if (!t.owner_is_you) return;
  if (t.state === "waiting" || t.state === "over") {
    t.seats.forEach((s) => {
      if (s.kind === "empty") {
        const pick = el("select", { id: `robot-${s.seat}` }, ...ROBOTS.map((r) => el("option", { value: r }, r)));
        bar.append(el("span", { class: "robot-pick" }, `seat ${s.seat}: `, pick, el("button", { type: "button", class: "add-robot", "data-seat": String(s.seat), onclick: () => send({ type: "robot", seat: s.seat, robot: pick.value }) }, "add robot")));
      } else if (s.kind === "robot") {
        bar.append(el("button", { type: "button", class: "remove-robot", onclick: () => send({ type: "robot", seat: s.seat, robot: null }) }, `remove robot ${s.seat}`));
      }
    });
    bar.append(el("button", { type: "button", id: "start", onclick: () => send({ type: "start" }) }, t.state === "over" ? "Start a new game" : "Start the game"));
  }
  if (t.state === "between") bar.append(el("button", { type: "button", id: "next-deal", onclick: () => send({ type: "next" }) }, "Deal the next deal now"));
}

function renderCancel(t) {
  const box = $("cancel-box");
  box.replaceChildren();
  if (t.you === null || !(t.state === "playing" || t.state === "between")) return;
  if (!t.cancel) {
    box.append(el("button", { type: "button", id: "cancel-propose", onclick: () => send({ type: "cancel" }) }, "Propose to cancel the game"));
    return;
  }
  const accepted = t.cancel.accepted.map((p) => seatName(t, p));
  box.append(el("span", { id: "cancel-state" }, `Cancellation proposed; accepted by ${accepted.join(", ")} (${t.cancel.accepted.length}/${t.cancel.voters.length}). `));
  if (!t.cancel.accepted.includes(t.you)) {
    box.append(el("button", { type: "button", id: "cancel-accept", onclick: () => send({ type: "cancel_answer", accept: true }) }, "Accept"));
    box.append(el("button", { type: "button", id: "cancel-refuse", onclick: () => send({ type: "cancel_answer", accept: false }) }, "Refuse"));
  }
}

// ------------------------------------------------------------------------------------- play now
// The first page's one button: a guest (the name typed, or one the server gives: "Guest" and a number nobody
// has) enters, creates a French Tarot table for four, seats three robots (the welcome's first: the
// rule-based one) and starts the deal, one request per table message. No name is drawn here: a number drawn
// by the page could be taken (the hello was then refused), and a returning person's token would have been
// renamed to it; the welcome says the name the server gave.
let quickGame = null; // null, "hello" (waiting for the welcome), "create" (seating robots, then starting)

function playNow() {
  quickGame = "hello";
  if (me) { quickGame = "create"; send({ type: "create", env: "french_tarot_v0", players: 4 }); return; }
  const typed = $("name").value.trim();
  const token = localStorage.getItem("tarot-token");
  send({ type: "hello", ...(typed ? { name: typed } : {}), ...(token ? { token } : {}) });
}

function quickStep(t) {
  if (!t.owner_is_you) { quickGame = null; return; }
  if (t.state !== "waiting") { quickGame = null; return; }
  const empty = t.seats.find((s) => s.kind === "empty");
  if (empty) send({ type: "robot", seat: empty.seat, robot: ROBOTS[0] }); // the first robot of the welcome: the rule-based one
  else { quickGame = null; send({ type: "start" }); }
}

async function loadLeaders() {
  try {
    const rows = await (await fetch("/api/leaderboard")).json();
    $("home-leaders").querySelector("tbody").replaceChildren(...rows.slice(0, 10).map((r, i) => el("tr", {}, el("td", {}, i + 1), el("td", {}, r.name), el("td", {}, r.xp), el("td", {}, r.games), el("td", {}, r.wins))));
    if (!rows.length) $("home-leaders").querySelector("tbody").append(el("tr", {}, el("td", { colSpan: 5 }, "nobody yet: be the first")));
  } catch (err) {
    // the leaderboard is a bonus on the first page: the room works without it
  }
}

function renderLeaders(rows) {
  $("leaders").querySelector("tbody").replaceChildren(...rows.map((r, i) => el("tr", {}, el("td", {}, i + 1), el("td", { class: "leader-name" }, r.name), el("td", { class: "leader-xp" }, r.xp), el("td", {}, r.games), el("td", {}, r.wins), el("td", {}, r.chips))));
}

function tick() {
  $("countdown").textContent = deadline === null ? "" : `${Math.max(0, (deadline - Date.now()) / 1000).toFixed(1)} s`;
  if (nextDeal !== null && current && current.table.state === "between") $("countdown").textContent = `next deal in ${Math.max(0, (nextDeal - Date.now()) / 1000).toFixed(0)} s`;
}

// ------------------------------------------------------------------------------------- start
function start() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("table")) { inviteTable = Number(hash.get("table")); invite = hash.get("invite"); }
  $("name").value = localStorage.getItem("tarot-name") || "";
  $("hello-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("name").value.trim();
    localStorage.setItem("tarot-name", name);
    send({ type: "hello", name, ...(localStorage.getItem("tarot-token") ? { token: localStorage.getItem("tarot-token") } : {}) });
  });
  $("create-env").addEventListener("change", fillPlayers);
  $("create-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "create", env: $("create-env").value, players: Number($("create-players").value) });
  });
  $("nav-home").addEventListener("click", () => show("home"));
  $("play-now").addEventListener("click", playNow);
  $("aside-undo").addEventListener("click", () => { aside = aside.slice(0, -1); renderTable(current.table); });
  $("aside-confirm").addEventListener("click", () => {
    const deal = current.table.deal;
    const trump = (n) => (deal.hand.find((h) => h.name === n) || { suit: 0 }).suit >= 4;
    sending = [...aside.filter((n) => !trump(n)), ...aside.filter(trump)]; // a trump goes aside only when forced: last
    aside = [];
    sendAside(deal);
    renderTable(current.table);
  });
  // the arrow keys move between the cards of the hand (Tab does too); Enter or Space plays or chooses one
  $("hand").addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    const cards = [...$("hand").querySelectorAll(".card:not(:disabled)")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    ev.preventDefault();
    cards[(i + (ev.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length].focus();
  });
  $("nav-lobby").addEventListener("click", () => { show("lobby"); send({ type: "lobby" }); });
  $("nav-leaderboard").addEventListener("click", () => { show("leaderboard"); send({ type: "leaderboard" }); });
  $("nav-help").addEventListener("click", () => $("help").showModal());
  $("settings-button").addEventListener("click", () => { $("settings-panel").hidden = !$("settings-panel").hidden; });
  $("leave").addEventListener("click", () => { send({ type: "leave" }); current = null; show("lobby"); });
  if (window.ResizeObserver) new ResizeObserver(() => layoutHand()).observe($("hand-box"));
  loadLeaders();
  setInterval(tick, 200);
  connect();
}

start();
