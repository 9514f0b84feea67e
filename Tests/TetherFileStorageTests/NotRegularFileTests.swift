import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// A FIFO, device, socket or folder where a key's file should be: an error naming the path,
/// never a block, and the other keys go on as before.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct NotRegularFileTests {
  @Test func aKeyOfAFIFOHasALoadAndASaveErrorNamingItAndNeverBlocks() async throws {
    try await withTemporaryDirectory { folder in
      let pipe = folder.appending(path: "pipe.json")
      try makeFIFO(at: pipe)
      await expectAKeyOfAFIFOFailsNamingItAndNeverBlocks(
        "a FIFO key's first load", pipe: pipe, in: folder
      ) {
        @Shared(.fileStorage(pipe)) var count = 0
        return $count
      }
    }
  }

  /// The watcher re-reads a changed file on its one delivery queue: a FIFO put in the place of
  /// one must not hold it up, or no key's change would be delivered again.
  @Test func aWatchedFileReplacedByAFIFOIsAnErrorAndOtherKeysStillChange() async throws {
    try await withTemporaryDirectory { folder in
      let (a, b) = (folder.appending(path: "a.json"), folder.appending(path: "b.json"))
      try Data("1".utf8).write(to: a)
      try Data("1".utf8).write(to: b)
      @Shared(.fileStorage(a)) var first = 0
      @Shared(.fileStorage(b)) var second = 0
      #expect(first == 1 && second == 1)
      try FileManager.default.removeItem(at: a)
      try makeFIFO(at: a)
      await expectEventually(timeout: .seconds(30)) {
        $first.loadError.map { "\($0)".contains("\(a.path): not a regular file") } ?? false
      }
      try Data("2".utf8).write(to: b, options: .atomic)
      await expectEventually(timeout: .seconds(30)) { second == 2 }
      // A check blocked on the FIFO would hold up the watcher for every later test.
      await releasingFIFOs(in: folder) { await TetherSystem.flush() }
    }
  }
}
