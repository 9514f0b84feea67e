import Foundation
import Synchronization
import Testing
import Tether
import TetherEnvironment
import TetherTesting

struct Note: Codable, Sendable, Equatable {
  var text = ""
}

/// What the conformance suite's read part would check of a read-only strategy, checked here by
/// hand on the strategy's own reader keys (`keyForReading`) and through the registry.
@Suite struct EnvironmentReadPartTests {
  /// Every result `key`'s `load` resumed with, by the time it returned (the environment is read
  /// on the caller's thread).
  static func loads<V: Sendable>(
    _ key: any SharedReaderKey<V>, initial: V
  ) -> [Result<V?, any Error>] {
    let results = Mutex<[Result<V?, any Error>]>([])
    key.load(
      context: .initialValue(initial),
      continuation: LoadContinuation("\(key)") { result in results.withLock { $0.append(result) } })
    return results.withLock { $0 }
  }

  static func readerKey<V: Sendable>(
    _ name: String, _ type: V.Type, _ variables: Variables
  ) throws -> any SharedReaderKey<V> {
    try EnvironmentStrategy(options: StrategyOptions(["prefix": variables.prefix]))
      .keyForReading(named: name, as: type, options: StrategyOptions())
  }

  @Test func aLoadResumesExactlyOnceWithTheValueTheDefaultOrTheError() throws {
    let variables = Variables()
    try variables.set("set", "42")
    try variables.set("bad", "x")
    let set = Self.loads(try Self.readerKey("set", Int.self, variables), initial: 0)
    #expect(set.count == 1)
    #expect((try set.first?.get()) == 42)
    let unset = Self.loads(try Self.readerKey("unset", Int.self, variables), initial: 0)
    #expect(unset.count == 1)
    #expect((try unset.first?.get()) == .some(nil), "unset: the initial value")
    let bad = Self.loads(try Self.readerKey("bad", Int.self, variables), initial: 0)
    #expect(bad.count == 1)
    #expect(throws: TetherError.self) { try bad.first?.get() }
  }

  @Test func itsSubscriptionDeliversNothingAndCancels() throws {
    let variables = Variables()
    let deliveries = Mutex(0)
    let key = try Self.readerKey("watched", String.self, variables)
    let subscription = key.subscribe(
      context: .initialValue(""),
      subscriber: SharedSubscriber(callback: { _ in deliveries.withLock { $0 += 1 } }))
    try variables.set("watched", "changed")
    subscription.cancel()
    #expect(deliveries.withLock { $0 } == 0)
  }

  @Test func stringOptionalAndALargeArrayRead() async throws {
    let variables = Variables()
    try variables.set("text", "hello, world")
    try variables.set("none", "")
    let large = Array(0..<20_000)
    let literal = "[" + large.map(String.init).joined(separator: ", ") + "]"
    #expect(literal.utf8.count > 100_000)
    try variables.set("large", literal)
    try await variables.withBootstrap {
      @SharedReader(.registered("text")) var text = ""
      @SharedReader(.registered("none")) var none: Int? = 1
      @SharedReader(.registered("absent")) var absent: Int? = 1
      @SharedReader(.registered("large")) var array: [Int] = []
      #expect(text == "hello, world")
      #expect(none == nil, "an empty variable is nil")
      #expect(absent == 1, "an unset variable is the default")
      #expect(array == large)
    }
  }

  @Test func aCodableStructIsUnsupportedAndNamed() throws {
    #expect(throws: TetherError.unsupportedType("Note", key: "note", kind: "environment")) {
      try Self.readerKey("note", Note.self, Variables())
    }
  }

  @Test func holdersShareOneReferenceAndTheFirstDefaultWins() async throws {
    try await Variables().withBootstrap {
      @SharedReader(.registered("x")) var first = 1
      @SharedReader(.registered("x")) var second = 2
      #expect(second == 1)
      @Shared(.registered("x")) var writer = 3
      $writer.withLock { $0 = 4 }
      #expect(first == 4 && second == 4)
    }
  }

  @Test func aReloadReadsTheVariableAgain() async throws {
    let variables = Variables()
    try variables.set("level", "1")
    try await variables.withBootstrap {
      @SharedReader(.registered("level")) var level = 0
      #expect(level == 1)
      try variables.set("level", "2")
      #expect(level == 1, "no deliveries: the environment changed inside this process")
      try await $level.load()
      #expect(level == 2)
      try variables.set("level", nil)
      try await $level.load()
      #expect(level == 0, "unset again: the default")
    }
  }

  @Test func manyConcurrentReadersSeeOneValue() async throws {
    let variables = Variables()
    try variables.set("n", "7")
    try await variables.withBootstrap {
      let seen = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<200 {
          group.addTask {
            let reader = SharedReader(wrappedValue: 0, RegisteredKey<Int>("n"))
            try await reader.load()
            return reader.wrappedValue
          }
        }
        return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
      }
      #expect(seen == [7])
    }
  }
}
