import Foundation
import Synchronization
import Testing
import TetherFiles
import TetherTestHelperSupport
import TetherTesting
import TetherWatcher

/// Every way editors and tools save a file ends in one delivery of the final content.
///
/// A tool that takes the file away and brings it back (`rm` and recreate, `mv` away and back)
/// makes two system calls; a process stalled between them for longer than the settle delay is,
/// rightly, two changes: such a tool says how long the file was away, and the missing file is
/// then allowed before the final content. (What a file key's holder sees of the same saves is
/// in `TetherFileStorageTests`' `EditorHolderTests`.)
@Suite(.timeLimit(.minutes(2))) struct EditorTests {
  /// Watches `data.json` (holding `initial`) in `folder`, runs `change`, and expects exactly one
  /// delivery, of `final`. A sentinel write afterwards proves nothing else was delivered between.
  /// `change` returns whether the file was away longer than the settle delay.
  func expectOneDelivery(
    in folder: URL, initial: String = "1", final: String = "2",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ change: (URL) async throws -> Bool
  ) async throws {
    let file = folder.appending(path: "data.json")
    try Data(initial.utf8).write(to: file)
    let deliveries = Deliveries()
    let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
    let wasAway = try await change(file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      deliveries.lastIs(final)
    }
    try Data("sentinel".utf8).write(to: file)
    await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
      deliveries.lastIs("sentinel")
    }
    let expected: [FileContent] = [.data(Data(final.utf8)), .data(Data("sentinel".utf8))]
    #expect(
      deliveries.all == expected || wasAway && deliveries.all == [.missing] + expected,
      "\(deliveries.all); \(watcherState())", sourceLocation: sourceLocation)
    watch.cancel()
  }

  @Test(arguments: EditorTools.all)
  func aToolsSaveIsDeliveredOnce(_ name: String, _ script: String) async throws {
    try await withTemporaryDirectory { folder in
      try await expectOneDelivery(in: folder) { _ in
        try await EditorTools.run(script, in: folder) >= FileWatcher.shared.settleDelay
      }
    }
  }

  @Test func foundationAtomicWriteIsDeliveredOnce() async throws {
    try await withTemporaryDirectory { folder in
      try await expectOneDelivery(in: folder) { file in
        try Data("2".utf8).write(to: file, options: .atomic)
        return false
      }
    }
  }

  /// vim renames only outside /tmp, so this runs under ~/.cache and clears 'backupskip' too;
  /// the changed inode proves the rename path was taken.
  @Test(.enabled(if: EditorTools.hasVim))
  func vimSavingByRenameIsDeliveredOnce() async throws {
    try await EditorTools.withVimFolder { folder in
      // vim ends the file with a newline.
      try await expectOneDelivery(in: folder, initial: "1\n", final: "2\n") { file in
        try await EditorTools.saveWithVim(file, in: folder)
        return false
      }
    }
  }

  /// What the watcher went through, for a failure's message.
  func watcherState() -> String {
    let statistics = FileWatcher.shared.statistics
    return "overflows \(statistics.overflows), rebuilds \(statistics.rebuilds), "
      + "fallback \(String(describing: statistics.fallback)), "
      + "polled \(statistics.polledPaths.count)"
  }
}
