import Glibc

/// The names in a folder, read with `readdir`: `FileManager.contentsOfDirectory` builds and
/// bridges far more than a name per entry.
package enum DirectoryListing {
  /// The names of the entries in `folder`, without `.` and `..`, in no particular order.
  package static func names(in folder: String) throws(SystemError) -> [String] {
    var names: [String] = []
    try forEachEntry(in: folder) { name, _ in names.append(name()) }
    return names
  }

  /// The names in `folder` that are symlinks, or whose type the file system does not say: the
  /// others' names are never made into strings.
  package static func possibleLinks(in folder: String) throws(SystemError) -> Set<String> {
    var links: Set<String> = []
    try forEachEntry(in: folder) { name, type in
      if type == DT_LNK || type == DT_UNKNOWN { links.insert(name()) }
    }
    return links
  }

  /// Calls `body` with each entry's name (made only when asked) and type, `.` and `..` left out.
  private static func forEachEntry(
    in folder: String, _ body: (_ name: () -> String, _ type: Int) -> Void
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
      let isDot = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        bytes[0] == UInt8(ascii: ".")
          && (bytes[1] == 0 || bytes[1] == UInt8(ascii: ".") && bytes[2] == 0)
      }
      if isDot { continue }
      body(
        {
          withUnsafeBytes(of: entry.pointee.d_name) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
          }
        }, Int(entry.pointee.d_type))
    }
  }
}
