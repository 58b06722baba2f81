// gen.mjs writes counts.txt.gz: the number of tokens that OpenAI's tiktoken
// gives, in cl100k_base and o200k_base (ordinary encoding, no special
// tokens), for every Unicode scalar value x (U+0000..U+10FFFF without the
// surrogates, 1,112,064 values) put into each template below. budget's
// TestUnicodeScan compares ka2's counters with it.
//
// The reference is the npm package "tiktoken" at the exact version pinned in
// package.json: the WASM build of OpenAI's Rust tiktoken core, with the
// encoders' ranks and patterns. Its regular expressions run on fancy-regex
// 0.11 over the regex crate 1.11.1 (regex-syntax 0.8.5), whose Unicode
// tables are UCD 16.0.0. tiktoken-go cannot serve: it uses Go's unicode
// package (UCD 15.0.0).
//
// Run: npm ci && node gen.mjs   (in this folder; about 15 s). See README.md.
//
// Format (before gzip), one line each:
//   # comment
//   = ENCODING TEMPLATE      a new table; TEMPLATE is JSON, {x} the slot
//   GAP COUNT               a run: it starts GAP code points after the
//                           previous run's start (after 0 for a table's
//                           first run) and lasts up to the next run's start
//                           or U+10FFFF; every scalar value in it (the
//                           surrogates skipped) gives COUNT tokens. GAP and
//                           COUNT are decimal.
import { get_encoding } from "tiktoken";
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const here = (p) => new URL(p, import.meta.url);
const version = JSON.parse(readFileSync(here("node_modules/tiktoken/package.json"))).version;
const pinned = JSON.parse(readFileSync(here("package.json"))).dependencies.tiktoken;
if (version !== pinned) throw new Error(`tiktoken ${version} installed, package.json pins ${pinned}: run npm ci`);
// The crate versions are compiled into the WASM binary's panic paths; the
// regex-syntax version decides the Unicode version of \p{..} and \s.
const wasm = readFileSync(here("node_modules/tiktoken/tiktoken_bg.wasm")).toString("latin1");
const crate = (name) => (wasm.match(new RegExp(`(?<![\\w-])${name}-(\\d+\\.\\d+\\.\\d+)`)) ?? [, "?"])[1];
const engine = `fancy-regex ${crate("fancy-regex")}, regex ${crate("regex")}, regex-syntax ${crate("regex-syntax")}`;

export const templates = ["{x}'s", "a{x}'ll", " {x}{x}"];
const encodings = ["cl100k_base", "o200k_base"];

const lines = [
  `# expected token counts from tiktoken ${version} (npm, WASM build of OpenAI's tiktoken)`,
  `# regex engine: ${engine}`,
  "# written by gen.mjs; see README.md in this folder",
];
for (const name of encodings) {
  const enc = get_encoding(name);
  for (const tpl of templates) {
    lines.push(`= ${name} ${JSON.stringify(tpl)}`);
    let prev = -1;
    let start = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const x = String.fromCodePoint(cp);
      const n = enc.encode_ordinary(tpl.replaceAll("{x}", x)).length;
      if (n !== prev) {
        lines.push(`${cp - start} ${n}`);
        prev = n;
        start = cp;
      }
    }
  }
  enc.free();
}
// Whole strings whose token IDs are pinned in probes.json: the
// case-insensitive contractions (the regex crate folds with Unicode simple
// case folding, so U+017F LONG S is an "s"), the edges of \s (White_Space,
// not Python's str.isspace: U+001C..U+001F and U+200B are not spaces), and
// code points new in Unicode 15.1 and 16.0 in context.
const probes = [
  " I'ſ", " I'S", " I'\u212A", "'ſab", "don'ſ", "DON'ſT", "it'ſ a", "Wait'ſ", "'ſ'ſ'ſ", "ſ'ſ",
  "a\u001cb", "a\u001f b", "a\u200bb", "a\u180eb", "a\u0085 b", "a \u2028\u2028b", "x\u3000\u3000y",
  "\u1C89's", "\u{2EBF0}'s", "\u0897's", "word\u1C89\u1C8Aword", "\u{16D40}\u{16D41}'ll", "\u{1CCF0}\u{1CCF9}99",
  " \u{10D40}x", "\u{1E5D0}\u{1E5F0}", "\u2FFC\u2FFD", "\u{31EF}", "\u{11B00}'s",
];
const probeIDs = [];
for (const name of encodings) {
  const enc = get_encoding(name);
  for (const text of probes) {
    probeIDs.push({ encoding: name, text, ids: Array.from(enc.encode_ordinary(text)) });
  }
  enc.free();
}
// Every non-ASCII unit is written as a \\u escape, so that the file shows
// which code points it holds.
const ascii = (v) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
writeFileSync("probes.json", "[\n" + probeIDs.map((p) => "  " + ascii(p)).join(",\n") + "\n]\n");

writeFileSync("counts.txt.gz", gzipSync(lines.join("\n") + "\n", { level: 9 }));
console.log(`counts.txt.gz: ${lines.length} lines`);
