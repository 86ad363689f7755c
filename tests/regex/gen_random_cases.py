#!/usr/bin/env python3
"""Writes random_cases.tsv: random patterns from a small generator over ASCII,
with strings and Python re's verdicts, for test_random.c to compare with.

Only constructs where Python's re and ECMA-262 agree on ASCII text without
\\n and \\r are generated: literals, escapes of punctuation, `.`, classes,
\\d \\w \\s and negations (the strings hold no \\x1c-\\x1f, where Python's \\s
differs), groups, alternation, quantifiers and their lazy forms, `^` and `$`
(Python's `$` also matches before a final newline; the strings hold none).

Line format: pattern TAB string TAB full TAB search, where full = 1 when the
whole string matches (re.fullmatch) and search = 1 when the pattern matches
somewhere in it (re.search, JSON Schema's semantics).

Usage: python3 gen_random_cases.py 1200 > random_cases.tsv   (fixed seed)
       python3 gen_random_cases.py --look 400 > look_cases.tsv
The second form writes patterns with lookarounds where pushdown makes them
exact: terms of a top-level alternative, lookbehinds (fixed width, as re
needs) before lookaheads, `^` only before the first and `$` only after the
last; a lookahead may end in `$` and a lookbehind start with `^`.
"""
import random
import re
import sys

ALPHABET = "abc1-. _"
ATOMS = ["a", "b", "c", "1", "\\.", "\\-", "-", " ", ".", "[ab]", "[^a]", "[a-c]",
         "[^b-c]", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "[\\d.]", "[\\w-]", "[^\\s]",
         "[.-]", "[ -b]"]


def gen(depth):
    """A random pattern as (text, sampler), sampler(rng) giving a string
    that matches when no anchor gets in the way."""
    r = rng.random()
    if depth > 3 or r < 0.35:
        atom = rng.choice(ATOMS)
        return atom, lambda: sample_atom(atom)
    if r < 0.45:
        return rng.choice(["^", "$"]), lambda: ""
    if r < 0.65:
        parts = [gen(depth + 1) for _ in range(rng.randint(2, 4))]
        return "".join(p[0] for p in parts), lambda: "".join(p[1]() for p in parts)
    if r < 0.8:
        alts = [gen(depth + 1) for _ in range(rng.randint(2, 3))]
        text = "|".join(a[0] for a in alts)
        group = rng.choice(["(", "(?:"])
        return group + text + ")", lambda: rng.choice(alts)[1]()
    inner = gen(depth + 2)  # shallow: nested repeats backtrack exponentially in re
    lo, hi, q = quantifier()
    text = "(?:" + inner[0] + ")" if len(inner[0]) > 1 and not is_atom(inner[0]) else inner[0]
    if text in ("^", "$"):
        text = "(" + text + ")"
    return text + q, lambda: "".join(inner[1]() for _ in range(rng.randint(lo, hi)))


def is_atom(text):
    return text in ATOMS


def quantifier():
    kind = rng.randint(0, 5)
    lazy = "?" if rng.random() < 0.2 else ""
    if kind == 0:
        return 0, 3, "*" + lazy
    if kind == 1:
        return 1, 3, "+" + lazy
    if kind == 2:
        return 0, 1, "?" + lazy
    m = rng.randint(0, 3)
    if kind == 3:
        return m, m, "{%d}" % m + lazy
    if kind == 4:
        return m, m + 2, "{%d,}" % m + lazy
    n = m + rng.randint(0, 2)
    return m, n, "{%d,%d}" % (m, n) + lazy


def sample_atom(atom):
    matches = [ch for ch in ALPHABET if re.fullmatch(atom, ch)]
    return rng.choice(matches) if matches else ""


def random_string():
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 4)))


def strings_for(sampler):
    out = set()
    for _ in range(4):
        s = sampler()
        out.add(s)
        if s:
            i = rng.randrange(len(s))
            out.add(s[:i] + s[i + 1:])
            out.add(s[:i] + rng.choice(ALPHABET) + s[i:])
        out.add(random_string() + s + random_string())
    for _ in range(3):
        out.add(random_string())
    return sorted(s for s in out if len(s) <= 12)


def plain(depth):
    """gen() without anchors."""
    while True:
        text, sampler = gen(depth)
        if "^" not in text and "$" not in text:
            return text, sampler


def fixed_width():
    """A lookbehind's body: one to three atoms (re takes fixed widths only)."""
    atoms = [rng.choice(ATOMS) for _ in range(rng.randint(1, 3))]
    return "".join(atoms), lambda: "".join(sample_atom(a) for a in atoms)


def look_alternative():
    """S0 (?<=X).. (?=Y).. Sn: segments may be empty; returns text, sampler."""
    n_behind, n_ahead = rng.randint(0, 2), rng.randint(0, 2)
    if n_behind + n_ahead == 0:
        n_ahead = 1
    parts, samplers = [], []
    if rng.random() < 0.3:
        parts.append("^")
    for i in range(n_behind + n_ahead + 1):
        if rng.random() < 0.7:
            t, f = plain(1)
            parts.append("(?:" + t + ")")
            samplers.append(f)
        if i < n_behind:
            body, f = fixed_width()
            caret = "^" if rng.random() < 0.25 else ""
            parts.append(rng.choice(["(?<=", "(?<!"]) + caret + body + ")")
        elif i < n_behind + n_ahead:
            body, f = plain(1)
            dollar = "$" if rng.random() < 0.25 else ""
            parts.append(rng.choice(["(?=", "(?!"]) + body + dollar + ")")
            if rng.random() < 0.5:
                samplers.append(f)
    if rng.random() < 0.3:
        parts.append("$")
    return "".join(parts), lambda: "".join(f() for f in samplers)


def look_pattern():
    alts = [look_alternative()]
    if rng.random() < 0.3:
        alts.append(plain(1))
    return "|".join(a[0] for a in alts), lambda: rng.choice(alts)[1]()


def main():
    look = len(sys.argv) > 1 and sys.argv[1] == "--look"
    args = sys.argv[2:] if look else sys.argv[1:]
    n = int(args[0]) if args else 600
    written = 0
    while written < n:
        text, sampler = look_pattern() if look else gen(0)
        try:
            rx = re.compile(text)
        except re.error:
            continue
        for s in strings_for(sampler):
            full = 1 if rx.fullmatch(s) else 0
            search = 1 if rx.search(s) else 0
            print("%s\t%s\t%d\t%d" % (text, s, full, search))
        written += 1


rng = random.Random(20261121)
if __name__ == "__main__":
    main()
