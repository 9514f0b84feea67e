package import Foundation
import Glibc
import Synchronization

/// The path a file key really writes: symlinks followed (also a link whose target does not exist
/// yet, which `resolvingSymlinksInPath` leaves alone), `.` and `..` and doubled slashes removed.
package enum ResolvedPath {
  package static func of(_ url: URL) -> String {
    // The percent-encoded path is the plain one when nothing in it is encoded, and is had
    // without the decoding pass (measured: `path` was a sixth of a file key's start).
    let encoded = url.path(percentEncoded: true)
    return of(path: encoded.withUTF8Bytes({ $0.contains(UInt8(ascii: "%")) }) ? url.path : encoded)
  }

  /// The resolved form of an absolute path.
  package static func of(path: String) -> String {
    var path = LexicalPath.normalized(path)
    // A symlink loop ends after as many hops as the kernel allows (ELOOP's limit).
    for _ in 0..<40 {
      let parent = realParent(of: path)
      let candidate = LexicalPath.joining(parent, LexicalPath.name(of: path))
      guard let target = link(at: candidate) else { return candidate }
      path = LexicalPath.normalized(
        target.hasPrefix("/") ? target : LexicalPath.joining(parent, target))
    }
    return path
  }

  /// Folders resolved before, each with the identity of the folder it resolved to.
  private static let folders = Mutex<[String: ResolvedFolder]>([:])

  private struct ResolvedFolder {
    let path: String
    let device: UInt64
    let inode: UInt64
  }

  /// `path`'s folder with symlinks resolved. `realpath` reads every component's link (three to
  /// six system calls a key); a folder resolved before costs one `stat` instead, which also
  /// notices when a link on the way now leads to another folder.
  private static func realParent(of path: String) -> String {
    let parent = LexicalPath.parent(of: path)
    var info = stat()
    do {
      try systemCall("stat", path: parent) { stat(parent, &info) }
    } catch {
      // No folder yet (it is made at the first write): nothing to resolve through.
      return parent
    }
    let (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    if let known = folders.withLock({ $0[parent] }), known.device == device, known.inode == inode {
      return known.path
    }
    guard let resolved = realpath(parent, nil) else { return parent }
    defer { free(resolved) }
    let real = String(cString: resolved)
    folders.withLock { folders in
      // Bounded for processes that make keys in ever new folders (test suites).
      if folders.count >= 4096 { folders.removeAll(keepingCapacity: true) }
      folders[parent] = ResolvedFolder(path: real, device: device, inode: inode)
    }
    return real
  }

  /// The target of the symlink at `path`, or `nil` when it is not one (nearly always): asked
  /// with a buffer small enough for the stack, and again with room for any path only when the
  /// target filled it (a `PATH_MAX` buffer is a heap allocation a key).
  private static func link(at path: String) -> String? {
    let target = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) {
      readTarget(of: path, into: $0)
    }
    guard case .truncated = target else { return target.path }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX) + 1) {
      readTarget(of: path, into: $0).path
    }
  }

  private enum Target {
    case notALink
    case path(String)
    case truncated

    var path: String? {
      if case .path(let path) = self { return path }
      return nil
    }
  }

  private static func readTarget(
    of path: String, into buffer: UnsafeMutableBufferPointer<UInt8>
  )
    -> Target
  {
    let count = readlink(path, buffer.baseAddress!, buffer.count)
    guard count > 0 else { return .notALink }
    guard count < buffer.count else { return .truncated }
    return .path(String(decoding: buffer[..<count], as: UTF8.self))
  }
}
