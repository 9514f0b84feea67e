package import TetherFiles

/// Which watched paths are checked by polling instead of inotify, and why. Pure state: the
/// watcher guards it with its lock.
package struct PollingState {
  /// Nothing watched, requested or polled yet.
  package init() {}

  /// Paths checked by polling, and why.
  package private(set) var paths: [String: PollReason] = [:]
  /// Set when inotify cannot serve this process at all: every watched file is polled.
  package private(set) var fallback: PollReason?
  /// How often polled paths are checked.
  package var interval: Duration = .seconds(1)
  /// The reasons already logged: each is said once.
  private var logged: Set<String> = []

  package var isEmpty: Bool { paths.isEmpty }

  package func isPolled(_ path: HashedPath) -> Bool { paths[path.string] != nil }

  /// Polls `files`.
  package mutating func poll(_ files: some Sequence<HashedPath>, because reason: PollReason) {
    for file in files { paths[file.string] = reason }
  }

  /// Polls `file` if one of its folder's `siblings` is polled (as it then must be too); returns
  /// whether it is.
  package mutating func pollWithSiblings(_ file: HashedPath, siblings: Set<HashedPath>) -> Bool {
    let paths = self.paths
    guard !paths.isEmpty, let reason = siblings.lazy.compactMap({ paths[$0.string] }).first else {
      return false
    }
    self.paths[file.string] = reason
    return true
  }

  /// Stops polling `files`: inotify serves them again.
  package mutating func unpoll(_ files: some Sequence<HashedPath>) {
    for file in files { paths[file.string] = nil }
  }

  /// Stops polling `file`, which is no longer watched; returns whether it was polled.
  package mutating func remove(_ file: HashedPath) -> Bool {
    paths.removeValue(forKey: file.string) != nil
  }

  /// Polls every file from now on.
  package mutating func fallBack(_ reason: PollReason, files: some Sequence<HashedPath>) {
    fallback = reason
    poll(files, because: reason)
  }

  /// Whether `reason` is to be logged: the first time only.
  package mutating func shouldLog(_ reason: PollReason) -> Bool {
    logged.insert(reason.description).inserted
  }
}
