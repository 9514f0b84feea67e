#ifndef TETHER_CTETHERLINUX_SHIM_H
#define TETHER_CTETHERLINUX_SHIM_H

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc declares renameat2 only under _GNU_SOURCE, which Swift's Glibc module is not built
// with, so the system call is made directly. Flags as in <linux/fs.h>.
static const unsigned int TETHER_RENAME_NOREPLACE = 1u << 0;
static const unsigned int TETHER_RENAME_EXCHANGE = 1u << 1;

static inline int tether_renameat2(const char *from, const char *to, unsigned int flags) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

#endif
