package import TetherFiles

/// Why the watcher polls a path instead of using inotify.
package enum PollReason: Error, Sendable, Equatable, CustomStringConvertible {
  /// The per-user inotify watch limit is reached (`ENOSPC`).
  case noWatchesLeft
  /// The per-user inotify instance limit is reached (`EMFILE`).
  case noInstances
  /// The library's inotify descriptor is 1024 or more, which its `select()` cannot wait on.
  case descriptorTooHigh(Int32)
  /// The file system does not report changes made elsewhere (NFS, SMB, FUSE, …).
  case networkFileSystem(String)
  /// inotify failed for another reason.
  case failed(SystemError)

  package var description: String {
    switch self {
    case .noWatchesLeft:
      return "the inotify watch limit is reached (fs.inotify.max_user_watches)"
    case .noInstances:
      return "the inotify instance limit is reached (fs.inotify.max_user_instances)"
    case .descriptorTooHigh(let fd):
      return "the inotify descriptor is \(fd), above what select() can wait on (1023)"
    case .networkFileSystem(let kind):
      return "\(kind) does not report changes made by other machines"
    case .failed(let error):
      return "inotify failed: \(error)"
    }
  }

  /// The reason for an inotify error, when polling is the answer to it.
  static func from(_ error: SystemError) -> PollReason {
    switch error.code {
    case 28: return .noWatchesLeft  // ENOSPC
    case 24: return .noInstances  // EMFILE
    default: return .failed(error)
    }
  }
}
