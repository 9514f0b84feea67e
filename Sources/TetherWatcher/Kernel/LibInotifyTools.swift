import CInotifyTools
import Glibc
import TetherFiles

/// libinotifytools, as the process's watcher thread uses it.
///
/// The library keeps all its state in globals and static buffers, with no locking: a process
/// has one instance, and only its watcher thread may call into it. Events are copied out of the
/// library's static buffer before the next call.
final class LibInotifyTools: InotifyBackend {
  func initialize() throws(SystemError) {
    guard inotifytools_initialize() != 0 else {
      throw SystemError(call: "inotify_init", code: inotifytools_error())
    }
  }

  /// Closes the instance. It drains first: the library keeps unread events in a static buffer
  /// and would hand them out again, with wrong descriptors, after the next `initialize`. Pass
  /// `drain: false` when the descriptor is too high for the `select()` that draining uses.
  func cleanup(drain: Bool) {
    if drain {
      while inotifytools_next_events(0, 1) != nil {}
    }
    inotifytools_cleanup()
  }

  func watch(_ path: String, mask: Int32, isDirectory: Bool) throws(SystemError) -> Int32 {
    guard inotifytools_watch_file(path, mask) != 0 else {
      throw SystemError(call: "inotify_add_watch", path: path, code: inotifytools_error())
    }
    // The library stores directories with a trailing "/".
    let wd = inotifytools_wd_from_filename(isDirectory ? path + "/" : path)
    guard wd >= 0 else { throw SystemError(call: "inotify_add_watch", path: path, code: EINVAL) }
    return wd
  }

  /// Removing a dropped watch makes the library print a failure to stderr and keep its entry
  /// for the path.
  func removeWatch(_ wd: Int32) -> Bool {
    inotifytools_remove_watch_by_wd(wd) != 0
  }

  func nextEvent(waiting: Bool) throws(SystemError) -> Inotify.Event? {
    // Always one event at a time: asking for more makes the library busy-spin. A timeout of 0
    // is "wait" to `next_event` and "do not wait" to `next_events`; both hand out what the
    // library has buffered first.
    let next = waiting ? inotifytools_next_event(0) : inotifytools_next_events(0, 1)
    guard let event = next else {
      let code = inotifytools_error()
      if code == EINTR || code == 0 { return nil }
      throw SystemError(call: "inotifytools_next_event", code: code)
    }
    return Inotify.Event(
      wd: event.pointee.wd, mask: event.pointee.mask, cookie: event.pointee.cookie,
      name: String(cString: tether_inotify_event_name(event)))
  }

  /// The library's inotify descriptor, which it does not expose: the `/proc/self/fd` entry that
  /// is an inotify instance watching `inode` (the control folder, just watched).
  func descriptor(watching inode: UInt64) -> Int32? {
    Inotify.instance(watching: inode)
  }

  var keepsDroppedWatches: Bool { true }
}
