// ka2 preview page. Plain script, no framework, no build step; it only
// calls this server's read-only endpoints. Every text from the server is
// put into the page as text (textContent), never parsed as HTML, except
// the timeline SVG, which the server writes and escapes, parsed as XML.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

// Colours of the budget parts, as in the HTML regress report.
const PART_COLOURS = {
  instruction: "#4e79a7", example: "#76b7b2", memory: "#b07aa1", evidence: "#f28e2b",
  tool_output: "#9c755f", scope: "#edc948", question: "#59a14f", overhead: "#bab0ac",
};

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = msg === "";
}

async function errorOf(resp) {
  try {
    const body = await resp.json();
    if (body && body.error) return body.error.kind + ": " + body.error.message;
  } catch (_) { /* not JSON */ }
  return resp.status + " " + resp.statusText;
}

// loadTimeline fetches the timeline SVG for params and puts it in #timeline.
async function loadTimeline(params) {
  const resp = await fetch("/v1/timeline?" + params.toString());
  if (!resp.ok) throw new Error(await errorOf(resp));
  const text = await resp.text();
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (svg.nodeName !== "svg") throw new Error("the timeline is not an SVG");
  svg.setAttribute("width", "100%");
  svg.removeAttribute("height");
  $("timeline").replaceChildren(document.importNode(svg, true));
}

// setup lists the corpus's subjects and languages from the timeline JSON.
async function setup() {
  const resp = await fetch("/v1/timeline?format=json");
  if (!resp.ok) throw new Error(await errorOf(resp));
  const tl = await resp.json();
  const subjects = [...new Set(tl.lanes.map((l) => l.subject))];
  const langs = [...new Set(tl.lanes.map((l) => l.lang).filter((l) => l !== ""))];
  if (langs.length === 0) langs.push("en");
  const box = $("subjects");
  $("subjects-loading").remove();
  subjects.forEach((s, i) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.name = "subject";
    input.value = s;
    input.id = "subject-" + i;
    label.htmlFor = input.id;
    label.append(input, " " + s);
    box.append(label);
  });
  const sel = $("lang");
  for (const l of langs) {
    const o = document.createElement("option");
    o.value = l;
    o.textContent = l;
    sel.append(o);
  }
  $("dates").value = tl.today;
  await loadTimeline(new URLSearchParams());
  $("status").textContent = "Ready: " + subjects.length + " subjects.";
}

function chosen() {
  const subjects = [...document.querySelectorAll("input[name=subject]:checked")].map((i) => i.value);
  const dates = $("dates").value.split(/[\s,]+/).filter((d) => d !== "");
  return { subjects, dates, lang: $("lang").value, question: $("question").value };
}

// showContract pretty-prints the contract; each evidence record's
// source_id links to /v1/show for its address.
function showContract(text, lang) {
  const contract = JSON.parse(text);
  const pretty = JSON.stringify(contract, null, 2);
  const pre = $("contract");
  pre.replaceChildren();
  const list = $("evidence");
  list.replaceChildren();
  const records = contract.evidence || [];
  const hrefs = records.map((r) => {
    const address = r.source_id + ":" + r.line_start + "-" + r.line_end;
    return { address, href: "/v1/show?" + new URLSearchParams({ address, lang }).toString(), r };
  });
  for (const h of hrefs) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = h.href;
    a.textContent = h.address;
    a.className = "address";
    li.append(a, " " + h.r.version + ", valid from " + h.r.valid_from +
      (h.r.valid_until ? " until " + h.r.valid_until : ", open-ended"));
    list.append(li);
  }
  if (records.length === 0) {
    const li = document.createElement("li");
    li.textContent = "No source applies: the contract has no evidence.";
    list.append(li);
  }
  let k = 0;
  for (const line of pretty.split("\n")) {
    const m = /^(\s*"source_id": )(".*")(,?)$/.exec(line);
    if (m && k < hrefs.length) {
      const a = document.createElement("a");
      a.href = hrefs[k].href;
      a.title = "show " + hrefs[k].address;
      a.textContent = m[2];
      pre.append(m[1], a, m[3] + "\n");
      k++;
    } else {
      pre.append(line + "\n");
    }
  }
}

// showBudget draws the budget of /v1/verify as a bar stacked by part,
// against the limit W − R.
function showBudget(b) {
  const box = $("budget");
  box.replaceChildren();
  if (!b) {
    box.textContent = "No budget was reported.";
    return;
  }
  const limit = b.capacity - b.reserve;
  const byKind = new Map();
  for (const p of b.parts) byKind.set(p.kind, (byKind.get(p.kind) || 0) + p.cost);
  const scale = Math.max(limit, b.total, 1);
  const desc = [...byKind].map(([k, c]) => k + " " + c).join(", ") +
    "; total " + b.total + " of " + limit + " " + b.counter;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "budget-bar");
  svg.setAttribute("viewBox", "0 0 1000 26");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Budget: " + desc);
  let x = 0;
  for (const [kind, cost] of byKind) {
    const r = document.createElementNS(SVG, "rect");
    const w = cost * 1000 / scale;
    r.setAttribute("x", x);
    r.setAttribute("y", 4);
    r.setAttribute("width", w);
    r.setAttribute("height", 18);
    r.setAttribute("fill", PART_COLOURS[kind] || "#888888");
    r.setAttribute("class", "part " + kind);
    const t = document.createElementNS(SVG, "title");
    t.textContent = kind + " " + cost;
    r.append(t);
    svg.append(r);
    x += w;
  }
  const line = document.createElementNS(SVG, "line");
  const lx = limit * 1000 / scale;
  line.setAttribute("x1", lx);
  line.setAttribute("x2", lx);
  line.setAttribute("y1", 0);
  line.setAttribute("y2", 26);
  line.setAttribute("stroke", "#b00020");
  line.setAttribute("stroke-width", 3);
  svg.append(line);
  const cap = document.createElement("p");
  cap.id = "budget-text";
  cap.textContent = desc;
  box.append(svg, cap);
}

async function build(ev) {
  ev.preventDefault();
  showError("");
  const q = chosen();
  if (q.subjects.length === 0) return showError("Choose at least one subject.");
  if (q.dates.length === 0) return showError("Give at least one date, as YYYY-MM-DD.");
  if (q.question.trim() === "") return showError("Type a question.");
  $("build").disabled = true;
  $("status").textContent = "Building…";
  try {
    const params = new URLSearchParams();
    q.subjects.forEach((s) => params.append("subject", s));
    q.dates.forEach((d) => params.append("date", d));
    params.append("lang", q.lang);
    await loadTimeline(params);
    const resp = await fetch("/v1/contract", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ subjects: q.subjects, dates: q.dates, lang: q.lang, question: q.question }),
    });
    if (!resp.ok) throw new Error(await errorOf(resp));
    const text = await resp.text();
    showContract(text, q.lang);
    const vr = await fetch("/v1/verify?" + new URLSearchParams({ lang: q.lang }).toString(), { method: "POST", body: text });
    if (!vr.ok) throw new Error(await errorOf(vr));
    const v = await vr.json();
    showBudget(v.budget);
    $("status").textContent = "Built: " + (JSON.parse(text).evidence || []).length + " evidence records.";
  } catch (e) {
    showError(e.message);
    $("status").textContent = "";
  } finally {
    $("build").disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("query").addEventListener("submit", build);
  setup().catch((e) => showError(e.message));
});
