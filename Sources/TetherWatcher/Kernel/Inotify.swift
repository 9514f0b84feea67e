import CInotifyTools
import Foundation
import Glibc
import TetherFiles

/// What every inotify backend shares: the events the watcher thread reads, the mask of a folder's
/// watch, and what `/proc` says of an instance.
enum Inotify {
  struct Event {
    let wd: Int32
    let mask: UInt32
    /// What pairs the two events of one rename (`IN_MOVED_FROM`, then `IN_MOVED_TO`).
    let cookie: UInt32
    let name: String

    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }

    /// Whether, after this event for a name, a process may be writing that file in place:
    /// `true` after a create or a modification, `false` after a close of a written file, a
    /// removal, or a finished file renamed to the name; `nil` when the event says neither
    /// (attributes, the name renamed away).
    ///
    /// `movedFrom` is the name a file renamed to this one came from, when known. A write's temp
    /// file (``AtomicFile``) renamed in says nothing of a writer either: a write swaps the file
    /// with its own (`RENAME_EXCHANGE`) and, finding someone else's change in what came out,
    /// swaps it back, so the file an in-place writer has open comes back as it left. Its
    /// events, like a rename away, must not make that writer's half-done work look finished.
    func writerStillOpen(movedFrom: String?) -> Bool? {
      if has(IN_MOVED_TO) {
        return movedFrom.map(AtomicFile.isTemporary) == true ? nil : false
      }
      if has(IN_CLOSE_WRITE) || has(IN_DELETE) { return false }
      if has(IN_MODIFY) || has(IN_CREATE) { return true }
      return nil
    }

    /// Whether the event ends a write of a file: its writer closed it after writing, or a
    /// finished file was renamed to the name. What the file holds then is complete, unless
    /// another writer still has it open (whose later events say so).
    var endsAWrite: Bool {
      !has(IN_ISDIR) && (has(IN_CLOSE_WRITE) || has(IN_MOVED_TO))
    }
  }

  /// Pairs the two events of a rename, handed every event in order: a rename's
  /// `IN_MOVED_FROM` comes just before its `IN_MOVED_TO`, with the same cookie.
  struct RenamePairing {
    private var lastMovedFrom: (cookie: UInt32, name: String)?

    /// For an `IN_MOVED_TO`, the name the file came from, when its pair was the event before.
    mutating func source(of event: Event) -> String? {
      defer { lastMovedFrom = event.has(IN_MOVED_FROM) ? (event.cookie, event.name) : nil }
      guard event.has(IN_MOVED_TO), let from = lastMovedFrom, from.cookie == event.cookie
      else { return nil }
      return from.name
    }
  }

  /// What a directory watch asks for: every change to an entry's name or content, and the
  /// directory itself going away.
  static let directoryMask: Int32 =
    IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR

  /// What the watch of an ancestor of a watched directory asks for: only its moving or going,
  /// which moves every folder under it (none of which gets an event of its own).
  static let ancestorMask: Int32 = IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR

  /// Whether the inotify instance `fd` has events queued in the kernel; `false` when it cannot
  /// tell. A `poll` that does not wait: the kernel answers it from the queue's head, where
  /// `FIONREAD` walks the whole queue (thousands of events behind a lagging reader).
  static func hasQueuedEvents(descriptor fd: Int32) -> Bool {
    var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    do {
      return try systemCall("poll(inotify)") { poll(&request, 1, 0) } > 0
    } catch {
      return false
    }
  }

  /// The `/proc/self/fd` entry that is an inotify instance watching `inode`.
  static func instance(watching inode: UInt64) -> Int32? {
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

  static func link(of fd: Int32) -> String? {
    do {
      return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    } catch {
      return nil
    }
  }

  static func info(of fd: Int32) -> String? {
    do {
      let path = "/proc/self/fdinfo/\(fd)"
      return String(decoding: try FileContent.readData(path, shortReadEnds: false), as: UTF8.self)
    } catch {
      return nil
    }
  }
}
