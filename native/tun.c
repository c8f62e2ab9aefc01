/*
 * tunCreate: a persistent tun/tap device made through /dev/net/tun, the only way the kernel
 * offers (RTM_NEWLINK of kind "tun" is refused: "tun/tap creation via rtnetlink is not
 * supported"). The same ioctls as iproute2's `ip tuntap add`, which the reference tap plugin
 * runs: TUNSETIFF, TUNSETOWNER, TUNSETGROUP, TUNSETPERSIST. The device lands in the netns
 * /dev/net/tun was opened in, so the open happens inside the netns given.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cni_native.h"

/* An owner or group of -1 means "leave unset", as for the kernel. */
static int get_id(napi_env env, napi_value v, const char *what, long long *out) {
  double d;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_number || napi_get_value_double(env, v, &d) != napi_ok ||
      d != (double)(long long)d || d < -1 || d > 4294967295.0) {
    napi_throw_range_error(env, NULL, what);
    return 0;
  }
  *out = (long long)d;
  return 1;
}

/* tunCreate(netnsFd, name, flags, owner, group): the kernel's name for the new device.
 * IFF_TUN_EXCL is always added: without it TUNSETIFF attaches to an existing device of
 * that name instead of failing. Any failure closes the fd before persistence is set, which
 * destroys the half-made device with it. */
static napi_value tun_create(napi_env env, napi_callback_info info) {
  size_t argc = 5, len = 0;
  napi_value argv[5], out;
  int nsfd, flags, saved, fd, err;
  long long owner, group;
  struct ifreq ifr;
  const char *step;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "tunCreate(netnsFd, name, flags, owner, group) takes five arguments");
    return NULL;
  }
  memset(&ifr, 0, sizeof ifr);
  if (!get_fd(env, argv[0], &nsfd)) return NULL;
  /* Measured first: a longer string would be cut to fit, silently. */
  if (napi_get_value_string_utf8(env, argv[1], NULL, 0, &len) != napi_ok || len == 0 || len >= IFNAMSIZ ||
      napi_get_value_string_utf8(env, argv[1], ifr.ifr_name, IFNAMSIZ, &len) != napi_ok ||
      strlen(ifr.ifr_name) != len) {
    napi_throw_type_error(env, NULL, "name must be a string of 1 to 15 bytes");
    return NULL;
  }
  if (!get_int(env, argv[2], "flags", &flags) || !get_id(env, argv[3], "owner must be -1 or a uint32", &owner) ||
      !get_id(env, argv[4], "group must be -1 or a uint32", &group))
    return NULL;
  ifr.ifr_flags = (short)(flags | IFF_TUN_EXCL);

  if ((saved = enter_netns(env, nsfd)) < 0) return NULL;
  fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  err = errno;
  leave_netns(saved);
  if (fd < 0) {
    throw_errno(env, "open /dev/net/tun", err);
    return NULL;
  }
  step = "TUNSETIFF";
  if (ioctl(fd, TUNSETIFF, &ifr) != 0) goto fail;
  step = "TUNSETOWNER";
  if (owner >= 0 && ioctl(fd, TUNSETOWNER, (unsigned long)owner) != 0) goto fail;
  step = "TUNSETGROUP";
  if (group >= 0 && ioctl(fd, TUNSETGROUP, (unsigned long)group) != 0) goto fail;
  step = "TUNSETPERSIST";
  if (ioctl(fd, TUNSETPERSIST, 1UL) != 0) goto fail;
  close(fd);
  ifr.ifr_name[IFNAMSIZ - 1] = '\0';
  napi_create_string_utf8(env, ifr.ifr_name, NAPI_AUTO_LENGTH, &out);
  return out;

fail:
  err = errno;
  close(fd);
  throw_errno(env, step, err);
  return NULL;
}

int export_tun(napi_env env, napi_value exports) {
  return export_fn(env, exports, "tunCreate", tun_create);
}
