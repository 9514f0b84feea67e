import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// `Shared.transaction` as every key sees it: in memory, forwarded by a registered key, refused
/// by a key that cannot run one, through projections.
@Suite(.tetherBootstrap()) struct TransactionTests {
  struct Refused: Error {}

  struct Settings: Equatable, Sendable {
    var count = 0
    var name = "a"
  }

  static func memory<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async throws -> R {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self],
      operation: body)
  }

  /// DESIGN §2: 1,000 tasks × 10 increments, here half of them transactions, sum exactly.
  @Test func thousandTasksMixingTransactionsAndWithLockLoseNothing() async throws {
    try await Self.memory {
      let counter = Shared(wrappedValue: 0, .inMemory("counter"))
      try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<1_000 {
          group.addTask {
            for step in 0..<10 {
              if (task + step).isMultiple(of: 2) {
                try await counter.transaction { $0 += 1 }
              } else {
                counter.withLock { $0 += 1 }
              }
            }
          }
        }
        try await group.waitForAll()
      }
      #expect(counter.wrappedValue == 10_000)
    }
  }

  /// The body's result comes back, even an optional `nil`; every holder shows the value, and
  /// Observation hears of it once.
  @Test func theResultComesBackAndEveryHolderShowsTheValue() async throws {
    try await Self.memory {
      let one = Shared(wrappedValue: 1, .inMemory("x"))
      let other = Shared(wrappedValue: 0, .inMemory("x"))
      let changes = Atomic(0)
      withObservationTracking {
        _ = other.wrappedValue
      } onChange: {
        changes.add(1, ordering: .relaxed)
      }
      let doubled = try await one.transaction { value -> Int in
        value *= 2
        return value
      }
      #expect(doubled == 2)
      #expect(other.wrappedValue == 2)
      #expect(changes.load(ordering: .relaxed) == 1)
      let nothing: Int? = try await one.transaction { _ in nil }
      #expect(nothing == nil)
    }
  }

  @Test func aThrowingBodyChangesNothing() async throws {
    try await Self.memory {
      let value = Shared(wrappedValue: 5, .inMemory("x"))
      await #expect(throws: Refused.self) {
        try await value.transaction { value in
          value = 9
          throw Refused()
        }
      }
      #expect(value.wrappedValue == 5)
      #expect(Shared(wrappedValue: 0, .inMemory("x")).wrappedValue == 5)
    }
  }

  /// A registered key runs its transaction through the key it resolves to.
  @Test func aRegisteredKeyForwardsToItsKey() async throws {
    try await Self.memory {
      let registered = Shared(wrappedValue: 1, .registered("launches"))
      try await registered.transaction { $0 += 1 }
      #expect(Shared(wrappedValue: 0, .inMemory("launches")).wrappedValue == 2)
    }
  }

  /// A key that is not a `TransactionalKey` throws, naming the key and the strategy's kind (a
  /// registered key's) or the key's type (a key used directly); nothing changes.
  @Test func aKeyWithoutTransactionsThrowsNamingItsKind() async throws {
    let config = "[keys]\n* = ledger\n[strategy.ledger]\nledger = \(UUID().uuidString)\n"
    try await TetherSystem.withBootstrap(
      configuration: .string(config), strategies: [LedgerStrategy.self]
    ) {
      let registered = Shared(wrappedValue: 1, .registered("x"))
      await #expect(throws: TetherError.notTransactional(key: "x", kind: "ledger")) {
        try await registered.transaction { $0 += 1 }
      }
      #expect(registered.wrappedValue == 1)
      let direct = Shared(wrappedValue: 1, TestKey("y", storage: TestStorage<Int>()))
      await #expect(throws: TetherError.notTransactional(key: ".test(\"y\")", kind: "TestKey")) {
        try await direct.transaction { $0 += 1 }
      }
    }
  }

  /// A value without a key has no store: the body runs on it as `withLock`'s would.
  @Test func aValueWithoutAKeyRunsTheBodyInPlace() async throws {
    let value = Shared(value: 1)
    try await value.transaction { $0 += 1 }
    #expect(value.wrappedValue == 2)
  }

  /// Through a projection, the transaction is the parent's; an unwrapped optional that is
  /// `nil` in the store has nothing to change.
  @Test func projectionsRunTheParentsTransaction() async throws {
    try await Self.memory {
      let settings = Shared(wrappedValue: Settings(), .inMemory("settings"))
      try await settings.count.transaction { $0 += 3 }
      #expect(settings.wrappedValue == Settings(count: 3))
      let user = Shared<String?>(wrappedValue: "ann", .inMemory("user"))
      let name = try #require(Shared(user))
      try await name.transaction { $0 += "e" }
      #expect(user.wrappedValue == "anne")
      user.withLock { $0 = nil }
      await #expect(throws: TetherError.self) {
        try await name.transaction { $0 += "!" }
      }
      #expect(user.wrappedValue == nil)
    }
  }
}
