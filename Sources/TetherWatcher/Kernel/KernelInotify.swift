import CInotifyTools
import Glibc
import TetherFiles

/// An inotify instance driven with the kernel's own calls: what a watcher made for a test
/// uses, since libinotifytools allows one instance a process. Only its watcher thread calls it.
final class KernelInotify: InotifyBackend {
  private var fd: Int32 = -1
  /// Events read and not yet handed out, in order.
  private var pending: [Inotify.Event] = []
  private var next = 0
  private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

  func initialize() throws(SystemError) {
    fd = try systemCall("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC)) }
  }

  func cleanup(drain: Bool) {
    pending = []
    next = 0
    guard fd >= 0 else { return }
    do {
      try systemCall("close") { close(fd) }
    } catch {
      // Closed either way: close(2) frees the descriptor even when it reports an error.
    }
    fd = -1
  }

  func watch(_ path: String, mask: Int32, isDirectory: Bool) throws(SystemError) -> Int32 {
    let fd = fd
    return try systemCall("inotify_add_watch", path: path) {
      inotify_add_watch(fd, path, UInt32(bitPattern: mask))
    }
  }

  func removeWatch(_ wd: Int32) -> Bool {
    let fd = fd
    do {
      try systemCall("inotify_rm_watch") { inotify_rm_watch(fd, wd) }
      return true
    } catch {
      return false
    }
  }

  func nextEvent(waiting: Bool) throws(SystemError) -> Inotify.Event? {
    if next == pending.count {
      guard waiting || Inotify.hasQueuedEvents(descriptor: fd) else { return nil }
      pending.removeAll(keepingCapacity: true)
      next = 0
      let fd = fd
      let count = try systemCall("read(inotify)") {
        buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      }
      pending = Self.events(in: buffer[..<count])
    }
    guard next < pending.count else { return nil }
    defer { next += 1 }
    return pending[next]
  }

  func descriptor(watching inode: UInt64) -> Int32? { fd >= 0 ? fd : nil }

  var keepsDroppedWatches: Bool { false }

  /// The `struct inotify_event` records in `bytes`: a 16-byte header, then `len` bytes of
  /// NUL-padded name.
  private static func events(in bytes: ArraySlice<UInt8>) -> [Inotify.Event] {
    var events: [Inotify.Event] = []
    var offset = bytes.startIndex
    while offset + 16 <= bytes.endIndex {
      func word(_ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + at + $1]) << (8 * $1) }
      }
      let length = Int(word(12))
      let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, bytes.endIndex)]
      let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
      events.append(
        Inotify.Event(
          wd: Int32(bitPattern: word(0)), mask: word(4), cookie: word(8), name: name))
      offset += 16 + length
    }
    return events
  }
}
