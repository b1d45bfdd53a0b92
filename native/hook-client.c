// Ratchet's compiled hook client: the warm path of lib/runtime/loader.ts (warmFirst) and lib/runtime/warm.ts
// (ask), without starting node. A hook call costs an exec, a request file and an answer file instead of a node
// start (~13 ms against ~50 ms). It decides nothing itself:
//   - the warm process answers: its stdout, stderr and exit code are the hook's;
//   - anything else (no warm process, a busy or silent one, a terminal on stdin, an argument, a payload or path
//     it does not handle exactly as node would, any error): it execs the node launcher with the stdin it read, so
//     the call is decided exactly as without this client (and the launcher starts the warm process for the next).
// It trusts what the node client trusts, checked the same way: the keys file in the per-user config folder (a
// regular file, not a link), /proc's word that the process named there is this install's warm process run by the
// node on PATH with the same preloads, a spool folder in memory only the user can enter, and an answer carrying
// the server secret. C99 and libc only (Linux: inotify, memfd, /proc).
//
//   hook-client <hook> <node launcher> [args...]     (written by `ratchet init` into the hook's `sh -c` guard)

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define WAIT_MS 3500            // as warm.ts: a call taken and not decided by then has overrun
#define PICKUP_MS 500           // a request not taken by then: the process is stopped or stuck
#define MAX_REQUEST (16u << 20) // bytes of one request or answer file
#define MAX_STDIN (4u << 20)    // warm.ts: a payload past MAX_REQUEST / 4 is decided by the hook itself
#ifndef WARM_HOOKS
#define WARM_HOOKS "preflight-check", "custodiet" // the hooks whose engines the warm process runs (scripts/build.mjs passes the manifest's)
#endif
static const char *SERVED[] = {WARM_HOOKS};

/** `hook` is one whose engine the warm process runs: any other would be decided by the wrong engine. */
static int served(const char *hook) {
  for (size_t i = 0; i < sizeof SERVED / sizeof *SERVED; i++)
    if (!strcmp(hook, SERVED[i])) return 1;
  return 0;
}

static char **args;   // our argv: [client, hook, launcher, extra...]
static int argn;
static char *in;      // stdin as read
static size_t inlen;
static int have_in;   // stdin was read (a fallback must hand it on)

// ---- a growable buffer ----------------------------------------------------------------------------------

typedef struct {
  char *p;
  size_t n, cap;
} buf;

static int put(buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p, b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
  return 0;
}
static int puts_(buf *b, const char *s) { return put(b, s, strlen(s)); }

// ---- fallback: the node launcher, with the stdin already read ---------------------------------------------

/** Runs the node launcher in this process's place; never returns. `overran`: the warm process took the call
 * and did not decide it in time (the launcher then applies the failure policy at once, as loader.cjs does). */
static void fallback(int overran) {
  if (have_in) {
    int fd = memfd_create("ratchet-stdin", MFD_CLOEXEC);
    size_t off = 0;
    if (fd >= 0) {
      while (off < inlen) {
        ssize_t w = write(fd, in + off, inlen - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
      }
    }
    if (fd < 0 || off < inlen || lseek(fd, 0, SEEK_SET) != 0 || dup2(fd, 0) < 0) {
      // No memfd (an old kernel): a pipe fed by a child of ours.
      int p[2];
      if (fd >= 0) close(fd);
      if (pipe(p) != 0) goto fail;
      pid_t c = fork();
      if (c < 0) goto fail;
      if (c == 0) {
        close(p[0]);
        for (off = 0; off < inlen;) {
          ssize_t w = write(p[1], in + off, inlen - off);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) _exit(0);
          off += (size_t)w;
        }
        _exit(0);
      }
      close(p[1]);
      if (dup2(p[0], 0) < 0) goto fail;
      close(p[0]);
    } else {
      close(fd);
    }
  }
  if (overran) setenv("RATCHET_WARM_OVERRAN", "1", 1);
  else unsetenv("RATCHET_WARM_OVERRAN");
  execv(args[2], args + 2);
fail:
  // Never an allow: exit 2 blocks a PreToolUse call in every client.
  dprintf(2, "ratchet %s: cannot run %s (%s); blocked to be safe. Reinstall it (npm install in the project), or run `npx ratchet-guard doctor`.\n", args[1], args[2], strerror(errno));
  _exit(2);
}

// ---- files ----------------------------------------------------------------------------------------------

/** A regular file of at most `max` bytes, read without following a link or blocking on a FIFO; NULL otherwise. */
static char *read_small(const char *file, size_t max, size_t *len) {
  int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  char *p = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max && (p = malloc((size_t)st.st_size + 1))) {
    size_t n = 0;
    for (;;) {
      ssize_t r = read(fd, p + n, (size_t)st.st_size - n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      n += (size_t)r;
      if (n == (size_t)st.st_size) break;
    }
    p[n] = 0;
    if (len) *len = n;
  }
  close(fd);
  return p;
}

/** The whole of a /proc file (their sizes say 0). */
static char *read_proc(const char *file, size_t *len) {
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  buf b = {0};
  char chunk[4096];
  for (;;) {
    ssize_t r = read(fd, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || put(&b, chunk, (size_t)r) != 0) break;
  }
  close(fd);
  if (!b.p) put(&b, "", 0);
  *len = b.n;
  return b.p;
}

/** A folder only this user can enter: not a link, owned by the user, nothing for group or others. */
static int private_folder(const char *dir) {
  struct stat st;
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0;
}

// ---- paths as node's path.resolve / path.join make them ----------------------------------------------------

/** `p` made absolute against `base` and normalised (no `.`, `..`, repeated or trailing `/`): path.resolve. */
static char *resolve(const char *base, const char *p) {
  buf joined = {0};
  if (p[0] != '/') puts_(&joined, base), puts_(&joined, "/");
  puts_(&joined, p);
  char *out = malloc(joined.n + 2);
  if (!out || !joined.p) return NULL;
  size_t n = 0;
  const char *s = joined.p;
  while (*s) {
    while (*s == '/') s++;
    const char *e = s;
    while (*e && *e != '/') e++;
    size_t l = (size_t)(e - s);
    if (l == 0 || (l == 1 && s[0] == '.')) {
    } else if (l == 2 && s[0] == '.' && s[1] == '.') {
      while (n > 0 && out[n - 1] != '/') n--;
      if (n > 0) n--;
    } else {
      out[n++] = '/';
      memcpy(out + n, s, l);
      n += l;
    }
    s = e;
  }
  if (n == 0) out[n++] = '/';
  out[n] = 0;
  free(joined.p);
  return out;
}

// ---- UTF-8 ------------------------------------------------------------------------------------------------

/** Well-formed UTF-8 (node would replace anything else, which this client does not imitate: node decides). */
static int utf8_ok(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    size_t k;
    uint32_t cp;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xE0) == 0xC0) k = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) k = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) k = 3, cp = c & 0x07;
    else return 0;
    for (size_t j = 1; j <= k; j++) {
      if (i + j >= n || (s[i + j] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (s[i + j] & 0x3F);
    }
    if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    i += k + 1;
  }
  return 1;
}

/** FNV-1a over the string's UTF-16 code units, as warm.ts placeOf hashes (a code point past the BMP counts
 * its high surrogate, which is what `charCodeAt(0)` of each `for…of` character gives). */
static uint32_t fnv(uint32_t h, const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint32_t cp = s[i];
    size_t k = cp < 0x80 ? 0 : cp < 0xE0 ? 1 : cp < 0xF0 ? 2 : 3;
    if (k) cp &= 0x3F >> k;
    for (size_t j = 1; j <= k; j++) cp = (cp << 6) | (s[i + j] & 0x3F);
    i += k + 1;
    uint32_t unit = cp >= 0x10000 ? 0xD800 + ((cp - 0x10000) >> 10) : cp;
    h = (h ^ unit) * 0x01000193u;
  }
  return h;
}

// ---- JSON -------------------------------------------------------------------------------------------------

static int json_str(buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  if (puts_(b, "\"")) return -1;
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (put(b, s + run, i - run)) return -1;
    char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
    if (c == '"' || c == '\\') e[1] = (char)c, e[2] = 0;
    else if (c == '\n') e[1] = 'n', e[2] = 0;
    if (puts_(b, e)) return -1;
    run = i + 1;
  }
  if (put(b, s + run, n - run)) return -1;
  return puts_(b, "\"");
}

typedef struct {
  const char *s, *end;
} cur;

static void ws(cur *c) {
  while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r')) c->s++;
}

static int hex4(const char *s, uint32_t *v) {
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char h = s[i];
    *v <<= 4;
    if (h >= '0' && h <= '9') *v |= (uint32_t)(h - '0');
    else if (h >= 'a' && h <= 'f') *v |= (uint32_t)(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') *v |= (uint32_t)(h - 'A' + 10);
    else return -1;
  }
  return 0;
}

static void utf8_put(buf *b, uint32_t cp) {
  char o[4];
  if (cp < 0x80) o[0] = (char)cp, put(b, o, 1);
  else if (cp < 0x800) o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F)), put(b, o, 2);
  else if (cp < 0x10000) o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[2] = (char)(0x80 | (cp & 0x3F)), put(b, o, 3);
  else o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F)), o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F)), put(b, o, 4);
}

/** A JSON string at the cursor, decoded to UTF-8 into `out` (a lone surrogate becomes U+FFFD, as Buffer.from). */
static int parse_str(cur *c, buf *out) {
  if (c->s >= c->end || *c->s != '"') return -1;
  c->s++;
  put(out, "", 0);
  while (c->s < c->end) {
    unsigned char ch = (unsigned char)*c->s;
    if (ch == '"') {
      c->s++;
      return 0;
    }
    if (ch < 0x20) return -1;
    if (ch != '\\') {
      const char *r = c->s;
      while (c->s < c->end && *c->s != '"' && *c->s != '\\' && (unsigned char)*c->s >= 0x20) c->s++;
      put(out, r, (size_t)(c->s - r));
      continue;
    }
    if (c->end - c->s < 2) return -1;
    char e = c->s[1];
    c->s += 2;
    const char *simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      static const char to[] = "\"\\/\b\f\n\r\t";
      put(out, &to[simple - "\"\\/bfnrt"], 1);
    } else if (e == 'u') {
      uint32_t u, lo;
      if (c->end - c->s < 4 || hex4(c->s, &u)) return -1;
      c->s += 4;
      if (u >= 0xD800 && u <= 0xDBFF && c->end - c->s >= 6 && c->s[0] == '\\' && c->s[1] == 'u' && !hex4(c->s + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
        c->s += 6;
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
      } else if (u >= 0xD800 && u <= 0xDFFF) {
        u = 0xFFFD;
      }
      utf8_put(out, u);
    } else {
      return -1;
    }
  }
  return -1;
}

enum { J_NONE, J_STR, J_NUM, J_TRUE, J_FALSE, J_NULL, J_OBJ, J_ARR };
typedef struct {
  int type;
  buf str;       // J_STR: decoded
  double num;    // J_NUM
} jval;

static int parse_val(cur *c, jval *v, int depth);

static int skip_container(cur *c, char close, int depth) {
  c->s++;
  ws(c);
  if (c->s < c->end && *c->s == close) return c->s++, 0;
  for (;;) {
    jval v = {0};
    ws(c);
    if (close == '}') {
      if (parse_str(c, &v.str)) return free(v.str.p), -1;
      free(v.str.p);
      v.str = (buf){0};
      ws(c);
      if (c->s >= c->end || *c->s != ':') return -1;
      c->s++;
    }
    if (parse_val(c, &v, depth + 1)) return free(v.str.p), -1;
    free(v.str.p);
    ws(c);
    if (c->s < c->end && *c->s == ',') {
      c->s++;
      continue;
    }
    if (c->s < c->end && *c->s == close) return c->s++, 0;
    return -1;
  }
}

static int parse_val(cur *c, jval *v, int depth) {
  if (depth > 64) return -1;
  ws(c);
  if (c->s >= c->end) return -1;
  char ch = *c->s;
  if (ch == '"') return v->type = J_STR, parse_str(c, &v->str);
  if (ch == '{') return v->type = J_OBJ, skip_container(c, '}', depth);
  if (ch == '[') return v->type = J_ARR, skip_container(c, ']', depth);
  static const struct {
    const char *w;
    int t;
  } lit[] = {{"true", J_TRUE}, {"false", J_FALSE}, {"null", J_NULL}};
  for (int i = 0; i < 3; i++) {
    size_t l = strlen(lit[i].w);
    if ((size_t)(c->end - c->s) >= l && !memcmp(c->s, lit[i].w, l)) return c->s += l, v->type = lit[i].t, 0;
  }
  // A number, by JSON's grammar.
  const char *s = c->s;
  if (s < c->end && *s == '-') s++;
  if (s >= c->end || *s < '0' || *s > '9') return -1;
  if (*s == '0') s++;
  else
    while (s < c->end && *s >= '0' && *s <= '9') s++;
  if (s < c->end && *s == '.') {
    s++;
    if (s >= c->end || *s < '0' || *s > '9') return -1;
    while (s < c->end && *s >= '0' && *s <= '9') s++;
  }
  if (s < c->end && (*s == 'e' || *s == 'E')) {
    s++;
    if (s < c->end && (*s == '+' || *s == '-')) s++;
    if (s >= c->end || *s < '0' || *s > '9') return -1;
    while (s < c->end && *s >= '0' && *s <= '9') s++;
  }
  char tmp[64];
  size_t l = (size_t)(s - c->s);
  if (l >= sizeof tmp) return -1;
  memcpy(tmp, c->s, l);
  tmp[l] = 0;
  v->num = strtod(tmp, NULL);
  v->type = J_NUM;
  c->s = s;
  return 0;
}

/** Walks the members of the JSON object in `text` (the whole text, nothing after it), calling `each` per member
 * (a later member of the same name overrides an earlier one, as JSON.parse). -1 when it is not one. */
static int parse_object(const char *text, size_t n, void (*each)(void *, const char *, jval *), void *ctx) {
  cur c = {text, text + n};
  ws(&c);
  if (c.s >= c.end || *c.s != '{') return -1;
  c.s++;
  ws(&c);
  if (c.s < c.end && *c.s == '}') {
    c.s++;
  } else {
    for (;;) {
      buf name = {0};
      jval v = {0};
      ws(&c);
      if (parse_str(&c, &name)) return free(name.p), -1;
      ws(&c);
      if (c.s >= c.end || *c.s != ':') return free(name.p), -1;
      c.s++;
      if (parse_val(&c, &v, 1)) return free(name.p), free(v.str.p), -1;
      // A name with a NUL in it is none of ours.
      if (strlen(name.p) == name.n) each(ctx, name.p, &v);
      free(name.p);
      free(v.str.p);
      ws(&c);
      if (c.s < c.end && *c.s == ',') {
        c.s++;
        continue;
      }
      if (c.s < c.end && *c.s == '}') {
        c.s++;
        break;
      }
      return -1;
    }
  }
  ws(&c);
  return c.s == c.end ? 0 : -1;
}

static void take_str(buf *into, int *is, jval *v) {
  free(into->p);
  *into = (buf){0};
  *is = v->type == J_STR;
  if (*is) put(into, v->str.p ? v->str.p : "", v->str.n);
}

typedef struct {
  buf client, server, spool;
  int has_client, has_server, has_spool, has_pid;
  double pid;
} keys_t;

static void keys_member(void *ctx, const char *name, jval *v) {
  keys_t *k = ctx;
  if (!strcmp(name, "client")) take_str(&k->client, &k->has_client, v);
  else if (!strcmp(name, "server")) take_str(&k->server, &k->has_server, v);
  else if (!strcmp(name, "spool")) take_str(&k->spool, &k->has_spool, v);
  else if (!strcmp(name, "pid")) k->has_pid = v->type == J_NUM, k->pid = v->num;
}

typedef struct {
  buf k, out, err;
  int has_k, out_type, err_type, busy, has_code;
  double code;
} answer_t;

static int truthy(jval *v) {
  switch (v->type) {
  case J_STR: return v->str.n > 0;
  case J_NUM: return v->num != 0 && v->num == v->num;
  case J_TRUE: case J_OBJ: case J_ARR: return 1;
  default: return 0;
  }
}

static void answer_member(void *ctx, const char *name, jval *v) {
  answer_t *a = ctx;
  int is;
  if (!strcmp(name, "k")) take_str(&a->k, &a->has_k, v);
  else if (!strcmp(name, "stdout")) take_str(&a->out, &is, v), a->out_type = truthy(v) ? (is ? J_STR : J_OBJ) : J_NONE;
  else if (!strcmp(name, "stderr")) take_str(&a->err, &is, v), a->err_type = truthy(v) ? (is ? J_STR : J_OBJ) : J_NONE;
  else if (!strcmp(name, "busy")) a->busy = truthy(v);
  else if (!strcmp(name, "code")) a->has_code = v->type == J_NUM, a->code = v->num;
}

// ---- the warm process ---------------------------------------------------------------------------------------

static char dist[PATH_MAX];   // this install's dist/ (the loader's __dirname)
static char loader[PATH_MAX]; // dist/loader.cjs
static char node[PATH_MAX];   // the node the launcher's `#!/usr/bin/env node` would run, resolved

/** The first executable `node` on PATH, as env(1) finds it, resolved through links. */
static int find_node(void) {
  const char *path = getenv("PATH");
  if (!path || !*path) return -1;
  const char *s = path;
  for (;;) {
    const char *e = strchr(s, ':');
    size_t l = e ? (size_t)(e - s) : strlen(s);
    char cand[PATH_MAX];
    if (l + 6 < sizeof cand) {
      memcpy(cand, l ? s : ".", l ? l : 1);
      strcpy(cand + (l ? l : 1), "/node");
      struct stat st;
      if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) return realpath(cand, node) ? 0 : -1;
    }
    if (!e) return -1;
    s = e + 1;
  }
}

static const char *INHERITED[] = {"NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_PATH", "LD_AUDIT"};

/** `pid` is this install's warm process as a hook starts it (warm.ts alive): the same node running exactly
 * `<loader> --warm`, with no preload or library path this hook does not have. */
static int alive(long pid) {
  char file[64], exe[PATH_MAX];
  size_t n;
  snprintf(file, sizeof file, "/proc/%ld/cmdline", pid);
  char *cmd = read_proc(file, &n);
  if (!cmd) return 0;
  const char *a1 = cmd + strnlen(cmd, n) + 1;
  int ok = a1 < cmd + n && !strcmp(a1, loader);
  const char *a2 = ok ? a1 + strlen(a1) + 1 : NULL;
  ok = ok && a2 < cmd + n && !strcmp(a2, "--warm");
  free(cmd);
  snprintf(file, sizeof file, "/proc/%ld/exe", pid);
  ssize_t l = ok ? readlink(file, exe, sizeof exe - 1) : -1;
  if (l < 0) return 0;
  exe[l] = 0;
  if (strcmp(exe, node)) return 0;
  snprintf(file, sizeof file, "/proc/%ld/environ", pid);
  char *env = read_proc(file, &n);
  if (!env) return 0;
  for (size_t i = 0; ok && i < sizeof INHERITED / sizeof *INHERITED; i++) {
    size_t kl = strlen(INHERITED[i]);
    const char *theirs = "";
    for (const char *p = env; p < env + n; p += strlen(p) + 1)
      if (!strncmp(p, INHERITED[i], kl) && p[kl] == '=') {
        theirs = p + kl + 1;
        break;
      }
    const char *ours = getenv(INHERITED[i]);
    ok = !strcmp(theirs, ours ? ours : "");
  }
  free(env);
  return ok;
}

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static int exists(const char *f) {
  struct stat st;
  return lstat(f, &st) == 0;
}

static void write_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      struct pollfd p = {fd, POLLOUT, 0};
      poll(&p, 1, 100);
      continue;
    }
    if (w <= 0) return;
    s += w, n -= (size_t)w;
  }
}

/** Everything on stdin; 0 when read (or nothing to read: node reads it the same). */
static int read_stdin(void) {
  buf b = {0};
  char chunk[65536];
  put(&b, "", 0);
  for (;;) {
    ssize_t r = read(0, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) {
      struct pollfd p = {0, POLLIN, 0};
      poll(&p, 1, -1);
      continue;
    }
    if (r < 0) break;
    if (r == 0) {
      in = b.p, inlen = b.n, have_in = 1;
      return 0;
    }
    if (put(&b, chunk, (size_t)r)) break;
  }
  in = b.p, inlen = b.n, have_in = 1;
  return -1;
}

int main(int argc, char **argv) {
  args = argv, argn = argc;
  signal(SIGPIPE, SIG_IGN);
  if (argc < 3 || !argv[1][0] || strspn(argv[1], "abcdefghijklmnopqrstuvwxyz-") != strlen(argv[1]) || argv[2][0] != '/') {
    fprintf(stderr, "ratchet hook-client: usage: hook-client <hook> <absolute path of its node launcher>; blocked to be safe.\n");
    return 2;
  }
  // Anything but a plain call (an argument, --help, the warm process off, a terminal): node, untouched.
  const char *warm = getenv("RATCHET_WARM"), *cache = getenv("RATCHET_WRITE_CODE_CACHE");
  struct stat st;
  // Only the hooks the warm process runs: another's call would go to an engine that is not its own.
  if (argc > 3 || !served(argv[1]) || (warm && !strcmp(warm, "0")) || (cache && !strcmp(cache, "1")) || fstat(0, &st) != 0 || S_ISCHR(st.st_mode) || S_ISDIR(st.st_mode)) fallback(0);
  if (read_stdin() != 0 || inlen > MAX_STDIN || !utf8_ok((unsigned char *)in, inlen)) fallback(0);

  // Where the warm process keeps its keys (warm.ts placeOf).
  char self[PATH_MAX], cwd[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0 || !getcwd(cwd, sizeof cwd) || find_node() != 0) fallback(0);
  self[sl] = 0;
  *strrchr(self, '/') = 0;
  if (!realpath(self, dist) || strlen(dist) + 12 >= sizeof loader) fallback(0);
  snprintf(loader, sizeof loader, "%s/loader.cjs", dist);
  const char *pd = getenv("CLAUDE_PROJECT_DIR"), *rd = getenv("RATCHET_DIR"), *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
  char *project = resolve(cwd, pd && *pd ? pd : cwd);
  char *state = NULL;
  if (project) {
    if (rd && *rd) state = resolve(cwd, rd);
    else {
      buf s = {0};
      puts_(&s, project), puts_(&s, "/.ratchet");
      state = resolve("/", s.p);
      free(s.p);
    }
  }
  // A relative config folder (node would join it as given), or no HOME: node decides.
  if (!state || (xdg && *xdg && xdg[0] != '/') || (!(xdg && *xdg) && !(home && home[0] == '/'))) fallback(0);
  buf cfg = {0};
  if (xdg && *xdg) puts_(&cfg, xdg);
  else puts_(&cfg, home), puts_(&cfg, "/.config");
  puts_(&cfg, "/ratchet/warm");
  char *dir = resolve("/", cfg.p);
  if (!dir || !utf8_ok((unsigned char *)state, strlen(state)) || !utf8_ok((unsigned char *)dist, strlen(dist)) || !utf8_ok((unsigned char *)dir, strlen(dir))) fallback(0);
  uint32_t h = 0x811c9dc5u;
  h = fnv(h, (unsigned char *)state, strlen(state));
  h = fnv(h, (unsigned char *)"", 1);
  h = fnv(h, (unsigned char *)dist, strlen(dist));
  h = fnv(h, (unsigned char *)"", 1);
  h = fnv(h, (unsigned char *)dir, strlen(dir));
  char id[16], *ip = id + sizeof id - 1;
  *ip = 0;
  do *--ip = "0123456789abcdefghijklmnopqrstuvwxyz"[h % 36]; while (h /= 36);

  // Its keys, and the proof it is the process they name.
  char keyfile[PATH_MAX];
  if ((size_t)snprintf(keyfile, sizeof keyfile, "%s/%s.json", dir, ip) >= sizeof keyfile) fallback(0);
  size_t kl;
  char *kt = read_small(keyfile, 4096, &kl);
  keys_t k = {0};
  if (!kt || parse_object(kt, kl, keys_member, &k) != 0 || !k.has_client || !k.has_server || !k.has_spool || !k.has_pid || k.client.n < 32 || k.server.n < 32 || k.pid != (double)(long)k.pid || k.pid <= 0) fallback(0);
  long pid = (long)k.pid;
  if (!alive(pid) || strlen(k.spool.p) != k.spool.n || !private_folder(k.spool.p)) fallback(0);

  // The request, written whole under a temporary name and renamed (the server takes only *.req).
  unsigned char rnd[8];
  if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) fallback(0);
  char base[PATH_MAX], tmp[PATH_MAX + 8], req[PATH_MAX + 8], res[PATH_MAX + 8];
  if ((size_t)snprintf(base, sizeof base, "%s/%s.%ld.%02x%02x%02x%02x%02x%02x%02x%02x", k.spool.p, ip, (long)getpid(), rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]) >= sizeof base) fallback(0);
  snprintf(tmp, sizeof tmp, "%s.tmp", base);
  snprintf(req, sizeof req, "%s.req", base);
  snprintf(res, sizeof res, "%s.res", base);

  buf r = {0};
  puts_(&r, "{\"k\":");
  json_str(&r, k.client.p, k.client.n);
  puts_(&r, ",\"hook\":");
  json_str(&r, argv[1], strlen(argv[1]));
  // argv as node's process.argv would be: the node, the launcher (argv[2..] of the hook: none, see above).
  puts_(&r, ",\"argv\":[");
  json_str(&r, node, strlen(node));
  puts_(&r, ",");
  char *launcher = resolve(cwd, argv[2]);
  if (!launcher) fallback(0);
  json_str(&r, launcher, strlen(launcher));
  puts_(&r, "],\"env\":{");
  int first = 1;
  for (char **e = environ; *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq || eq == *e) continue;
    size_t nl = (size_t)(eq - *e);
    int seen = 0; // process.env[name] is the first of its name
    for (char **p = environ; p < e && !seen; p++) seen = !strncmp(*p, *e, nl) && (*p)[nl] == '=';
    if (seen) continue;
    if (!utf8_ok((unsigned char *)*e, strlen(*e))) fallback(0);
    if (!first) puts_(&r, ",");
    first = 0;
    json_str(&r, *e, nl);
    puts_(&r, ":");
    json_str(&r, eq + 1, strlen(eq + 1));
  }
  puts_(&r, "},\"cwd\":");
  if (!utf8_ok((unsigned char *)cwd, strlen(cwd))) fallback(0);
  json_str(&r, cwd, strlen(cwd));
  char num[32];
  snprintf(num, sizeof num, ",\"ppid\":%ld,\"stdin\":", (long)getppid());
  puts_(&r, num);
  json_str(&r, in, inlen);
  if (puts_(&r, "}") != 0) fallback(0);

  // Watched before the request exists, so its answer is never missed.
  int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (ino >= 0 && inotify_add_watch(ino, k.spool.p, IN_MOVED_TO | IN_CREATE) < 0) close(ino), ino = -1;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) fallback(0);
  size_t off = 0;
  while (off < r.n) {
    ssize_t w = write(fd, r.p + off, r.n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  if (close(fd) != 0 || off < r.n || rename(tmp, req) != 0) {
    unlink(tmp);
    fallback(0);
  }
  free(r.p);

  long started = now_ms(), checked = started;
  int taken = 0;
  double pause = 0.05;
  for (;;) {
    if (exists(res)) {
      size_t al;
      char *at = read_small(res, MAX_REQUEST, &al);
      unlink(res);
      answer_t a = {0};
      // Only the real process knows the server secret: anything else decides nothing.
      if (!at || parse_object(at, al, answer_member, &a) != 0 || !a.has_k || a.k.n != k.server.n || memcmp(a.k.p, k.server.p, a.k.n) || a.busy || !a.has_code) fallback(0);
      // What node would not write as it is (a non-string output, an exit code that is no exit code): node decides.
      if (a.out_type == J_OBJ || a.err_type == J_OBJ || a.code != (double)(int)a.code || a.code < 0 || a.code > 255) fallback(0);
      if (a.out_type == J_STR) write_all(1, a.out.p, a.out.n);
      if (a.err_type == J_STR) write_all(2, a.err.p, a.err.n);
      return (int)a.code;
    }
    long now = now_ms();
    if (now - checked > 50) {
      checked = now;
      taken = taken || !exists(req);
      // Not taken in time (stopped, or stuck on another call) or gone: node decides, and the process is ended so
      // the next call does not wait as well. The request goes first: what was not taken is never decided twice.
      int late = !taken && now - started > PICKUP_MS;
      if (late || now - started > WAIT_MS || !alive(pid)) {
        int withdrawn = !taken && unlink(req) == 0;
        if (alive(pid)) kill((pid_t)pid, SIGKILL);
        fallback(!withdrawn && now - started > WAIT_MS);
      }
    }
    if (ino >= 0) {
      // Woken by any new file in the spool; a timeout for the checks above.
      struct pollfd p = {ino, POLLIN, 0};
      char ev[4096];
      if (poll(&p, 1, 20) > 0)
        while (read(ino, ev, sizeof ev) > 0) {
        }
    } else {
      struct timespec t = {0, (long)(pause * 1e6)};
      nanosleep(&t, NULL);
      long waited = now_ms() - started;
      pause = pause * 1.5;
      double cap = waited < 30 ? 0.25 : waited < 300 ? 2 : 10;
      if (pause > cap) pause = cap;
    }
  }
}
