import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// A load while this process's change waits for its throttled write reads that change: it is
/// newer than what the file holds, and own writes are not echoed, so undoing it would stick.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct LoadPendingTests {
  @Test func aLoadWhileAChangeWaitsForItsWriteKeepsTheChange() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "30s") {
        @Shared(.registered("a")) var a = 0
        @Shared(.registered("a")) var other = 0
        $a.withLock { $0 = 1 }  // Written at once: the window's first.
        $a.withLock { $0 = 2 }  // Waits for the window's end.
        try await $a.load()
        #expect(a == 2)
        #expect(other == 2)
        let file = try String(contentsOf: folder.appending(path: "a.json"), encoding: .utf8)
        #expect(file == "2", "the load wrote it first")
      }
    }
  }
}
