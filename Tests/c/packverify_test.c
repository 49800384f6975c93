/* Uses libpackverify through its C header, as a non-Swift runtime would: pin a root, install a published archive,
 * verify it at rest, ask for access decisions, and cancel installs and updates from the progress callback. Exits
 * non-zero with a message after the checks when any answer was wrong.
 * usage: packverify_test ROOT.json ARCHIVE WORKDIR TREE TREE2 (TREE: the published folder, for a file:// update;
 * TREE2: the same publisher's tree at version 2, reached from version 1 by the whole archive) */
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

/* A cancelling callback: answers 1 (cancel) at the first record holding `event` (with "bytesDone" of at least
 * `min_bytes`), 0 otherwise; `event` NULL never cancels. Keeps the record it cancelled at. */
struct canceller { const char *event; long long min_bytes; int calls; int cancelled; char at[1024]; };

static int cancel_at(const char *json, void *context) {
    struct canceller *c = context;
    c->calls++;
    if (c->cancelled || c->event == NULL || strstr(json, c->event) == NULL) return 0;
    const char *done = strstr(json, "\"bytesDone\":");
    if (done == NULL || strtoll(done + strlen("\"bytesDone\":"), NULL, 10) < c->min_bytes) return 0;
    c->cancelled = 1;
    snprintf(c->at, sizeof c->at, "%s", json);
    return 1;
}

static void expect_true(const char *what, int condition, const char *detail) {
    if (!condition) { fprintf(stderr, "FAIL %s (%s)\n", what, detail); failures++; } else printf("ok   %s\n", what);
}

/* Issue 30: a progress callback that returns non-zero cancels; the install stays exactly as it was. (A file://
 * tree is read whole before the first record, so cancelling mid-download over HTTP is Tests/python/test_cabi.py's.) */
static void cancelling(const char *root, const char *archive1, const char *work, const char *tree2) {
    char req[4096], verify[4096];
    snprintf(req, sizeof req, "{\"state\": \"%s/state3\", \"root\": \"%s\"}", work, root);
    expect("cancel: pin the root", packverify_pin_root(req), "\"rootVersion\":1");
    snprintf(req, sizeof req, "{\"state\": \"%s/state3\", \"archive\": \"%s\", \"into\": \"%s/install3\"}", work, archive1, work);
    expect("cancel: version 1 installed", packverify_install(req), "\"version\":1");
    snprintf(verify, sizeof verify, "{\"state\": \"%s/state3\", \"into\": \"%s/install3\", \"pack\": \"royal-mile\"}", work, work);
    char update[4096];
    snprintf(update, sizeof update, "{\"state\": \"%s/state3\", \"into\": \"%s/install3\", \"pack\": \"royal-mile\", \"from\": \"file://%s\"}",
             work, work, tree2);

    /* Mid-install: the first verified scene of version 2's archive, installed from the file. */
    snprintf(req, sizeof req, "{\"state\": \"%s/state3\", \"archive\": \"%s/packs/royal-mile/2/royal-mile-2.tar\", \"into\": \"%s/install3\"}",
             work, tree2, work);
    struct canceller scene = {"\"event\":\"scene-verified\"", 0, 0, 0, ""};
    expect("cancel mid-install: the install returns \"cancelled\"", packverify_install_cancellable(req, cancel_at, &scene), "\"code\":\"cancelled\"");
    expect_true("cancel mid-install: the callback cancelled at a verified scene", scene.cancelled, "no scene-verified record");
    expect("cancel mid-install: version 1 is still installed and intact", packverify_verify_installed(verify), "\"intact\":true");
    expect("cancel mid-install: version 1 still", packverify_verify_installed(verify), "\"version\":1}");

    /* Mid-install during a streamed update: the download verified as it arrives. */
    struct canceller streamed = {"\"event\":\"scene-verified\"", 0, 0, 0, ""};
    expect("cancel a streamed update at a verified scene: \"cancelled\"", packverify_update_cancellable(update, cancel_at, &streamed), "\"code\":\"cancelled\"");
    expect("cancel a streamed update: version 1 still", packverify_verify_installed(verify), "\"version\":1}");

    /* Cancelling at "installed" is too late: the switch was made, and the call says so. */
    struct canceller late = {"\"event\":\"installed\"", 0, 0, 0, ""};
    struct canceller never = {NULL, 0, 0, 0, ""};
    expect("an uncancelled update after the cancels installs version 2", packverify_update_cancellable(update, cancel_at, &never), "\"toVersion\":2");
    expect_true("the uncancelled update reported progress", never.calls > 0, "no records");
    expect("version 2 is installed", packverify_verify_installed(verify), "\"version\":2}");
    expect("version 2 is intact", packverify_verify_installed(verify), "\"intact\":true");
    snprintf(req, sizeof req, "{\"state\": \"%s/state4\", \"root\": \"%s\"}", work, root);
    expect("cancel late: pin the root", packverify_pin_root(req), "\"rootVersion\":1");
    snprintf(req, sizeof req, "{\"state\": \"%s/state4\", \"archive\": \"%s\", \"into\": \"%s/install4\"}", work, archive1, work);
    expect("a cancel at \"installed\" comes too late: the install succeeded", packverify_install_cancellable(req, cancel_at, &late), "\"ok\":true");
    expect_true("the late cancel was asked for", late.cancelled, "no installed record");
    expect("a NULL cancelling callback is allowed", packverify_update_cancellable(update, NULL, NULL), "\"method\":\"up to date\"");
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: %s ROOT ARCHIVE WORKDIR TREE TREE2\n", argv[0]); return 2; }
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
    cancelling(argv[1], argv[2], argv[3], argv[5]);
    packverify_free(NULL);
    return failures == 0 ? 0 : 1;
}
