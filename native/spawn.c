/*
 * Running a tool (nft, iptables-restore, iptables-save) from the Node form without Node's
 * child_process: that module's first use in a fresh process (its modules loaded, a fork()
 * of the whole Node process, a stream per pipe and the event-loop turns to end them) kept the
 * main thread busy 10-20 ms per run, which is what bridge DEL's veth removal had to wait for
 * before it could overlap the tool. Here a run is posix_spawn (a vfork: nothing of the parent
 * is copied), with stdin, stdout and stderr as unnamed memory files (memfd), so no pipe ever
 * fills, the child reads its whole input and sees EOF at once, and the parent does nothing
 * until it collects the exit status. Argument arrays only, never a shell. Node-only: Bun has
 * its own cheap spawn (lib/cni-spec/run-program.ts).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cni_native.h"

extern char **environ;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* A JS string as a malloc'ed C string; NULL having thrown. A NUL inside is refused: the
 * exec would cut the argument there. */
static char *get_string(napi_env env, napi_value v, const char *what) {
  size_t len;
  char *s;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  s = malloc(len + 1);
  if (!s) {
    throw_errno(env, "malloc", ENOMEM);
    return NULL;
  }
  napi_get_value_string_utf8(env, v, s, len + 1, &len);
  if (strlen(s) != len) {
    free(s);
    napi_throw_type_error(env, NULL, "spawnStart: a string holds a NUL byte");
    return NULL;
  }
  return s;
}

static void free_argv(char **argv) {
  if (!argv) return;
  for (char **p = argv; *p; p++) free(*p);
  free(argv);
}

static int memfd(napi_env env, const char *name) {
  int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
  if (fd < 0) throw_errno(env, "memfd_create", errno);
  return fd;
}

/* spawnStart(file, args, input): starts `file` with argv [file, ...args], the process's
 * environment, `input` (a Buffer) on stdin, stdout and stderr each into a memfd. Returns
 * [pid, stdoutFd, stderrFd]; both fds are close-on-exec, and the caller reads them from offset
 * 0 once spawnWait has returned. A failed exec throws with syscall "posix_spawn". */
static napi_value spawn_start(napi_env env, napi_callback_info info) {
  size_t argc = 3, n = 0, inlen = 0;
  napi_value argv[3], out, v;
  uint32_t count = 0;
  bool is_array = false, is_buffer = false;
  void *input = NULL;
  char **args = NULL;
  int in = -1, fds[2] = {-1, -1}, err;
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  sigset_t all, none;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 3 || napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array ||
      napi_is_buffer(env, argv[2], &is_buffer) != napi_ok || !is_buffer) {
    napi_throw_type_error(env, NULL, "spawnStart(file, args[], input Buffer)");
    return NULL;
  }
  napi_get_array_length(env, argv[1], &count);
  napi_get_buffer_info(env, argv[2], &input, &inlen);
  args = calloc((size_t)count + 2, sizeof *args);
  if (!args) {
    throw_errno(env, "calloc", ENOMEM);
    return NULL;
  }
  if (!(args[n++] = get_string(env, argv[0], "spawnStart: file must be a string"))) goto fail;
  for (uint32_t i = 0; i < count; i++) {
    if (napi_get_element(env, argv[1], i, &v) != napi_ok ||
        !(args[n++] = get_string(env, v, "spawnStart: every argument must be a string")))
      goto fail;
  }

  if ((in = memfd(env, "cni-ts-stdin")) < 0 || (fds[0] = memfd(env, "cni-ts-stdout")) < 0 ||
      (fds[1] = memfd(env, "cni-ts-stderr")) < 0)
    goto fail;
  for (size_t off = 0; off < inlen;) {
    ssize_t w = write(in, (char *)input + off, inlen - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      throw_errno(env, "write", errno);
      goto fail;
    }
    off += (size_t)w;
  }
  if (lseek(in, 0, SEEK_SET) != 0) {
    throw_errno(env, "lseek", errno);
    goto fail;
  }

  /* The child starts as libuv starts one: every signal at its default (Node ignores SIGPIPE,
   * which a tool would otherwise inherit) and none blocked. */
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&fa, in, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[0], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  err = posix_spawn(&pid, args[0], &fa, &attr, args, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (err != 0) {
    throw_errno(env, "posix_spawn", err);
    goto fail;
  }
  close(in);
  free_argv(args);
  napi_create_array_with_length(env, 3, &out);
  napi_create_int32(env, pid, &v);
  napi_set_element(env, out, 0, v);
  napi_create_int32(env, fds[0], &v);
  napi_set_element(env, out, 1, v);
  napi_create_int32(env, fds[1], &v);
  napi_set_element(env, out, 2, v);
  return out;

fail:
  if (in >= 0) close(in);
  if (fds[0] >= 0) close(fds[0]);
  if (fds[1] >= 0) close(fds[1]);
  free_argv(args);
  return NULL;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until pid can be reaped or the deadline passes: 1 exited, 0 timed out, -1 error. */
static int wait_exit(pid_t pid, int64_t deadline) {
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd >= 0) {
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    int r;
    for (;;) {
      int64_t left = deadline - now_ms();
      r = poll(&p, 1, left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left);
      if (r < 0 && errno == EINTR) continue;
      break;
    }
    close(pidfd);
    return r < 0 ? -1 : r > 0 ? 1 : 0;
  }
  /* Kernels before 5.3 have no pidfd: look every millisecond. */
  for (;;) {
    siginfo_t si = {0};
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (si.si_pid == pid) return 1;
    if (now_ms() >= deadline) return 0;
    usleep(1000);
  }
}

/* spawnWait(pid, timeoutMs): blocks until the child exits; past timeoutMs it is sent SIGTERM
 * (what child_process's timeout does) and waited for. Returns [exit code or -1, signal or 0]. */
static napi_value spawn_wait(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out, v;
  int pid, timeout, status, r;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2 || !get_int(env, argv[0], "pid", &pid) || !get_int(env, argv[1], "timeoutMs", &timeout))
    return NULL;
  if (pid <= 0) {
    napi_throw_range_error(env, NULL, "pid must be positive");
    return NULL;
  }
  r = wait_exit(pid, now_ms() + (timeout < 0 ? 0 : timeout));
  if (r == 0) kill(pid, SIGTERM);
  while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (r < 0) {
    throw_errno(env, "waitpid", errno);
    return NULL;
  }
  napi_create_array_with_length(env, 2, &out);
  napi_create_int32(env, WIFEXITED(status) ? WEXITSTATUS(status) : -1, &v);
  napi_set_element(env, out, 0, v);
  napi_create_int32(env, WIFSIGNALED(status) ? WTERMSIG(status) : 0, &v);
  napi_set_element(env, out, 1, v);
  return out;
}

int export_spawn(napi_env env, napi_value exports) {
  return export_fn(env, exports, "spawnStart", spawn_start) && export_fn(env, exports, "spawnWait", spawn_wait);
}
