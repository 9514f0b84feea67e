import CTetherLinux
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
    var failure: Int32 = 0
    forEachEntry(
      from: {
        // A listing cut short by an error would be taken for the whole: readdir tells them
        // apart by errno.
        errno = 0
        guard let entry = readdir(directory) else {
          failure = errno
          return nil
        }
        return UnsafeRawPointer(entry)
      }, body)
    if failure != 0 { throw SystemError(call: "readdir", path: folder, code: failure) }
  }

  /// Calls `body` with each `dirent` record `next` gives until it gives `nil`.
  ///
  /// A record is only as long as its name: one at the end of `readdir`'s buffer can end before
  /// `MemoryLayout<dirent>.size`, so its fields are read in place, never by copying `pointee`.
  /// Package access lets a test hand it a record that ends at a guard page.
  package static func forEachEntry(
    from next: () -> UnsafeRawPointer?,
    _ body: (_ name: () -> String, _ type: Int, _ bytes: UnsafeRawBufferPointer) -> Void
  ) {
    let dot = UInt8(ascii: ".")
    while let record = next() {
      let entry = record.assumingMemoryBound(to: dirent.self)
      let name = tether_dirent_name(entry)
      let bytes = UnsafeRawBufferPointer(start: name, count: strlen(name))
      if bytes.first == dot && (bytes.count == 1 || bytes.count == 2 && bytes[1] == dot) {
        continue
      }
      body({ String(decoding: bytes, as: UTF8.self) }, Int(tether_dirent_type(entry)), bytes)
    }
  }
}
