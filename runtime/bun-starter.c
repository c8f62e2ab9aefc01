/*
 * The Bun form's front (scripts/build/build-bun.ts): every program name of the Bun form is a hard
 * link of this small static executable, which
 *   - answers VERSION itself, with the Bun binary's own answer for that program, recorded at
 *     build time (starter-versions.h): a VERSION does not need a JavaScript VM at all;
 *   - runs every other call as `cni-ts` in its own directory, with argv unchanged (so the
 *     binary dispatches on the same name), after setting what JavaScriptCore reads only from
 *     the environment of a compiled Bun program: STARTER_ENV, per program and verb, from
 *     runtime/starter-env.ts (the reasons are there).
 * It reads no configuration and looks at nothing of the caller's but argv[0], CNI_COMMAND and
 * CNI_TIMING. argv and stdin go on to the binary as they are, the environment without what the
 * binary's runtime, loader or C library would act on (STARTER_DROPS in runtime/starter-env.ts:
 * BUN_*, NODE_*, LD_* and the like) and with the variables set below; the binary it runs is
 * found through /proc/self/exe, never PATH. It is linked statically, so nothing of the loader's
 * acts on it either.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#include "starter-versions.h"

/* A labelled build (scripts/build/bundle.ts buildLabel) carries its label, so its bytes differ. */
#ifdef CNI_TS_BUILD_LABEL
__attribute__((used)) static const char build_label[] = "cni-ts build " CNI_TS_BUILD_LABEL;
#endif

/* The buffer for the starter's own path. Only a build for a test sets it (small), to give the
 * starter a path longer than its buffer (e2e/helpers/multicall.ts). */
#ifndef SELF_PATH_MAX
#define SELF_PATH_MAX PATH_MAX
#endif

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Whether `word` is in `list`, a space-separated list with a space at each end; NULL lists all. */
static int listed(const char *list, const char *word) {
  if (list == NULL) return 1;
  if (word == NULL || word[0] == '\0' || strchr(word, ' ') != NULL) return 0;
  size_t n = strlen(word);
  for (const char *p = strstr(list, word); p != NULL; p = strstr(p + 1, word)) {
    if (p[-1] == ' ' && p[n] == ' ') return 1;
  }
  return 0;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Whether the entry "NAME=value" is one the starter removes (runtime/starter-env.ts, STARTER_DROPS). */
static int dropped(const char *entry) {
  for (size_t i = 0; i < sizeof DROP_PREFIXES / sizeof DROP_PREFIXES[0]; i++) {
    if (strncmp(entry, DROP_PREFIXES[i], strlen(DROP_PREFIXES[i])) == 0) return 1;
  }
  for (size_t i = 0; i < sizeof DROP_NAMES / sizeof DROP_NAMES[0]; i++) {
    size_t n = strlen(DROP_NAMES[i]);
    if (strncmp(entry, DROP_NAMES[i], n) == 0 && entry[n] == '=') return 1;
  }
  return 0;
}

/* Removes from environ, in place, what the binary's runtime, loader or C library would act on. */
static void drop_runtime_settings(void) {
  char **out = environ;
  if (out == NULL) return;
  for (char **in = environ; *in != NULL; in++) {
    if (!dropped(*in)) *out++ = *in;
  }
  *out = NULL;
}

/* CNI_TIMING as lib/cni-spec/timing.ts reads it: set, not empty, not "0". */
static int timing_requested(void) {
  const char *v = getenv("CNI_TIMING");
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static int answer_version(const char *answer, const char *name, double t0) {
  /* A closed stdout is a failed write (exit 1), as for the binary, not death by SIGPIPE. Only
   * on this path: an ignored signal would be inherited across the exec below. */
  signal(SIGPIPE, SIG_IGN);
  int failed = write_all(1, answer, strlen(answer)) != 0;
  if (timing_requested()) {
    /* The line lib/cni-spec/timing.ts writes: no phase ran, the whole call is "other". */
    char line[512];
    double total = now_ms() - t0;
    int n = snprintf(line, sizeof line, "cni-timing plugin=%s verb=VERSION startup=0.00 " TIMING_ZERO_PHASES " other=%.2f total=%.2f\n", name,
                     total, total);
    if (n > 0 && (size_t)n < sizeof line) (void)write_all(2, line, (size_t)n);
  }
  return failed ? 1 : 0;
}

/* s as a JSON string body, the way Go's encoder writes it (<, > and & escaped too). */
static void json_escape(const char *s, char *out, size_t cap) {
  size_t o = 0;
  for (; *s != '\0' && o + 7 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c == '\n') {
      out[o++] = '\\';
      out[o++] = 'n';
    } else if (c == '\r') {
      out[o++] = '\\';
      out[o++] = 'r';
    } else if (c == '\t') {
      out[o++] = '\\';
      out[o++] = 't';
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
    } else {
      out[o++] = (char)c;
    }
  }
  out[o] = '\0';
}

/* Like the binary's own early failures (runtime/multicall.ts): stderr, and for a runtime a CNI error object. */
static int fail(const char *what, const char *path, int err) {
  char msg[PATH_MAX + 128], esc[sizeof msg * 6 + 1], obj[sizeof esc + 64];
  snprintf(msg, sizeof msg, "%s %s: %s", what, path, strerror(err));
  dprintf(2, "cni-ts: %s\n", msg);
  if (getenv("CNI_COMMAND") != NULL) {
    json_escape(msg, esc, sizeof esc);
    int n = snprintf(obj, sizeof obj, "{\n    \"code\": 999,\n    \"msg\": \"%s\"\n}\n", esc);
    if (n > 0) (void)write_all(1, obj, strlen(obj));
  }
  return 1;
}

int main(int argc, char **argv) {
  double t0 = now_ms();
  const char *name = argc > 0 && argv[0] != NULL ? base_name(argv[0]) : "";
  const char *command = getenv("CNI_COMMAND");

  if (command != NULL && strcmp(command, "VERSION") == 0) {
    for (size_t i = 0; i < sizeof VERSION_ANSWERS / sizeof VERSION_ANSWERS[0]; i++) {
      if (strcmp(name, VERSION_ANSWERS[i].program) == 0) return answer_version(VERSION_ANSWERS[i].answer, name, t0);
    }
  }

  char self[SELF_PATH_MAX], binary[SELF_PATH_MAX + 8];
  /* readlink cuts a longer path at the buffer's size without saying so: a result that fills
   * the buffer may be cut, and a cut path names another directory, whose cni-ts must not run. */
  ssize_t n = readlink("/proc/self/exe", self, sizeof self);
  if (n <= 0) return fail("cannot read", "/proc/self/exe", n < 0 ? errno : ENOENT);
  if ((size_t)n >= sizeof self) return fail("cannot read", "/proc/self/exe", ENAMETOOLONG);
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash == NULL) return fail("cannot place", self, EINVAL);
  *slash = '\0';
  snprintf(binary, sizeof binary, "%s/cni-ts", self);

  /* Which file launched the binary, for lib/ipam/our-plugin.ts: a link of it on CNI_PATH runs the binary too. */
  struct stat st;
  if (stat("/proc/self/exe", &st) != 0) return fail("cannot stat", "/proc/self/exe", errno);
  char id[64];
  snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  drop_runtime_settings();
  if (setenv("CNI_TS_STARTER", id, 1) != 0) return fail("cannot set", "CNI_TS_STARTER", errno);
  for (size_t i = 0; i < sizeof STARTER_ENV / sizeof STARTER_ENV[0]; i++) {
    const struct starter_setting *e = &STARTER_ENV[i];
    if (!listed(e->programs, name) || !listed(e->verbs, command)) continue;
    if (setenv(e->name, e->value, 1) != 0) return fail("cannot set", e->name, errno);
  }

  execv(binary, argv);
  return fail("cannot run", binary, errno);
}
