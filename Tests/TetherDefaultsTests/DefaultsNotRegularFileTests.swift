import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A defaults file that is a FIFO: a load and a save error naming it, never a block.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsNotRegularFileTests {
  @Test func aDefaultsFileThatIsAFIFOIsALoadAndASaveErrorAndNeverBlocks() async throws {
    try await withTemporaryDirectory { folder in
      let pipe = folder.appending(path: "defaults.ini")
      try makeFIFO(at: pipe)
      let store = DefaultsStore(file: pipe)
      let count = await expectToEnd(
        "a FIFO defaults file's first load", releasing: { releaseFIFO(pipe) }
      ) {
        @Shared(.defaults("count", store: store)) var count = 0
        return $count
      }
      let loadError = count.loadError.map { "\($0)" }
      #expect(loadError?.contains("\(pipe.path): not a regular file") == true, "\(loadError ?? "")")
      count.withLock { $0 = 1 }
      await expectEventually(timeout: .seconds(30)) {
        count.saveError.map { "\($0)".contains("\(pipe.path): not a regular file") } ?? false
      }
      var info = stat()
      #expect(lstat(pipe.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "it stays")
      // A write blocked on the FIFO (or on it swapped out beside it) would hang the flush.
      await releasingFIFOs(in: folder) { await TetherSystem.flush() }
    }
  }
}
