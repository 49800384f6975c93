/*
 * format-floor: the least work the pack format asks of a durable sign or install, done by a plain C program with the
 * same OpenSSL SHA-256, so `make bench` can show in the same run how close packtool is to what any implementation
 * must spend on this machine. It checks nothing, parses nothing and writes no manifest or index: it is a lower bound,
 * not a second implementation.
 *
 *   format-floor sign LIST OUT
 *       LIST holds "size path" lines in archive order. Every file is hashed (SHA-256) on one thread per core,
 *       largest first — the manifest lists each file's hash and comes first in the archive, so nothing can be written
 *       before all are known. Then the archive's bytes (a 512-byte header per entry, the content, padding to
 *       512) are written to OUT in 256 KiB blocks while a second thread hashes them in order (the index carries the
 *       archive's hash), with writeback started every 8 MiB, and OUT is fsynced.
 *
 *   format-floor install ARCHIVE LIST DIR
 *       LIST holds "offset size path" lines (content offsets in ARCHIVE). One worker per core copies whole files from
 *       ARCHIVE into DIR in 64 KiB pieces, hashing each piece as it is written, with writeback started every 8 MiB;
 *       then every file is fdatasynced on eight threads (so the block layer merges the cache flushes).
 *
 * Exit 0 on success; any failure prints the call and file and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE (64 << 10)
#define BLOCK (256 << 10)
#define SLOTS 4
#define KICK (8 << 20)
#define FLUSHERS 8

typedef struct {
    long long offset, size;
    char *path;
} Entry;

static Entry *entries;
static int count;
static int next_entry;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what, const char *path) {
    fprintf(stderr, "format-floor: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static int take(void) {
    pthread_mutex_lock(&lock);
    int i = next_entry++;
    pthread_mutex_unlock(&lock);
    return i < count ? i : -1;
}

static void read_list(const char *list, int with_offsets) {
    FILE *f = fopen(list, "r");
    if (!f) fail("open", list);
    int capacity = 256;
    entries = malloc(sizeof(Entry) * capacity);
    char path[4096];
    long long offset = 0, size;
    while ((with_offsets ? fscanf(f, "%lld %lld %4095s", &offset, &size, path) == 3 : fscanf(f, "%lld %4095s", &size, path) == 2)) {
        if (count == capacity) entries = realloc(entries, sizeof(Entry) * (capacity *= 2));
        entries[count++] = (Entry){offset, size, strdup(path)};
    }
    fclose(f);
}

static void hash_fd(EVP_MD_CTX *ctx, int fd, const char *path, unsigned char *buffer) {
    ssize_t n;
    while ((n = read(fd, buffer, PIECE)) > 0) EVP_DigestUpdate(ctx, buffer, (size_t)n);
    if (n < 0) fail("read", path);
}

/* ---- sign ---- */

static int *order;

static void *hash_files(void *unused) {
    (void)unused;
    unsigned char *buffer = malloc(PIECE), digest[32];
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    for (int i; (i = take()) >= 0;) {
        const char *path = entries[order[i]].path;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("open", path);
        EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
        hash_fd(ctx, fd, path, buffer);
        EVP_DigestFinal_ex(ctx, digest, NULL);
        close(fd);
    }
    EVP_MD_CTX_free(ctx);
    free(buffer);
    return NULL;
}

/* A ring of blocks between the writer and the archive hasher. */
static unsigned char *slot[SLOTS];
static size_t slot_length[SLOTS];
static int slot_full[SLOTS], hashing_done;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static EVP_MD_CTX *archive_hash;

static void *hash_archive(void *unused) {
    (void)unused;
    for (int s = 0;; s = (s + 1) % SLOTS) {
        pthread_mutex_lock(&lock);
        while (!slot_full[s] && !hashing_done) pthread_cond_wait(&changed, &lock);
        int more = slot_full[s];
        pthread_mutex_unlock(&lock);
        if (!more) return NULL;
        EVP_DigestUpdate(archive_hash, slot[s], slot_length[s]);
        pthread_mutex_lock(&lock);
        slot_full[s] = 0;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
}

static int out_fd, current_slot;
static unsigned char *block;
static size_t block_length;
static long long written, kicked;
static const char *out_path;

static void emit_block(void) {
    if (write(out_fd, block, block_length) != (ssize_t)block_length) fail("write", out_path);
    pthread_mutex_lock(&lock);
    while (slot_full[current_slot]) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    memcpy(slot[current_slot], block, block_length);
    pthread_mutex_lock(&lock);
    slot_length[current_slot] = block_length;
    slot_full[current_slot] = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    current_slot = (current_slot + 1) % SLOTS;
    written += (long long)block_length;
    block_length = 0;
    if (written - kicked >= KICK) {
        sync_file_range(out_fd, kicked, written - kicked, SYNC_FILE_RANGE_WRITE);
        kicked = written;
    }
}

static void append(const unsigned char *bytes, size_t length) {
    while (length > 0) {
        size_t n = length < BLOCK - block_length ? length : BLOCK - block_length;
        if (bytes) memcpy(block + block_length, bytes, n);
        else memset(block + block_length, 0, n);
        block_length += n;
        if (bytes) bytes += n;
        length -= n;
        if (block_length == BLOCK) emit_block();
    }
}

static int larger_first(const void *a, const void *b) {
    long long x = entries[*(const int *)a].size, y = entries[*(const int *)b].size;
    return (x < y) - (x > y);
}

static int sign(const char *list, const char *out) {
    read_list(list, 0);
    order = malloc(sizeof(int) * (count ? count : 1));
    for (int i = 0; i < count; i++) order[i] = i;
    qsort(order, (size_t)count, sizeof(int), larger_first);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t threads[64];
    int workers = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    for (int i = 0; i < workers; i++) pthread_create(&threads[i], NULL, hash_files, NULL);
    for (int i = 0; i < workers; i++) pthread_join(threads[i], NULL);

    out_path = out;
    out_fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out_fd < 0) fail("create", out);
    for (int s = 0; s < SLOTS; s++) slot[s] = malloc(BLOCK);
    block = malloc(BLOCK);
    archive_hash = EVP_MD_CTX_new();
    EVP_DigestInit_ex(archive_hash, EVP_sha256(), NULL);
    pthread_t hasher;
    pthread_create(&hasher, NULL, hash_archive, NULL);
    unsigned char *piece = malloc(PIECE);
    for (int i = 0; i < count; i++) {
        append(NULL, 512);
        int fd = open(entries[i].path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("open", entries[i].path);
        ssize_t n;
        while ((n = read(fd, piece, PIECE)) > 0) append(piece, (size_t)n);
        if (n < 0) fail("read", entries[i].path);
        close(fd);
        append(NULL, (size_t)((512 - entries[i].size % 512) % 512));
    }
    append(NULL, 1024);
    if (block_length) emit_block();
    pthread_mutex_lock(&lock);
    hashing_done = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(hasher, NULL);
    unsigned char digest[32];
    EVP_DigestFinal_ex(archive_hash, digest, NULL);
    if (fsync(out_fd) != 0) fail("fsync", out);
    close(out_fd);
    return 0;
}

/* ---- install ---- */

static int archive_fd;
static const char *target_dir;

static char *target_path(int i) {
    size_t length = strlen(target_dir) + strlen(entries[i].path) + 2;
    char *path = malloc(length);
    snprintf(path, length, "%s/%s", target_dir, entries[i].path);
    return path;
}

static void *copy_files(void *unused) {
    (void)unused;
    unsigned char *buffer = malloc(PIECE), digest[32];
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    for (int i; (i = take()) >= 0;) {
        char *path = target_path(i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) fail("create", path);
        EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
        long long done = 0, started = 0;
        while (done < entries[i].size) {
            size_t want = entries[i].size - done < PIECE ? (size_t)(entries[i].size - done) : PIECE;
            ssize_t n = pread(archive_fd, buffer, want, entries[i].offset + done);
            if (n <= 0) fail("read", "archive");
            if (write(fd, buffer, (size_t)n) != n) fail("write", path);
            EVP_DigestUpdate(ctx, buffer, (size_t)n);
            done += n;
            if (done - started >= KICK) {
                sync_file_range(fd, started, done - started, SYNC_FILE_RANGE_WRITE);
                started = done;
            }
        }
        sync_file_range(fd, started, 0, SYNC_FILE_RANGE_WRITE);
        EVP_DigestFinal_ex(ctx, digest, NULL);
        close(fd);
        free(path);
    }
    EVP_MD_CTX_free(ctx);
    free(buffer);
    return NULL;
}

static void *flush_files(void *first) {
    for (long i = (long)first; i < count; i += FLUSHERS) {
        char *path = target_path((int)i);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fdatasync(fd) != 0) fail("fdatasync", path);
        close(fd);
        free(path);
    }
    return NULL;
}

static void make_parents(const char *path) {
    char *copy = strdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) fail("mkdir", copy);
        *p = '/';
    }
    free(copy);
}

static int install(const char *archive, const char *list, const char *dir) {
    read_list(list, 1);
    archive_fd = open(archive, O_RDONLY | O_CLOEXEC);
    if (archive_fd < 0) fail("open", archive);
    target_dir = dir;
    for (int i = 0; i < count; i++) {
        char *path = target_path(i);
        make_parents(path);
        free(path);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = cores < 1 ? 1 : cores > 4 ? 4 : (int)cores;
    pthread_t threads[FLUSHERS];
    for (int i = 0; i < workers; i++) pthread_create(&threads[i], NULL, copy_files, NULL);
    for (int i = 0; i < workers; i++) pthread_join(threads[i], NULL);
    for (long i = 0; i < FLUSHERS; i++) pthread_create(&threads[i], NULL, flush_files, (void *)i);
    for (int i = 0; i < FLUSHERS; i++) pthread_join(threads[i], NULL);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "sign") == 0) return sign(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "install") == 0) return install(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: format-floor sign LIST OUT | format-floor install ARCHIVE LIST DIR\n");
    return 2;
}
