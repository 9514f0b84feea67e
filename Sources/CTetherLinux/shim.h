#ifndef TETHER_CTETHERLINUX_SHIM_H
#define TETHER_CTETHERLINUX_SHIM_H

#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc declares renameat2 only under _GNU_SOURCE, which Swift's Glibc module is not built
// with, so the system call is made directly. Flags as in <linux/fs.h>.
static const unsigned int TETHER_RENAME_NOREPLACE = 1u << 0;
static const unsigned int TETHER_RENAME_EXCHANGE = 1u << 1;

static inline int tether_renameat2(const char *from, const char *to, unsigned int flags) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

// readdir's records are only as long as their names: the last one in its buffer can end before
// `sizeof(struct dirent)`, so Swift must not copy `pointee` (a whole struct) to read the name.
static inline const char *_Nonnull tether_dirent_name(const struct dirent *_Nonnull entry) {
  return entry->d_name;
}

static inline unsigned char tether_dirent_type(const struct dirent *_Nonnull entry) {
  return entry->d_type;
}

// Swift's withUnsafeTemporaryAllocation puts anything above 1 KiB on the heap on Linux (it cannot
// ask how much stack is left): a 16 KiB read buffer was a memalign and a free for every file a
// key loaded. C can put it on the stack; `body` gets `context` back, since it cannot capture.
static const size_t TETHER_STACK_BUFFER_SIZE = 16384;

static inline void tether_with_stack_buffer(
    void *_Nullable context,
    void (*_Nonnull body)(void *_Nullable context, void *_Nonnull buffer, size_t count)) {
  unsigned char buffer[TETHER_STACK_BUFFER_SIZE];
  body(context, buffer, sizeof buffer);
}

#endif
