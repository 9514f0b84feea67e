import Glibc

/// Path arithmetic on strings, without touching the file system.
///
/// Foundation's `standardizedFileURL` and `NSString` path methods bridge and re-scan the string
/// at each step, which would be most of starting a file key.
package enum LexicalPath {
  /// `path` with doubled slashes, `.` and trailing slashes removed and `..` applied; an absolute
  /// path never climbs above `/`.
  ///
  /// ```swift
  /// LexicalPath.normalized("/a//b/./c/../d/")  // "/a/b/d"
  /// ```
  package static func normalized(_ path: String) -> String {
    // Most paths are normalized already (each file key's is normalized at least twice).
    if isNormalizedAbsolute(path) { return path }
    let absolute = path.utf8.first == UInt8(ascii: "/")
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      switch part {
      case ".": continue
      case "..":
        if let last = parts.last, last != ".." {
          parts.removeLast()
        } else if !absolute {
          parts.append(part)
        }
      default: parts.append(part)
      }
    }
    let joined = parts.joined(separator: "/")
    if absolute { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }

  /// Whether `path` is absolute and has no empty, `.` or `..` component and no trailing slash.
  private static func isNormalizedAbsolute(_ path: String) -> Bool {
    path.withUTF8Bytes { bytes in
      let slash = UInt8(ascii: "/")
      let dot = UInt8(ascii: ".")
      guard bytes.first == slash else { return false }
      // The component being scanned: its length, and whether it is only dots so far.
      var length = 0
      var onlyDots = true
      for byte in bytes.dropFirst() {
        if byte == slash {
          if length == 0 || onlyDots && length <= 2 { return false }
          length = 0
          onlyDots = true
        } else {
          length += 1
          onlyDots = onlyDots && byte == dot
        }
      }
      return bytes.count == 1 || length > 0 && !(onlyDots && length <= 2)
    }
  }

  /// The folder that holds `path`: `/` for `/a`, `.` for a bare name.
  package static func parent(of path: String) -> String {
    // Made from the bytes: slicing the string's views and copying the slice costs several times
    // as much, three calls a file key.
    path.withUTF8Bytes { bytes in
      let end = endTrimmingSlashes(bytes)
      guard var head = bytes[..<end].lastIndex(of: slash) else { return "." }
      while head > 0, bytes[head - 1] == slash { head -= 1 }
      guard head > 0 else { return "/" }
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<head]), as: UTF8.self)
    }
  }

  /// The last component of `path`: `c` for `/a/b/c` and `/a/b/c/`.
  package static func name(of path: String) -> String {
    path.withUTF8Bytes { bytes in
      let end = endTrimmingSlashes(bytes)
      guard let last = bytes[..<end].lastIndex(of: slash) else {
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
      }
      guard last + 1 < end else { return "/" }
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[(last + 1)..<end]), as: UTF8.self)
    }
  }

  private static let slash = UInt8(ascii: "/")

  /// Where `bytes` end without their trailing slashes, keeping a lone `/`.
  private static func endTrimmingSlashes(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var end = bytes.count
    while end > 1, bytes[end - 1] == slash { end -= 1 }
    return end
  }

  /// Whether `path` names an entry right inside `folder` (both normalized): `/a/b` is in `/a`,
  /// `/a/b/c` and `/ab` are not.
  package static func isDirectChild(_ path: String, of folder: String) -> Bool {
    path.withUTF8Bytes { path in
      folder.withUTF8Bytes { folder in
        let slash = UInt8(ascii: "/")
        guard folder.count > 0 else { return false }
        // The root's children follow its own slash; any other folder's follow one more.
        let start = folder.count == 1 && folder[0] == slash ? 1 : folder.count + 1
        guard path.count > start, start == 1 || path[folder.count] == slash else { return false }
        // `memcmp` and `memchr`: the generic `starts(with:)` and `contains` cost several times as
        // much, once a file key.
        return memcmp(path.baseAddress!, folder.baseAddress!, folder.count) == 0
          && memchr(path.baseAddress! + start, Int32(slash), path.count - start) == nil
      }
    }
  }

  /// `name` inside `folder`, with one slash between them.
  package static func joining(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }
}

extension String {
  /// Calls `body` with the string's UTF-8 bytes: scanning a buffer costs a fraction of iterating
  /// `utf8`.
  func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = self
    return copy.withUTF8(body)
  }
}
