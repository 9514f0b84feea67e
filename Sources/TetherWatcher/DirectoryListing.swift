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
}
