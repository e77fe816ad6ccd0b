/* shm/manager_protocol.h: the wire protocol between th-shm-manager and its clients (manager_client.c).
 *
 * Plain C11 with no POSIX: the manager, the client and the fuzz target (tests/fuzz/fuzz_shm_manager_msg.c)
 * all parse with the one function below, th__shm_msg_parse.
 *
 * MESSAGES
 *   Every message is a 16-byte header and a payload of at most TH__SHM_MAX_PAYLOAD bytes. Integers are
 *   little-endian whatever the host.
 *      offset 0  u32 magic    TH__SHM_MAGIC (the bytes "THSM")
 *      offset 4  u16 version  TH__SHM_VERSION
 *      offset 6  u16 type     a th__shm_type
 *      offset 8  u32 length   payload bytes; each type has its own bounds (below)
 *      offset 12 u32 seq      chosen by the client; the reply carries the same value
 *   Client to manager:
 *      HELLO       payload empty                  -> HELLO_OK or ERROR
 *      REGISTER    payload a segment name         -> OK or ERROR
 *      UNREGISTER  payload a segment name         -> OK or ERROR
 *      RELEASE     payload a segment name         -> RELEASED or ERROR
 *   Manager to client:
 *      HELLO_OK    u32 the manager's pid
 *      OK          payload empty
 *      RELEASED    u32 1 when the manager unlinked the name (no other live client had registered it), else 0
 *      ERROR       u32 a th__shm_error code, then 0..TH__SHM_TEXT_MAX bytes of printable ASCII
 *   A name is 2..TH__SHM_NAME_MAX bytes, no NUL: '/' and then letters, digits, '_', '-' and '.', not
 *   starting with '.' (so "/." and "/.." are out, and the name is one file in /dev/shm).
 *
 *   The client sends one request and waits for its reply. The manager answers a bad message (bad magic, an
 *   unknown version or type, a length out of bounds, a bad name; a message cut short by the end of the
 *   connection) with an ERROR of code PROTOCOL or VERSION and closes the connection; it checks the header
 *   as soon as its 16 bytes are in, so an oversized message is refused before its payload is read.
 *   The version is checked before the type, so a client of another version always gets a VERSION error.
 *
 * WHOSE NAMES
 *   Registrations belong to the client's process (the peer's pid, SO_PEERCRED), not to its connection. When a
 *   connection ends without a protocol error, the manager asks the kernel whether that process lives: dead
 *   (or a zombie), its names go (unlinked where no other live client holds them); alive, they are kept until
 *   it dies, and the next connection of that process takes them over. A client that gives up on a stalled
 *   manager (TH_SHM_MANAGER_TIMEOUT_MS) closes its connection and later makes a new one: a slow manager thus
 *   never unlinks a live process's segments. A protocol error ends the client's registrations at once. The
 *   one name rule is th__shm_name_problem below: the client checks its names, prefixes and handles with it.
 */
#ifndef TH_SHM_MANAGER_PROTOCOL_H
#define TH_SHM_MANAGER_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TH__SHM_MAGIC 0x4D534854u /* "THSM" read as a little-endian u32 */
#define TH__SHM_VERSION 1u
#define TH__SHM_HEADER_SIZE 16u
#define TH__SHM_NAME_MAX 255u     /* bytes in a name, its '/' included */
#define TH__SHM_TEXT_MAX 200u     /* bytes of text in an ERROR */
#define TH__SHM_MAX_PAYLOAD 256u  /* no type allows more */
#define TH__SHM_MAX_MESSAGE (TH__SHM_HEADER_SIZE + TH__SHM_MAX_PAYLOAD)

typedef enum th__shm_type {
    TH__SHM_HELLO = 1,
    TH__SHM_REGISTER = 2,
    TH__SHM_UNREGISTER = 3,
    TH__SHM_RELEASE = 4,
    TH__SHM_HELLO_OK = 0x81,
    TH__SHM_OK = 0x82,
    TH__SHM_RELEASED = 0x83,
    TH__SHM_ERROR = 0xFF
} th__shm_type;

/* ERROR codes. After PROTOCOL, VERSION and PERMISSION the manager closes the connection. */
typedef enum th__shm_error {
    TH__SHM_ERR_PROTOCOL = 1,       /* a malformed message */
    TH__SHM_ERR_VERSION = 2,        /* a protocol version the manager does not speak */
    TH__SHM_ERR_PERMISSION = 3,     /* the peer's uid is not the manager's */
    TH__SHM_ERR_NOT_REGISTERED = 4, /* UNREGISTER or RELEASE of a name this connection did not register */
    TH__SHM_ERR_LIMIT = 5,          /* the manager holds as many names as it will */
    TH__SHM_ERR_NOMEM = 6           /* the manager ran out of memory */
} th__shm_error;

/* Which side sent the bytes: each side accepts only the other side's types. */
typedef enum th__shm_direction { TH__SHM_FROM_CLIENT = 0, TH__SHM_FROM_MANAGER = 1 } th__shm_direction;

/* th__shm_msg_parse's results: one complete message, more bytes needed, or what is wrong. */
enum {
    TH__SHM_PARSE_OK = 1,
    TH__SHM_PARSE_MORE = 0,
    TH__SHM_PERR_MAGIC = -1,
    TH__SHM_PERR_VERSION = -2,
    TH__SHM_PERR_TYPE = -3,
    TH__SHM_PERR_LENGTH = -4,
    TH__SHM_PERR_NAME = -5,
    TH__SHM_PERR_TEXT = -6,
    TH__SHM_PERR_VALUE = -7
};

typedef struct th__shm_msg {
    uint32_t version, type, length, seq; /* the header (seq also set for errors found after the header) */
    const char *name;                    /* REGISTER, UNREGISTER, RELEASE: in the buffer, not terminated */
    size_t name_len;
    uint32_t pid;                        /* HELLO_OK */
    uint32_t unlinked;                   /* RELEASED: 0 or 1 */
    uint32_t code;                       /* ERROR */
    const char *text;                    /* ERROR: printable ASCII in the buffer, not terminated */
    size_t text_len;
} th__shm_msg;

static inline uint32_t th__shm_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t th__shm_get_u16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static inline void th__shm_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void th__shm_put_u16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

/* NULL if name[0..len) is a valid segment name, else what is wrong with it. */
static inline const char *th__shm_name_problem(const char *name, size_t len)
{
    if (len < 2) return "shorter than 2 bytes";
    if (len > TH__SHM_NAME_MAX) return "longer than 255 bytes";
    if (name[0] != '/') return "does not start with '/'";
    if (name[1] == '.') return "starts with \"/.\"";
    for (size_t i = 1; i < len; i++) {
        unsigned char ch = (unsigned char)name[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                 ch == '-' || ch == '.';
        if (!ok) return "has a character other than letters, digits, '_', '-' and '.' after the '/'";
    }
    return NULL;
}

/* FNV-1a over the bytes of a name. */
static inline uint64_t th__shm_name_hash(const char *name, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Checks the bytes at buf[0..len) from direction dir. Returns TH__SHM_PARSE_OK with *msg filled and
 * *used set to the message's size (the rest of the buffer is the next message), TH__SHM_PARSE_MORE when
 * the bytes so far are a valid start of a message, or a TH__SHM_PERR_ with *why saying what is wrong.
 * Errors are found as early as the bytes allow: a wrong magic from its first byte, a wrong version,
 * type or length as soon as the header is in. Reads no byte past buf[len - 1]. */
static inline int th__shm_msg_parse(const unsigned char *buf, size_t len, th__shm_direction dir, th__shm_msg *msg,
                                    size_t *used, const char **why)
{
    static const unsigned char magic[4] = {'T', 'H', 'S', 'M'};
    memset(msg, 0, sizeof *msg);
    *used = 0;
    *why = NULL;
    size_t m = len < 4 ? len : 4;
    if (memcmp(buf, magic, m) != 0) {
        *why = "bad magic (not a th-shm-manager message)";
        return TH__SHM_PERR_MAGIC;
    }
    if (len < TH__SHM_HEADER_SIZE) return TH__SHM_PARSE_MORE;
    msg->version = th__shm_get_u16(buf + 4);
    msg->type = th__shm_get_u16(buf + 6);
    msg->length = th__shm_get_u32(buf + 8);
    msg->seq = th__shm_get_u32(buf + 12);
    if (msg->version != TH__SHM_VERSION) {
        *why = "unsupported protocol version (this side speaks version 1)";
        return TH__SHM_PERR_VERSION;
    }
    uint32_t lo, hi;
    switch (msg->type) {
    case TH__SHM_HELLO: lo = hi = 0; break;
    case TH__SHM_REGISTER:
    case TH__SHM_UNREGISTER:
    case TH__SHM_RELEASE: lo = 2; hi = TH__SHM_NAME_MAX; break;
    case TH__SHM_HELLO_OK:
    case TH__SHM_RELEASED: lo = hi = 4; break;
    case TH__SHM_OK: lo = hi = 0; break;
    case TH__SHM_ERROR: lo = 4; hi = 4 + TH__SHM_TEXT_MAX; break;
    default: *why = "unknown message type"; return TH__SHM_PERR_TYPE;
    }
    int from_client = msg->type == TH__SHM_HELLO || msg->type == TH__SHM_REGISTER || msg->type == TH__SHM_UNREGISTER ||
                      msg->type == TH__SHM_RELEASE;
    if (from_client != (dir == TH__SHM_FROM_CLIENT)) {
        *why = dir == TH__SHM_FROM_CLIENT ? "a reply type sent to the manager" : "a request type sent to a client";
        return TH__SHM_PERR_TYPE;
    }
    if (msg->length > TH__SHM_MAX_PAYLOAD) {
        *why = "oversized message (payload over 256 bytes)";
        return TH__SHM_PERR_LENGTH;
    }
    if (msg->length < lo || msg->length > hi) {
        *why = "payload length out of bounds for the message type";
        return TH__SHM_PERR_LENGTH;
    }
    if (len - TH__SHM_HEADER_SIZE < msg->length) return TH__SHM_PARSE_MORE;
    const unsigned char *p = buf + TH__SHM_HEADER_SIZE;
    switch (msg->type) {
    case TH__SHM_REGISTER:
    case TH__SHM_UNREGISTER:
    case TH__SHM_RELEASE:
        if (th__shm_name_problem((const char *)p, msg->length)) {
            *why = "bad segment name (want '/' then letters, digits, '_', '-', '.'; at most 255 bytes)";
            return TH__SHM_PERR_NAME;
        }
        msg->name = (const char *)p;
        msg->name_len = msg->length;
        break;
    case TH__SHM_HELLO_OK: msg->pid = th__shm_get_u32(p); break;
    case TH__SHM_RELEASED:
        msg->unlinked = th__shm_get_u32(p);
        if (msg->unlinked > 1) {
            *why = "a RELEASED flag other than 0 or 1";
            return TH__SHM_PERR_VALUE;
        }
        break;
    case TH__SHM_ERROR:
        msg->code = th__shm_get_u32(p);
        for (uint32_t i = 4; i < msg->length; i++) {
            if (p[i] < 0x20 || p[i] > 0x7e) {
                *why = "error text that is not printable ASCII";
                return TH__SHM_PERR_TEXT;
            }
        }
        msg->text = (const char *)p + 4;
        msg->text_len = msg->length - 4;
        break;
    default: break;
    }
    *used = TH__SHM_HEADER_SIZE + msg->length;
    return TH__SHM_PARSE_OK;
}

/* Writes a header and payload (plen bytes, or none when payload is NULL) into buf, which has room for
 * TH__SHM_MAX_MESSAGE bytes. Returns the message's size, or 0 when plen is over TH__SHM_MAX_PAYLOAD. */
static inline size_t th__shm_msg_encode(unsigned char *buf, uint32_t type, uint32_t seq, const void *payload,
                                        size_t plen)
{
    if (plen > TH__SHM_MAX_PAYLOAD) return 0;
    th__shm_put_u32(buf, TH__SHM_MAGIC);
    th__shm_put_u16(buf + 4, TH__SHM_VERSION);
    th__shm_put_u16(buf + 6, type);
    th__shm_put_u32(buf + 8, (uint32_t)plen);
    th__shm_put_u32(buf + 12, seq);
    if (plen) memcpy(buf + TH__SHM_HEADER_SIZE, payload, plen);
    return TH__SHM_HEADER_SIZE + plen;
}

/* An ERROR message: code, then text cut to TH__SHM_TEXT_MAX bytes with anything unprintable made '?'. */
static inline size_t th__shm_msg_encode_error(unsigned char *buf, uint32_t seq, uint32_t code, const char *text)
{
    unsigned char payload[4 + TH__SHM_TEXT_MAX];
    th__shm_put_u32(payload, code);
    size_t n = 0;
    for (; text && text[n] && n < TH__SHM_TEXT_MAX; n++) {
        unsigned char ch = (unsigned char)text[n];
        payload[4 + n] = ch >= 0x20 && ch <= 0x7e ? ch : '?';
    }
    return th__shm_msg_encode(buf, TH__SHM_ERROR, seq, payload, 4 + n);
}

#endif
