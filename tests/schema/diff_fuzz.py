#!/usr/bin/env python3
"""Differential check of the JSON Schema front end against python3-jsonschema.

Generates random small schemas (types, enum/const (an enum with a "not" beside
it too), bounds, lengths, simple
patterns (alone, with lengths, with enums), properties/required/additionalProperties, items/prefixItems,
min/max counts, contains (several at once too), anyOf/allOf/oneOf/not/if (oneOf: tagged unions, exactly one of
some names, unions inside a branch), $defs/$ref, embedded $id resources whose
"#/$defs/s" is their own, shadowing the root's) and random JSON values
(plus values mutated towards each schema), and compares the verdict of
`pushdown check --schema S --batch B` with Draft202012Validator.

Instances are written compactly with json.dumps(separators=(",", ":"),
ensure_ascii=random) so escapes are exercised. Schemas the compiler refuses
are counted, not compared. Any case where the grammar accepts an instance
the validator rejects is a FALSE POSITIVE (the failure that matters); the
reverse is a false negative (allowed by design in a few documented places:
exponents under numeric bounds, declared property order, ...).

With PD_DIFF_ANY_ORDER set, schemas compile with --any-order, some objects
declare 13 to 20 properties (the wide form: only the required ones tracked,
past 14 of them by the matcher's set),
and the members of values made towards a schema come in a random order.
With PD_DIFF_STRICT set, schemas compile with --strict and the validator sees
them with "additionalProperties": false written where the option implies it
(a schema with "properties" or "type" that says nothing of it).

usage: diff_fuzz.py PUSHDOWN_BINARY [N_SCHEMAS] [SEED]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:  # meson counts exit status 77 as skipped
    print("skip: python3-jsonschema is not installed")
    sys.exit(77)

STRS = ["", "a", "ab", "abc", "foo", "bar", "é", "a\"b", "x/y", "\u00e9\u00e9", "ZZZ", "12",
        "\U0001F600a", "o\U0001F600"]
# around the long bounds below (a bound far past the minimum is a counted rule,
# earley.h): characters of one to four UTF-8 bytes, escapes, a surrogate pair
LONG_STRS = ["ab" * 64, "a" * 129, "é" * 130, "x\n" * 75, "\U0001F600" * 129, "q" * 149,
             "\"/" * 75 + "z"]
KEYS = ["a", "b", "c", "foo", "é"]
WIDE_KEYS = KEYS + ["k%d" % i for i in range(16)]
ANY_ORDER = bool(os.environ.get("PD_DIFF_ANY_ORDER"))
STRICT = bool(os.environ.get("PD_DIFF_STRICT"))

SUB_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
           "propertyNames", "unevaluatedProperties", "unevaluatedItems")
SUB_LIST = ("prefixItems", "allOf", "anyOf", "oneOf")
SUB_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")


def id_under_not(s, under=False):
    """Whether an "$id" stands inside a "not", an "if", a "oneOf", a "contains"
    or a "dependentSchemas": jsonschema 4.26 resolves references there against
    the enclosing resource at times (such schemas are skipped; pushdown's JSTS
    runs cover those scopes)."""
    if isinstance(s, list):
        return any(id_under_not(x, under) for x in s)
    if not isinstance(s, dict):
        return False
    if under and "$id" in s:
        return True
    return any(id_under_not(v, under or k in ("not", "if", "oneOf", "contains", "dependentSchemas"))
               for k, v in s.items()
               if k not in ("const", "enum"))


def strict_form(s):
    """The schema as --strict reads it, for the validator."""
    if not isinstance(s, dict):
        return s
    out = dict(s)
    for k in SUB_ONE:
        if k in out:
            out[k] = strict_form(out[k])
    for k in SUB_LIST:
        if isinstance(out.get(k), list):
            out[k] = [strict_form(x) for x in out[k]]
    for k in SUB_MAP:
        if isinstance(out.get(k), dict):
            out[k] = {n: strict_form(x) for n, x in out[k].items()}
    if ("properties" in out or "type" in out) and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out
PATTERNS = ["^a", "b$", "^[a-c]*$", "o+", "^.{2}$", "\\d"]
# patterns may also hold top-level lookarounds (Python's re has them too)
STRING_PATTERNS = PATTERNS + ["^(?!a)", "o(?!o)", "(?<=b)a", "^(?=.*o)[a-o]{1,3}$", "(?<!a)b$"]


def rnd_value(r, depth=0):
    k = r.randrange(8 if depth < 3 else 5)
    if k == 0:
        return None
    if k == 1:
        return r.choice([True, False])
    if k == 2:
        return r.choice([0, 1, -1, 2, 3, 7, 10, 100, -17, 255])
    if k == 3:
        return r.choice([0.5, -1.5, 2.25, 1.0, 3.75, -0.125, 10.5, 1e-06, -3e-07, 1e+20, -1e+25])
    if k == 4:
        return r.choice(STRS) if r.random() < 0.85 else r.choice(LONG_STRS)
    if k == 5:
        return [rnd_value(r, depth + 1) for _ in range(r.randrange(4))]
    return {r.choice(KEYS): rnd_value(r, depth + 1) for _ in range(r.randrange(4))}


def rnd_schema(r, depth=0, defs=None):
    if depth > 2 or r.random() < 0.15:
        return r.choice([{}, True, False, {"type": r.choice(["integer", "string", "null"])}])
    kind = r.randrange(10)
    if kind == 0:
        s = {"enum": [rnd_value(r, 2) for _ in range(r.randrange(1, 4))]}
        if r.random() < 0.3:  # any "not" beside the values: decided on each of them
            s["not"] = rnd_schema(r, depth + 1, defs)
        return s
    if kind == 1:
        return {"const": rnd_value(r, 2)}
    if kind == 2:
        s = {"type": r.choice(["integer", "number"])}
        for kw in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]:
            if r.random() < 0.4:
                s[kw] = r.choice([-3, 0, 1, 2.5, 7, -1.5, 10])
        if r.random() < 0.2:
            s["multipleOf"] = r.choice([2, 3, 0.5 if s["type"] == "integer" else 1])
        return with_values(r, s)
    if kind == 3:
        s = {"type": "string"}
        if r.random() < 0.5:
            s["minLength"] = r.randrange(3)
        if r.random() < 0.5:
            s["maxLength"] = r.randrange(1, 4) if r.random() < 0.7 else r.choice([128, 129, 130, 150])
        if r.random() < 0.3:  # with lengths too: the pattern and a count of characters
            s["pattern"] = r.choice(STRING_PATTERNS)
        if r.random() < 0.15:  # values checked against the sibling keywords
            s["enum"] = r.sample(STRS, r.randrange(1, 4))
        return s
    if kind == 4:
        s = {"type": "object", "properties": {}}
        wide = ANY_ORDER and r.random() < 0.3
        names = r.sample(WIDE_KEYS, r.randrange(13, 21)) if wide else r.sample(KEYS, r.randrange(1, 4))
        for k in names:
            s["properties"][k] = rnd_schema(r, depth + 1, defs)
        if r.random() < 0.5:
            s["required"] = r.sample(list(s["properties"]), r.randrange(len(s["properties"]) + 1))
        if r.random() < 0.4:
            s["additionalProperties"] = r.choice([False, True, rnd_schema(r, depth + 1, defs)])
        if r.random() < 0.2:
            s["maxProperties"] = r.randrange(3) + (len(names) // 2 if wide else 0)
        if ANY_ORDER and r.random() < 0.15:
            s["minProperties"] = r.randrange(4)
        if r.random() < 0.3:
            s["patternProperties"] = {p: rnd_schema(r, depth + 1, defs)
                                      for p in r.sample(STRING_PATTERNS, r.randrange(1, 3))}
        if r.random() < 0.1:
            s["unevaluatedProperties"] = r.choice([False, rnd_schema(r, depth + 1, defs)])
        if r.random() < 0.3:
            s["dependentSchemas"] = {k: rnd_schema(r, depth + 1, defs)
                                     for k in r.sample(KEYS, r.randrange(1, 3))}
        return with_values(r, s)
    if kind == 5:
        s = {"type": "array"}
        if r.random() < 0.4:
            s["prefixItems"] = [rnd_schema(r, depth + 1, defs) for _ in range(r.randrange(1, 3))]
        if r.random() < 0.7:
            s["items"] = rnd_schema(r, depth + 1, defs)
        if r.random() < 0.4:
            s["minItems"] = r.randrange(3)
        if r.random() < 0.4:
            s["maxItems"] = r.randrange(1, 4)
        if r.random() < 0.2:
            s["contains"] = rnd_schema(r, depth + 1, defs)
            if r.random() < 0.5:
                s["maxContains"] = r.randrange(3)
            if r.random() < 0.3:
                s["minContains"] = r.randrange(3)
            if r.random() < 0.3:  # other contains beside it (or the same), with counts of their own
                s["allOf"] = [{"contains": s["contains"] if r.random() < 0.3 else rnd_schema(r, depth + 1, defs),
                               "minContains": r.randrange(3)} for _ in range(r.randrange(1, 3))]
        if r.random() < 0.2:
            s["uniqueItems"] = True
            if r.random() < 0.7:
                s["items"] = {"enum": [rnd_value(r, 2) for _ in range(r.randrange(1, 5))]}
        return with_values(r, s)
    if kind == 6 and r.random() < 0.3:  # a tagged union: the tag required around, by some branches, or not
        tag, pool = r.choice(KEYS), ["x", "y", "z", 1, 1.0]
        s = {"oneOf": []}
        for _ in range(r.randrange(2, 4)):
            vals = r.sample(pool, r.randrange(1, 3))
            b = {"properties": {tag: {"const": vals[0]} if len(vals) == 1 else {"enum": vals},
                                r.choice(KEYS): rnd_schema(r, depth + 1, defs)}}
            if r.random() < 0.3:
                b["required"] = [tag]
            s["oneOf"].append(b)
        if r.random() < 0.6:
            s["type"] = "object"
        if r.random() < 0.5:
            s["required"] = [tag]
        return s
    if kind == 6 and r.random() < 0.3:  # exactly one of some names
        s = {"oneOf": [{"required": [k]} for k in r.sample(KEYS, r.randrange(2, 6))]}
        if r.random() < 0.5:
            s["type"] = "object"
        if r.random() < 0.3:
            s["oneOf"].append({"type": r.choice(["object", "string", "array"])})
        return s
    if kind == 6 and r.random() < 0.3:  # unions inside a branch, told apart branch by branch
        def obj(depth):
            o = {"type": "object", "required": r.sample(KEYS, r.randrange(0, 4))}
            if r.random() < 0.5:
                o["properties"] = {k: rnd_schema(r, depth + 2, defs) for k in r.sample(KEYS, 2)}
            if r.random() < 0.4:
                o["maxProperties"] = r.randrange(3)
            if r.random() < 0.3:
                o["additionalProperties"] = r.choice([False, {"const": r.choice([False, 1, "x"])}])
            return o
        inner = {r.choice(["anyOf", "oneOf"]): [obj(depth) for _ in range(r.randrange(1, 4))]}
        return {"oneOf": [inner, obj(depth)] if r.random() < 0.5 else [obj(depth), inner]}
    if kind == 6 and r.random() < 0.3:  # closed objects keyed apart: {} their only common instance
        names, s = r.sample(KEYS, r.randrange(2, 6)), {"oneOf": []}
        while names:
            k = r.randrange(1, 3)
            b = {"properties": {n: rnd_schema(r, depth + 2, defs) for n in names[:k]},
                 "additionalProperties": False}
            names = names[k:]
            if r.random() < 0.4:
                b["type"] = "object"
            if r.random() < 0.2:
                b["minProperties"] = 1
            if r.random() < 0.1:  # a name of another branch too: not apart
                b["properties"][r.choice(KEYS)] = {}
            s["oneOf"].append(b)
        return s
    if kind == 6:
        return {r.choice(["anyOf", "allOf", "oneOf"]):
                [rnd_schema(r, depth + 1, defs) for _ in range(r.randrange(1, 4))]}
    if kind == 7:
        return {"not": r.choice([{"type": r.choice(["string", "integer", "object"])},
                                 rnd_schema(r, depth + 1, defs)])}
    if kind == 8 and r.random() < 0.2:
        return {"if": rnd_schema(r, depth + 1, defs)}  # no then/else: decides nothing
    if kind == 8 and r.random() < 0.5:  # any condition: exact by negation, or refused
        return {"if": rnd_schema(r, depth + 1, defs),
                "then": rnd_schema(r, depth + 1, defs), "else": rnd_schema(r, depth + 1, defs)}
    if kind == 8:
        return {"if": {"type": r.choice(["string", "number", "array"])},
                "then": rnd_schema(r, depth + 1, defs), "else": rnd_schema(r, depth + 1, defs)}
    if defs is not None and r.random() < 0.25:  # an embedded resource: "#/$defs/s" is its own
        defs.setdefault("s", {"type": "integer"})  # the root's, a wrong resolution's target
        defs.setdefault("$resources", 0)  # counted apart, taken out before use: each $id once
        defs["$resources"] += 1
        # the "$ref" on the resource itself: jsonschema 4.26 resolves one nested deeper
        # (an allOf / oneOf member) against the root document
        return {"$id": "http://t.test/r%d.json" % defs["$resources"], "$defs": {"s": rnd_schema(r, depth + 1)},
                "$ref": "#/$defs/s", r.choice(["oneOf", "anyOf", "allOf"]): [rnd_schema(r, depth + 1)]}
    if defs is not None:
        name = "d%d" % len(defs)
        defs[name] = {}  # reserve the name before generating the body
        defs[name] = rnd_schema(r, depth + 1, defs)
        return {"$ref": "#/$defs/" + name}
    return {}


def with_values(r, s):
    """Sometimes an enum or const beside the other keywords: each listed value
    is kept only where the siblings accept it (schema_value.c decides)."""
    if r.random() < 0.2:
        vals = [mutate_towards(r, s) for _ in range(r.randrange(1, 4))] + [rnd_value(r, 2)]
        if r.random() < 0.3:
            s["const"] = vals[0]
        else:
            s["enum"] = vals
    return s


def mutate_towards(r, schema):
    """A value likely near the schema's language."""
    if isinstance(schema, dict):
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return r.choice(schema["enum"])
        if isinstance(schema.get("oneOf"), list) and schema["oneOf"] and r.random() < 0.7:
            b = r.choice(schema["oneOf"])  # a tagged union's branch, as an object
            if isinstance(b, dict) and "properties" in b:
                return mutate_towards(r, {"type": "object", "properties": b["properties"]})
            if isinstance(b, dict) and "required" in b:  # its names, and maybe others
                return {k: rnd_value(r, 2) for k in b["required"] + r.sample(KEYS, r.randrange(2))}
        if schema.get("type") == "object":
            members = [(k, mutate_towards(r, v)) for k, v in schema.get("properties", {}).items()
                       if r.random() < 0.8]
            if ANY_ORDER:
                r.shuffle(members)
            return dict(members)
        if schema.get("type") == "array":
            items = [mutate_towards(r, s) for s in schema.get("prefixItems", [])]
            return items + [mutate_towards(r, schema.get("items", {})) for _ in range(r.randrange(3))]
    return rnd_value(r)


def unresolvable(e):
    """python3-jsonschema before 4.18 (Debian 12 packages 4.10) looks an embedded
    resource's $id up on the network instead of in the schema: such a schema is
    left out (counted as unresolved), not compared."""
    return type(e).__name__ in ("RefResolutionError", "Unresolvable", "_WrappedReferencingError")


def run(binary, n_schemas, seed):
    r = random.Random(seed)
    counts = {"compared": 0, "agree": 0, "false_positive": 0, "false_negative": 0,
              "refused": 0, "unresolved": 0, "schemas": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n_schemas):
            defs = {}
            schema = rnd_schema(r, 0, defs)
            defs.pop("$resources", None)
            if defs and isinstance(schema, dict):
                schema = dict(schema, **{"$defs": defs})
            if id_under_not(schema):
                continue
            counts["schemas"] += 1
            values = [rnd_value(r) for _ in range(10)] + [mutate_towards(r, schema) for _ in range(10)]
            spath, bpath = os.path.join(tmp, "s.json"), os.path.join(tmp, "b.txt")
            with open(spath, "w") as f:
                json.dump(schema, f)
            texts = [json.dumps(v, separators=(",", ":"), ensure_ascii=r.random() < 0.5) for v in values]
            with open(bpath, "w") as f:
                for t in texts:
                    f.write(json.dumps(t) + "\n")
            cmd = [binary, "check", "--schema", spath, "--batch", bpath]
            p = subprocess.run(cmd + (["--any-order"] if ANY_ORDER else []) +
                               (["--strict"] if STRICT else []), capture_output=True, text=True)
            if p.returncode == 2:
                counts["refused"] += 1
                continue
            verdicts = p.stdout.split("\n")
            validator = jsonschema.Draft202012Validator(strict_form(schema) if STRICT else schema)
            for v, t, got in zip(values, texts, verdicts):
                try:
                    want = validator.is_valid(v)
                except RecursionError:  # a $ref cycle the validator cannot follow
                    continue
                except Exception as e:  # noqa: BLE001 - only the reference kind is expected
                    if not unresolvable(e):
                        raise
                    counts["unresolved"] += 1
                    break
                acc = got.startswith("accept")
                counts["compared"] += 1
                if acc == want:
                    counts["agree"] += 1
                elif acc:
                    counts["false_positive"] += 1
                    print("FALSE POSITIVE", json.dumps(schema), t)
                else:
                    counts["false_negative"] += 1
                    if os.environ.get("PD_DIFF_VERBOSE"):
                        print("false negative", json.dumps(schema), t)
    return counts


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    counts = run(binary, n, seed)
    print(json.dumps(counts))
    return 1 if counts["false_positive"] else 0


if __name__ == "__main__":
    sys.exit(main())
