/* libFuzzer target: random bytes into th-shm-manager's message parser (shm/manager_protocol.h), the one
 * both the manager and its clients use.
 *
 * Whatever the bytes, from either direction: no crash and no read past the buffer; a stream of messages is
 * parsed the same whole as cut into pieces the way a socket delivers them (an answer on a prefix, OK or an
 * error, is the answer on the whole); every message accepted re-encodes to the same bytes and carries what
 * its type promises (a valid name, printable error text); an ERROR built from any text parses back.
 *
 *   clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_shm_manager_msg.c -lm */
#include "shm/manager_protocol.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(cond)                                                                                     \
    do {                                                                                                  \
        if (!(cond)) abort();                                                                             \
    } while (0)

/* Parses one message from a copy of exactly n bytes (so ASan sees any read past the end). */
static int parse_exact(const unsigned char *data, size_t n, th__shm_direction dir, th__shm_msg *m, size_t *used,
                       unsigned char **copy_out)
{
    unsigned char *copy = malloc(n ? n : 1);
    REQUIRE(copy);
    if (n) memcpy(copy, data, n);
    const char *why = NULL;
    int rc = th__shm_msg_parse(copy, n, dir, m, used, &why);
    REQUIRE(rc == TH__SHM_PARSE_OK || rc == TH__SHM_PARSE_MORE || rc < 0);
    REQUIRE((rc < 0) == (why != NULL));
    *copy_out = copy;
    return rc;
}

static void check_message(const unsigned char *bytes, const th__shm_msg *m, size_t used, th__shm_direction dir)
{
    REQUIRE(used == TH__SHM_HEADER_SIZE + m->length && used <= TH__SHM_MAX_MESSAGE);
    REQUIRE(m->version == TH__SHM_VERSION);
    const void *payload = bytes + TH__SHM_HEADER_SIZE;
    unsigned char again[TH__SHM_MAX_MESSAGE];
    size_t n = th__shm_msg_encode(again, m->type, m->seq, payload, m->length);
    REQUIRE(n == used && memcmp(again, bytes, used) == 0);
    switch (m->type) {
    case TH__SHM_HELLO:
    case TH__SHM_OK: REQUIRE(m->length == 0); break;
    case TH__SHM_REGISTER:
    case TH__SHM_UNREGISTER:
    case TH__SHM_RELEASE:
        REQUIRE(dir == TH__SHM_FROM_CLIENT);
        REQUIRE(m->name == (const char *)payload && m->name_len == m->length);
        REQUIRE(th__shm_name_problem(m->name, m->name_len) == NULL);
        REQUIRE(m->name[0] == '/' && m->name_len >= 2 && m->name_len <= TH__SHM_NAME_MAX);
        for (size_t i = 1; i < m->name_len; i++) REQUIRE(m->name[i] != '/' && m->name[i] != '\0');
        break;
    case TH__SHM_HELLO_OK: REQUIRE(dir == TH__SHM_FROM_MANAGER && m->pid == th__shm_get_u32(payload)); break;
    case TH__SHM_RELEASED: REQUIRE(dir == TH__SHM_FROM_MANAGER && m->unlinked <= 1); break;
    case TH__SHM_ERROR:
        REQUIRE(dir == TH__SHM_FROM_MANAGER && m->text_len <= TH__SHM_TEXT_MAX);
        for (size_t i = 0; i < m->text_len; i++) REQUIRE(m->text[i] >= 0x20 && m->text[i] <= 0x7e);
        break;
    default: REQUIRE(0);
    }
}

/* The stream from one direction, whole: the answer for each message in turn, until MORE or an error. */
static void parse_stream(const unsigned char *data, size_t size, th__shm_direction dir, size_t cut_seed)
{
    size_t off = 0;
    for (int count = 0; count < 64; count++) {
        th__shm_msg m;
        size_t used;
        unsigned char *whole;
        int rc = parse_exact(data + off, size - off, dir, &m, &used, &whole);
        if (rc == TH__SHM_PARSE_OK) check_message(whole, &m, used, dir);
        /* the same bytes arriving in pieces: every prefix says MORE, or what the whole says */
        size_t end = rc == TH__SHM_PARSE_OK ? used : size - off;
        if (end > TH__SHM_MAX_MESSAGE + 8) end = TH__SHM_MAX_MESSAGE + 8;
        for (size_t k = 0; k <= end; k += 1 + (cut_seed + k) % 7) {
            th__shm_msg pm;
            size_t pused;
            unsigned char *part;
            int prc = parse_exact(data + off, k, dir, &pm, &pused, &part);
            if (prc != TH__SHM_PARSE_MORE) {
                REQUIRE(prc == rc);
                if (prc == TH__SHM_PARSE_OK) {
                    REQUIRE(pused == used && pm.type == m.type && pm.seq == m.seq && pm.length == m.length);
                    REQUIRE(k >= used);
                }
            }
            if (k >= TH__SHM_HEADER_SIZE && prc != TH__SHM_PERR_MAGIC) REQUIRE(pm.seq == th__shm_get_u32(part + 12));
            free(part);
        }
        free(whole);
        if (rc != TH__SHM_PARSE_OK) return;
        off += used;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    size_t seed = data[0];
    /* the raw bytes from both directions */
    parse_stream(data + 1, size - 1, TH__SHM_FROM_CLIENT, seed);
    parse_stream(data + 1, size - 1, TH__SHM_FROM_MANAGER, seed);

    /* the same bytes after a valid header, so the payload checks (names, text) get the attention */
    unsigned char msg[TH__SHM_MAX_MESSAGE + 64];
    size_t plen = size - 1 > TH__SHM_MAX_PAYLOAD ? TH__SHM_MAX_PAYLOAD : size - 1;
    static const uint32_t types[] = {TH__SHM_HELLO, TH__SHM_REGISTER, TH__SHM_UNREGISTER, TH__SHM_RELEASE,
                                     TH__SHM_HELLO_OK, TH__SHM_OK,    TH__SHM_RELEASED,   TH__SHM_ERROR,
                                     5,             0x84,             0,                  0xFFFF};
    uint32_t type = types[seed % 12];
    size_t n = th__shm_msg_encode(msg, type, (uint32_t)size, data + 1, plen);
    REQUIRE(n == TH__SHM_HEADER_SIZE + plen);
    parse_stream(msg, n, (seed & 16) ? TH__SHM_FROM_MANAGER : TH__SHM_FROM_CLIENT, seed >> 5);

    /* a name check of the bytes as a string, and an ERROR from any text parses back */
    (void)th__shm_name_problem((const char *)data + 1, plen);
    char text[TH__SHM_TEXT_MAX + 64];
    size_t tlen = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
    memcpy(text, data + 1, tlen);
    text[tlen] = '\0';
    n = th__shm_msg_encode_error(msg, 7, seed, text);
    th__shm_msg m;
    size_t used;
    const char *why;
    REQUIRE(th__shm_msg_parse(msg, n, TH__SHM_FROM_MANAGER, &m, &used, &why) == TH__SHM_PARSE_OK);
    REQUIRE(used == n && m.type == TH__SHM_ERROR && m.code == seed && m.seq == 7);
    REQUIRE(m.text_len == strlen(text) || m.text_len == TH__SHM_TEXT_MAX);
    REQUIRE(th__shm_msg_parse(msg, n, TH__SHM_FROM_CLIENT, &m, &used, &why) == TH__SHM_PERR_TYPE);
    return 0;
}
