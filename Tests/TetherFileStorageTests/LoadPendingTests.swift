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

/// A key's loads with no holder watching its folder read the file each time: nothing would
/// tell them of a change (an editor's, or this process's own save), so what an earlier load
/// read is not the file now. The conformance suite found a load after a finished save giving
/// what was read before it.
@Suite(.tetherBootstrap()) struct UnwatchedLoadTests {
  @Test func loadsWithNoWatchReadTheFileEachTime() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "value.json")
      let key: FileStorageKey<Int> = .fileStorage(url)
      #expect(await Self.load(key) == nil, "nothing stored yet")
      try Data("5".utf8).write(to: url)
      #expect(await Self.load(key) == 5)
      try Data("6".utf8).write(to: url, options: .atomic)
      #expect(await Self.load(key) == 6)
      await withCheckedContinuation { continuation in
        key.save(
          7, context: .userInitiated,
          continuation: SaveContinuation(subject: key) { _ in continuation.resume() })
      }
      #expect(await Self.load(key) == 7)
    }
  }

  /// What one load of `key` gives: `nil` for nothing stored.
  static func load(_ key: FileStorageKey<Int>) async -> Int? {
    let result = await withCheckedContinuation { continuation in
      key.load(
        context: .initialValue(0),
        continuation: LoadContinuation(subject: key) { continuation.resume(returning: $0) })
    }
    switch result {
    case .success(let value?): return value
    default: return nil
    }
  }
}
