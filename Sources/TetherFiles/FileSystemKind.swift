import CTetherLinux
import Glibc

/// Recognises file systems that only report local changes, from `statfs`'s magic numbers.
package enum FileSystemKind {
  private static let remote: [Int: String] = [
    0x6969: "NFS", 0x517B: "SMB", 0xFF53_4D42: "CIFS", 0xFE53_4D42: "SMB2",
    0x6573_5546: "FUSE", 0x0102_1997: "9p", 0x00C3_6400: "Ceph", 0x5346_414F: "AFS",
  ]

  /// The name of the remote file system holding `path`, or `nil` for a local one.
  package static func remoteName(of path: String) -> String? {
    var info = statfs()
    do {
      try systemCall("statfs", path: path) { statfs(path, &info) }
    } catch {
      return nil
    }
    return remote[Int(UInt32(truncatingIfNeeded: info.f_type))]
  }
}
