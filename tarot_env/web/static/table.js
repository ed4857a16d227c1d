// The page of `tarot serve`: one WebSocket, the lobby, a table, the leaderboard.
// Every text that comes from the server (names above all) is put in the page with textContent,
// never as HTML: a name such as <img onerror=...> shows as those characters.

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
  for (const id of ["lobby", "table", "leaderboard"]) $(id).hidden = id !== section;
}

function cardLabel(name) {
  const m = /^(.+)([SHDC])$/.exec(name);
  if (m && current && current.table.env === "french_tarot_v0") return m[1] + SUITS[m[2]];
  return name;
}

function cardEl(c, extra = {}) {
  const b = el("button", { class: `card s${c.suit}`, type: "button", "data-card": c.name, ...extra }, cardLabel(c.name));
  return b;
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
    if (!current) show("lobby");
  } else if (m.type === "lobby") {
    renderLobby(m.tables);
  } else if (m.type === "table") {
    current = m;
    if (m.me) $("me-info").textContent = `${m.me.name} — ${m.me.chips} chips, ${m.me.xp} XP`;
    renderTable(m.table);
    show("table");
    document.body.dataset.tableMessages = String(Number(document.body.dataset.tableMessages || 0) + 1);
  } else if (m.type === "left") { // the owner closed the table to spectators: back to the lobby
    current = null;
    show("lobby");
    showError(m.message);
  } else if (m.type === "leaderboard") {
    renderLeaders(m.rows);
  } else if (m.type === "error") {
    if (m.about === "move") $("refusal").textContent = m.message;
    else showError(m.message);
  }
}

// ------------------------------------------------------------------------------------- lobby
function renderLobby(tables) {
  const body = $("tables").querySelector("tbody");
  body.replaceChildren();
  for (const t of tables) {
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
function renderTable(t) {
  const youSeat = t.you;
  const deal = t.deal;
  $("table-title").textContent = `#${t.id} ${t.title}`;
  $("table-state").textContent = `${t.state}${t.game_no ? ` — game ${t.game_no}, deals played ${t.deal_no}/${t.settings.deals}` : ""}` + (t.settings.practice ? " — practice" : t.settings.chips ? ` — for ${t.settings.stake} chips` : " — for points");
  $("settings-button").classList.toggle("changed", t.changed.length > 0);
  $("settings-button").title = t.changed.length ? `changed by the owner: ${t.changed.join(", ")}` : "table settings";
  $("invite-box").hidden = !t.invite;
  if (t.invite) $("invite-link").value = `${location.origin}/#table=${t.id}&invite=${t.invite}`;
  renderSettings(t);
  renderOwnerBar(t);

  // seats
  const seats = $("seats");
  seats.replaceChildren();
  t.seats.forEach((s) => {
    const d = el("div", { class: "seat" + (t.turn === s.seat ? " turn" : ""), "data-seat": String(s.seat) });
    if (s.owner) d.append(el("span", { class: "star", title: "table owner" }, "★ "));
    d.append(el("span", { class: "name" }, s.kind === "empty" ? "(empty)" : s.name));
    if (s.seat === youSeat) d.append(el("span", { class: "tag" }, "you"));
    if (s.kind === "robot") d.append(el("span", { class: "tag" }, "robot"));
    if (s.robot_plays) d.append(el("span", { class: "tag away" }, s.abandoned ? "abandoned: robot plays" : "away: robot plays"));
    if (deal) {
      const pl = deal.players[s.seat];
      const bits = [`${pl.cards} cards`];
      if (pl.bid) bits.push(`bid ${pl.bid}`);
      if (pl.tricks !== undefined) bits.push(`${pl.tricks} tricks`);
      if (pl.poignee) bits.push(`poignée ${pl.poignee}: ${pl.shown.map((c) => c.name).join(" ")}`);
      if (pl.declared) bits.push(`declared ${pl.declared}: ${pl.shown.map((c) => c.name).join(" ")}`);
      d.append(el("div", { class: "info" }, bits.join(", ")));
    }
    d.append(el("div", { class: "total" }, `total ${t.totals[s.seat]}`));
    if (s.kind === "empty" && youSeat === null && (t.state === "waiting" || t.state === "over")) {
      d.append(el("button", { type: "button", class: "join", onclick: () => send({ type: "join", table: t.id, seat: s.seat, ...(invite ? { invite } : {}) }) }, "sit here"));
    }
    seats.append(d);
  });

  // the deal
  $("turn").textContent = t.turn === null ? (t.state === "between" ? "between deals" : t.state) : (t.turn === youSeat ? "your turn" : `${seatName(t, t.turn)} to play`);
  deadline = t.time_left === null ? null : Date.now() + t.time_left * 1000;
  nextDeal = t.next_deal_in === null ? null : Date.now() + t.next_deal_in * 1000;
  tick();
  $("contract").textContent = deal && deal.contract ? `contract: ${seatName(t, deal.contract.taker)} — ${deal.contract.name}` + (deal.contract.called ? `, called ${deal.contract.called}` : "") + (deal.contract.partner !== undefined ? ` (partner ${seatName(t, deal.contract.partner)})` : "") : (deal ? `phase: ${deal.phase}` : "");
  if (deal && deal.sides) $("contract").textContent += ` — sides: ${deal.sides.map((side) => side.map((p) => seatName(t, p)).join(" & ")).join(" against ")}`;
  const trick = $("trick");
  trick.replaceChildren(...(deal ? deal.trick.map((x) => el("span", { class: "played" }, cardEl(x.card, { disabled: true }), el("small", {}, seatName(t, x.seat)))) : []));
  const last = $("last-trick");
  last.replaceChildren(...(deal && deal.last_trick ? [...deal.last_trick.cards.map((x) => el("span", { class: "played" }, cardEl(x.card, { disabled: true }), el("small", {}, seatName(t, x.seat)))), el("span", {}, ` won by ${seatName(t, deal.last_trick.winner)}`)] : []));
  $("chien-box").hidden = !(deal && deal.chien);
  $("chien").replaceChildren(...(deal && deal.chien ? deal.chien.map((c) => cardEl(c, { disabled: true })) : []));

  // the hand and the moves
  const hand = $("hand");
  hand.replaceChildren();
  const cardMoves = new Set();
  const moves = deal ? deal.moves : [];
  if (deal && deal.hand) {
    for (const c of deal.hand) {
      const playable = c.action !== undefined && c.action !== null;
      const cls = playable ? (c.legal ? "legal" : "illegal") : "";
      const b = cardEl(c, { class: `card s${c.suit} ${cls}` });
      if (playable) {
        if (c.legal) cardMoves.add(c.name);
        b.dataset.action = String(c.action);
        b.title = c.legal ? "play this card" : "not legal now (click to see why)";
        b.addEventListener("click", () => { $("refusal").textContent = ""; send({ type: "move", action: c.action }); });
      } else {
        b.disabled = true;
      }
      hand.append(b);
    }
  }
  $("moves").replaceChildren(...moves.filter((m) => !(m.card && cardMoves.has(m.card))).map((m) => el("button", { type: "button", class: "move", "data-action": String(m.action), onclick: () => { $("refusal").textContent = ""; send({ type: "move", action: m.action }); } }, m.text)));
  const priv = [];
  if (deal && deal.ecart) priv.push(`your écart: ${deal.ecart.map((c) => c.name).join(" ")}`);
  else if (deal && deal.ecart_trumps) priv.push(`trumps in the taker's écart (shown): ${deal.ecart_trumps.map((c) => c.name).join(" ")}`);
  if (deal && deal.discards) priv.push(`your discards: ${deal.discards.map((c) => c.name).join(" ")}`);
  if (deal && deal.extra) priv.push(`+${deal.extra} cards to pick up after the claims`);
  $("private").textContent = priv.join(" — ");
  if (!moves.length) $("refusal").textContent = "";

  // results, cancellation, log
  const res = $("result");
  res.replaceChildren();
  if (t.last_result) res.append(el("p", { class: "deal-result" }, `${t.last_result.summary}${t.last_result.redeal ? " — dealt again" : ""}; scores: ${t.last_result.scores.map((v, p) => `${seatName(t, p)} ${v}`).join(", ")}`));
  if (t.game_result) {
    const g = t.game_result;
    const text = g.cancelled ? "Game annulled by agreement: no points, no XP, stakes returned." : `Game over: won by ${g.winners.map((p) => seatName(t, p)).join(", ")}. ${g.official ? "Official game" : `Not counted (${g.reason})`}; XP: ${g.xp.map((x, p) => `${seatName(t, p)} ${x}`).join(", ")}` + (t.stakes.some((s) => s) ? `; chips: ${g.chips_net.map((x, p) => `${seatName(t, p)} ${x >= 0 ? "+" : ""}${x}`).join(", ")}, bank ${g.bank}` : "");
    res.append(el("p", { class: "game-result" }, text));
  }
  renderCancel(t);
  $("scores").textContent = `totals: ${t.seats.map((s) => `${seatName(t, s.seat)} ${t.totals[s.seat]}`).join(", ")}`;
  $("events").replaceChildren(...t.events.map((e) => el("li", {}, e)));
  $("records").replaceChildren(...(t.records.length ? [el("span", {}, "Deal records (replay with tarot replay FILE): "), ...t.records.map((r) => el("a", { href: `/api/records/${r}`, download: `record${r}.json` }, `#${r} `))] : []));
}

function renderSettings(t) {
  const panel = $("settings-panel");
  const editable = t.owner_is_you && t.state !== "playing";
  const rows = SETTINGS.map(([key, label, type, step]) => {
    const input = el("input", { type, id: `set-${key}`, "data-setting": key });
    if (type === "checkbox") input.checked = t.settings[key];
    else { input.value = String(t.settings[key]); [input.min, input.max] = LIMITS[key].map(String); input.step = step; }
    input.disabled = !editable;
    return el("div", { class: t.changed.includes(key) ? "changed" : "" }, el("label", {}, `${label} `, input), t.changed.includes(key) ? " (changed)" : "");
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
  const open = !panel.hidden;
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
  $("nav-lobby").addEventListener("click", () => { show("lobby"); send({ type: "lobby" }); });
  $("nav-leaderboard").addEventListener("click", () => { show("leaderboard"); send({ type: "leaderboard" }); });
  $("nav-help").addEventListener("click", () => $("help").showModal());
  $("settings-button").addEventListener("click", () => { $("settings-panel").hidden = !$("settings-panel").hidden; });
  $("leave").addEventListener("click", () => { send({ type: "leave" }); current = null; show("lobby"); });
  setInterval(tick, 200);
  connect();
}

start();
