#!/bin/bash
# check.sh BINARY DATA_DIR - the `pushdown check` contract: verdicts, exit codes, errors.
bin="$1"
data="$2"
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT_STDOUT WANT_RC -- ARGS... (stdin from $input)
expect() {
  local name="$1" want="$2" want_rc="$3"
  shift 4
  local got rc
  got=$(printf '%s' "$input" | "$bin" check "$@" 2>"$tmp/err")
  rc=$?
  if [[ "$got" != "$want" || $rc -ne $want_rc ]]; then
    echo "FAIL $name: got '$got' rc=$rc, want '$want' rc=$want_rc ($(cat "$tmp/err"))"
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

g="$data/expr.gbnf"
input="1+22+3"; expect complete "accept" 0 -- --grammar "$g"
input="1+";     expect incomplete "reject at byte 2" 1 -- --grammar "$g"
input="1+";     expect prefix "accept" 0 -- --grammar "$g" --prefix
input="1+a";    expect bad-byte "reject at byte 2" 1 -- --grammar "$g"
input="1+a";    expect bad-byte-prefix "reject at byte 2" 1 -- --grammar "$g" --prefix
input="";       expect empty "reject at byte 0" 1 -- --grammar "$g"
printf '12+4' >"$tmp/in"
input="";       expect input-file "accept" 0 -- --grammar "$g" --input "$tmp/in"
want=$(printf 'accept\nreject at byte 2\nreject at byte 0\nreject at byte 0\nreject at byte 1')
input="";       expect batch "$want" 0 -- --grammar "$g" --batch "$data/batch.txt"
want=$(printf 'accept\naccept\nreject at byte 0\naccept\nreject at byte 1')
input="1+";     expect batch-prefix "$want" 0 -- --grammar "$g" --prefix --batch "$data/batch.txt"

# JSON Schema options: declared property order unless --any-order; --strict closes objects
printf '{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}}}' >"$tmp/s.json"
input='{"a":1,"b":"x"}'; expect schema-order "accept" 0 -- --schema "$tmp/s.json"
input='{"b":"x","a":1}'; expect schema-reordered "reject at byte 11" 1 -- --schema "$tmp/s.json"
input='{"b":"x","a":1}'; expect schema-any-order "accept" 0 -- --schema "$tmp/s.json" --any-order
input='{"a":1,"c":2}';   expect schema-extra "accept" 0 -- --schema "$tmp/s.json"
input='{"a":1,"c":2}';   expect schema-strict "reject at byte 8" 1 -- --schema "$tmp/s.json" --strict

# --schema-doc: a document a $ref names by URI; unknown URIs stay an error
printf '{"$defs":{"n":{"type":"integer","minimum":3}}}' >"$tmp/defs.json"
printf '{"$id":"http://e.x/a/s.json","items":{"$ref":"../d.json#/$defs/n"}}' >"$tmp/r.json"
input='[3,4]'; expect schema-doc "accept" 0 -- --schema "$tmp/r.json" --schema-doc "http://e.x/d.json=$tmp/defs.json"
input='[2]';   expect schema-doc-reject "reject at byte 2" 1 -- --schema "$tmp/r.json" --schema-doc "http://e.x/d.json=$tmp/defs.json"
input='[3]';   expect schema-doc-missing "" 2 -- --schema "$tmp/r.json"
input='[3]';   expect schema-doc-bad-arg "" 2 -- --schema "$tmp/r.json" --schema-doc "http://e.x/d.json"
input='[3]';   expect schema-doc-no-file "" 2 -- --schema "$tmp/r.json" --schema-doc "http://e.x/d.json=$tmp/nope.json"

# errors: exit 2 with "error:" on stderr, line:column for grammar errors
input="a"
expect undefined "" 2 -- --grammar "$data/undefined.gbnf"
if ! grep -q '^error: .*:1:[0-9]*:' "$tmp/err"; then
  echo "FAIL undefined: no line:column: $(cat "$tmp/err")"
  fails=$((fails + 1))
fi
expect no-source "" 2 -- --prefix
expect two-sources "" 2 -- --grammar "$g" --regex a
expect unknown-arg "" 2 -- --grammar "$g" --frobnicate
expect missing-file "" 2 -- --grammar "$tmp/nope.gbnf"
expect input-and-batch "" 2 -- --grammar "$g" --input x --batch y
printf 'not json\n' >"$tmp/bad"
expect bad-batch "" 2 -- --grammar "$g" --batch "$tmp/bad"
grep -q '^error:' "$tmp/err" || { echo "FAIL bad-batch: no error line"; fails=$((fails + 1)); }

echo "$fails failed"
[[ $fails -eq 0 ]]
