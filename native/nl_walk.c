#include "nl_walk.h"

#include <string.h>

#include <linux/netlink.h>

size_t nl_keep_answer(char *out, const char *d, size_t n, uint32_t seq, int *done) {
  const struct nlmsghdr *h = (const struct nlmsghdr *)d;
  size_t left = n, kept = 0;
  for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
    /* A message whose padding runs past the datagram is its last: NLMSG_NEXT would step
     * beyond the end (and `left`, unsigned, wrap round to a huge size). */
    int last = NLMSG_ALIGN(h->nlmsg_len) > left;
    /* Stale answers (to an earlier request given up on) are not ours. */
    if (h->nlmsg_seq == seq) {
      size_t size = last ? h->nlmsg_len : NLMSG_ALIGN(h->nlmsg_len);
      memmove(out + kept, h, size);
      kept += size;
      if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) *done = 1;
    }
    if (last) break;
  }
  return kept;
}
