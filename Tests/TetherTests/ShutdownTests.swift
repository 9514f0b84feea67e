import Foundation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// `TetherSystem.shutdown()` and an app's own strategy's shutdown hook.
@Suite struct ShutdownTests {
  @Test func eachStrategyInstanceOfTheScopeIsShutDownOnce() async throws {
    let first = UUID().uuidString
    let second = UUID().uuidString
    let config = """
      [keys]
      a = closing
      b = closing
      c = other

      [strategy.closing]
      name = \(first)

      [strategy.other]
      kind = closing
      name = \(second)
      """
    try await TetherSystem.withBootstrap(
      configuration: .string(config), strategies: [ClosingStrategy.self]
    ) {
      @Shared(.registered("a")) var a = 0
      @Shared(.registered("b")) var b = 0
      @Shared(.registered("c")) var c = 0
      $a.withLock { $0 = 1 }
      $c.withLock { $0 = 1 }
      #expect(ClosingStrategy.shutdowns(of: first) == 0)
      await TetherSystem.shutdown()
      #expect(ClosingStrategy.shutdowns(of: first) == 1, "once for the instance, not per key")
      #expect(ClosingStrategy.shutdowns(of: second) == 1)
      await TetherSystem.shutdown()
      #expect(ClosingStrategy.shutdowns(of: first) == 1, "a second shutdown only flushes")
      #expect(ClosingStrategy.shutdowns(of: second) == 1)
      // In-memory keys keep working afterwards.
      $b.withLock { $0 = 2 }
      #expect(b == 2)
    }
  }

  @Test func anotherScopesStrategiesAreNotShutDown() async throws {
    let outer = UUID().uuidString
    let inner = UUID().uuidString
    let config = { (name: String) in "[keys]\n* = closing\n[strategy.closing]\nname = \(name)" }
    try await TetherSystem.withBootstrap(
      configuration: .string(config(outer)), strategies: [ClosingStrategy.self]
    ) {
      try await TetherSystem.withBootstrap(
        configuration: .string(config(inner)), strategies: [ClosingStrategy.self]
      ) {
        await TetherSystem.shutdown()
      }
      #expect(ClosingStrategy.shutdowns(of: inner) == 1)
      #expect(ClosingStrategy.shutdowns(of: outer) == 0)
    }
  }
}

/// An app's own strategy that keeps values in memory and counts its shutdowns by the `name`
/// option of its instance.
private struct ClosingStrategy: PersistenceStrategy {
  static let kind = "closing"
  private static let counts = Mutex<[String: Int]>([:])

  let name: String

  init(options: StrategyOptions) throws {
    guard let name = options["name"] else { throw options.invalid("name", "is required") }
    self.name = name
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    InMemoryKey<Value>.inMemory("\(self.name):\(name)")
  }

  func shutdown() async {
    Self.counts.withLock { $0[name, default: 0] += 1 }
  }

  static func shutdowns(of name: String) -> Int {
    counts.withLock { $0[name] ?? 0 }
  }
}
