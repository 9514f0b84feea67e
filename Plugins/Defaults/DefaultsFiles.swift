import Synchronization
import Tether
import TetherWatcher

/// The defaults files of one scope, one engine per resolved path, kept while a key holds it.
final class DefaultsFiles: Sendable {
  private struct Entry {
    weak var file: DefaultsFile?
  }

  private let files = Mutex<[String: Entry]>([:])
  private let scope: TetherScope

  init(scope: TetherScope) {
    self.scope = scope
  }

  func file(for store: DefaultsStore, throttle: Duration) -> DefaultsFile {
    files.withLock { files in
      if let live = files[store.path]?.file { return live }
      let file = DefaultsFile(
        path: store.path, registration: store.registration.map(ResolvedPath.of),
        throttle: throttle, scope: scope)
      files[store.path] = Entry(file: file)
      return file
    }
  }
}
