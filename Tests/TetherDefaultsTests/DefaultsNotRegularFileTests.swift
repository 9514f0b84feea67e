import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A defaults file (or its lock file) that is a FIFO: an error naming it, never a block.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsNotRegularFileTests {
  @Test func aDefaultsFileThatIsAFIFOIsALoadAndASaveErrorAndNeverBlocks() async throws {
    try await withTemporaryDirectory { folder in
      let pipe = folder.appending(path: "defaults.ini")
      try makeFIFO(at: pipe)
      let store = DefaultsStore(file: pipe)
      await expectAKeyOfAFIFOFailsNamingItAndNeverBlocks(
        "a FIFO defaults file's first load", pipe: pipe, in: folder
      ) {
        @Shared(.defaults("count", store: store)) var count = 0
        return $count
      }
    }
  }

  /// The lock file is opened on every write, by every process and `tether set`: a FIFO there
  /// once had `open` wait for a writer, holding the writer's queue (and a flush) for good.
  @Test func aLockFileThatIsAFIFOIsASaveErrorNamingItAndNeverBlocks() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("count = 5\n".utf8).write(to: file)
      let lock = folder.appending(path: ".defaults.ini.lock")
      try makeFIFO(at: lock)
      let store = DefaultsStore(file: file)
      let count = await expectToEnd(
        "a load beside a FIFO lock file", releasing: { releaseFIFO(lock) }
      ) {
        @Shared(.defaults("count", store: store)) var count = 0
        return $count
      }
      #expect(count.wrappedValue == 5)
      count.withLock { $0 = 6 }
      await expectEventually(timeout: .seconds(30)) {
        count.saveError.map { "\($0)".contains("\(lock.path): it is a FIFO (named pipe)") } ?? false
      }
      await releasingFIFOs(in: folder) { await TetherSystem.flush() }
      #expect(try String(contentsOf: file, encoding: .utf8) == "count = 5\n", "nothing written")
    }
  }
}
