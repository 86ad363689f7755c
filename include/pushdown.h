/*
 * pushdown.h - the one public header of pushdown, a C11 library that constrains
 * language-model decoding to a grammar (GBNF, JSON Schema, regex, choice).
 *
 * Conventions
 *  - Owning objects are opaque handles: pd_vocab, pd_grammar, pd_matcher, pd_batch.
 *  - Every fallible call returns pd_status. The optional caller-owned pd_error *err
 *    (may be NULL) receives code, position and a message. The library never prints,
 *    exits or aborts.
 *  - Memory the library returns is owned as stated next to each function.
 *  - Bitmask rows: 32-bit words; token t is bit (t % 32) of word (t / 32);
 *    1 = allowed. An all-ones row means unconstrained. Ids past the tokenizer
 *    (padding up to the model's logit width) are always 0.
 */
#ifndef PUSHDOWN_H
#define PUSHDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PD_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- status */

typedef enum pd_status {
  PD_OK = 0,
  PD_ERR_NOMEM,       /* an allocation failed */
  PD_ERR_ARG,         /* bad argument or API misuse (NULL handle, bad id, ...) */
  PD_ERR_SYNTAX,      /* grammar / schema / regex / JSON text is malformed */
  PD_ERR_SEMANTIC,    /* well-formed but meaningless: undefined rule, no root, ... */
  PD_ERR_UNSUPPORTED, /* a feature that cannot be enforced exactly */
  PD_ERR_LIMIT,       /* a documented resource limit was exceeded */
  PD_ERR_IO,          /* a file could not be read */
  PD_ERR_REJECTED,    /* input not accepted by the grammar (state unchanged) */
  PD_ERR_STATE,       /* call not valid in the object's current state */
  PD_ERR_INTERNAL     /* an invariant broke: a bug, reported rather than aborting */
} pd_status;

typedef struct pd_error {
  pd_status code;
  size_t offset;       /* byte offset into the input text, when meaningful */
  uint32_t line;       /* 1-based; 0 when not meaningful */
  uint32_t column;     /* 1-based, in bytes; 0 when not meaningful */
  char message[256];   /* NUL-terminated, no trailing newline */
} pd_error;

/* A static string naming the status ("ok", "out of memory", ...). */
const char *pd_status_str(pd_status s);

/* ------------------------------------------------------------- allocator */

/* All allocation goes through an allocator. NULL means the default (mimalloc
 * when built with it, else the C library). realloc(ud, NULL, n) must behave as
 * malloc; free(ud, NULL) must be a no-op. Returning NULL is reported as
 * PD_ERR_NOMEM, never a crash. */
typedef struct pd_allocator {
  void *(*malloc)(void *ud, size_t size);
  void *(*realloc)(void *ud, void *ptr, size_t size);
  void (*free)(void *ud, void *ptr);
  void *ud;
} pd_allocator;

const pd_allocator *pd_default_allocator(void);

/* ----------------------------------------------------------------- vocab */

typedef struct pd_vocab pd_vocab;

enum {
  PD_TOKEN_NORMAL = 0,
  PD_TOKEN_SPECIAL = 1u << 0, /* carries no text; never matches grammar text */
  PD_TOKEN_EOS = 1u << 1,     /* stop token: allowed exactly when the grammar is complete */
  PD_TOKEN_HOLE = 1u << 2     /* id unused by the tokenizer: never allowed */
};

typedef struct pd_vocab_options {
  const pd_allocator *allocator; /* NULL = default */
  uint32_t width;                /* model logit width; 0 = tokenizer size. Must be >= it. */
  const uint32_t *eos_ids;       /* caller's stop tokens; NULL = from tokenizer_config.json */
  size_t n_eos;
  size_t cache_bytes;            /* bound on the token classifications kept for every grammar
                                    over this vocabulary; 0 = 256 MiB (pd_vocab_cache_stats) */
  size_t rule_cache_bytes;       /* bound on the rule automata kept for reuse by later grammars
                                    (pd_grammar_options.no_rule_cache); 0 = 64 MiB */
} pd_vocab_options;

/* Loads a Hugging Face tokenizer.json (byte-level BPE or SentencePiece BPE with
 * byte fallback). config_path may be NULL; when NULL, tokenizer_config.json next
 * to tokenizer_path is read if present (for eos_token). opts may be NULL.
 * On success *out is owned by the caller (pd_vocab_free). */
pd_status pd_vocab_load_hf(const char *tokenizer_path, const char *config_path,
                           const pd_vocab_options *opts, pd_vocab **out, pd_error *err);

/* Same, from tokenizer.json text already in memory (config_json may be NULL). */
pd_status pd_vocab_parse_hf(const char *tokenizer_json, size_t len, const char *config_json,
                            size_t config_len, const pd_vocab_options *opts, pd_vocab **out,
                            pd_error *err);

/* The vocabulary of a GGUF model file (llama.cpp; tokenizer models "gpt2" and
 * "llama"); only its tokenizer metadata is read. Stop token: the caller's, else
 * tokenizer.ggml.eos_token_id. *out owned by the caller (pd_vocab_free). */
pd_status pd_vocab_load_gguf(const char *path, const pd_vocab_options *opts, pd_vocab **out,
                             pd_error *err);
pd_status pd_vocab_parse_gguf(const uint8_t *data, size_t len, const pd_vocab_options *opts,
                              pd_vocab **out, pd_error *err);

/* A vocabulary from a plain list: token i has bytes tokens[i][0..lens[i]).
 * flags may be NULL (all normal) or give PD_TOKEN_* per id. The bytes are copied. */
pd_status pd_vocab_from_list(const uint8_t *const *tokens, const size_t *lens,
                             const uint32_t *flags, size_t n, const pd_vocab_options *opts,
                             pd_vocab **out, pd_error *err);

void pd_vocab_free(pd_vocab *v);
size_t pd_vocab_size(const pd_vocab *v);   /* ids the tokenizer defines (max id + 1) */
size_t pd_vocab_width(const pd_vocab *v);  /* logit width: bitmask rows cover this many ids */
/* Bytes of token id (borrowed, valid while v lives); *flags gets PD_TOKEN_*.
 * Special tokens have their text here but never match grammar text. */
pd_status pd_vocab_token(const pd_vocab *v, uint32_t id, const uint8_t **bytes, size_t *len,
                         uint32_t *flags);
/* Looks up a token whose text (including specials' text, e.g. "<|eot_id|>") is
 * exactly bytes; PD_ERR_ARG when none. */
pd_status pd_vocab_find(const pd_vocab *v, const uint8_t *bytes, size_t len, uint32_t *id);
size_t pd_vocab_eos(const pd_vocab *v, const uint32_t **ids); /* borrowed */

/* The classification cache every grammar over a vocabulary shares: a state's
 * token classes are computed once and found again by the next grammar with the
 * same local language. Past `limit` bytes new classes are kept by their grammar
 * alone (freed with it). */
typedef struct pd_cache_stats {
  size_t classes;      /* classifications held: of states, and of callers' continuations */
  size_t bytes, limit; /* their memory, and its bound (pd_vocab_options.cache_bytes) */
  size_t hits, misses; /* lookups by grammars so far */
} pd_cache_stats;
void pd_vocab_cache_stats(const pd_vocab *v, pd_cache_stats *out);

/* Canonical tokenization (the encoder). *ids is allocated with the vocab's
 * allocator and owned by the caller (pd_free_ids). */
pd_status pd_vocab_encode(const pd_vocab *v, const uint8_t *text, size_t len, uint32_t **ids,
                          size_t *n_ids, pd_error *err);
void pd_free_ids(const pd_vocab *v, uint32_t *ids);

/* --------------------------------------------------------------- grammar */

typedef struct pd_grammar pd_grammar;

typedef enum pd_ws_mode {
  PD_WS_FLEXIBLE = 0, /* any JSON whitespace between tokens (bounded by max_ws_run) */
  PD_WS_COMPACT,      /* no whitespace */
  PD_WS_FIXED         /* item_separator / key_separator / indent below */
} pd_ws_mode;

/* A JSON Schema document known by its URI (pd_grammar_options.schema_docs). */
typedef struct pd_schema_doc {
  const char *uri;  /* absolute, e.g. "https://example.com/defs.json" */
  const char *json; /* the document's text */
  size_t len;
} pd_schema_doc;

typedef struct pd_grammar_options {
  const pd_allocator *allocator; /* NULL = the vocab's, else default */
  /* resource limits; 0 = the documented default */
  uint32_t max_rules;          /* default 65536 */
  uint32_t max_states;         /* automaton states, default 4,000,000 (262,144 per rule) */
  uint32_t max_items_per_row;  /* Earley items in one row, default 1,000,000 */
  uint32_t max_depth;          /* schema / regex nesting depth, default 256 */
  uint32_t max_repeat;         /* largest {m,n} bound, default 16,777,216 (2^24) */
  /* token classes of every automaton state at compile time; by default a state
   * is classified by the first mask that needs it (fast compiles, and the cost
   * of a new state lands once on that mask) */
  bool eager_masks;
  /* build every rule's automaton afresh; by default one built for an earlier
   * grammar over the same vocab is reused (pd_vocab_options.rule_cache_bytes) */
  bool no_rule_cache;
  /* JSON Schema options */
  bool lenient;                /* drop unenforceable keywords instead of failing */
  bool strict;                 /* additionalProperties false where unspecified */
  bool any_order;              /* properties in any order (default: as declared); past 12
                                  declared properties an optional one may repeat (a parser
                                  keeps the last value; each was checked). An object with
                                  more than 32 required ones (counting those a dependency
                                  requires), a minProperties above its required count, or
                                  rules past max_rules keeps the declared order. Past 14
                                  required ones (and without maxProperties) the matcher
                                  keeps the set written, and masks where it matters are
                                  the parser's to decide (slower) */
  /* documents a $ref may name by URI (nothing is fetched): each is parsed
   * with the schema, its relative references resolve against uri (absolute),
   * or its root's $id when it has one; borrowed for the call only */
  const pd_schema_doc *schema_docs;
  size_t n_schema_docs;
  pd_ws_mode ws_mode;
  uint32_t max_ws_run;         /* FLEXIBLE: longest whitespace run; 0 = unbounded */
  const char *item_separator;  /* FIXED, e.g. ", "; NULL = "," */
  const char *key_separator;   /* FIXED, e.g. ": "; NULL = ":" */
  int indent;                  /* FIXED: spaces per level, -1 = single line */
  /* reasoning gate (spec/): unconstrained until this text has been produced */
  const char *gate_end;        /* e.g. "</think>"; NULL = no gate */
  const char *gbnf_root;       /* GBNF: the start rule; NULL = "root" */
} pd_grammar_options;

/* Compile a grammar. vocab may be NULL (byte-level checking only; masks need a
 * vocab). The compiled grammar is immutable and may be shared by threads; it
 * holds a reference to vocab, which must outlive it. *out owned by caller. */
pd_status pd_grammar_compile_gbnf(const char *text, size_t len, pd_vocab *vocab,
                                  const pd_grammar_options *opts, pd_grammar **out,
                                  pd_error *err);
pd_status pd_grammar_compile_json_schema(const char *json, size_t len, pd_vocab *vocab,
                                         const pd_grammar_options *opts, pd_grammar **out,
                                         pd_error *err);
/* The whole output must match the ECMA-262 pattern (anchored at both ends). */
pd_status pd_grammar_compile_regex(const char *pattern, size_t len, pd_vocab *vocab,
                                   const pd_grammar_options *opts, pd_grammar **out,
                                   pd_error *err);
/* The output is exactly one of the n strings. */
pd_status pd_grammar_compile_choice(const char *const *choices, const size_t *lens, size_t n,
                                    pd_vocab *vocab, const pd_grammar_options *opts,
                                    pd_grammar **out, pd_error *err);
/* Any JSON value (object_only = any JSON object). */
pd_status pd_grammar_compile_json(bool object_only, pd_vocab *vocab,
                                  const pd_grammar_options *opts, pd_grammar **out,
                                  pd_error *err);

void pd_grammar_free(pd_grammar *g);
/* After a lenient schema compile: what was dropped, one "keyword at /pointer"
 * per line; "" when nothing. Borrowed. */
const char *pd_grammar_relaxed(const pd_grammar *g);
/* Counts for reports: rules and automaton states. */
void pd_grammar_stats(const pd_grammar *g, size_t *rules, size_t *states, size_t *class_bytes);

/* --------------------------------------------------------------- matcher */

typedef struct pd_matcher pd_matcher;

/* One per sequence; not thread-safe; cheap. *out owned by caller. */
pd_status pd_matcher_new(const pd_grammar *g, pd_matcher **out, pd_error *err);
void pd_matcher_free(pd_matcher *m);
/* Copy with its own state; shares the compiled grammar. */
pd_status pd_matcher_fork(const pd_matcher *m, pd_matcher **out, pd_error *err);
void pd_matcher_reset(pd_matcher *m);

/* Consume bytes. All or nothing: on PD_ERR_REJECTED nothing changed and
 * *n_ok (may be NULL) tells how many leading bytes would have been accepted. */
pd_status pd_matcher_accept_bytes(pd_matcher *m, const uint8_t *bytes, size_t len, size_t *n_ok,
                                  pd_error *err);
/* Consume one token (bytes, special token, or EOS). All or nothing. After an
 * EOS token the matcher is terminated. */
pd_status pd_matcher_accept_token(pd_matcher *m, uint32_t id, pd_error *err);
/* How many of ids[0..n) would be accepted in a row; state unchanged. */
pd_status pd_matcher_validate_tokens(pd_matcher *m, const uint32_t *ids, size_t n,
                                     size_t *n_ok, pd_error *err);
/* Undo the last n accepted tokens (any depth up to what was accepted since the
 * last reset). Also undoes termination. */
pd_status pd_matcher_rollback(pd_matcher *m, size_t n_tokens, pd_error *err);
size_t pd_matcher_num_tokens(const pd_matcher *m); /* tokens accepted and not rolled back */

bool pd_matcher_is_accepting(const pd_matcher *m);  /* the input so far is a complete sentence */
bool pd_matcher_is_terminated(const pd_matcher *m); /* EOS accepted, or nothing can follow */

/* Bytes every continuation must begin with (jump-forward). Writes up to cap
 * bytes into buf and sets *len. */
pd_status pd_matcher_forced_bytes(const pd_matcher *m, uint8_t *buf, size_t cap, size_t *len,
                                  pd_error *err);

/* Fill one bitmask row of n_words words (n_words >= ceil(width / 32)). Bit t is
 * set iff pd_matcher_accept_token(t) would succeed. The one exception is a
 * token whose parse would pass max_items_per_row (a very ambiguous grammar):
 * accepting it fails with PD_ERR_LIMIT and changes nothing, and its bit may
 * be either (a class made beforehand says what the grammar takes; the parser
 * cannot foresee its own bound). *all_allowed (may be NULL) reports an
 * all-ones row (within the width). */
pd_status pd_matcher_fill_bitmask(pd_matcher *m, uint32_t *words, size_t n_words,
                                  bool *all_allowed, pd_error *err);

/* ---------------------------------------------------- speculative (spec/) */

/* Reasoning gate: a request's rows stay unconstrained (all ones) until its
 * output contains the text end (e.g. "</think>", as one special token or as
 * several tokens); the grammar starts with the token after the one that
 * completes it, also when that token is a draft. Plain state, no allocation;
 * pd_spec_advance moves it. vocab and end are borrowed. end_len 0 = closed. */
typedef struct pd_spec_gate {
  const pd_vocab *vocab;
  const uint8_t *end;
  size_t end_len;
  size_t matched; /* bytes of end matched by the tail of the output so far */
  bool closed;    /* end was produced: the grammar is active */
} pd_spec_gate;

void pd_spec_gate_init(pd_spec_gate *g, const pd_vocab *vocab, const char *end);

/* One request of a batch step. A matcher may appear in one request only. */
typedef struct pd_spec_request {
  pd_matcher *matcher;     /* NULL = unconstrained request */
  const uint32_t *drafts;  /* k draft tokens */
  size_t n_drafts;
  pd_spec_gate *gate;      /* NULL = the grammar applies from the first token */
} pd_spec_request;

/* Result layout: rows packed per request; request r owns rows
 * row_offsets[r] .. row_offsets[r+1]-1 (1 + n_drafts rows each). Row
 * row_offsets[r] + i is the mask after drafts 0..i-1 (row k: the bonus).
 * Rows of unconstrained requests and of open gates are all ones and listed,
 * in increasing order, in unconstrained_rows. When draft valid_drafts[r] is
 * rejected by the grammar, the rows after row row_offsets[r] + valid_drafts[r]
 * are all zeros: the verifier never reaches them. */
typedef struct pd_spec_result {
  uint32_t *bitmask;            /* [row_offsets[n] * n_words], caller-owned buffer */
  size_t n_words;
  size_t *row_offsets;          /* [n + 1], caller-owned */
  size_t *valid_drafts;         /* [n]: drafts accepted by the grammar in a row */
  size_t *unconstrained_rows;   /* caller-owned, capacity row_offsets[n] */
  size_t n_unconstrained;
} pd_spec_result;

/* Fill every row of a batch step on n_threads threads (0 = 1), started for
 * this call. Matchers are left as they were. Output is identical whatever the
 * thread count. */
pd_status pd_spec_fill(pd_spec_request *reqs, size_t n, unsigned n_threads, pd_spec_result *out,
                       pd_error *err);

/* Threads kept between batch steps: starting and joining threads costs about
 * what a small batch's fills do, so a serving loop makes one pd_workers and
 * fills every step on it. n_threads counts the caller (0 = 1). A pd_workers
 * runs one fill at a time. */
typedef struct pd_workers pd_workers;
pd_status pd_workers_new(unsigned n_threads, pd_workers **out, pd_error *err);
void pd_workers_free(pd_workers *w);
unsigned pd_workers_count(const pd_workers *w);
/* pd_spec_fill on w's threads; same output. */
pd_status pd_spec_fill_on(pd_workers *w, pd_spec_request *reqs, size_t n, pd_spec_result *out,
                          pd_error *err);
/* After verification: advance request r's matcher (and gate) by accepted[r]
 * drafts and then token next[r] (correction or bonus). All or nothing: on an
 * error no matcher or gate has changed. */
pd_status pd_spec_advance(pd_spec_request *reqs, size_t n, const size_t *accepted,
                          const uint32_t *next, pd_error *err);

/* Jump-forward: when the grammar forces bytes, their canonical tokens, less
 * the last ones a longer vocabulary token could extend past the forced text.
 * They are accepted by construction: emit them without sampling, or pass them
 * as drafts. The jumper indexes the vocabulary once (borrowed; it must outlive
 * the jumper) and may be shared by threads. */
typedef struct pd_jumper pd_jumper;

pd_status pd_jumper_new(const pd_vocab *vocab, pd_jumper **out, pd_error *err);
void pd_jumper_free(pd_jumper *j);
/* Writes up to cap token ids to ids, the count to *n (0 = nothing forced).
 * The matcher is left as it was. */
pd_status pd_jumper_tokens(const pd_jumper *j, pd_matcher *m, uint32_t *ids, size_t cap,
                           size_t *n, pd_error *err);

/* ----------------------------------------------------- kernels (CPU twins) */

typedef enum pd_dtype { PD_F32 = 0, PD_F16, PD_BF16 } pd_dtype;

/* Counter-based random numbers: Philox4x32-10 exactly as cuRAND's device API.
 * out[0..3] = the next four values curand() returns (equivalently curand4())
 * after curand_init(seed, subsequence, offset): the 128-bit block counter
 * starts at subsequence * 2^64 + offset / 4 with the key (seed low, seed high);
 * offset counts 32-bit values, so offset % 4 selects the first value taken. */
void pd_philox4x32_10(uint64_t seed, uint64_t subsequence, uint64_t offset, uint32_t out[4]);

/* In place on logits[r * row_stride + j], r < rows, j < width (dtype elements):
 * disallowed tokens become -inf, allowed ones are left untouched. Logits row r
 * uses bitmask row b = (indices ? indices[r] : r); b < 0 leaves row r as it is;
 * b must be < bitmask_rows. Each bitmask row has n_words words; ids j >= 32 *
 * n_words are disallowed. PD_ERR_ARG on NULL buffers (when rows > 0), width >
 * row_stride or an index out of range (then nothing was written). */
pd_status pd_cpu_apply_bitmask(void *logits, pd_dtype dtype, size_t rows, size_t width,
                               size_t row_stride, const uint32_t *bitmask, size_t bitmask_rows,
                               size_t n_words, const int32_t *indices, pd_error *err);

typedef enum pd_verify_mode {
  PD_VERIFY_GREEDY = 0,
  PD_VERIFY_SAMPLE,       /* exact rejection sampling with draft probabilities */
  PD_VERIFY_SAMPLE_POINT  /* drafts without probabilities: q is a point mass */
} pd_verify_mode;

/* Masked speculative verification for a batch. Request r has k_r = draft_offsets[r+1]
 * - draft_offsets[r] drafts and rows g = draft_offsets[r] + r + i, i = 0..k_r (k_r + 1
 * rows) of target_logits [*, width] (row stride = width) and of the bitmask. draft_probs
 * (SAMPLE only) is [draft_offsets[n], width] fp32 probabilities: row draft_offsets[r] + i
 * for draft i. Output: out_tokens[draft_offsets[r] + r ...] receives the emitted tokens
 * (accepted drafts then one correction/bonus) and out_counts[r] their count;
 * out_accepted[r] (optional) the number of accepted drafts.
 *
 * The target p of row g: +inf logits count as FLT_MAX; NaN, -inf and disallowed ids
 * have weight 0; p_j = exp((l_j - m) / T) / S with m the row's largest allowed logit.
 * Greedy (mode GREEDY, or T < FLT_MIN): the argmax, lowest id on ties. A draft is
 * accepted with probability min(1, p(x) / q(x)) (q(x) = 1 for SAMPLE_POINT; NaN or
 * negative q count as 0); the first rejected draft x is replaced by a draw from
 * normalize(max(0, p - q)) (for SAMPLE_POINT, or when that residual is empty: from p
 * without x); when all are accepted the bonus is drawn from the last row's p. A row with
 * no allowed token of logit > -inf emits nothing: its draft is rejected and the request
 * ends there (out_counts[r] = out_accepted[r]).
 *
 * Random numbers (so the GPU twin makes identical decisions): Philox4x32-10 with key
 * seed, subsequence g, 32-bit values counted from offset. Value offset + 0 decides the
 * draft of row g (u = ((v >> 9) + 0.5) * 2^-23, accept iff u * q(x) < p(x)); value
 * offset + 4 + j gives token j of row g the exponential E_j = -log(u_j), and a draw takes
 * the argmax of lw_j - log(E_j) in double (the exponential race; lowest id on ties; log
 * here is the library's own, built from IEEE basic operations so CPU and GPU agree), with
 * lw_j = l_j * (1/T) for a draw from p (logits beyond about 2^40 T thus lose their random
 * tie-breaks: the lowest id among them wins) and lw_j = log(max(0, p_j - q_j)) for the
 * residual. A later call should use an offset at least 4 + width + 3 higher, or another
 * seed. */
typedef struct pd_verify_args {
  pd_verify_mode mode;
  const void *target_logits;
  pd_dtype dtype;
  size_t width;
  const uint32_t *bitmask; /* NULL = unconstrained */
  size_t n_words;
  const float *draft_probs;
  const uint32_t *draft_tokens; /* [draft_offsets[n]], each < width */
  const size_t *draft_offsets;  /* [n + 1], non-decreasing */
  size_t n;
  float temperature;           /* 0 = greedy; must not be negative, NaN or inf */
  uint64_t seed, offset;       /* Philox stream position */
  uint32_t *out_tokens;        /* [draft_offsets[n] + n] */
  uint32_t *out_counts;        /* [n] */
  uint32_t *out_accepted;      /* [n], may be NULL */
} pd_verify_args;

pd_status pd_cpu_verify(const pd_verify_args *a, pd_error *err);

/* ---------------------------------------------------------- kernels (CUDA) */

/* The same operations on the GPU. Every pointer (inside args too) is device memory;
 * stream is a cudaStream_t (NULL = the default stream); work is queued on the stream
 * and not waited for. Errors in scalar arguments are found before anything is queued;
 * the contents of device buffers are trusted (offsets, indices), except that a draft id
 * >= width counts as a disallowed token. A build without CUDA, or a machine without a
 * usable device, gives PD_ERR_UNSUPPORTED. */

/* true when the build has CUDA and a device is usable; name (may be NULL) receives
 * the device's name, cap bytes at most. */
bool pd_cuda_available(char *name, size_t cap);
/* Peak memory bandwidth of the current device in GB/s (from its memory clock and bus
 * width). */
pd_status pd_cuda_peak_bandwidth(double *gbps, pd_error *err);

pd_status pd_cuda_apply_bitmask(void *logits, pd_dtype dtype, size_t rows, size_t width,
                                size_t row_stride, const uint32_t *bitmask,
                                size_t bitmask_rows, size_t n_words, const int32_t *indices,
                                void *stream, pd_error *err);

/* Device scratch bytes pd_cuda_verify needs for n_rows = draft_offsets[n] + n rows of
 * width tokens. */
size_t pd_cuda_verify_workspace(size_t n_rows, size_t width);
/* n_rows (= draft_offsets[n] + n, which the host knows) sizes the launch; workspace
 * is device memory of pd_cuda_verify_workspace(n_rows, width) bytes. Decisions equal
 * pd_cpu_verify's for the same arguments, up to float rounding in sums and logs. Widths
 * above 2^31 - 1 are refused with PD_ERR_ARG (the device indexes tokens in 32 bits). */
pd_status pd_cuda_verify(const pd_verify_args *a, size_t n_rows, void *workspace,
                         size_t workspace_bytes, void *stream, pd_error *err);

#ifdef __cplusplus
}
#endif
#endif
