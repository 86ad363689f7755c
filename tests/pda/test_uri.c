/* test_uri.c - reference resolution against RFC 3986's own examples (5.4.1
 * normal, 5.4.2 abnormal), fragments, the empty base path, and failed
 * allocations. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "pda/uri.h"

static void pdt__is(const char *base, const char *ref, const char *want) {
  const char *frag;
  size_t fn;
  char *got = pd_uri_resolve(NULL, base, strlen(base), ref, strlen(ref), &frag, &fn);
  assert_non_null(got);
  if (strcmp(got, want)) fail_msg("%s against %s: %s, want %s", ref, base, got, want);
  pd__free(NULL, got);
}

static void test_rfc_examples(void **state) {
  (void)state;
  static const char *const cases[][2] = {
      /* 5.4.1 (fragments are returned apart, so "#s" cases lose theirs) */
      {"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"}, {"/g", "http://a/g"}, {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"}, {"#s", "http://a/b/c/d;p?q"},
      {"g#s", "http://a/b/c/g"}, {"g?y#s", "http://a/b/c/g?y"}, {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"}, {"g;x?y#s", "http://a/b/c/g;x?y"}, {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"}, {"./", "http://a/b/c/"}, {"..", "http://a/b/"},
      {"../", "http://a/b/"}, {"../g", "http://a/b/g"}, {"../..", "http://a/"},
      {"../../", "http://a/"}, {"../../g", "http://a/g"},
      /* 5.4.2 */
      {"../../../g", "http://a/g"}, {"../../../../g", "http://a/g"}, {"/./g", "http://a/g"},
      {"/../g", "http://a/g"}, {"g.", "http://a/b/c/g."}, {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."}, {"..g", "http://a/b/c/..g"}, {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"}, {"g/./h", "http://a/b/c/g/h"}, {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"}, {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g"}, {"g#s/../x", "http://a/b/c/g"}, {"http:g", "http:g"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    pdt__is("http://a/b/c/d;p?q", cases[i][0], cases[i][1]);
}

static void test_schema_ids(void **state) {
  (void)state;
  pdt__is("http://x.org", "y.json", "http://x.org/y.json"); /* authority, empty path */
  pdt__is("https://example.com/a/base.json", "nested/foo.json",
          "https://example.com/a/nested/foo.json");
  pdt__is("https://example.com/a/nested/foo.json", "./bar.json",
          "https://example.com/a/nested/bar.json");
  pdt__is("http://example.com/ref/absref.json", "/absref/foobar.json",
          "http://example.com/absref/foobar.json");
  pdt__is("urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "#/$defs/bar",
          "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed");
  const char *frag;
  size_t fn;
  char *t = pd_uri_resolve(NULL, "http://a/b", 10, "c.json#/$defs/x", 15, &frag, &fn);
  assert_string_equal(t, "http://a/c.json");
  assert_int_equal(fn, 8);
  assert_memory_equal(frag, "/$defs/x", 8);
  pd__free(NULL, t);
  t = pd_uri_resolve(NULL, "http://a/b", 10, "c.json", 6, &frag, &fn);
  assert_null(frag);
  pd__free(NULL, t);
  t = pd_uri_resolve(NULL, "http://a/b", 10, "c#", 2, &frag, &fn);
  assert_non_null(frag); /* an empty fragment is still a fragment */
  assert_int_equal(fn, 0);
  pd__free(NULL, t);
}

static void test_nomem(void **state) {
  (void)state;
  const char *frag;
  size_t fn;
  for (long n = 1; n <= 3; n++) {
    pdt_alloc_reset(n);
    assert_null(pd_uri_resolve(&pdt_allocator, "http://a/b", 10, "c", 1, &frag, &fn));
    assert_int_equal(pdt_alloc.live, 0);
  }
  pdt_alloc_reset(0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc_examples),
      cmocka_unit_test(test_schema_ids),
      cmocka_unit_test(test_nomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
