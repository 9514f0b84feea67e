public import Testing
public import Tether

/// Runs each test (each case of a parameterized one) in a bootstrap of its own, as
/// `TetherSystem.withBootstrap` does, so tests in parallel never share values, references or
/// pending writes, and a test's throttled writes are on disk when it ends.
///
/// ```swift
/// @Suite(.tetherBootstrap(
///   configuration: .string("[keys]\ncount = memory"), strategies: [InMemoryStrategy.self]))
/// struct CounterTests {
///   @Test func counts() {
///     @Shared(.registered("count")) var count = 0
///     $count.withLock { $0 += 1 }
///     #expect(count == 1)
///   }
/// }
/// ```
///
/// Without arguments the bootstrap maps no names: direct keys (`.inMemory`, `.fileStorage`,
/// `.defaults`) work, and registered ones report `unmappedKey`.
public struct TetherBootstrapTrait: TestTrait, SuiteTrait, TestScoping {
  let configuration: TetherConfiguration
  let strategies: [any PersistenceStrategy.Type]

  /// Applied to a suite, it reaches every test in it.
  public var isRecursive: Bool { true }

  /// Runs one test case inside `TetherSystem.withBootstrap`; suites and test functions pass
  /// through, so each case gets its own scope.
  public func provideScope(
    for test: Test, testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    // A suite, or a test function around its cases: the scope belongs to each case.
    guard testCase != nil else { return try await function() }
    try await TetherSystem.withBootstrap(configuration: configuration, strategies: strategies) {
      try await function()
    }
  }
}

extension Trait where Self == TetherBootstrapTrait {
  /// A bootstrap of its own for each test; see ``TetherBootstrapTrait``.
  public static func tetherBootstrap(
    configuration: TetherConfiguration = .string(""),
    strategies: [any PersistenceStrategy.Type] = []
  ) -> Self {
    TetherBootstrapTrait(configuration: configuration, strategies: strategies)
  }
}
