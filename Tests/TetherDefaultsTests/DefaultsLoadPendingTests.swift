import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A load while this process's change of the key waits for its throttled write reads that
/// change: it is newer than what the file holds, and own writes are not echoed.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsLoadPendingTests {
  @Test func aLoadWhileAChangeWaitsForItsWriteKeepsTheChange() async throws {
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder, throttle: "30s") {
        @Shared(.registered("a")) var a = 0
        @Shared(.registered("b")) var b = 0
        $a.withLock { $0 = 1 }  // Written at once: the window's first.
        $a.withLock { $0 = 2 }  // Waits for the window's end.
        $b.withLock { $0 = 3 }
        try await $a.load()
        #expect(a == 2)
        #expect(contents(folder.appending(path: "defaults.ini")).contains("a = 2"))
      }
    }
  }
}
