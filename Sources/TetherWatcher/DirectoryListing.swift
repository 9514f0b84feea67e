import Glibc

/// The names in a folder, read with `readdir`: `FileManager.contentsOfDirectory` builds and
/// bridges far more than a name per entry.
package enum DirectoryListing {
  /// The names of the entries in `folder` that start with `prefix`, without `.` and `..`, in no
  /// particular order: the others' names are never made into strings (a shared `/tmp` can hold
  /// thousands).
  package static func names(
    in folder: String, withPrefix prefix: String = ""
  ) throws(SystemError) -> [String] {
    let prefix = Array(prefix.utf8)
    var names: [String] = []
    try forEachEntry(in: folder) { name, _, bytes in
      if bytes.starts(with: prefix) { names.append(name()) }
    }
    return names
  }

  /// The names in `folder` that are symlinks, or whose type the file system does not say: the
  /// others' names are never made into strings.
  package static func possibleLinks(in folder: String) throws(SystemError) -> Set<String> {
    var links: Set<String> = []
    try forEachEntry(in: folder) { name, type, _ in
      if type == DT_LNK || type == DT_UNKNOWN { links.insert(name()) }
    }
    return links
  }

  /// Calls `body` with each entry's name (made only when asked), type and name's bytes (without
  /// the terminating zero), `.` and `..` left out.
  private static func forEachEntry(
    in folder: String,
    _ body: (_ name: () -> String, _ type: Int, _ bytes: UnsafeRawBufferPointer) -> Void
  ) throws(SystemError) {
    guard let directory = opendir(folder) else {
      throw SystemError(call: "opendir", path: folder, code: errno)
    }
    defer { closedir(directory) }
    while true {
      // A listing cut short by an error would be taken for the whole: readdir tells them apart
      // by errno.
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw SystemError(call: "readdir", path: folder, code: errno) }
        return
      }
      let type = Int(entry.pointee.d_type)
      withUnsafeBytes(of: entry.pointee.d_name) { field in
        let length = strnlen(field.baseAddress!.assumingMemoryBound(to: CChar.self), field.count)
        let bytes = UnsafeRawBufferPointer(rebasing: field[..<length])
        let dot = UInt8(ascii: ".")
        if bytes.first == dot && (length == 1 || length == 2 && bytes[1] == dot) { return }
        body({ String(decoding: bytes, as: UTF8.self) }, type, bytes)
      }
    }
  }
}
