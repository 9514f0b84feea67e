import CTetherLinux
import Glibc
import Synchronization

/// A file opened as its path was resolved (see ``ResolvedPath/opening(_:marking:)``), and the
/// mark its folder's watcher gave just before: its first read is then a baseline that the
/// watcher can check against later events. Closed when it goes.
package struct OpenedFile: ~Copyable {
  /// Where the folder's watcher stood before the file was opened.
  package let mark: WatchMark
  /// -1 when there was no file at the path.
  private let descriptor: Int32
  private let path: String

  init(mark: WatchMark, descriptor: Int32, path: String) {
    self.mark = mark
    self.descriptor = descriptor
    self.path = path
  }

  /// The file's content, read whole from the start, and the version it came from.
  package consuming func read() -> FileSnapshot {
    guard descriptor >= 0 else { return FileSnapshot(.missing) }
    var version: FileVersion?
    let content = FileContent.read(descriptor, path: path, version: &version)
    return FileSnapshot(content, version: version)
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }
}

/// What opening a path with `openat2`'s `RESOLVE_NO_SYMLINKS` found: one system call that
/// both opens a file and tells whether its path is its own resolved path (no component of it,
/// the name included, is a link).
enum LinkFreeOpen {
  /// Opened: no link on the way. The caller closes the descriptor.
  case opened(Int32)
  /// Nothing at the path, and no link on the way to where it stopped: the path is resolved as
  /// written (as the long way resolves a missing folder).
  case missing
  /// A link on the way: the path must be resolved the long way, and a folder remembered as
  /// its own real path may have become a link since.
  case linkOnTheWay
  /// Anything else (no `openat2` in the kernel, no permission, a file in the way): the long
  /// way tells.
  case cannotTell

  /// Opens `path` (absolute, normalized) for reading, or with `O_PATH` when `pathOnly`.
  /// Without blocking: a FIFO at the path would wait for a writer in `open`; what is opened is
  /// read by ``FileContent``, which refuses anything but a regular file.
  static func open(_ path: String, pathOnly: Bool) -> LinkFreeOpen {
    guard !unavailable.load(ordering: .relaxed) else { return .cannotTell }
    let flags = (pathOnly ? TETHER_O_PATH : O_RDONLY | O_NONBLOCK | O_NOCTTY) | O_CLOEXEC
    do throws(SystemError) {
      return .opened(
        try systemCall("openat2", path: path) {
          path.withCString { tether_open_without_links($0, flags) }
        })
    } catch  where error.code == ENOENT {
      return .missing
    } catch  where error.code == ELOOP {
      return .linkOnTheWay
    } catch  where error.code == ENOSYS || error.code == EPERM {
      // A kernel before 5.6, or a seccomp filter that does not know the call.
      unavailable.store(true, ordering: .relaxed)
      return .cannotTell
    } catch {
      return .cannotTell
    }
  }

  /// Set once `openat2` proved missing: every later path goes the long way at once.
  private static let unavailable = Atomic(false)
}
