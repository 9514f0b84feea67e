#ifndef TETHER_CINOTIFYTOOLS_SHIM_H
#define TETHER_CINOTIFYTOOLS_SHIM_H

// <sys/inotify.h> must come first: inotifytools.h uses its types without including it.
#include <sys/inotify.h>
#include <sys/file.h>
#include <inotifytools/inotifytools.h>

// The event's trailing name is a flexible array member, which Swift cannot see as a field.
static inline const char *tether_inotify_event_name(const struct inotify_event *event) {
  return event->len > 0 ? event->name : "";
}

#endif
