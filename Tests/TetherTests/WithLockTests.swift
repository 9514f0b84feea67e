import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap()) struct WithLockTests {
  @Test func readingTheValueInsideItsOwnWithLockNeitherCrashesNorDeadlocks() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      @Shared(.inMemory("count")) var other = 0
      let seen = $count.withLock { value -> [Int] in
        value += 1
        return [count, other, $count.wrappedValue]
      }
      #expect(seen == [0, 0, 0])
      #expect(count == 1)

      let box = Shared(value: 0)
      let inside = box.withLock { value in
        value = 5
        return box.wrappedValue
      }
      #expect(inside == 0)
      #expect(box.wrappedValue == 5)
    }
  }

  @Test func aWithLockThatChangesNothingDoesNotSave() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 1
      $n.withLock { $0 = 1 }
      #expect(storage.saves.isEmpty)
      $n.withLock { $0 = 2 }
      #expect(storage.saves.map(\.value) == [2])
      #expect(storage.saves.map(\.context) == [.didSet])
    }
  }

  @Test func aNonEquatableValueSavesOnEveryWithLock() async throws {
    try await isolated {
      let storage = TestStorage<Opaque>()
      @Shared(TestKey("o", storage: storage)) var o = Opaque()
      $o.withLock { _ in }
      $o.withLock { $0.count += 1 }
      #expect(storage.saves.map(\.value.count) == [0, 1])
    }
  }

  @Test func aThrowingBodyChangesNothing() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 1
      #expect(throws: Boom.self) {
        try $n.withLock { value in
          value = 9
          throw Boom()
        }
      }
      #expect(n == 1)
      #expect(storage.saves.isEmpty)
    }
  }

  @Test func thousandTasksTimesTenIncrementsSumExactly() async throws {
    try await isolated {
      let keyed = Shared(wrappedValue: 0, .inMemory("count"))
      let plain = Shared(value: 0)
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<1000 {
          group.addTask {
            for _ in 0..<10 {
              keyed.withLock { $0 += 1 }
              plain.withLock { $0 += 1 }
            }
          }
        }
      }
      #expect(keyed.wrappedValue == 10_000)
      #expect(plain.wrappedValue == 10_000)
    }
  }
}
