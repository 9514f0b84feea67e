package import Foundation
import Glibc

/// The path a file key really writes: symlinks followed (also a link whose target does not exist
/// yet, which `resolvingSymlinksInPath` leaves alone), `.` and `..` and doubled slashes removed.
package enum ResolvedPath {
  package static func of(_ url: URL) -> String {
    of(path: url.path)
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
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
