/* packverify-run: calls one libpackverify function with a JSON request and prints the JSON reply — the library as an
 * app embeds it, with nothing else in the process. make bench uses it to measure the client library's own time and
 * memory (packtool also links lint, publishing and Foundation).
 * usage: packverify-run pin_root|update_roots|accept_index|install|verify_installed|update|access REQUEST_JSON
 * Exit status: 0 when the reply has "ok": true, 1 otherwise, 2 for usage errors. */
#include <stdio.h>
#include <string.h>
#include "packverify.h"

int main(int argc, char **argv) {
    static const struct { const char *name; char *(*call)(const char *); } calls[] = {
        {"pin_root", packverify_pin_root},         {"update_roots", packverify_update_roots},
        {"accept_index", packverify_accept_index}, {"install", packverify_install},
        {"verify_installed", packverify_verify_installed}, {"update", packverify_update},
        {"access", packverify_access},
    };
    if (argc != 3) {
        fprintf(stderr, "usage: packverify-run FUNCTION REQUEST_JSON\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (strcmp(argv[1], calls[i].name) != 0) continue;
        char *reply = calls[i].call(argv[2]);
        int ok = reply != NULL && strstr(reply, "\"ok\":true") != NULL;
        puts(reply ? reply : "(null)");
        packverify_free(reply);
        return ok ? 0 : 1;
    }
    fprintf(stderr, "packverify-run: unknown function %s\n", argv[1]);
    return 2;
}
