import Glibc

/// The names in a folder, read with `readdir`: `FileManager.contentsOfDirectory` builds and
/// bridges far more than a name per entry.
package enum DirectoryListing {
  /// The names of the entries in `folder`, without `.` and `..`, in no particular order.
  package static func names(in folder: String) throws(SystemError) -> [String] {
    guard let directory = opendir(folder) else {
      throw SystemError(call: "opendir", path: folder, code: errno)
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The names in `folder` that are symlinks, or whose type the file system does not say: the
  /// others' names are never made into strings.
  package static func possibleLinks(in folder: String) throws(SystemError) -> Set<String> {
    guard let directory = opendir(folder) else {
      throw SystemError(call: "opendir", path: folder, code: errno)
    }
    defer { closedir(directory) }
    var links: Set<String> = []
    while true {
      // A listing cut short by an error would hide links: readdir says which it was by errno.
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw SystemError(call: "readdir", path: folder, code: errno) }
        return links
      }
      let type = Int(entry.pointee.d_type)
      guard type == DT_LNK || type == DT_UNKNOWN else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { links.insert(name) }
    }
  }
}
