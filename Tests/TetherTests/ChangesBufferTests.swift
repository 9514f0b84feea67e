import Foundation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// What a `changes` iterator keeps while its consumer is behind: the latest value only.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(1))) struct ChangesBufferTests {
  @Test func aConsumerThatFallsBehindGetsTheLatestValueNotEveryChange() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      var iterator = $count.changes.makeAsyncIterator()
      #expect(await iterator.take() == 0)
      for value in 1...100 { $count.withLock { $0 = value } }
      #expect(await iterator.take() == 100, "the latest value, not the first it missed")
      $count.withLock { $0 = 101 }
      #expect(await iterator.take() == 101, "and each change after it, once it keeps up")
    }
  }

  @Test func anUnreadIteratorHoldsOneValueHoweverManyChangesItMisses() async throws {
    try await isolated {
      let live = LiveCount()
      @Shared(.inMemory("payload")) var payload = Payload(live: live, seed: 0)
      var iterator = $payload.changes.makeAsyncIterator()
      let before = try memoryInUse()
      for seed in 1...100_000 { $payload.withLock { $0 = Payload(live: live, seed: seed) } }
      let grown = try memoryInUse() - before
      // The holder's value, which the iterator keeps too; the rest were released.
      #expect(live.count.load(ordering: .relaxed) <= 2, "payloads still alive")
      // Buffering every change grew the process by about 105 MB.
      #expect(grown < 30 << 20, "memory in use grew by \(grown >> 20) MB")
      #expect(await iterator.take()?.seed == 100_000)
    }
  }
}

/// A 1 KB value that counts how many of its kind are alive.
private struct Payload: Sendable {
  let seed: Int
  let bytes: [UInt8]
  private let token: Token

  init(live: LiveCount, seed: Int) {
    self.seed = seed
    self.bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: seed), count: 1024)
    self.token = Token(live: live)
  }

  /// Counts one payload alive from its making to its release (copies share it).
  private final class Token: Sendable {
    let live: LiveCount

    init(live: LiveCount) {
      self.live = live
      live.count.add(1, ordering: .relaxed)
    }

    deinit { live.count.subtract(1, ordering: .relaxed) }
  }
}

/// How many payloads are alive.
private final class LiveCount: Sendable {
  let count = Atomic<Int>(0)
}

/// The memory this process uses: under AddressSanitizer, the bytes its allocator has handed out
/// and not had back; else the resident memory. (AddressSanitizer keeps freed memory in
/// quarantine, up to 256 MB, to catch uses after free: the payloads released grew the resident
/// memory of `make asan` by 98 MB.)
private func memoryInUse() throws -> Int {
  // Found only in a process built with `-sanitize=address`, which exports it.
  if let symbol = dlsym(dlopen(nil, RTLD_NOW), "__sanitizer_get_current_allocated_bytes") {
    return unsafeBitCast(symbol, to: (@convention(c) () -> Int).self)()
  }
  return try residentBytes()
}

/// This process's resident memory, from `/proc/self/statm` (its second field, in pages).
private func residentBytes() throws -> Int {
  let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
  let fields = statm.split(separator: " ")
  let pages = try #require(fields.count > 1 ? Int(fields[1]) : nil, "statm: \(statm)")
  return pages * sysconf(Int32(_SC_PAGESIZE))
}
