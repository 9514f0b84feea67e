import Tether
import TetherFiles
import TetherLocking
import TetherWatcher

/// The defaults files of one scope, one engine per resolved path, kept while a key holds it: an
/// engine that goes forgets its entry.
final class DefaultsFiles: Sendable {
  private struct Entry {
    weak var file: DefaultsFile?
  }

  private let files = UnfairMutex<[String: Entry]>([:])
  /// Whose files these are. The id, not the scope: the scope keeps these files (as a local, and
  /// through its registry's keys), so keeping it here would keep both for good.
  private let scope: TetherScope.ID

  init(scope: TetherScope.ID) {
    self.scope = scope
  }

  /// The current scope's files, made at its first defaults key.
  static var current: DefaultsFiles {
    let scope = TetherScope.current
    return scope.local(DefaultsFiles.self) { DefaultsFiles(scope: scope.id) }
  }

  func file(for store: DefaultsStore, throttle: Duration) -> DefaultsFile {
    let registration = store.registrationPath
    let (file, isLive) = files.withLock { files -> (DefaultsFile, Bool) in
      if let live = files[store.path]?.file { return (live, true) }
      let file = DefaultsFile(
        path: store.path, registration: registration, throttle: throttle, scope: scope,
        files: self)
      files[store.path] = Entry(file: file)
      return (file, false)
    }
    if isLive && (file.registrationPath != registration || file.throttle != throttle) {
      let message =
        "\(store.path): open with registration \(file.registrationPath ?? "none") and throttle "
        + "\(file.throttle) (its first key's); a key asking for registration "
        + "\(registration ?? "none") and throttle \(throttle) shares them"
      DefaultsFile.logger.warning("\(message)")
    }
    return file
  }

  /// Forgets `path`'s entry if its engine has gone (a new one may have taken its place): called
  /// as the engine goes.
  func forget(_ path: String) {
    files.withLock { files in
      guard let index = files.index(forKey: path), files.values[index].file == nil else { return }
      files.remove(at: index)
    }
  }

  /// The engines kept, live or not yet forgotten: for tests.
  var count: Int { files.withLock { $0.count } }

  /// The live engines' states: for tests that hold them weakly, to check they go with them.
  var states: [AnyObject] { files.withLock { $0.values.compactMap { $0.file?.stateObject } } }
}
