import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap()) struct InMemoryTests {
  @Test func conformance() async throws {
    try await StrategyConformance.run(InMemoryStrategy.self)
  }

  @Test func theStrategysKeyAndInMemoryAreOneReference() async throws {
    try await memoryBootstrap {
      let strategy = try InMemoryStrategy(options: StrategyOptions())
      let viaStrategy = Shared(
        wrappedValue: 0, try strategy.key(named: "x", as: Int.self, options: StrategyOptions()))
      @Shared(.inMemory("x")) var direct = 1
      #expect(direct == 0)
      $direct.withLock { $0 = 2 }
      #expect(viaStrategy.wrappedValue == 2)
    }
  }

  @Test func valuesBelongToTheirScope() async throws {
    try await memoryBootstrap {
      @Shared(.inMemory("x")) var outer = 1
      $outer.withLock { $0 = 2 }
      try await memoryBootstrap {
        @Shared(.inMemory("x")) var inner = 0
        #expect(inner == 0)
      }
      @Shared(.inMemory("x")) var again = 0
      #expect(again == 2)
    }
  }

  @Test func theStrategyReadsNoOptionsAndStoresAnyType() async throws {
    #expect(InMemoryStrategy.kind == "memory")
    struct NotCodable: Sendable { let f: @Sendable () -> Int }
    try await memoryBootstrap {
      let strategy = try InMemoryStrategy(options: StrategyOptions())
      let key = try strategy.key(named: "f", as: NotCodable.self, options: StrategyOptions())
      let shared = Shared(wrappedValue: NotCodable { 3 }, key)
      #expect(shared.wrappedValue.f() == 3)
    }
  }
}

extension InMemoryTests {
  @Test func aPerKeyOptionIsReportedWhenTheConfigLoads() async throws {
    let error = await #expect(throws: TetherError.self) {
      try await TetherSystem.withBootstrap(
        configuration: .string("[keys]\nx = memory\n[key.x]\nbogus = 1\n", origin: "t.conf"),
        strategies: [InMemoryStrategy.self]
      ) {}
    }
    #expect(error?.description == "t.conf:4: unknown option bogus in [key.x]")
  }
}

/// A bootstrap of its own in which every registered key lives in memory.
func memoryBootstrap<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> R
) async throws -> R {
  try await TetherSystem.withBootstrap(
    configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self],
    operation: body)
}

extension InMemoryTests {
  @Test func aRegisteredKeyMappedToMemoryIsTheInMemoryKey() async throws {
    try await memoryBootstrap {
      @Shared(.registered("session.token")) var token = "a"
      @Shared(.inMemory("session.token")) var direct = "b"
      #expect(direct == "a")
    }
  }
}

extension InMemoryTests {
  /// An empty cell is not a stored `nil`: an optional's default is stored like any other, and
  /// `require` finds nothing; a `nil` set later is a value a later holder keeps.
  @Test func anOptionalTellsNothingStoredFromAStoredNil() async throws {
    try await memoryBootstrap {
      @Shared(.inMemory("count")) var count: Int? = 0
      @Shared(.registered("registered")) var registered: Int? = 1
      #expect(count == 0)
      #expect(registered == 1)
      let keys: [any SharedKey<Int?>] = [
        InMemoryKey.inMemory("nothing"), RegisteredKey("nothing.either"),
      ]
      for key in keys {
        let error = await #expect(throws: TetherError.self) {
          _ = try await Shared<Int?>(require: key)
        }
        guard case .noValue? = error else {
          Issue.record("require of \(key) threw \(String(describing: error)), not noValue")
          continue
        }
      }
      do {
        @Shared(.inMemory("cleared")) var cleared: Int? = 2
        $cleared.withLock { $0 = nil }
      }
      @Shared(.inMemory("cleared")) var later: Int? = 3
      #expect(later == nil)
      let required = try await Shared<Int?>(require: .inMemory("cleared"))
      #expect(required.wrappedValue == nil)
    }
  }
}
