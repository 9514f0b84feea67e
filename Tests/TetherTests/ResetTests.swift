import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// `Shared.reset` as every reference sees it: forwarded by a registered key, refused by a key
/// that cannot remove its value, by a projection and by a value with no key, and passed on by
/// an unwrapped optional to its parent.
@Suite(.tetherBootstrap()) struct ResetTests {
  struct Settings: Equatable, Sendable {
    var count = 0
    var name = "a"
  }

  /// A registered key resets through the key it resolves to: holders of both show the default.
  @Test func aRegisteredKeyForwardsToItsKey() async throws {
    try await TransactionTests.memory {
      let registered = Shared(wrappedValue: 1, .registered("launches"))
      let direct = Shared(wrappedValue: 0, .inMemory("launches"))
      registered.withLock { $0 = 5 }
      try await registered.reset()
      #expect(registered.wrappedValue == 1 && direct.wrappedValue == 1)
      await #expect(throws: TetherError.noValue(key: #".inMemory("launches")"#)) {
        _ = try await Shared<Int>(require: .inMemory("launches"))
      }
    }
  }

  /// A key that is not a `ResettableKey` throws, naming the key and the strategy's kind (a
  /// registered key's) or the key's type (a key used directly); nothing changes.
  @Test func aKeyThatCannotResetThrowsNamingItsKind() async throws {
    let config = "[keys]\n* = ledger\n[strategy.ledger]\nledger = \(UUID().uuidString)\n"
    try await TetherSystem.withBootstrap(
      configuration: .string(config), strategies: [LedgerStrategy.self]
    ) {
      let registered = Shared(wrappedValue: 1, .registered("x"))
      let storage = TestStorage<Int>(3)
      let direct = Shared(wrappedValue: 1, TestKey("y", storage: storage))
      registered.withLock { $0 = 2 }
      await #expect(throws: TetherError.notResettable(key: "x", kind: "ledger")) {
        try await registered.reset()
      }
      #expect(registered.wrappedValue == 2)
      await #expect(throws: TetherError.notResettable(key: ".test(\"y\")", kind: "TestKey")) {
        try await direct.reset()
      }
      #expect(direct.wrappedValue == 3 && storage.value == 3)
    }
  }

  /// A projection is part of a stored value, and a value with no key has nothing stored: both
  /// throw, naming themselves, and change nothing.
  @Test func aProjectionAndAValueWithNoKeyThrow() async throws {
    try await TransactionTests.memory {
      let settings = Shared(wrappedValue: Settings(count: 2), .inMemory("settings"))
      let plain = Shared(value: 7)
      await #expect {
        try await settings.count.reset()
      } throws: { error in
        guard case .notResettable(_, "projection") = error as? TetherError else { return false }
        return "\(error)".contains("cannot be reset: it is part of a stored value")
      }
      #expect(settings.wrappedValue == Settings(count: 2))
      await #expect(throws: TetherError.notResettable(key: "value: 7", kind: "value")) {
        try await plain.reset()
      }
      #expect(plain.wrappedValue == 7)
    }
  }

  /// An unwrapped optional resets its parent: the same key, so the same stored value.
  @Test func anUnwrappedOptionalResetsItsParent() async throws {
    try await TransactionTests.memory {
      let user = Shared<String?>(wrappedValue: nil, .inMemory("user"))
      let changes = Atomic(0)
      user.withLock { $0 = "ann" }
      let name = try #require(Shared(user))
      withObservationTracking {
        _ = user.wrappedValue
      } onChange: {
        changes.add(1, ordering: .relaxed)
      }
      try await name.reset()
      #expect(user.wrappedValue == nil)
      #expect(changes.load(ordering: .relaxed) == 1)
      await #expect(throws: TetherError.self) {
        _ = try await Shared<String?>(require: .inMemory("user"))
      }
    }
  }
}
