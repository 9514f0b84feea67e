package import Foundation
import Glibc

/// The path a file key really writes: symlinks followed (also a link whose target does not exist
/// yet, which `resolvingSymlinksInPath` leaves alone), `.` and `..` and doubled slashes removed.
package enum ResolvedPath {
  package static func of(_ url: URL) -> String {
    var path = url.standardizedFileURL.path
    // A symlink loop ends after as many hops as the kernel allows (ELOOP's limit).
    for _ in 0..<40 {
      let parent = realParent(of: path)
      let name = (path as NSString).lastPathComponent
      let candidate = parent == "/" ? "/" + name : parent + "/" + name
      guard let target = link(at: candidate) else { return candidate }
      path =
        target.hasPrefix("/")
        ? URL(filePath: target).standardizedFileURL.path
        : URL(filePath: parent + "/" + target).standardizedFileURL.path
    }
    return path
  }

  private static func realParent(of path: String) -> String {
    let parent = (path as NSString).deletingLastPathComponent
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
