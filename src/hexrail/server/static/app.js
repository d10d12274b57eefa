// hexrail route calculator: load a position, solve it, draw the board and the routes, edit, re-solve,
// draw a route and validate it. A client of the service's JSON endpoints; no dependencies.

const $ = (id) => document.getElementById(id);
const PALETTE = "okabe-ito";
const COLOURS = ["yellow", "green", "brown", "gray"];

const S = {
  source: null,      // the position as loaded (native or 18xx.games export)
  info: null,        // what /position said of it
  edited: false,     // trains, phase or state changed since loading
  controller: null,  // the running solve's AbortController
  runs: [],          // positions of a replayed game
  lines: [],         // positions of a loaded file
};

// ---------------------------------------------------------------------------------------------
// The service

class ApiError extends Error {}

async function api(path, body, signal) {
  const init = body === undefined ? { signal } : {
    method: "POST", signal, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, init);
  const type = res.headers.get("content-type") || "";
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    if (type.includes("json")) {
      const err = await res.json();
      message = err.error || message;
    }
    throw new ApiError(message);
  }
  return type.includes("json") ? res.json() : res.text();
}

function say(text) { $("status").textContent = text; $("board-status").textContent = text; }
function fail(err) {
  if (err && err.name === "AbortError") return;
  $("error").textContent = err instanceof ApiError ? err.message : `error: ${err.message || err}`;
}
function clearMessages() { $("error").textContent = ""; }

// ---------------------------------------------------------------------------------------------
// Loading

async function loadExamples() {
  const list = await api("/examples");
  const select = $("example");
  for (const ex of list) {
    const opt = new Option(`${ex.name} — ${ex.title}`, ex.name);
    select.append(opt);
  }
  return list;
}

async function loadPosition(doc, solveNow = true) {
  clearMessages();
  stopSolve();
  say("reading the position…");
  const info = await api("/position", { position: doc });
  S.source = doc;
  S.info = info;
  S.edited = false;
  showControls(info);
  $("legend").hidden = true;
  $("total").textContent = "";
  $("optimality").textContent = "";
  $("mine").hidden = true;
  $("draw-result").textContent = "";
  setStops([]);
  $("solve").disabled = false;
  showRecorded(info).catch(fail);
  // the bare board first, so that it is there while a long solve runs
  const svg = await api("/render", { position: doc, legend: false, palette: PALETTE });
  showBoard($("board"), svg, "the board, not solved yet");
  if (solveNow) return solve();
  say("loaded; press Solve");
}

async function loadExample(name) {
  const doc = await api(`/examples/${encodeURIComponent(name)}`);
  return loadPosition(doc);
}

function parsePositions(text) {
  const trimmed = text.trim();
  if (!trimmed) throw new ApiError("position: nothing to read");
  try {
    return [JSON.parse(trimmed)];
  } catch (whole) {
    const lines = trimmed.split(/\r?\n/).filter((l) => l.trim());
    if (lines.length < 2) throw new ApiError(`position: not JSON (${whole.message})`);
    return lines.map((line, k) => {
      try { return JSON.parse(line); } catch (err) {
        throw new ApiError(`position line ${k + 1}: not JSON (${err.message})`);
      }
    });
  }
}

function describe(doc, k) {
  if (doc && doc.schema === "18xx-route-position/1") {
    const who = doc.entity && (doc.entity.id || doc.entity);
    return `${k + 1}: ${doc.title || "?"} ${doc.round || ""} ${doc.turn ?? ""}.${doc.round_num ?? ""} — ${who}`;
  }
  return `${k + 1}: ${(doc && (doc.name || doc.company)) || "position"}`;
}

async function loadText(text) {
  const docs = parsePositions(text);
  S.lines = docs;
  const select = $("file-line");
  select.replaceChildren(...docs.map((d, k) => new Option(describe(d, k), String(k))));
  select.hidden = docs.length < 2;
  select.labels.forEach((l) => { l.hidden = docs.length < 2; });
  return loadPosition(docs[0]);
}

// The 18xx.games bridge: a whole game, replayed on the server

async function checkBridge() {
  const status = await api("/bridge");
  $("bridge-note").textContent = status.configured
    ? `The server replays games with the 18xx.games engine (${status.message}).`
    : `Loading a whole game is not available: ${status.message}. Position lines still work.`;
  $("load-game").disabled = !status.configured;
  return status;
}

function roundKey(p) { return `${p.turn ?? ""}.${p.round_num ?? ""} ${p.round || ""}`; }

async function replayGame() {
  clearMessages();
  const file = $("game-file").files[0];
  if (!file) throw new ApiError("game: choose the game's data file first");
  let game;
  try { game = JSON.parse(await file.text()); } catch (err) {
    throw new ApiError(`game: not JSON (${err.message})`);
  }
  say("replaying the game on the server…");
  const out = await api("/game", { game });
  S.runs = out.positions;
  const rounds = [...new Set(S.runs.map(roundKey))];
  $("game-round").replaceChildren(...rounds.map((r) => new Option(r, r)));
  $("game-round").disabled = false;
  fillCompanies();
  say(`${S.runs.length} runs of trains in ${rounds.length} rounds`);
}

function fillCompanies() {
  const key = $("game-round").value;
  const runs = S.runs.map((p, k) => [p, k]).filter(([p]) => roundKey(p) === key);
  $("game-company").replaceChildren(...runs.map(([p, k]) =>
    new Option(String((p.entity && (p.entity.id || p.entity)) || "?"), String(k))));
  $("game-company").disabled = runs.length === 0;
  $("load-run").disabled = runs.length === 0;
}

// ---------------------------------------------------------------------------------------------
// The controls: trains, phase, state

function showControls(info) {
  $("position-name").textContent = info.name || `${info.company} (${info.profile} rules)`;
  $("company").textContent = info.company;
  $("train-forms").textContent = `Train forms of the ${info.profile} rules: ${info.train_types.join(", ")}`;
  const names = new Set([...info.trains.map((t) => t.name), "2", "3", "4", "5", "6", "8", "D", "2+2"]);
  $("train-names").replaceChildren(...[...names].map((n) => new Option(n)));
  $("trains").replaceChildren();
  info.trains.forEach((t, k) => addTrainRow(t.name, k));
  $("phase-name").value = info.phase.name;
  for (const box of $("phase-colours").querySelectorAll("input")) {
    box.checked = info.phase.colors.includes(box.value);
  }
  const flags = Object.entries(info.state || {}).filter(([, v]) => typeof v === "boolean");
  $("flags").replaceChildren(...flags.map(([key, value]) => {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = value;
    box.dataset.flag = key;
    label.append(box, ` ${key}`);
    return label;
  }));
  if (!flags.length) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = "No on/off flags in this position's state.";
    $("flags").append(p);
  }
  $("state-json").value = JSON.stringify(info.state || {}, null, 1);
  fillDrawTrains();
}

function addTrainRow(name, original = null) {
  const li = document.createElement("li");
  const n = $("trains").children.length + 1;
  const input = document.createElement("input");
  input.id = `train-${n}-${Math.random().toString(36).slice(2, 7)}`;
  input.value = name;
  input.setAttribute("list", "train-names");
  input.autocomplete = "off";
  if (original !== null) input.dataset.original = String(original);
  const label = document.createElement("label");
  label.htmlFor = input.id;
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.className = "remove";
  remove.addEventListener("click", () => {
    li.remove();
    renumberTrains();
    edited();
    const first = $("trains").querySelector("input");
    (first || $("add-train")).focus();
  });
  li.append(label, input, remove);
  $("trains").append(li);
  renumberTrains();
  return input;
}

function renumberTrains() {
  [...$("trains").children].forEach((li, k) => {
    const input = li.querySelector("input");
    li.querySelector("label").textContent = `Train ${k + 1}`;
    li.querySelector("button").setAttribute("aria-label", `Remove train ${k + 1} (${input.value || "no type"})`);
  });
}

function edited() {
  if (!S.info) return;
  S.edited = true;
  $("position-name").textContent = `${S.info.name || S.info.company} (edited)`;
  fillDrawTrains();
  say("changed: press Solve to solve again");
}

// The position to send: as loaded, or the native document with the edits.
function currentDoc() {
  if (!S.edited) return S.source;
  const doc = structuredClone(S.info.native);
  const trains = [];
  for (const input of $("trains").querySelectorAll("input")) {
    const value = input.value.trim();
    if (!value) throw new ApiError(`trains: train ${trains.length + 1} has no type`);
    const k = input.dataset.original;
    if (k !== undefined && S.info.trains[Number(k)].name === value) trains.push(doc.trains[Number(k)]);
    else trains.push({ spec: value });
  }
  doc.trains = trains;
  const colours = [...$("phase-colours").querySelectorAll("input:checked")].map((b) => b.value);
  if (!colours.length) throw new ApiError("phase.colors: tick at least one tile colour");
  doc.phase = { name: $("phase-name").value.trim() || doc.phase.name, colors: colours };
  let state;
  try { state = JSON.parse($("state-json").value || "{}"); } catch (err) {
    throw new ApiError(`state: not JSON (${err.message})`);
  }
  if (typeof state !== "object" || state === null || Array.isArray(state)) {
    throw new ApiError("state: must be a JSON object");
  }
  for (const box of $("flags").querySelectorAll("input[data-flag]")) state[box.dataset.flag] = box.checked;
  doc.state = state;
  if (S.info.name) doc.name = `${S.info.name} (edited)`;
  return doc;
}

function trainsNow() {
  if (!S.edited) return S.info.trains;
  const doc = currentDoc();
  const seen = {};  // ids as the server gives them: <name>-<serial>, counted per name
  return doc.trains.map((t) => {
    const name = t.name || String(t.spec);
    const serial = seen[name] || 0;
    seen[name] = serial + 1;
    return { id: t.id || `${name}-${serial}`, name };
  });
}

// ---------------------------------------------------------------------------------------------
// Solving

function stopSolve() {
  if (S.controller) S.controller.abort();
  S.controller = null;
}

async function solve() {
  clearMessages();
  stopSolve();
  let doc;
  try { doc = currentDoc(); } catch (err) { fail(err); return; }
  const limitText = $("time-limit").value.trim();
  const limit = limitText === "" ? null : Number(limitText);
  if (limit !== null && !(limit >= 0)) { fail(new ApiError("time limit: a number of seconds, 0 or more")); return; }
  const controller = new AbortController();
  S.controller = controller;
  const started = performance.now();
  const progress = $("progress");
  progress.hidden = false;
  progress.removeAttribute("value");
  $("cancel").disabled = false;
  $("solve").disabled = true;
  document.body.classList.add("busy");
  const tick = () => {
    const seconds = (performance.now() - started) / 1000;
    say(`solving… ${seconds.toFixed(1)} s${limit !== null ? ` (stops by ${limit} s)` : ""}`);
    if (limit) progress.value = Math.min(1, seconds / limit);
  };
  tick();
  const timer = setInterval(tick, 200);
  try {
    const body = { position: doc, objective: $("objective").value };
    if (limit !== null) body.time_limit = limit;
    if ($("choices").checked) body.choices = true;
    const answer = await api("/solve", body, controller.signal);
    say("drawing the board…");
    const svg = await api("/render", { position: doc, plan: answer, legend: false, palette: PALETTE },
      controller.signal);
    showBoard($("board"), svg, `the board with ${answer.routes.length} routes`);
    showAnswer(answer);
    say(answer.optimal ? `solved in ${answer.seconds.toFixed(2)} s`
      : `stopped at the time limit after ${answer.seconds.toFixed(2)} s: the best plan found, not proven optimal`);
    document.body.dataset.solves = String(Number(document.body.dataset.solves || 0) + 1);
  } catch (err) {
    if (err.name === "AbortError") {
      say("cancelled: the server stops the solve");
      document.body.dataset.cancelled = String(Number(document.body.dataset.cancelled || 0) + 1);
    }
    else { say(""); fail(err); }
  } finally {
    clearInterval(timer);
    if (S.controller === controller) S.controller = null;
    progress.hidden = true;
    $("cancel").disabled = true;
    $("solve").disabled = !S.info;
    document.body.classList.remove("busy");
  }
}

function showAnswer(a) {
  const body = $("legend").querySelector("tbody");
  body.replaceChildren();
  a.routes.forEach((r) => {
    const tr = document.createElement("tr");
    tr.dataset.train = r.train;
    const name = r.train_name && r.train_name !== r.train ? `${r.train} (${r.train_name})` : r.train;
    const paid = new Set(r.paid);
    const stops = r.stops.map((s) => (paid.size === 0 || paid.has(s) ? s : `(${s})`)).join(" ");
    const bonuses = r.bonuses.map((b) => `${b.name} ${b.amount}`).join(", ") || "—";
    const cells = [name, "", stops, String(r.revenue), bonuses, r.subsidy ? String(r.subsidy) : "—"];
    const labels = [null, null, "stops", "revenue", "bonuses", "subsidy"];
    cells.forEach((text, k) => {
      const td = document.createElement(k === 0 ? "th" : "td");
      if (k === 0) td.scope = "row";
      if (labels[k]) td.dataset.label = labels[k];
      if (k === 1) td.append(swatch(r.train));
      else td.textContent = text;
      if (k === 3) td.className = "revenue";
      tr.append(td);
    });
    body.append(tr);
  });
  $("legend").hidden = a.routes.length === 0;
  const sets = (a.sets || []).filter((x) => x.bonus || x.trains.length > 1);
  $("sets").textContent = sets.map((x) =>
    `Set ${x.trains.join(" + ")}: ${x.ends[0]} to ${x.ends[1]}, bonus ${x.bonus}.`).join(" ");
  const sub = a.subsidy ? ` + ${a.subsidy} subsidy = ${a.total}` : "";
  $("total").innerHTML = "";
  const value = Object.assign(document.createElement("strong"), { id: "total-value", textContent: String(a.total) });
  $("total").append("Total ", value,
    a.subsidy ? ` (revenue ${a.revenue}${sub})` : "");
  const opt = $("optimality");
  opt.className = a.optimal ? "optimal" : "not-optimal";
  opt.textContent = a.optimal
    ? "optimal: true — proven: no plan earns more."
    : `optimal: false — cut short at the time limit; no plan earns more than ${a.upper_bound} (the bound).`;
  if (a.choices) {
    const made = Object.entries(a.choices).map(([k, v]) => `${k} ${v}`).join("; ");
    opt.textContent += made ? ` Choices: ${made}.` : " Choices: none beats the position as it stands.";
  }
  if (a.rules_covered === false) opt.textContent += ` Rules: ${a.rules_note}.`;
  if (a.best_recorded !== null && a.best_recorded !== undefined) {
    opt.textContent += ` Best recorded on 18xx.games: ${a.best_recorded}.`;
  }
}

// A sample of a train's line, as the board draws it (colour and dashes read from the board).
function swatch(train) {
  const route = [...$("board").querySelectorAll("g.route")].find((g) => g.dataset.train === train);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 60 12");
  svg.setAttribute("width", "60");
  svg.setAttribute("height", "12");
  svg.setAttribute("role", "img");
  const line = document.createElementNS(ns, "line");
  Object.entries({ x1: 2, y1: 6, x2: 58, y2: 6, "stroke-width": 5 }).forEach(([k, v]) => line.setAttribute(k, v));
  if (route) {
    line.setAttribute("stroke", route.getAttribute("stroke"));
    const dash = route.getAttribute("stroke-dasharray");
    if (dash) line.setAttribute("stroke-dasharray", dash.split(/[ ,]+/).map((d) => Number(d) * 0.75).join(" "));
    svg.setAttribute("aria-label", `line of ${train}: ${route.getAttribute("stroke")}${dash ? ", dashed" : ", solid"}`);
  }
  svg.append(line);
  return svg;
}

// ---------------------------------------------------------------------------------------------
// The board

function showBoard(holder, text, what) {
  holder.innerHTML = text;
  const svg = holder.querySelector("svg");
  if (!svg) return;
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", `Board: ${what}`);
  if (holder.id === "board") makeStopsPickable(svg);
}

function hexTitle(svg, hex) {
  const poly = svg.querySelector(`polygon.hex[data-hex="${CSS.escape(hex)}"] title`);
  return poly ? poly.textContent : hex;
}

// Stops are buttons: click one, or Tab into the board, move with the arrow keys, press Enter.
function makeStopsPickable(svg) {
  const stops = [...svg.querySelectorAll(".nodes [data-node]")];
  stops.forEach((el, k) => {
    const ref = el.dataset.node;
    const kind = el.getAttribute("class") || "stop";
    el.classList.add("pickable");
    el.setAttribute("tabindex", k === 0 ? "0" : "-1");
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", `${kind} ${ref} (${hexTitle(svg, ref.replace(/-\d+$/, ""))})`);
    el.addEventListener("focus", () => {
      $("stop-focus").textContent = `Stop ${ref}: ${el.getAttribute("aria-label")}`;
    });
    el.addEventListener("keydown", (ev) => {
      let next = null;
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pickStop(ref); return; }
      if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = stops[(k + 1) % stops.length];
      if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = stops[(k - 1 + stops.length) % stops.length];
      if (ev.key === "Home") next = stops[0];
      if (ev.key === "End") next = stops[stops.length - 1];
      if (next) {
        ev.preventDefault();
        el.setAttribute("tabindex", "-1");
        next.setAttribute("tabindex", "0");
        next.focus();
      }
    });
  });
  // a click on a stop, its ring or its revenue picks the stop
  svg.addEventListener("click", (ev) => {
    const el = ev.target.closest("[data-node]");
    if (el) pickStop(el.dataset.node);
  });
  markPicked();
}

// ---------------------------------------------------------------------------------------------
// Drawing a route

function drawnStops() { return $("draw-stops").value.split(/[\s,]+/).filter(Boolean); }
function setStops(list) { $("draw-stops").value = list.join(" "); markPicked(); }
function pickStop(ref) {
  setStops([...drawnStops(), ref]);
  const n = drawnStops().length;
  $("draw-result").className = "";
  $("draw-result").textContent = `${n} stop${n === 1 ? "" : "s"}: ${drawnStops().join(" → ")}`;
}

// Picked stops glow, and carry their place in the route as a numbered badge.
function markPicked() {
  const stops = drawnStops();
  const picked = new Set(stops);
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  for (const el of svg.querySelectorAll(".nodes [data-node]")) {
    el.classList.toggle("picked", picked.has(el.dataset.node));
    el.setAttribute("aria-pressed", picked.has(el.dataset.node) ? "true" : "false");
  }
  svg.querySelector("g.pick-marks")?.remove();
  const ns = "http://www.w3.org/2000/svg";
  const marks = document.createElementNS(ns, "g");
  marks.setAttribute("class", "pick-marks");
  marks.setAttribute("aria-hidden", "true");
  stops.forEach((ref, k) => {
    const el = svg.querySelector(`.nodes [data-node="${CSS.escape(ref)}"]`);
    if (!el) return;
    const box = el.getBBox();
    const x = box.x + box.width / 2 + Math.min(box.width / 2, 14);
    const y = box.y + box.height / 2 - Math.min(box.height / 2, 14);
    const badge = document.createElementNS(ns, "circle");
    Object.entries({ cx: x, cy: y, r: 9, fill: "#d00070", stroke: "#fff", "stroke-width": 2 })
      .forEach(([a, v]) => badge.setAttribute(a, v));
    const text = document.createElementNS(ns, "text");
    Object.entries({ x, y: y + 4, "text-anchor": "middle", "font-size": 11, "font-weight": "bold", fill: "#fff" })
      .forEach(([a, v]) => text.setAttribute(a, v));
    text.textContent = String(k + 1);
    marks.append(badge, text);
  });
  svg.append(marks);
}

function fillDrawTrains() {
  if (!S.info) return;
  let trains;
  try { trains = trainsNow(); } catch { return; }
  const keep = $("draw-train").value;
  $("draw-train").replaceChildren(...trains.map((t) =>
    new Option(t.name === t.id ? t.id : `${t.id} (${t.name})`, t.id)));
  if (trains.some((t) => t.id === keep)) $("draw-train").value = keep;
}

async function validateDrawn() {
  clearMessages();
  if (!S.info) throw new ApiError("position: load one first");
  const stops = drawnStops();
  if (stops.length === 0) throw new ApiError("stops: pick the route's stops on the board first");
  const doc = currentDoc();
  const plan = { routes: [{ train: $("draw-train").value, stops }] };
  const report = await api("/validate", { position: doc, plan });
  const route = report.routes[0] || { errors: [] };
  const errors = [...route.errors, ...report.errors];
  const bonuses = route.bonuses || [];
  const out = $("draw-result");
  out.className = report.legal ? "legal" : "illegal";
  out.textContent = report.legal
    ? `Legal: revenue ${report.revenue}${report.subsidy ? ` + ${report.subsidy} subsidy` : ""}` +
      `${bonuses.length ? ` (bonuses: ${bonuses.map((b) => `${b.name} ${b.amount}`).join(", ")})` : ""}.`
    : `Illegal: ${errors.join("; ")}`;
  try {
    const svg = await api("/render", { position: doc, plan, legend: false, palette: PALETTE });
    showBoard($("drawn-board"), svg, report.legal ? "your route" : "your route, illegal (dashed)");
    $("mine").hidden = false;
  } catch {
    $("mine").hidden = true;  // a route with stops not on the board cannot be drawn
  }
}

// ---------------------------------------------------------------------------------------------
// The players' routes (an 18xx.games position)

async function showRecorded(info) {
  const fig = $("theirs");
  fig.hidden = true;
  const rec = info.recorded;
  if (!rec || !rec.drawable) return;
  const svg = await api("/render",
    { position: S.source, plan: { routes: rec.routes }, legend: false, palette: PALETTE });
  showBoard($("recorded-board"), svg, "the players' recorded routes");
  const sub = rec.subsidy ? ` + ${rec.subsidy} subsidy` : "";
  $("recorded-summary").textContent = `Recorded on 18xx.games: revenue ${rec.revenue}${sub}` +
    `${rec.error ? ` (the engine said: ${rec.error})` : ""}.`;
  fig.hidden = false;
}

// ---------------------------------------------------------------------------------------------
// Wiring

function on(id, event, fn) {
  $(id).addEventListener(event, (ev) => {
    const out = fn(ev);
    if (out && out.catch) out.catch((err) => { say(""); fail(err); });
  });
}

async function start() {
  on("load-example", "click", () => loadExample($("example").value));
  on("load-paste", "click", () => loadText($("paste").value));
  on("file", "change", async () => {
    const file = $("file").files[0];
    if (file) await loadText(await file.text());
  });
  on("file-line", "change", () => loadPosition(S.lines[Number($("file-line").value)]));
  on("load-game", "click", replayGame);
  on("game-round", "change", fillCompanies);
  on("load-run", "click", () => loadPosition(S.runs[Number($("game-company").value)]));
  on("controls", "submit", (ev) => { ev.preventDefault(); return solve(); });
  on("cancel", "click", stopSolve);
  on("add-train", "click", () => {
    const last = $("trains").querySelector("li:last-child input");
    addTrainRow(last ? last.value : "2").focus();
    edited();
  });
  for (const id of ["trains", "phase-colours", "phase-name", "flags", "state-json"]) {
    $(id).addEventListener("change", edited);
  }
  $("trains").addEventListener("input", renumberTrains);
  on("draw-stops", "input", markPicked);
  on("draw-undo", "click", () => setStops(drawnStops().slice(0, -1)));
  on("draw-clear", "click", () => { setStops([]); $("draw-result").textContent = ""; $("mine").hidden = true; });
  on("draw-validate", "click", validateDrawn);

  checkBridge().catch(() => {
    $("bridge-note").textContent = "The server did not say whether it has the 18xx.games bridge.";
  });
  const names = (await loadExamples()).map((e) => e.name);
  const wanted = new URLSearchParams(location.search).get("example");
  if (wanted) {
    if (!names.includes(wanted)) {
      throw new ApiError(`example: no example ${JSON.stringify(wanted)}; examples: ${names.join(", ")}`);
    }
    $("example").value = wanted;
    await loadExample(wanted);
  } else {
    say("Load a position to start.");
  }
}

start().catch(fail);
