/* packverify.h: the C ABI over PackVerify, for runtimes that are not Swift.
 *
 * Every operation takes one JSON request (a NUL-terminated UTF-8 string) and returns one JSON result, newly
 * allocated: the caller owns it and must release it with packverify_free(). The library keeps no pointer the caller
 * passed in. Results are {"ok": true, ...} or {"ok": false, "error": {"code": "...", "outcome": "...", "message": "...",
 * "recovery": "..."}}: "recovery" says what the app does about it (docs/verification-codes.md: retry-later, free-space,
 * check-clock, reinstall, update-app, report-to-publisher, fix-the-app, none); treat one you do not know as
 * "retry-later".
 * Requests are checked before anything in them is used: a key the call does not take, at any level (a misspelling
 * such as "purchace" or "int0"), a value of the wrong type, or bytes that are not strict UTF-8 is a "request" error
 * naming the key (with the one it was probably meant to be), and nothing is read, written or decided.
 * Requests may carry "clock": {"wall": <unix seconds>, "boot": <seconds since boot>} to inject the time.
 * "boot" must be read from the clock the library reads itself when a request carries no "clock", because the state
 * keeps the last "boot" seen (from either) and bounds elapsed wall time by elapsed boot time since it: on Linux and
 * Android clock_gettime(CLOCK_BOOTTIME); on Apple platforms clock_gettime(CLOCK_MONOTONIC_RAW), which is
 * mach_continuous_time() in seconds. Both keep counting while the device sleeps; CLOCK_MONOTONIC on Linux and
 * mach_absolute_time() on Apple do not, and would make time look stopped across a sleep. A value below the last one
 * seen is taken as a reboot (a new baseline); leave "boot" out when no such clock is available.
 * Numbers in results are JSON integers wherever the value is a whole number (versions, sizes, counts), written
 * exactly at any size (never rounded to a double or written with an exponent).
 * Calls that change one client state (pin_root, repin_root, update_roots, accept_index, install, update) take a lock on
 * <state>/.lock, across threads and processes; one that finds it held for more than two seconds returns code "busy"
 * and changes nothing. update holds it only while verifying and switching, never while downloading; two updates of
 * one state are kept apart by <state>/downloads/.lock (the second returns "busy"). packverify_access never waits: while the lock is held it answers without saving its clock.
 *
 *   packverify_pin_root         {"state": DIR, "root": FILE}                      -> {"rootVersion", "expires"}
 *                               pins the first root. When DIR already holds a state it never replaces it: the root
 *                               first pinned (or the one trusted now) again is a no-op returning the trusted root
 *                               (so pinning the bundled root at every launch is safe); any other root is refused with
 *                               "pin-conflict".
 *   packverify_repin_root       {"state": DIR, "root": FILE}                      -> {"rootVersion", "expires"}
 *                               deliberately replaces the trusted root with a self-signed one delivered out of band
 *                               (an app update after the trusted root expired or its keys were lost). The version
 *                               floors and the clock are kept; the root may not be older than the trusted one
 *                               ("rollback") nor another root of the same version ("pin-conflict"). If its index keys
 *                               differ, the index floor resets, as after a rotation.
 *   packverify_update_roots     {"state": DIR, "roots": [FILE, ...]}              -> {"rootVersion"}
 *                               follows rotations N+1, N+2…; a root whose index role has other keys resets the index
 *                               version floor to 0 (recovery from a stolen index key; pack floors are kept).
 *   packverify_accept_index     {"state": DIR, "index": FILE}                     -> {"indexVersion", "packs"}
 *   packverify_install          {"state": DIR, "archive": FILE, "into": DIR}      -> {"pack", "version", "files", "bytes"}
 *   packverify_verify_installed {"state": DIR, "into": DIR, "pack": ID, "threads"?: N}
 *                                                                                 -> {"intact", "missing", "changed", "extra"}
 *   packverify_update           {"state": DIR, "into": DIR, "pack": ID, "from": URL, "timeout"?: SECONDS}
 *                                                                                 -> {"fromVersion"?, "toVersion", "method",
 *                                                                                     "changedScenes", "fallbacks"}
 *                               "timeout": how long the server may stay silent, seconds from 0.1 to 3600 (default
 *                               15); any other value, or one that is not a number, is a "request" error.
 *                               "fallbacks": an array of sentences, one per less economical way the update took
 *                               (a scene's delta missing or refused, so the version-0 delta was used; the whole
 *                               archive fetched over an install); [] when all went as planned.
 *                               A whole archive (a first install) is verified and written while it downloads.
 *   packverify_access           {"state": DIR, "into": DIR, "pack": ID,
 *                                "request": {"scene": ID, "purchases"?: [{"productId", "purchaseDate", "revocationDate"?,
 *                                                                          "transactionId"?}],
 *                                            "codes"?: [CODE], "revokedCodes"?: [ID], "device"?: ID}}
 *                                                                                 -> {"allowed", "code", "reason", "entitlement"?, "until"?}
 *                               "code" (docs/access-codes.md): opens with "free", "city-pack", "trip-pass" or
 *                               "access-code"; stays closed with "clock-rollback", "offline-too-long" or
 *                               "no-entitlement".
 *                               a scene the installed pack does not have is an error (code "scene"), not a closed stop.
 *                               A CODE is printed long ("PTG1....") or short (117 base32 characters in groups of five).
 *                               Only "scene" is required. Access codes are bearer tokens: one code opens on any
 *                               number of devices, unless it was issued with a device claim (packtool grant issue
 *                               --device ID); such a code opens only when "device" (the app's identifier for this
 *                               device) equals its claim, and a closed stop says why otherwise. A purchase date or
 *                               refund date that is not RFC 3339 is an error (code "request") naming the purchase.
 *                               "transactionId" (StoreKit's Transaction.id, as a string): listings with the same
 *                               product and id, or without ids the same product and purchase date, are one purchase,
 *                               refunded if any listing is; one id with two purchase dates is a "request" error.
 *
 * Progress (packverify_install_progress, packverify_update_progress): the same calls, and the same result, with a
 * callback told where the operation stands, one JSON object per call (a JSON Lines record, no newline; valid only
 * during the call). Calls come from the library's threads, one at a time and in order, and must return promptly:
 *   {"event": "started"|"bytes"|"scene-verified"|"scenes-unavailable"|"installed", "pack": ID,
 *    "bytesDone": N, "bytesTotal": N (0: unknown), "scenesDone": N, "scenesTotal": N, "secondsLeft"?: SECONDS,
 *    "scene"?: ID, "folder"?: DIR, "scenes"?: [ID]}
 * "scene-verified" names a scene whose files are all written and matched against the signed manifest: its "folder"
 * can be read now and stays where it is once the install is switched in. Scenes are reported in archive order (the
 * free stop first, then the route), even when a later one finishes verifying first.
 * "scenes-unavailable" follows a failure after scenes were reported: those folders are gone, nothing was switched.
 *
 * Cancelling (packverify_install_cancellable, packverify_update_cancellable): the same calls with a callback of the new
 * type packverify_cancel_progress_fn, which receives the same records and returns an int: 0 goes on, any other value
 * cancels. The download in flight is stopped (its connection shut), verification stops, and the call returns {"ok":
 * false, "error": {"code": "cancelled", "outcome": "cancelled", ...}} with the install exactly as it was: nothing
 * switched in, the previous version still installed and intact, the client state holding only what an update verified
 * before the cancel (a newer root or index, as after any failed update). A download's .part is kept, so the next update
 * resumes it. Records after the cancel (such as "scenes-unavailable") are still delivered; their return values are
 * ignored, as are those for "installed" (it follows the switch) and "scenes-unavailable" (it follows a failure): the
 * outcome is decided by then, and the call returns it. To cancel from another thread, set a flag the callback reads and
 * returns: while bytes arrive a "bytes" record comes at most every 50 ms, and a "scene-verified" one as each scene is
 * verified.
 *
 * Failure codes (docs/verification-codes.md gives each one's meaning; generated from PackTrust's registry).
 * error.outcome is "refused" when the input was checked and is forged, stale or malformed (packtool exits 1),
 * "I/O" when the operation could not be carried out here (packtool exits 2), "request" when the request itself is
 * malformed — an unknown key, a value of the wrong type, text that is not strict UTF-8 — so nothing was attempted
 * (these were "I/O" before; see CHANGELOG.md), and "cancelled" when a cancelling progress callback stopped the
 * operation. New outcomes may be added; treat one you do not know as "I/O". Whatever the outcome, the install folder
 * is as it was; the client state keeps only what was verified before the failure (a newer root or index accepted by
 * an update that then failed stays as the floor, with the clock reading), never an install or anything unverified.
 *   refused:
 *     "payload-type", "role", "threshold", "signature-count", "weak-key", "root", "root-version", "root-missing",
 *     "pin-conflict", "duplicate-key", "document", "expiry", "expired", "rollback",
 *     "mix-and-match", "clock-skew", "number", "identifier", "index-path", "path", "path-absolute",
 *     "path-traversal", "path-collision", "scene", "archive-manifest", "archive-header", "archive-pax",
 *     "archive-link", "archive-device", "archive-directory", "archive-type", "archive-format", "archive-extra",
 *     "archive-missing", "archive-size", "archive-truncated", "archive-trailer", "archive-entry", "archive-file",
 *     "hash", "size", "delta", "delta-base", "delta-target", "delta-entry", "delta-missing", "fetch-size",
 *     "fetch-protocol", "not-a-file", "install-layout"
 *   I/O:
 *     "installed-missing", "state-missing", "state-size", "state-corrupt", "busy", "missing", "unreadable",
 *     "archive-open", "write", "space", "install", "fetch", "fetch-retry", "fetch-missing", "fetch-tls", "fetch-timeout",
 *     "unexpected"
 *   request:
 *     "request"
 *   cancelled:
 *     "cancelled"
 *
 * Linking: the library ships as libpackverify.so.1 (SONAME libpackverify.so.1; libpackverify.1.dylib on Apple
 * platforms) with packverify.pc: cc app.c $(pkg-config --cflags --libs packverify). The C ABI only grows: calls,
 * keys, codes and outcomes are added, never removed or renumbered, within SONAME 1.
 */
#ifndef PACKVERIFY_H
#define PACKVERIFY_H
#ifdef __cplusplus
extern "C" {
#endif

/* The library version as a static string; do not free. */
const char *packverify_version(void);

char *packverify_pin_root(const char *request_json);
char *packverify_repin_root(const char *request_json);
char *packverify_update_roots(const char *request_json);
char *packverify_accept_index(const char *request_json);
char *packverify_install(const char *request_json);
char *packverify_verify_installed(const char *request_json);
/* Brings an installed pack up to date from a published tree (http://, https:// or file://): per-scene deltas where
 * possible, the full archive otherwise; downloads resume and never exceed the signed sizes. Blocks until done. */
char *packverify_update(const char *request_json);
char *packverify_access(const char *request_json);

/* Receives one progress record (see "Progress" above) and the context the caller passed. */
typedef void (*packverify_progress_fn)(const char *progress_json, void *context);
/* packverify_install and packverify_update with progress; progress may be NULL. */
char *packverify_install_progress(const char *request_json, packverify_progress_fn progress, void *context);
char *packverify_update_progress(const char *request_json, packverify_progress_fn progress, void *context);

/* Receives one progress record and the context; returns 0 to go on, non-zero to cancel (see "Cancelling" above). */
typedef int (*packverify_cancel_progress_fn)(const char *progress_json, void *context);
/* packverify_install and packverify_update with progress that can cancel; progress may be NULL (nothing cancels).
 * A cancelled call returns the failure code "cancelled" with the install exactly as it was. */
char *packverify_install_cancellable(const char *request_json, packverify_cancel_progress_fn progress, void *context);
char *packverify_update_cancellable(const char *request_json, packverify_cancel_progress_fn progress, void *context);

/* Frees a string returned by this library. Passing NULL is allowed. */
void packverify_free(char *p);

#ifdef __cplusplus
}
#endif
#endif
