#ifndef TETHER_CTETHERLINUX_SHIM_H
#define TETHER_CTETHERLINUX_SHIM_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc declares renameat2 only under _GNU_SOURCE, which Swift's Glibc module is not built
// with, so the system call is made directly. Flags as in <linux/fs.h>.
static const unsigned int TETHER_RENAME_NOREPLACE = 1u << 0;
static const unsigned int TETHER_RENAME_EXCHANGE = 1u << 1;

static inline int tether_renameat2(const char *from, const char *to, unsigned int flags) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

// Opens `path` only if no component of it, the last included, is a symlink (ELOOP otherwise):
// one call that both opens a file and shows its path is already resolved. ENOSYS where the
// kernel (before 5.6) or the headers lack openat2.
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

// O_PATH, which glibc also names only under _GNU_SOURCE: an open that resolves the path and
// opens nothing for reading.
static const int TETHER_O_PATH = __O_PATH;

static inline int tether_open_without_links(const char *_Nonnull path, int flags) {
#if defined(SYS_openat2) && defined(RESOLVE_NO_SYMLINKS)
  struct open_how how = {.flags = (unsigned long long)flags, .resolve = RESOLVE_NO_SYMLINKS};
  return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
#else
  errno = ENOSYS;
  return -1;
#endif
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

// The futex calls behind `UnfairMutex`'s wait, which Swift cannot make (`syscall` is variadic).
// Waits while the word at `word` is `expected`; returns on a wake-up, a signal (EINTR) or a word
// that had changed already (EAGAIN): the caller looks at the word again in every case.
static inline void tether_futex_wait(uint32_t *_Nonnull word, uint32_t expected) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

// Wakes one thread waiting at `word`.
static inline void tether_futex_wake_one(uint32_t *_Nonnull word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

// Tells the core this thread is spinning, so that the other hardware thread sharing it runs.
static inline void tether_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
