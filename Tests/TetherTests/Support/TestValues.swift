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

/// Runs `body` in a scope of its own, as `TetherSystem.withBootstrap` does for a test.
func isolated<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> R
) async rethrows -> R {
  try await TetherScope.withIsolatedScope(body)
}

extension AsyncIteratorProtocol where Failure == Never {
  /// The next element of a sequence that cannot fail.
  mutating func take() async -> Element? {
    await next(isolation: nil)
  }
}
