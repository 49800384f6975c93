/* packverify.h: the C ABI over PackVerify for runtimes that are not Swift.
 *
 * The full surface (trust setup, verify, install, verify-installed, access decisions, JSON in and out) lands with the
 * client-library issue. Ownership rule for every function that returns char*: the caller frees it with
 * packverify_free(). */
#ifndef PACKVERIFY_H
#define PACKVERIFY_H
#ifdef __cplusplus
extern "C" {
#endif

/* The library version as a static string; do not free. */
const char *packverify_version(void);

/* Frees a string returned by this library. Passing NULL is allowed. */
void packverify_free(char *p);

#ifdef __cplusplus
}
#endif
#endif
