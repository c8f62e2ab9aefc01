/*
 * The few syscalls Node cannot make: setns (scoped to one synchronous JS
 * call), flock, fstatfs, netlink sockets (nl_socket.c) and a spawn that copies
 * nothing of the parent (spawn.c), tun/tap creation (tun.c). Plain N-API (no libuv, no C++) so the same
 * .node loads under any Node >= 20 and stays small enough to embed in each bundle.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <node_api.h>

#include "cni_native.h"

/* From linux/magic.h; spelled out so the build does not need kernel headers. */
#define CNI_NSFS_MAGIC 0x6e736673
#define CNI_PROC_SUPER_MAGIC 0x9fa0

/* The main thread's own netns, not the process's: setns only moves the
 * calling thread, and /proc/self would name the thread group leader. */
#define THREAD_NETNS "/proc/thread-self/ns/net"

/* Node's err.code names for the errnos these syscalls document. EAGAIN and
 * EWOULDBLOCK are the same number on Linux; flock(2) documents EWOULDBLOCK,
 * so that is the name callers test for. */
static const char *errno_code(int err) {
  switch (err) {
    case EWOULDBLOCK: return "EWOULDBLOCK";
    case EACCES: return "EACCES";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EBADF: return "EBADF";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EINTR: return "EINTR";
    case EINVAL: return "EINVAL";
    case EIO: return "EIO";
    case ELOOP: return "ELOOP";
    case EMFILE: return "EMFILE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case EMSGSIZE: return "EMSGSIZE";
    case ENFILE: return "ENFILE";
    case ENOBUFS: return "ENOBUFS";
    case ENODEV: return "ENODEV";
    case ENOENT: return "ENOENT";
    case ENOLCK: return "ENOLCK";
    case ENOMEM: return "ENOMEM";
    case ENOSYS: return "ENOSYS";
    case ENOTDIR: return "ENOTDIR";
    case EPERM: return "EPERM";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    default: return "UNKNOWN";
  }
}

void throw_errno(napi_env env, const char *syscall, int err) {
  char text[256];
  napi_value msg, code, error, value;
  snprintf(text, sizeof text, "%s: %s", syscall, strerror(err));
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg) != napi_ok ||
      napi_create_string_utf8(env, errno_code(err), NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_error(env, code, msg, &error) != napi_ok) {
    napi_throw_error(env, NULL, text);
    return;
  }
  if (napi_create_int32(env, err, &value) == napi_ok)
    napi_set_named_property(env, error, "errno", value);
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &value) == napi_ok)
    napi_set_named_property(env, error, "syscall", value);
  napi_throw(env, error);
}

int get_int(napi_env env, napi_value v, const char *what, int *out) {
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_number ||
      napi_get_value_int32(env, v, out) != napi_ok) {
    char text[96];
    snprintf(text, sizeof text, "%s must be a number", what);
    napi_throw_type_error(env, NULL, text);
    return 0;
  }
  return 1;
}

int get_fd(napi_env env, napi_value v, int *out) {
  if (!get_int(env, v, "fd", out)) return 0;
  if (*out < 0) {
    napi_throw_range_error(env, NULL, "fd must be a non-negative integer");
    return 0;
  }
  return 1;
}

int enter_netns(napi_env env, int fd) {
  int saved = open(THREAD_NETNS, O_RDONLY | O_CLOEXEC);
  if (saved < 0) {
    throw_errno(env, "open " THREAD_NETNS, errno);
    return -1;
  }
  if (setns(fd, CLONE_NEWNET) != 0) {
    int err = errno;
    close(saved);
    throw_errno(env, "setns", err);
    return -1;
  }
  return saved;
}

/* If the switch back fails we abort instead of throwing. This thread runs
 * the event loop and every later JS statement; left in the container's
 * netns, the catch handlers, undo steps, IPAM store writes and the
 * host-side links the plugin creates next would all land in the wrong
 * namespace, silently. A crash is visible, is reported to the runtime as a
 * failed plugin, and leaves nothing half-configured on the host. */
void leave_netns(int saved) {
  if (setns(saved, CLONE_NEWNET) != 0) {
    fprintf(stderr,
            "cni_native: cannot return to the original network namespace "
            "(setns: %s); aborting\n",
            strerror(errno));
    abort();
  }
  close(saved);
}

/* withNetns(fd, fn): run fn on this thread inside the netns open at fd. */
static napi_value with_netns(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], recv, result = NULL;
  napi_valuetype t;
  int fd, saved;
  napi_status st;
  bool pending = false;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "withNetns(fd, fn) takes two arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd)) return NULL;
  if (napi_typeof(env, argv[1], &t) != napi_ok || t != napi_function) {
    napi_throw_type_error(env, NULL, "fn must be a function");
    return NULL;
  }

  saved = enter_netns(env, fd);
  if (saved < 0) return NULL;

  napi_get_undefined(env, &recv);
  st = napi_call_function(env, recv, argv[1], 0, NULL, &result);

  /* Restore before anything else, whatever fn did: a JS exception is only
   * pending here and propagates once we return. */
  leave_netns(saved);

  if (st != napi_ok) {
    napi_is_exception_pending(env, &pending);
    if (!pending) napi_throw_error(env, NULL, "withNetns: calling fn failed");
    return NULL;
  }
  return result;
}

/* flock(fd, op): blocks the calling thread unless op has LOCK_NB. */
static napi_value do_flock(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int fd, op, r;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "flock(fd, op) takes two arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd) || !get_int(env, argv[1], "op", &op)) return NULL;

  /* A signal handled by Node (SIGCHLD, SIGWINCH...) interrupts a blocking
   * flock; the caller asked for the lock, not for the signal. */
  do {
    r = flock(fd, op);
  } while (r != 0 && errno == EINTR);
  if (r != 0) throw_errno(env, "flock", errno);
  return NULL;
}

/* isNetnsFd(fd): the reference's ns.IsNSorErr check, on an fd already open so
 * the path cannot be swapped between the check and the use. PROC_SUPER_MAGIC
 * covers kernels before 3.19, where ns files lived on procfs. */
static napi_value is_netns_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  struct statfs sfs;
  int fd;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "isNetnsFd(fd) takes one argument");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd)) return NULL;
  if (fstatfs(fd, &sfs) != 0) {
    throw_errno(env, "fstatfs", errno);
    return NULL;
  }
  napi_get_boolean(env, sfs.f_type == CNI_NSFS_MAGIC || sfs.f_type == CNI_PROC_SUPER_MAGIC, &out);
  return out;
}

int export_fn(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn) == napi_ok &&
         napi_set_named_property(env, exports, name, fn) == napi_ok;
}

static int export_int(napi_env env, napi_value exports, const char *name, int value) {
  napi_value v;
  return napi_create_int32(env, value, &v) == napi_ok &&
         napi_set_named_property(env, exports, name, v) == napi_ok;
}

NAPI_MODULE_INIT() {
  if (!export_fn(env, exports, "withNetns", with_netns) ||
      !export_fn(env, exports, "flock", do_flock) ||
      !export_fn(env, exports, "isNetnsFd", is_netns_fd) ||
      !export_nl_socket(env, exports) ||
      !export_spawn(env, exports) ||
      !export_tun(env, exports) ||
      !export_packet(env, exports) ||
      !export_int(env, exports, "LOCK_SH", LOCK_SH) ||
      !export_int(env, exports, "LOCK_EX", LOCK_EX) ||
      !export_int(env, exports, "LOCK_UN", LOCK_UN) ||
      !export_int(env, exports, "LOCK_NB", LOCK_NB))
    return NULL;
  return exports;
}
