import Tether
import TetherInMemory
import TetherTesting

struct Settings: Equatable, Sendable {
  var theme = "light"
  var fontSize = 12
  let id = 1
}

/// Not `Equatable`: every `withLock` counts as a change.
struct Opaque: Sendable {
  var count = 0
}

struct Boom: Error, Equatable {
  var code = 1
}

extension SharedKey where Self == InMemoryKey<Int>.Default {
  static var count: Self { Self[.inMemory("count"), default: 7] }
}

/// Runs `body` in a bootstrap of its own that keeps every registered key in memory.
func isolated<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> R
) async throws -> R {
  try await TetherSystem.withBootstrap(
    configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self],
    operation: body)
}

extension AsyncIteratorProtocol where Failure == Never {
  /// The next element of a sequence that cannot fail.
  mutating func take() async -> Element? {
    await next(isolation: nil)
  }
}
