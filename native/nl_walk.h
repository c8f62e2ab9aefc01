/* Walking the messages of one netlink datagram: no syscall and no N-API, so a test can feed it
 * datagrams of its own making (lib/linux/nl-walk.test.ts). */
#ifndef NL_WALK_H
#define NL_WALK_H

#include <stddef.h>
#include <stdint.h>

/* Appends to out (room for n bytes) the messages of datagram [d, d+n) that answer seq, and
 * returns how many bytes it appended; sets *done when one ends the answer (NLMSG_DONE, or
 * NLMSG_ERROR: an ACK or an error). */
size_t nl_keep_answer(char *out, const char *d, size_t n, uint32_t seq, int *done);

#endif
