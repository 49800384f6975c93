/* Uses libpackverify through its C header, as a non-Swift runtime would: pin a root, install a published archive,
 * verify it at rest, and ask for access decisions. Exits non-zero with a message on the first wrong answer.
 * usage: packverify_test ROOT.json ARCHIVE WORKDIR TREE (TREE: the published folder, for a file:// update) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "packverify.h"

static int failures = 0;

static void expect(const char *what, char *result, const char *needle) {
    if (result == NULL || strstr(result, needle) == NULL) {
        fprintf(stderr, "FAIL %s: expected %s in %s\n", what, needle, result ? result : "(null)");
        failures++;
    } else {
        printf("ok   %s\n", what);
    }
    packverify_free(result);
}

/* What the progress callback saw: every record, one per line. */
struct seen { char lines[64][1024]; int count; };

static void on_progress(const char *json, void *context) {
    struct seen *seen = context;
    if (seen->count < 64) snprintf(seen->lines[seen->count], sizeof seen->lines[0], "%s", json);
    seen->count++;
}

static int count_of(const struct seen *seen, const char *needle) {
    int n = 0;
    for (int i = 0; i < seen->count && i < 64; i++) n += strstr(seen->lines[i], needle) != NULL;
    return n;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s ROOT ARCHIVE WORKDIR TREE\n", argv[0]); return 2; }
    char req[4096];
    printf("libpackverify %s\n", packverify_version());

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"root\": \"%s\"}", argv[3], argv[1]);
    expect("pin the root", packverify_pin_root(req), "\"rootVersion\":1");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"archive\": \"%s\", \"into\": \"%s/install\"}", argv[3], argv[2], argv[3]);
    expect("install the pack", packverify_install(req), "\"ok\":true");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\"}", argv[3], argv[3]);
    expect("verify at rest", packverify_verify_installed(req), "\"intact\":true");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", \"threads\": 1}", argv[3], argv[3]);
    expect("verify at rest on one thread", packverify_verify_installed(req), "\"checkedFiles\":");
    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", \"threads\": 0}", argv[3], argv[3]);
    expect("zero threads is refused", packverify_verify_installed(req), "\"code\":\"request\"");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", \"from\": \"file://%s\"}", argv[3], argv[3], argv[4]);
    expect("an update from the same tree finds nothing to do", packverify_update(req), "\"method\":\"up to date\"");
    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", \"from\": \"ftp://example.org/\"}", argv[3], argv[3]);
    expect("an update from an unsupported URL is refused", packverify_update(req), "\"code\":\"request\"");
    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", \"from\": \"http://127.0.0.1:9/\", \"timeout\": 1}", argv[3], argv[3]);
    expect("an update from a closed port fails cleanly", packverify_update(req), "\"ok\":false");

    /* A first install through update, with progress: records come as JSON, the free stop verified first. */
    static struct seen seen;
    snprintf(req, sizeof req, "{\"state\": \"%s/state2\", \"root\": \"%s\"}", argv[3], argv[1]);
    expect("pin the root in a second state", packverify_pin_root(req), "\"rootVersion\":1");
    snprintf(req, sizeof req, "{\"state\": \"%s/state2\", \"into\": \"%s/install2\", \"pack\": \"royal-mile\", \"from\": \"file://%s\"}", argv[3], argv[3], argv[4]);
    expect("a first install by update, with progress", packverify_update_progress(req, on_progress, &seen), "\"method\":\"full archive\"");
    expect("progress starts with the totals", strdup(seen.count > 0 ? seen.lines[0] : ""), "\"event\":\"started\"");
    for (int i = 0; i < seen.count && i < 64; i++) {
        if (strstr(seen.lines[i], "scene-verified")) {
            expect("the first verified stop is the free one", strdup(seen.lines[i]), "\"scene\":\"01-castle-esplanade\"");
            break;
        }
    }
    if (count_of(&seen, "scene-verified") != 7) { fprintf(stderr, "FAIL expected 7 scene-verified records, saw %d\n", count_of(&seen, "scene-verified")); failures++; }
    expect("progress ends with the switch", strdup(seen.count > 0 && seen.count <= 64 ? seen.lines[seen.count - 1] : ""), "\"event\":\"installed\"");
    expect("a NULL callback is allowed", packverify_update_progress(req, NULL, NULL), "\"method\":\"up to date\"");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", "
             "\"request\": {\"scene\": \"01-castle-esplanade\", \"purchases\": [], \"codes\": [], \"revokedCodes\": []}}", argv[3], argv[3]);
    expect("the first stop is free", packverify_access(req), "\"code\":\"free\"");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", "
             "\"request\": {\"scene\": \"04-tron-kirk\", \"purchases\": [], \"codes\": [], \"revokedCodes\": []}}", argv[3], argv[3]);
    expect("other stops need a purchase", packverify_access(req), "\"allowed\":false");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", "
             "\"request\": {\"scene\": \"04-tron-kirk\", \"purchases\": [{\"productId\": \"uk.example.walks.royalmile.citypack\", "
             "\"purchaseDate\": \"2026-01-01T00:00:00Z\"}], \"codes\": [], \"revokedCodes\": []}}", argv[3], argv[3]);
    expect("a City Pack opens them", packverify_access(req), "\"code\":\"city-pack\"");

    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"into\": \"%s/install\", \"pack\": \"royal-mile\", "
             "\"request\": {\"scene\": \"99-nowhere\", \"purchases\": [], \"codes\": [], \"revokedCodes\": []}}", argv[3], argv[3]);
    expect("a scene the pack does not have is an error", packverify_access(req), "has no scene \\\"99-nowhere\\\"");

    expect("malformed requests are errors, not crashes", packverify_install("{not json"), "\"ok\":false");
    expect("NULL requests are errors, not crashes", packverify_access(NULL), "\"ok\":false");
    snprintf(req, sizeof req, "{\"state\": \"%s/state\", \"archive\": \"%s\", \"into\": \"%s/install\"}", argv[3], argv[1], argv[3]);
    expect("a root file is not an archive", packverify_install(req), "\"ok\":false");
    packverify_free(NULL);
    return failures == 0 ? 0 : 1;
}
