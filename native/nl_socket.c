/*
 * A synchronous netlink socket: a plugin sends a handful of requests and waits
 * for each answer, so blocking send/recv on the main thread is all it needs,
 * and unlike a libuv poll handle it works in every runtime that loads N-API
 * (Bun implements no uv_poll). Sequence numbers, parsing and errors stay in JS
 * (lib/linux/nl-socket.ts); here is only what JS cannot do: socket(2) on
 * AF_NETLINK, optionally inside another netns, and the receive loop.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "cni_native.h"
#include "nl_walk.h"

/* nlOpen(protocol[, netnsFd]): a netlink socket, created inside the netns open
 * at netnsFd when given (a netlink socket talks to the netns it was created in,
 * whatever thread later uses it). */
static napi_value nl_open(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out;
  napi_valuetype t = napi_undefined;
  int protocol, nsfd = -1, saved = -1, fd, err;
  struct sockaddr_nl local = {.nl_family = AF_NETLINK};

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "nlOpen(protocol[, netnsFd]) takes a protocol");
    return NULL;
  }
  if (!get_int(env, argv[0], "protocol", &protocol)) return NULL;
  if (argc > 1 && napi_typeof(env, argv[1], &t) == napi_ok && t != napi_undefined &&
      !get_fd(env, argv[1], &nsfd))
    return NULL;

  if (nsfd >= 0 && (saved = enter_netns(env, nsfd)) < 0) return NULL;
  fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
  err = errno;
  if (saved >= 0) leave_netns(saved);
  if (fd < 0) {
    throw_errno(env, "socket", err);
    return NULL;
  }
  /* Port 0: the kernel picks a unique one. Binding now rather than on the
   * first send lets nlReceive tell the kernel's answers (sender port 0) from
   * anything another process might send us. */
  if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
    err = errno;
    close(fd);
    throw_errno(env, "bind", err);
    return NULL;
  }
  napi_create_int32(env, fd, &out);
  return out;
}

/* nlSend(fd, bytes): one datagram to the kernel, whole or not at all. */
static napi_value nl_send(napi_env env, napi_callback_info info) {
  size_t argc = 2, len;
  napi_value argv[2];
  void *data;
  int fd;
  ssize_t n;
  bool is_buffer = false;
  struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "nlSend(fd, bytes) takes two arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd)) return NULL;
  if (napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[1], &data, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "bytes must be a Buffer");
    return NULL;
  }
  do {
    n = sendto(fd, data, len, 0, (struct sockaddr *)&kernel, sizeof kernel);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw_errno(env, "sendto", errno);
  return NULL;
}

struct grow {
  char *p;
  size_t len, cap;
};

static int reserve(struct grow *b, size_t more) {
  size_t cap = b->cap ? b->cap : 16384;
  char *p;
  if (b->len + more <= b->cap) return 1;
  while (cap < b->len + more) cap *= 2;
  if (!(p = realloc(b->p, cap))) return 0;
  b->p = p;
  b->cap = cap;
  return 1;
}

/* nlReceive(fd, seq): every message answering seq up to and including the one
 * that ends it, as one Buffer of whole netlink messages. Blocks until then: the
 * kernel answers every request sent with NLM_F_ACK or NLM_F_DUMP. */
static napi_value nl_receive(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out;
  int fd, seq, done = 0;
  struct grow buf = {0};
  char *scratch = NULL;
  size_t scratch_cap = 0;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "nlReceive(fd, seq) takes two arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd) || !get_int(env, argv[1], "seq", &seq)) return NULL;

  while (!done) {
    struct sockaddr_nl from;
    socklen_t fromlen = sizeof from;
    ssize_t size, n;
    /* The datagram's size first, so none is ever truncated (a dump's can
     * exceed any fixed guess when one object carries many attributes). */
    do {
      size = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
    } while (size < 0 && errno == EINTR);
    if (size < 0) goto fail;
    if ((size_t)size > scratch_cap) {
      char *p = realloc(scratch, (size_t)size);
      if (!p) {
        errno = ENOMEM;
        goto fail;
      }
      scratch = p;
      scratch_cap = (size_t)size;
    }
    do {
      n = recvfrom(fd, scratch, scratch_cap, 0, (struct sockaddr *)&from, &fromlen);
    } while (n < 0 && errno == EINTR);
    if (n < 0) goto fail;
    if (from.nl_pid != 0) continue; /* only the kernel answers requests */
    if (!reserve(&buf, (size_t)n)) {
      errno = ENOMEM;
      goto fail;
    }
    buf.len += nl_keep_answer(buf.p + buf.len, scratch, (size_t)n, (uint32_t)seq, &done);
  }
  free(scratch);
  if (napi_create_buffer_copy(env, buf.len, buf.p ? buf.p : "", NULL, &out) != napi_ok) out = NULL;
  free(buf.p);
  return out;

fail : {
  int err = errno;
  free(scratch);
  free(buf.p);
  throw_errno(env, "recvfrom", err);
  return NULL;
}
}

/* nlClose(fd). */
static napi_value nl_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 1 || !get_fd(env, argv[0], &fd)) {
    if (argc < 1) napi_throw_type_error(env, NULL, "nlClose(fd) takes one argument");
    return NULL;
  }
  /* Linux closes the fd even when close reports EINTR: never retry. */
  if (close(fd) != 0 && errno != EINTR) throw_errno(env, "close", errno);
  return NULL;
}

int export_nl_socket(napi_env env, napi_value exports) {
  return export_fn(env, exports, "nlOpen", nl_open) && export_fn(env, exports, "nlSend", nl_send) &&
         export_fn(env, exports, "nlReceive", nl_receive) &&
         export_fn(env, exports, "nlClose", nl_close);
}
