import Foundation
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting
import TetherWatcher

/// What a user sees of every way editors and tools save a file: a file key's holder takes the
/// tool's final value, having passed through nothing else — no default for a file briefly
/// missing or empty, no error. (The watcher's own deliveries are in `TetherWatcherTests`'
/// `EditorTests`.)
@Suite(.timeLimit(.minutes(2))) struct EditorHolderTests {
  /// Holds `data.json` (holding `1`) in `folder` through a file key, runs `change`, and expects
  /// the holder's changes to be `1`, `2` and then a sentinel written afterwards (with the default
  /// between `1` and `2` only if `change` says the file was away past the settle delay).
  func expectHolderSeesOnlyTheFinalValue(
    in folder: URL, sourceLocation: SourceLocation = #_sourceLocation,
    _ change: (URL) async throws -> Bool
  ) async throws {
    let file = folder.appending(path: "data.json")
    try Data("1".utf8).write(to: file)
    @Shared(.fileStorage(file)) var value = 0
    let seen = Mutex<[Int]>([])
    let listener = Task { [$value] in
      for await value in $value.changes { seen.withLock { $0.append(value) } }
    }
    await expectEventually(timeout: .seconds(30)) { seen.withLock { $0 == [1] } }
    let wasAway = try await change(file)
    // The iterator's 2, not only the holder's: an iterator that has not read 2 when 3 arrives
    // gets 3 alone (the newest value wins), which is not the change this test looks for.
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      value == 2 && seen.withLock { $0.last == 2 }
    }
    try Data("3".utf8).write(to: file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      seen.withLock { $0.last == 3 }
    }
    listener.cancel()
    let changes = seen.withLock { $0 }
    let statistics = FileWatcher.shared.statistics
    #expect(
      changes == [1, 2, 3] || wasAway && changes == [1, 0, 2, 3],
      "\(changes); overflows \(statistics.overflows), rebuilds \(statistics.rebuilds)",
      sourceLocation: sourceLocation)
    #expect($value.loadError == nil, sourceLocation: sourceLocation)
  }

  @Test(.tetherBootstrap(), arguments: EditorTools.all)
  func aToolsSaveReachesAFileKeysHolderAsItsOnlyChange(
    _ name: String, _ script: String
  ) async throws {
    try await withTemporaryDirectory { folder in
      try await expectHolderSeesOnlyTheFinalValue(in: folder) { _ in
        try await EditorTools.run(script, in: folder) >= FileWatcher.shared.settleDelay
      }
    }
  }

  @Test(.tetherBootstrap()) func foundationAtomicWriteReachesAFileKeysHolder() async throws {
    try await withTemporaryDirectory { folder in
      try await expectHolderSeesOnlyTheFinalValue(in: folder) { file in
        try Data("2".utf8).write(to: file, options: .atomic)
        return false
      }
    }
  }

  @Test(.enabled(if: EditorTools.hasVim), .tetherBootstrap())
  func vimSavingByRenameReachesAFileKeysHolder() async throws {
    try await EditorTools.withVimFolder { folder in
      try await expectHolderSeesOnlyTheFinalValue(in: folder) { file in
        try await EditorTools.saveWithVim(file, in: folder)
        return false
      }
    }
  }
}
