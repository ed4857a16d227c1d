// The duplicate challenge's page (tarot_env/web/challenge_web.py): one fixed deal against robots, then the
// comparison with the agents and the people who played it. Every server string goes into the page as text
// (textContent, text nodes), never as HTML. The person is the room's token, kept in localStorage.
import { postJSON } from "./answer.js";
import { face as cardFace } from "./cards.js";

const $ = (id) => document.getElementById(id);
let current = null; // the last deal view the server sent
let chelemAsked = false; // the chelem's button was pressed: its confirmation shows

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// the server's answer, or an Error in the server's own words (never a JSON parse error: answer.js)
function call(kind, body) { return postJSON(`/api/challenge/${kind}`, body); }

function token() { return localStorage.getItem("tarot-token"); }

function french() { return !current || current.env.startsWith("french"); }

function face(name) {
  return cardFace(name, french());
}

function cardEl(c) {
  const b = el("button", { class: "card", type: "button", "data-card": c.name, "aria-label": c.name }, face(c.name));
  b.append(el("span", { class: "name" }, c.name));
  return b;
}

// the seat's name as the server gives it: "you", or the robot's ("robot 1 (rules)", as the room names one)
function seatName(p) { return current.seats[p] || `seat ${p}`; }

function showError(text) { $("error").textContent = text || ""; }

async function move(action) {
  showError("");
  try {
    render(await call("move", { token: token(), action }));
  } catch (err) {
    showError(err.message); // the rules' refusal: what was tried, why not, the moves allowed; nothing changed
  }
}

function renderPublic(d) {
  const box = $("public");
  box.replaceChildren();
  const bids = (d.players || []).filter((p) => p.bid).map((p) => `${seatName(p.seat)}: ${p.bid.replace(/_/g, " ")}`);
  if (bids.length) box.append(el("p", {}, `Bids: ${bids.join(", ")}`));
  if (d.contract) {
    const c = d.contract;
    const name = typeof c === "string" ? c : `${String(c.name || "").replace(/_/g, " ")} by ${seatName(c.taker)}`;
    box.append(el("p", {}, `Contract: ${name}`));
  }
  if (d.sides) box.append(el("p", {}, `Sides: ${d.sides.map((side) => side.map(seatName).join(" and ")).join(" against ")}`));
  for (const p of d.players || []) { // poignées and declared combinations are shown to the table
    if (!p.shown) continue;
    const row = el("div", { class: "cards" });
    for (const c of p.shown) row.append(cardEl(c));
    box.append(el("p", {}, `${seatName(p.seat)} showed${p.poignee ? ` a ${p.poignee} poignée` : ""}${p.declared ? ` (${p.declared} points)` : ""}:`), row);
  }
  if (d.ecart_trumps) {
    const row = el("div", { class: "cards" });
    for (const c of d.ecart_trumps) row.append(cardEl(c));
    box.append(el("p", {}, "Trumps in the taker's écart:"), row);
  }
  if (d.chien) {
    const row = el("div", { class: "cards" });
    for (const c of d.chien) row.append(cardEl(c));
    box.append(el("p", {}, "The chien:"), row);
  }
  if (d.last_trick) {
    const row = el("div", { class: "cards" });
    for (const p of d.last_trick.cards) row.append(el("span", { class: "played" }, cardEl(p.card), seatName(p.seat)));
    box.append(el("p", {}, `Last trick, won by ${seatName(d.last_trick.winner)}:`), row);
  }
}

function render(data) {
  current = data;
  const d = data.deal;
  $("intro").hidden = true;
  $("game").hidden = false;
  $("title").textContent = `${data.title}: deal ${data.deal_index} of the challenge, you are seat ${data.seat}`;
  $("seats").textContent = data.seats.map((s, p) => `seat ${p}: ${s}`).join(" · ");
  renderPublic(d);
  const trick = $("trick");
  trick.replaceChildren();
  for (const p of d.trick || []) trick.append(el("span", { class: "played" }, cardEl(p.card), seatName(p.seat)));
  $("prompt").textContent = data.over ? "The deal is over." : d.prompt || "";
  const moves = $("moves");
  moves.replaceChildren();
  const all = d.moves || [];
  if (!all.some((m) => m.verb === "chelem")) chelemAsked = false;
  // a chelem is announced in two steps (its button asks, Yes sends), after "No chelem", which takes the focus first
  for (const m of [...all.filter((x) => x.verb !== "chelem"), ...all.filter((x) => x.verb === "chelem")]) {
    if (m.card !== null && (d.hand || []).some((c) => c.name === m.card)) continue; // a card of the hand: click it
    if (m.verb === "chelem" && chelemAsked) {
      const yes = el("button", { type: "button", id: "chelem-confirm" }, "Yes, announce a chelem");
      yes.addEventListener("click", () => { chelemAsked = false; move(m.action); });
      const no = el("button", { type: "button", id: "chelem-cancel" }, "Cancel");
      no.addEventListener("click", () => { chelemAsked = false; render(current); });
      moves.append(el("span", { class: "confirm-box" }, el("span", {}, "Announce a chelem? You must then win every trick: +400 if you do, −200 if you fail. "), yes, no));
      continue;
    }
    const b = el("button", { type: "button", title: m.help || "", "data-verb": m.verb || "" }, m.label || m.text);
    b.addEventListener("click", m.verb === "chelem" ? () => { chelemAsked = true; render(current); $("chelem-confirm").focus(); } : () => move(m.action));
    moves.append(b);
  }
  const hand = $("hand");
  hand.replaceChildren();
  for (const c of d.hand || []) {
    const b = cardEl(c);
    if (c.action !== undefined && c.action !== null) {
      b.classList.add(c.legal ? "legal" : "dim");
      b.addEventListener("click", () => move(c.action)); // an illegal card asks the rules, which say why not
    } else {
      b.disabled = true;
    }
    hand.append(b);
  }
  const first = hand.querySelector(".legal") || moves.querySelector("button");
  if (first && !data.over && !chelemAsked) first.focus();
  $("result").hidden = !data.over;
  if (data.over) {
    $("score").textContent = `Your score on this deal: ${data.score}`;
    $("lines").replaceChildren(...data.lines.map((line) => el("li", {}, line)));
    // the deal's score as the rules compute it (public at the end): French terms, or each side's points by kind
    const sc = d.score || {};
    const took = frenchHeadline(sc); // who took, what, and whether the contract was made
    $("took").textContent = took;
    $("took").hidden = !took;
    const items = (sc.terms || []).map((t) => `${t.what}${t.how ? ` (${t.how})` : ""}${t.points !== null ? `: ${t.points}` : ""}`);
    for (const r of sc.rows || []) items.push(`${r.what}: ${r.points.join(" / ")}`);
    if (sc.total) items.push(`total: ${sc.total.join(" / ")}`);
    $("terms").replaceChildren(...items.map((line) => el("li", {}, line)));
    $("next").focus();
    // the agents' scores on a deal nobody played before are computed when it starts: asked again until known
    if (data.comparison === null) setTimeout(() => call("state", { token: token() }).then((again) => { if (current && current.deal_index === again.deal_index && current.table === again.table) render(again); }).catch(() => {}), 3000);
  }
}

/** A French deal's result in one line, as the room says it: who took, his points against the threshold. */
function frenchHeadline(sc) {
  if (sc.game !== "french" || sc.taker === undefined) return "";
  const bouts = `${sc.bouts} bout${sc.bouts === 1 ? "" : "s"}`;
  const partner = sc.partner !== null && sc.partner !== undefined ? ` with ${seatName(sc.partner)}` : "";
  const who = sc.taker === current.seat ? "You" : seatName(sc.taker);
  return `${who} took a ${sc.contract}${partner}: ${sc.attack_points} points with ${bouts}, ${sc.threshold} needed — contract ${sc.made ? "made" : "lost"}.`;
}

async function start() {
  showError("");
  // no token and no name typed: the server makes a guest with a name nobody has (and says which)
  const body = token() ? { token: token() } : { name: $("name").value.trim() };
  const table = new URLSearchParams(location.search).get("table"); // /challenge?table=ottocento_v0: that table's deals
  if (table) body.table = table;
  try {
    const data = await call("start", body);
    if (data.token) { localStorage.setItem("tarot-token", data.token); $("name-label").hidden = true; }
    if (data.name) localStorage.setItem("tarot-name", data.name); // the name the server gave (a guest's, when none was typed)
    render(data);
  } catch (err) {
    $("intro").hidden = false;
    $("game").hidden = false;
    showError(err.message);
  }
}

$("start-form").addEventListener("submit", (event) => { event.preventDefault(); start(); });
$("next").addEventListener("click", start);
if (token()) {
  $("name-label").hidden = true;
  call("state", { token: token() }).then(render).catch(() => {}); // no deal in progress: the intro stays
}
