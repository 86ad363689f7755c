#!/usr/bin/env node
// Writes node_cases.tsv: random patterns with Unicode escapes, classes and
// anchors, and strings with non-ASCII characters and line terminators, with
// the verdicts of a real ECMA-262 engine (V8, RegExp with the u flag), for
// test_random.c. Fields are hex-encoded UTF-8 so any character fits:
//   hex(pattern) TAB hex(string) TAB full TAB search
// full: new RegExp('^(?:' + p + ')$', 'u').test(s); search: new RegExp(p, 'u').test(s).
// Usage: node gen_node_cases.js 400 > node_cases.tsv   (fixed seed)

'use strict';

let seed = 20261121;
function rand() { // xorshift32
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const randint = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const ALPHABET = ['a', 'b', 'A', '1', ' ', '\u00a0', '\n', '\r', '\u2028', '\u2029', '\u00e9',
  '\u{1F600}', '\u3000', '_', '-', '\t', '\ufeff', '\u0085', '\x01', '\b', '\0', '\u1680', '.'];
const ATOMS = ['a', 'b', '\u00e9', '\u{1F600}', '.', '\\s', '\\S', '\\w', '\\W', '\\d', '\\D',
  '\\u00e9', '\\u{1F600}', '\\uD83D\\uDE00', '\\x41', '\\cA', '\\0', '\\n', '\\r', '\\t', '\\.',
  '\\-', '[\\b]', '[^\\s]', '[\\s\\d]', '[\\u00e0-\\u00ff]', '[\u{1F600}-\u{1F64F}]',
  '[^a-z]', '[\\u2028\\u2029]', '[^\\n]', '[^]', '[\\0-\\x1f]', '\\u{a0}', '[\\S\\s]',
  '[\\w-]', '[a\\-z]', '\\u3000', '[\\uFEFF\\u0085]'];

function sampleAtom(atom) {
  const re = new RegExp('^(?:' + atom + ')$', 'u');
  const m = ALPHABET.filter((c) => re.test(c));
  return m.length ? pick(m) : '';
}

function quantifier() {
  const lazy = rand() < 0.2 ? '?' : '';
  const m = randint(0, 3);
  switch (randint(0, 5)) {
    case 0: return [0, 3, '*' + lazy];
    case 1: return [1, 3, '+' + lazy];
    case 2: return [0, 1, '?' + lazy];
    case 3: return [m, m, '{' + m + '}' + lazy];
    case 4: return [m, m + 2, '{' + m + ',}' + lazy];
    default: { const n = m + randint(0, 2); return [m, n, '{' + m + ',' + n + '}' + lazy]; }
  }
}

let groupNo = 0;
// [text, sampler]
function gen(depth) {
  const r = rand();
  if (depth > 3 || r < 0.35) { const a = pick(ATOMS); return [a, () => sampleAtom(a)]; }
  if (r < 0.45) return [pick(['^', '$']), () => ''];
  if (r < 0.65) {
    const parts = Array.from({ length: randint(2, 4) }, () => gen(depth + 1));
    return [parts.map((p) => p[0]).join(''), () => parts.map((p) => p[1]()).join('')];
  }
  if (r < 0.8) {
    const alts = Array.from({ length: randint(2, 3) }, () => gen(depth + 1));
    const open = pick(['(', '(?:', '(?<g' + (groupNo++) + '>']);
    return [open + alts.map((a) => a[0]).join('|') + ')', () => pick(alts)[1]()];
  }
  const inner = gen(depth + 2);
  const [lo, hi, q] = quantifier();
  let text = inner[0];
  if (!ATOMS.includes(text)) text = '(?:' + text + ')';
  const repeat = () => {
    let s = '';
    const k = randint(lo, hi);
    for (let i = 0; i < k; i++) s += inner[1]();
    return s;
  };
  return [text + q, repeat];
}

const randomString = () => {
  let s = '';
  const n = randint(0, 4);
  for (let i = 0; i < n; i++) s += pick(ALPHABET);
  return s;
};

function stringsFor(sampler) {
  const out = new Set();
  for (let i = 0; i < 4; i++) {
    const s = sampler();
    out.add(s);
    const cps = Array.from(s);
    if (cps.length) {
      const k = randint(0, cps.length - 1);
      out.add(cps.slice(0, k).concat(cps.slice(k + 1)).join(''));
      out.add(cps.slice(0, k).concat([pick(ALPHABET)], cps.slice(k)).join(''));
    }
    out.add(randomString() + s + randomString());
  }
  for (let i = 0; i < 3; i++) out.add(randomString());
  return [...out].filter((s) => Buffer.byteLength(s, 'utf8') <= 40).sort();
}

const hex = (s) => Buffer.from(s, 'utf8').toString('hex');
const n = Number(process.argv[2] || 1500);
const lines = [];
for (let written = 0; written < n;) {
  groupNo = 0;
  const [text, sampler] = gen(0);
  let full, search;
  try {
    full = new RegExp('^(?:' + text + ')$', 'u');
    search = new RegExp(text, 'u');
  } catch (e) {
    continue;
  }
  for (const s of stringsFor(sampler))
    lines.push([hex(text), hex(s), full.test(s) ? 1 : 0, search.test(s) ? 1 : 0].join('\t'));
  written++;
}
process.stdout.write(lines.join('\n') + '\n');
