/*
 * A packet socket for the dhcp daemon's DHCP client. A client without an address cannot use a
 * UDP socket: the server's OFFER and ACK go to the address being offered (or to the broadcast
 * address), which the kernel's IP stack drops or hands to whichever socket holds port 68 in that
 * netns. A packet socket bound to the interface sees the IP datagrams themselves, whatever their
 * destination, as the reference's client (insomniacslk/dhcp nclient4) does.
 *
 * The socket is non-blocking and read by polling: the daemon waits for answers on many pods'
 * sockets at once from one JavaScript thread, in Node and in Bun alike (neither lets a script
 * watch a raw fd), and a DHCP exchange is measured in seconds. A classic BPF filter keeps every
 * IPv4 datagram but UDP to port 68 out of the socket's queue.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cni_native.h"

/* On the IP header (SOCK_DGRAM strips the link layer): UDP, not a later fragment, to port 68. */
static struct sock_filter dhcp_client_filter[] = {
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),               /* protocol */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 6),       /* UDP? */
    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),               /* flags + fragment offset */
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 4, 0),  /* a later fragment: drop */
    BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),              /* X = header length */
    BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),               /* UDP destination port */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 68, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, 0xffff),
    BPF_STMT(BPF_RET | BPF_K, 0),
};

/* packetOpen(netnsFd, ifindex): a non-blocking SOCK_DGRAM packet socket for IPv4, made in the
 * netns and bound to the interface there. */
static napi_value packet_open(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out;
  int nsfd, ifindex, saved, fd, err;
  const char *step;
  struct sockaddr_ll local;
  struct sock_fprog prog = {.len = sizeof dhcp_client_filter / sizeof dhcp_client_filter[0],
                            .filter = dhcp_client_filter};

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "packetOpen(netnsFd, ifindex) takes two arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &nsfd) || !get_int(env, argv[1], "ifindex", &ifindex)) return NULL;

  if ((saved = enter_netns(env, nsfd)) < 0) return NULL;
  /* Protocol 0 until the filter is on, so nothing queues unfiltered in between. */
  fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  err = errno;
  leave_netns(saved);
  if (fd < 0) {
    throw_errno(env, "socket", err);
    return NULL;
  }
  step = "setsockopt SO_ATTACH_FILTER";
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0) goto fail;
  memset(&local, 0, sizeof local);
  local.sll_family = AF_PACKET;
  local.sll_protocol = htons(ETH_P_IP);
  local.sll_ifindex = ifindex;
  step = "bind";
  if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) goto fail;
  napi_create_int32(env, fd, &out);
  return out;

fail:
  err = errno;
  close(fd);
  throw_errno(env, step, err);
  return NULL;
}

/* packetSend(fd, ifindex, bytes): one IPv4 datagram to the link's broadcast address (as nclient4
 * sends every message: the client has no ARP entry for anyone yet). */
static napi_value packet_send(napi_env env, napi_callback_info info) {
  size_t argc = 3, len;
  napi_value argv[3];
  void *data;
  int fd, ifindex;
  ssize_t n;
  bool is_buffer = false;
  struct sockaddr_ll to;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "packetSend(fd, ifindex, bytes) takes three arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd) || !get_int(env, argv[1], "ifindex", &ifindex)) return NULL;
  if (napi_is_buffer(env, argv[2], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[2], &data, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "bytes must be a Buffer");
    return NULL;
  }
  memset(&to, 0, sizeof to);
  to.sll_family = AF_PACKET;
  to.sll_protocol = htons(ETH_P_IP);
  to.sll_ifindex = ifindex;
  to.sll_halen = ETH_ALEN;
  memset(to.sll_addr, 0xff, ETH_ALEN);
  do {
    n = sendto(fd, data, len, 0, (struct sockaddr *)&to, sizeof to);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw_errno(env, "sendto", errno);
  return NULL;
}

/* packetReceive(fd): the next queued datagram, or null when none is. */
static napi_value packet_receive(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  int fd;
  ssize_t n;
  char buf[2048];
  void *copy;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "packetReceive(fd) takes an fd");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd)) return NULL;
  do {
    n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      napi_get_null(env, &out);
      return out;
    }
    throw_errno(env, "recv", errno);
    return NULL;
  }
  if (napi_create_buffer_copy(env, (size_t)n, buf, &copy, &out) != napi_ok) return NULL;
  return out;
}

int export_packet(napi_env env, napi_value exports) {
  return export_fn(env, exports, "packetOpen", packet_open) && export_fn(env, exports, "packetSend", packet_send) &&
         export_fn(env, exports, "packetReceive", packet_receive);
}
