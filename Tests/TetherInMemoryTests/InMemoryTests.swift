import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite struct InMemoryTests {
  @Test func conformance() async throws {
    try await StrategyConformance.run(InMemoryStrategy.self)
  }

  @Test func theStrategysKeyAndInMemoryAreOneReference() async throws {
    try await TetherScope.withIsolatedScope {
      let strategy = try InMemoryStrategy(options: StrategyOptions())
      let viaStrategy = Shared(
        wrappedValue: 0, try strategy.key(named: "x", as: Int.self, options: StrategyOptions()))
      @Shared(.inMemory("x")) var direct = 1
      #expect(direct == 0)
      $direct.withLock { $0 = 2 }
      #expect(viaStrategy.wrappedValue == 2)
    }
  }

  @Test func valuesBelongToTheirScope() async {
    await TetherScope.withIsolatedScope {
      @Shared(.inMemory("x")) var outer = 1
      $outer.withLock { $0 = 2 }
      await TetherScope.withIsolatedScope {
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
    try await TetherScope.withIsolatedScope {
      let strategy = try InMemoryStrategy(options: StrategyOptions())
      let key = try strategy.key(named: "f", as: NotCodable.self, options: StrategyOptions())
      let shared = Shared(wrappedValue: NotCodable { 3 }, key)
      #expect(shared.wrappedValue.f() == 3)
    }
  }
}
