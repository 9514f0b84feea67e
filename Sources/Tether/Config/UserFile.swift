package import Foundation
import Glibc

/// A file a user names to be read whole: a config file, `tether set --file`.
///
/// Foundation's reader answers a missing file, a folder or a FIFO with an `NSCocoaErrorDomain`
/// dump, and would block forever on a FIFO no one writes: this one opens without blocking,
/// reads regular files only, and says in words what is wrong with which path.
package enum UserFile {
  /// The bytes of the regular file at `path`; throws `TetherError.unusableFile` naming `path`
  /// and saying why `what` ("the config file") cannot be read from it.
  package static func read(_ path: String, as what: String) throws(TetherError) -> Data {
    func unusable(_ why: String) -> TetherError {
      .unusableFile(path, reason: "cannot read \(what): \(why)")
    }
    // Non-blocking: opening a FIFO for reading otherwise waits for a writer.
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw unusable(reason(errno)) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw unusable(reason(errno)) }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw unusable("it is a folder, not a file")
    case S_IFIFO: throw unusable("it is a FIFO (named pipe), not a regular file")
    case S_IFSOCK: throw unusable("it is a socket, not a regular file")
    default: throw unusable("it is a device, not a regular file")
    }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count == 0 { return data }
      if count < 0 {
        if errno == EINTR { continue }
        throw unusable(reason(errno))
      }
      data.append(contentsOf: buffer[..<count])
    }
  }

  private static func reason(_ code: Int32) -> String {
    switch code {
    case ENOENT: return "there is no such file"
    case ENOTDIR: return "a folder on its path is a file"
    case EACCES: return "permission denied"
    default: return String(cString: strerror(code)).lowercased()
    }
  }
}
