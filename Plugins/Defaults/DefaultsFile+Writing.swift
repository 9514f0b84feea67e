import Foundation
import Glibc
package import Tether
import TetherFiles
import TetherWatcher

/// Writing: the locked read-merge-replace that every entry point (a holder's change, `tether
/// set`) goes through.
extension DefaultsFile {
  /// Applies `changes` to the file under its lock; runs on the writer's queue.
  static func write(
    _ changes: Changes, to path: String, state: LockedState<State>
  ) -> ThrottledWriter<Changes>.Outcome {
    let (known, watch) = state.withLock { state -> (Parsed?, FileWatch?) in
      guard case .success(let parsed) = state.user else { return (nil, state.watches.first) }
      return (parsed, state.watches.first)
    }
    let applied: (document: Parsed, written: Set<String>)
    do {
      applied = try apply(changes, to: path, known: known, watch: watch)
    } catch {
      return .failed(error)
    }
    let identity = FileIdentity.of(path)
    // The file as written holds what other processes and editors wrote to other keys (and to
    // keys whose edit won over this process's change): their holders are told now, since the
    // watcher takes this write as this process's own and delivers nothing.
    let deliveries = state.withLock { state in
      state.user = .success(applied.document)
      state.userIdentity = identity
      return Self.news(in: &state, except: applied.written).deliveries
    }
    for (subscriber, lookup) in deliveries { subscriber.deliver(lookup) }
    return .written
  }

  /// The entry for `name` in the defaults file at `path` (`nil`: no line), for `tether get`.
  package static func entry(_ name: String, in path: String) throws -> INIDocument.Entry? {
    let parsed = try read(path).get()
    if let problem = parsed.problem(for: name) { throw problem }
    return parsed.entries[name]
  }

  /// Sets (or, with `nil`, removes) one line of the defaults file at `path` now, under its lock:
  /// what `tether set` does, through the library's own write path.
  package static func set(_ name: String, literal: String?, in path: String) throws {
    try apply([name: literal], to: path, known: nil, watch: nil)
  }

  /// Opens (creating it, and its folder, when missing) the lock file beside `path`. Read-only:
  /// closing a file opened for writing is an event for every watcher of the folder. Never
  /// through a link: a planted `.NAME.lock` link would have the lock create any file it names.
  private static func openLock(for path: String) throws -> Int32 {
    let lockPath = DefaultsName.lockPath(for: path)
    func openLock() throws(SystemError) -> Int32 {
      try systemCall("open", path: lockPath) {
        open(lockPath, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
      }
    }
    do {
      return try openLock()
    } catch  where error.code == ELOOP {
      throw TetherError.unusableFile(
        lockPath,
        reason: "the lock file is a symbolic link, which Tether does not follow; remove it")
    } catch  where error.code == ENOENT {
      try FileManager.default.createDirectory(
        atPath: LexicalPath.parent(of: path), withIntermediateDirectories: true)
      return try openLock()
    }
  }

  /// The locked read-merge-replace; returns the document the file now holds and the keys whose
  /// change it holds. `known` is this process's last view: a key whose line differs from it was
  /// edited by someone else, and keeps that edit.
  @discardableResult
  private static func apply(
    _ changes: Changes, to path: String, known: Parsed?, watch: FileWatch?
  ) throws -> (document: Parsed, written: Set<String>) {
    let lock = try openLock(for: path)
    defer { close(lock) }
    try systemCall("flock", path: path) { flock(lock, LOCK_EX) }
    // An editor does not take the lock: retry when it changed the file under us.
    for _ in 0..<5 {
      let current = FileContent.read(path)
      let onDisk = try parse(current, origin: path).get()
      let edited = changes.keys.filter { name in
        known.map { $0.entries[name]?.value != onDisk.entries[name]?.value } ?? false
      }
      if !edited.isEmpty {
        logger.warning(
          "\(path): \(edited.sorted()) changed on disk before this process wrote them; the file's values win"
        )
      }
      var document = onDisk.document
      document.apply(
        changes.filter { !edited.contains($0.key) }.map { name, literal in
          let (section, key) = DefaultsName.split(name)
          return (section, key, literal)
        })
      let data = Data(document.render().utf8)
      let written = Set(changes.keys).subtracting(edited)
      if current == .data(data) || (current == .missing && changes.allSatisfy { $0.value == nil }) {
        return (Parsed(document), written)
      }
      do {
        try watch.replacing(with: data) { _ in
          try AtomicFile.write(data, to: path, durable: false, expected: current, spare: true)
        }
      } catch is AtomicFile.Conflict {
        continue
      }
      return (Parsed(document), written)
    }
    throw TetherError.invalidConfiguration(
      message: "the file kept changing while it was being written", location: path)
  }
}
