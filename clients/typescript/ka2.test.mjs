// Tests of the TypeScript client (compiled to dist/ by tsc) against a real
// `ka2 serve` on loopback. The binary is $KA2, or ka2 on PATH. The server
// answers on a free port of 127.0.0.1 and writes a decision log, which the
// tests read after stopping it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { Client, Ka2Error } from "./dist/ka2.js";

const request = { subject: "lodging", dates: ["2026-09-14"], question: "What is the Beijing lodging limit?" };

let server, client, dir, log;
const ids = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "ka2client-"));
  log = join(dir, "decisions.log");
  // A folder of its own: no project file of the caller's applies.
  server = spawn(process.env.KA2 || "ka2",
    ["serve", "--addr", "127.0.0.1:0", "--log-format", "json", "--watch=false", "--decision-log", log],
    { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  const addr = await new Promise((resolve, reject) => {
    server.on("error", reject);
    server.on("exit", (code) => reject(new Error(`ka2 serve exited ${code} without serving`)));
    // Read every line, so that the server never blocks on a full pipe.
    createInterface({ input: server.stderr }).on("line", (line) => {
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "serving") resolve(rec.addr);
      } catch {
        // not a log record
      }
    });
  });
  client = new Client(`http://${addr}`);
});

after(async () => {
  server.removeAllListeners("exit");
  const code = await new Promise((resolve) => {
    server.on("exit", resolve);
    server.kill("SIGTERM"); // it drains, then exits 0
  });
  assert.equal(code, 0);
  // One line per answer of contract and verify, with the ids the answers carried.
  const logged = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l).id);
  assert.deepEqual(logged.toSorted(), ids.toSorted());
  rmSync(dir, { recursive: true });
});

function note(id) {
  assert.ok(id);
  ids.push(id);
}

test("contract and verify", async () => {
  const ans = await client.contract(request);
  note(ans.decisionId);
  const doc = JSON.parse(ans.text);
  assert.equal(doc.template, "ka2-context-v1");
  assert.deepEqual(doc.evidence.map((e) => e.source_id), ["travel-v2"]);
  assert.match(ans.corpusDigest, /^[0-9a-f]{64}$/);
  assert.ok(ans.text.endsWith("\n"));
  const again = await client.contract(JSON.stringify(request));
  note(again.decisionId);
  assert.equal(again.text, ans.text);
  assert.notEqual(again.decisionId, ans.decisionId);

  const ok = await client.verify(ans.text);
  note(ok.decisionId);
  assert.equal(JSON.parse(ok.text).ok, true);
  const bad = await client.verify(ans.text.replace("750", "600"), "en");
  note(bad.decisionId);
  assert.equal(JSON.parse(bad.text).ok, false);
});

test("errors", async () => {
  const err = await client.contract({ subject: "lodging", dates: ["2026-09-14"] }).catch((e) => e);
  assert.ok(err instanceof Ka2Error);
  assert.equal(err.status, 400);
  assert.equal(err.kind, "bad_request");
  note(err.decisionId);
  const missing = await client.show("no-such-source:1-2").catch((e) => e);
  assert.equal(missing.kind, "not_found");
  assert.equal(missing.decisionId, null);
});

test("select and show", async () => {
  const rep = await client.select("lodging", ["2026-09-14"]);
  assert.match(rep.text, /travel-v2/);
  const shown = JSON.parse((await client.show("travel-v2:1-3", "en")).text);
  assert.deepEqual([shown.source_id, shown.line_start, shown.line_end], ["travel-v2", 1, 3]);
  assert.match(shown.quote, /750/);
});

test("grade", async () => {
  const c = await client.contract(request);
  note(c.decisionId);
  const ok = await client.grade({ contract: JSON.parse(c.text), answer: "The limit is 750 CNY per room-night [travel-v2:3]." });
  note(ok.decisionId);
  assert.equal(JSON.parse(ok.text).ok, true, ok.text);
  const wrong = await client.grade({ contract: JSON.parse(c.text), answer: "The limit is 720 CNY per room-night [travel-v2:3]." });
  note(wrong.decisionId);
  const rep = JSON.parse(wrong.text);
  assert.equal(rep.ok, false);
  assert.deepEqual(rep.findings.map((f) => f.code), ["unsupported_number"]);
});

test("render", async () => {
  const c = await client.contract(request);
  note(c.decisionId);
  const ans = await client.render({ contract: JSON.parse(c.text), provider: "openai-chat", model: "m" });
  note(ans.decisionId);
  const body = JSON.parse(ans.text);
  assert.equal(body.model, "m");
  assert.deepEqual(body.messages.map((m) => m.role), ["system", "user"]);
  assert.ok(body.max_tokens > 0);
});
