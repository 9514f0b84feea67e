import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

/// The conformance suite passes a correct strategy and fails broken ones.
@Suite(.tetherBootstrap()) struct StrategyConformanceTests {
  @Test func aCorrectStrategyWithExternalEditsPasses() async throws {
    let ledger = UUID().uuidString
    try await StrategyConformance.run(
      LedgerStrategy.self, options: "ledger = \(ledger)",
      externalEdit: { name, value in
        Ledger.named(ledger).storage(name, of: Int.self).externalChange(value)
      })
  }

  @Test func aStrategyThatForgetsSavesFails() async throws {
    try await StrategyConformance.$deadline.withValue(.seconds(2)) {
      try await withKnownIssue {
        try await StrategyConformance.run(Broken<Forgetful>.self)
      } matching: {
        $0.isFailedCheck("round trip:")
      }
    }
  }

  @Test func aStrategyWhoseSubscriptionsIgnoreCancellationFails() async throws {
    let ledger = UUID().uuidString
    try await StrategyConformance.$deadline.withValue(.seconds(2)) {
      try await withKnownIssue {
        try await StrategyConformance.run(
          Broken<Uncancellable>.self, options: "ledger = \(ledger)",
          externalEdit: { name, value in Uncancellable.edit(ledger, name, value) })
      } matching: {
        $0.isFailedCheck("cancellation:")
      }
    }
  }

  @Test func aStrategyThatNeverResumesSavesFails() async throws {
    try await StrategyConformance.$deadline.withValue(.seconds(2)) {
      try await withKnownIssue {
        try await StrategyConformance.run(Broken<Silent>.self)
      } matching: {
        $0.isFailedCheck("round trip:", "continuations:")
      }
    }
  }

  @Test func badOptionsAreReportedWithTheirLine() async throws {
    let error = await #expect(throws: TetherError.self) {
      try await StrategyConformance.run(LedgerStrategy.self, options: "\n[not allowed")
    }
    // Every error of the config is thrown at once: the line that does not parse first, then
    // the ledger it leaves the strategy without.
    #expect(
      error?.all.map(\.description) == [
        #"<ledger conformance options>:3: expected "]" to close the section header"#,
        #"<ledger conformance options>: option "ledger": is required"#,
      ])
  }
}

/// A strategy made of one broken kind of key.
private struct Broken<Flaw: BrokenKeyFlaw>: PersistenceStrategy {
  static var kind: String { "broken" }
  let ledger: String

  init(options: StrategyOptions) throws { ledger = options["ledger"] ?? "default" }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    BrokenKey<Value, Flaw>(
      name: name, storage: Ledger.named("broken-\(ledger)").storage(name, of: Value.self))
  }
}

private protocol BrokenKeyFlaw: Sendable {}
private enum Forgetful: BrokenKeyFlaw {}
private enum Silent: BrokenKeyFlaw {}
private enum Uncancellable: BrokenKeyFlaw {
  static func edit(_ ledger: String, _ name: String, _ value: Int) {
    Ledger.named("broken-\(ledger)").storage(name, of: Int.self).externalChange(value)
  }
}

private struct BrokenKey<Value: Sendable, Flaw: BrokenKeyFlaw>: SharedKey {
  let name: String
  let storage: TestStorage<Value>

  var id: String { name }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    TestKey(name, storage: storage).load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    let subscription = TestKey(name, storage: storage)
      .subscribe(context: context, subscriber: subscriber)
    guard Flaw.self == Uncancellable.self else { return subscription }
    Keeper.keep(subscription)
    return SharedSubscription {}
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    if Flaw.self == Forgetful.self { return continuation.resume() }
    if Flaw.self == Silent.self { return }
    TestKey(name, storage: storage).save(value, context: context, continuation: continuation)
  }
}

/// Keeps subscriptions alive forever, as a strategy that ignores cancellation would.
private enum Keeper {
  private static let kept = Mutex<[SharedSubscription]>([])
  static func keep(_ subscription: SharedSubscription) {
    kept.withLock { $0.append(subscription) }
  }
}

extension Issue {
  /// Whether this is one of the conformance suite's checks whose comment starts with one of
  /// `prefixes`, or the `noValue` error a failed round trip ends the run with.
  fileprivate func isFailedCheck(_ prefixes: String...) -> Bool {
    if case .noValue? = error as? TetherError { return prefixes.contains("round trip:") }
    return comments.contains { comment in prefixes.contains { comment.rawValue.hasPrefix($0) } }
  }
}
