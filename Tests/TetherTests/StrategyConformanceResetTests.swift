import Testing
import Tether
import TetherInMemory
import TetherTesting

/// The conformance suite's reset part: it fails a strategy whose reset breaks a rule, naming
/// the rule.
@Suite(.tetherBootstrap()) struct StrategyConformanceResetTests {
  @Test func aResetThatLeavesTheValueStoredFails() async throws {
    try await withKnownIssue {
      try await StrategyConformance.run(FlawedReset<KeepsValue>.self, deadline: .seconds(1))
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.hasPrefix("reset: after a reset nothing is stored")
          || $0.rawValue.hasPrefix("reset: a change made before the reset")
      }
    }
  }

  @Test func aResetThatTellsNoHolderFails() async throws {
    try await withKnownIssue {
      try await StrategyConformance.run(FlawedReset<TellsNoOne>.self, deadline: .seconds(1))
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.hasPrefix("reset: the holder shows its default")
          || $0.rawValue.hasPrefix("reset: every holder of the key shows the default")
          || $0.rawValue.hasPrefix("reset: Observation is told")
      }
    }
  }
}

/// A strategy whose keys keep their values in memory and reset them with `Flaw`.
private struct FlawedReset<Flaw: ResetFlaw>: PersistenceStrategy {
  static var kind: String { "flawed-reset" }

  init(options: StrategyOptions) throws {}

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    FlawedResetKey<Value, Flaw>(base: .inMemory(name))
  }
}

private protocol ResetFlaw: Sendable {
  static func reset<Value>(_ base: InMemoryKey<Value>, stored: (Value?) -> Void) throws
}

/// Tells the holders nothing is stored, and removes nothing.
private enum KeepsValue: ResetFlaw {
  static func reset<Value>(_ base: InMemoryKey<Value>, stored: (Value?) -> Void) throws {
    stored(nil)
  }
}

/// Removes the value, and tells no holder.
private enum TellsNoOne: ResetFlaw {
  static func reset<Value>(_ base: InMemoryKey<Value>, stored: (Value?) -> Void) throws {
    try base.reset { _ in }
  }
}

private struct FlawedResetKey<Value: Sendable, Flaw: ResetFlaw>: ResettableKey {
  let base: InMemoryKey<Value>

  var id: InMemoryKeyID { base.id }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    base.load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    base.subscribe(context: context, subscriber: subscriber)
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    base.save(value, context: context, continuation: continuation)
  }

  func reset(stored: (Value?) -> Void) throws {
    try Flaw.reset(base, stored: stored)
  }
}
