import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap(), .timeLimit(.minutes(1))) struct ChangesTests {
  @Test func changesYieldTheCurrentValueThenEachChange() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 1
      var iterator = $count.changes.makeAsyncIterator()
      #expect(await iterator.take() == 1)
      $count.withLock { $0 = 2 }
      #expect(await iterator.take() == 2)
      $count.withLock { $0 = 2 }
      $count.withLock { $0 = 3 }
      #expect(await iterator.take() == 3)
    }
  }

  @Test func aSecondIteratorStartsFromTheLatestValue() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 1
      let changes = $count.changes
      var first = changes.makeAsyncIterator()
      #expect(await first.take() == 1)
      $count.withLock { $0 = 5 }
      var second = changes.makeAsyncIterator()
      #expect(await second.take() == 5)
      #expect(await first.take() == 5)
    }
  }

  @Test func changesIncludeExternalEdits() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      var iterator = $n.changes.makeAsyncIterator()
      #expect(await iterator.take() == 0)
      storage.externalChange(8)
      #expect(await iterator.take() == 8)
      storage.externalChange(nil)
      #expect(await iterator.take() == 0)
    }
  }

  @Test func reKeyingWithLoadSwitchesTheStreamToTheNewKey() async throws {
    try await isolated {
      @Shared(.inMemory("b")) var b = 20
      @Shared(.inMemory("a")) var a = 10
      var iterator = $a.changes.makeAsyncIterator()
      #expect(await iterator.take() == 10)
      try await $a.load(.inMemory("b"))
      #expect(a == 20)
      #expect(await iterator.take() == 20)
      $b.withLock { $0 = 21 }
      #expect(await iterator.take() == 21)
    }
  }

  @Test func assigningTheProjectedValueMovesTheStream() async throws {
    try await isolated {
      @Shared(.inMemory("a")) var a = 1
      let other = Shared(wrappedValue: 2, .inMemory("b"))
      var iterator = $a.changes.makeAsyncIterator()
      #expect(await iterator.take() == 1)
      $a = other
      #expect(await iterator.take() == 2)
      other.withLock { $0 = 3 }
      #expect(await iterator.take() == 3)
    }
  }

  @Test func aReleasedIteratorStopsObserving() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      do {
        let n = Shared(wrappedValue: 0, TestKey("n", storage: storage))
        var iterator = n.changes.makeAsyncIterator()
        _ = await iterator.take()
        #expect(storage.activeSubscriptions == 1)
      }
      // With no holder and no iterator left, nothing may keep the reference (and so the key's
      // subscription) alive.
      await expectEventually(timeout: .seconds(30)) { storage.activeSubscriptions == 0 }
    }
  }
}
