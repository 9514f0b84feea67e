import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// `reset()` of in-memory values: the cell emptied, every holder back to its default.
@Suite(.tetherBootstrap()) struct InMemoryResetTests {
  /// Two holders and an Observation tracker show the first default when `reset()` returns,
  /// and nothing is stored.
  @Test func everyHolderShowsTheDefaultAndTheValueIsGone() async throws {
    let first = Shared(wrappedValue: 1, .inMemory("x"))
    let second = Shared(wrappedValue: 2, .inMemory("x"))
    first.withLock { $0 = 5 }
    let observed = Atomic<Bool>(false)
    withObservationTracking {
      _ = second.wrappedValue
    } onChange: {
      observed.store(true, ordering: .relaxed)
    }
    try await second.reset()
    #expect(first.wrappedValue == 1 && second.wrappedValue == 1)
    let told = observed.load(ordering: .relaxed)
    #expect(told, "Observation was told before reset returned")
    await #expect(throws: TetherError.noValue(key: #".inMemory("x")"#)) {
      _ = try await Shared<Int>(require: .inMemory("x"))
    }
  }

  /// Once every holder has gone, the next holder's default is the value: nothing is stored.
  @Test func theNextHolderAfterTheResetHasItsOwnDefault() async throws {
    do {
      let value = Shared(wrappedValue: 1, .inMemory("y"))
      value.withLock { $0 = 5 }
      try await value.reset()
    }
    let later = Shared(wrappedValue: 9, .inMemory("y"))
    #expect(later.wrappedValue == 9)
  }

  /// A registered key mapped to `memory` resets the in-memory value; a reset of a value reset
  /// already succeeds.
  @Test func aRegisteredKeyResetsTheInMemoryValue() async throws {
    try await memoryBootstrap {
      let registered = Shared(wrappedValue: 0, .registered("session.count"))
      let direct = Shared(wrappedValue: 3, .inMemory("session.count"))
      direct.withLock { $0 = 4 }
      try await registered.reset()
      try await registered.reset()
      #expect(registered.wrappedValue == 0 && direct.wrappedValue == 0)
    }
  }
}
