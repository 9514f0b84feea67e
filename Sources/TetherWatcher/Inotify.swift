import CInotifyTools
import Foundation
import Glibc
import TetherFiles

/// libinotifytools, as the watcher thread uses it.
///
/// The library keeps all its state in globals and static buffers, with no locking: only the
/// watcher thread may call into this enum. Events are copied out of the library's static buffer
/// before the next call.
enum Inotify {
  struct Event {
    let wd: Int32
    let mask: UInt32
    let name: String

    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }

    /// Whether, after this event for a name, a process may be writing that file in place:
    /// `true` after a create or a modification, `false` after a close of a written file or the
    /// name being renamed or removed, `nil` when the event says neither (attributes).
    var writerStillOpen: Bool? {
      if has(IN_CLOSE_WRITE) || has(IN_MOVED_TO) || has(IN_MOVED_FROM) || has(IN_DELETE) {
        return false
      }
      if has(IN_MODIFY) || has(IN_CREATE) { return true }
      return nil
    }
  }

  /// What a directory watch asks for: every change to an entry's name or content, and the
  /// directory itself going away.
  static let directoryMask: Int32 =
    IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR

  static func initialize() throws(SystemError) {
    guard inotifytools_initialize() != 0 else {
      throw SystemError(call: "inotify_init", code: inotifytools_error())
    }
  }

  /// Closes the instance. It drains first: the library keeps unread events in a static buffer
  /// and would hand them out again, with wrong descriptors, after the next `initialize`. Pass
  /// `drain: false` when the descriptor is too high for the `select()` that draining uses.
  static func cleanup(drain: Bool = true) {
    if drain {
      while inotifytools_next_events(0, 1) != nil {}
    }
    inotifytools_cleanup()
  }

  /// Watches `path` and returns the kernel's watch descriptor.
  static func watch(_ path: String, mask: Int32, isDirectory: Bool) throws(SystemError) -> Int32 {
    guard inotifytools_watch_file(path, mask) != 0 else {
      throw SystemError(call: "inotify_add_watch", path: path, code: inotifytools_error())
    }
    // The library stores directories with a trailing "/".
    let wd = inotifytools_wd_from_filename(isDirectory ? path + "/" : path)
    guard wd >= 0 else { throw SystemError(call: "inotify_add_watch", path: path, code: EINVAL) }
    return wd
  }

  /// Removes a live watch; `false` when the kernel had dropped it, in which case the library
  /// printed a failure to stderr and kept its entry for the path.
  @discardableResult
  static func removeWatch(_ wd: Int32) -> Bool {
    inotifytools_remove_watch_by_wd(wd) != 0
  }

  /// Blocks until an event arrives; `nil` when interrupted (`EINTR`).
  static func nextEvent() throws(SystemError) -> Event? {
    // Always one event at a time: asking for more makes the library busy-spin.
    guard let event = inotifytools_next_event(0) else {
      let code = inotifytools_error()
      if code == EINTR || code == 0 { return nil }
      throw SystemError(call: "inotifytools_next_event", code: code)
    }
    return Event(
      wd: event.pointee.wd, mask: event.pointee.mask,
      name: String(cString: tether_inotify_event_name(event)))
  }

  /// The library's inotify descriptor, which it does not expose: the `/proc/self/fd` entry that
  /// is an inotify instance watching `inode` (the control file, just watched).
  static func descriptor(watching inode: UInt64) -> Int32? {
    let needle = "ino:" + String(inode, radix: 16) + " "
    let entries: [String]
    do {
      entries = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
    } catch {
      return nil
    }
    // Descriptors may close while we look: an entry that cannot be read is not ours.
    return entries.lazy.compactMap { Int32($0) }.first { fd in
      link(of: fd) == "anon_inode:inotify" && info(of: fd)?.contains(needle) == true
    }
  }

  /// The watch descriptors the kernel holds for the inotify instance `fd`, from its `/proc`
  /// entry (`inotify wd:3 ino:… sdev:…` a line, the numbers in hex); `nil` when it cannot be
  /// read.
  static func liveWatches(descriptor fd: Int32) -> Set<Int32>? {
    guard let text = info(of: fd) else { return nil }
    var live: Set<Int32> = []
    for line in text.split(separator: "\n") where line.hasPrefix("inotify wd:") {
      let number = line.dropFirst("inotify wd:".count).prefix { $0 != " " }
      if let wd = Int32(number, radix: 16) { live.insert(wd) }
    }
    return live
  }

  private static func link(of fd: Int32) -> String? {
    do {
      return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    } catch {
      return nil
    }
  }

  private static func info(of fd: Int32) -> String? {
    do {
      let path = "/proc/self/fdinfo/\(fd)"
      return String(decoding: try FileContent.readData(path, shortReadEnds: false), as: UTF8.self)
    } catch {
      return nil
    }
  }
}
