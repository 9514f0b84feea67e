package import Foundation
import Glibc

/// The path a file key really writes: symlinks followed (also a link whose target does not exist
/// yet, which `resolvingSymlinksInPath` leaves alone), `.` and `..` and doubled slashes removed.
package enum ResolvedPath {
  package static func of(_ url: URL) -> String {
    // The percent-encoded path is the plain one when nothing in it is encoded, and is had
    // without the decoding pass (measured: `path` was a sixth of a file key's start).
    let encoded = url.path(percentEncoded: true)
    return of(path: encoded.utf8.contains(UInt8(ascii: "%")) ? url.path : encoded)
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

  private static func realParent(of path: String) -> String {
    let parent = LexicalPath.parent(of: path)
    guard let resolved = realpath(parent, nil) else { return parent }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func link(at path: String) -> String? {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX)) { buffer in
      let count = readlink(path, buffer.baseAddress!, buffer.count)
      guard count > 0 else { return nil }
      return String(decoding: buffer[..<count], as: UTF8.self)
    }
  }
}
