import Foundation
import Testing
import Tether
import TetherLocking

/// The checks, sharing one strategy instance and a run-unique suffix for key names so that
/// stores surviving from an earlier run cannot decide a result. Each check uses names of its
/// own, so what one leaves stored (or failed to store) never decides another.
struct Checks: Sendable {
  let strategy: any PersistenceStrategy
  let externalEdit: (@Sendable (_ name: String, _ value: Int) async throws -> Void)?
  let deadline: Duration
  let sourceLocation: SourceLocation
  let findings: Findings
  let suffix = UUID().uuidString.prefix(8).lowercased()

  /// Loading and subscriptions, through ``readerKey(_:as:)`` and `SharedReader`s only: all a
  /// strategy whose keys can only be read can pass. Its run calls this part alone, then
  /// ``reportRepeatedResumes()``, with `readerKey` asking the strategy for its reader key.
  func readPart() async {
    await isolated("loads") { try await loads() }
    await isolated("loads") { try await loadsOfEdits() }
    await isolated("external") { try await externalChanges() }
    await isolated("cancellation") { try await cancellation() }
  }

  /// Everything that saves, for a strategy whose keys are `SharedKey`s.
  func writePart() async {
    await isolated("continuations") { try await saveContinuations() }
    await isolated("registered") { try registered() }
    await isolated("sharing") { try sharing() }
    await isolated("first default") { try firstDefault() }
    await isolated("values") { await values() }
    await isolated("round trip") { try await roundTrip() }
    await isolated("optional") { try await optional() }
    await isolated("errors") { try await errors() }
    await isolated("concurrency") { try await concurrency() }
    await isolated("echo") { try await echo() }
    await isolated("delivery") { try await delivery(.withLock) }
    await isolated("delivery save") { try await delivery(.save) }
    await isolated("transactions") { try await transactions() }
    await isolated("resets") { try await resets() }
  }

  /// Runs `check`, recording what it throws, and giving up on it (recorded too) when it has not
  /// finished long after its own expectations would have: a key that keeps a continuation
  /// forever leaves the awaiting caller waiting forever, and must not stop the run.
  func isolated(_ check: String, _ body: @escaping @Sendable () async throws -> Void) async {
    let limit = max(deadline * 12, .seconds(30))
    let outcome = await FirstOf<Result<Void, any Error>?>.outcome(within: limit, else: nil) {
      finish in
      // A child of no task group, so that a check stuck in the strategy can be left behind;
      // it inherits the test's task-locals, so its issues are the test's.
      Task {
        do {
          try await body()
          finish(.success(()))
        } catch {
          finish(.failure(error))
        }
      }
    }
    switch outcome {
    case .success: break
    case .failure(let error):
      expect(false, "\(check): the check stopped at an error the strategy threw: \(error)")
    case nil:
      expect(
        false,
        "\(check): the check did not finish within \(limit); the strategy keeps an operation waiting (a continuation it neither resumes nor releases?)"
      )
    }
  }

  func name(_ check: String) -> String { "\(check)_\(suffix)" }

  /// The registered key for `check`, resolved through the bootstrap's config.
  func key(_ check: String) throws -> any SharedKey<Int> {
    RegisteredKey<Int>(name(check))
  }

  /// The registered key for `check`, of another value type.
  func key<Value: Sendable>(_ check: String, as type: Value.Type) -> any SharedKey<Value> {
    RegisteredKey<Value>(name(check))
  }

  /// The strategy's own key for `check`, bypassing the registry.
  func directKey(_ check: String) throws -> any SharedKey<Int> {
    try directKey(check, as: Int.self)
  }

  /// The strategy's own key for `check` of `type`, bypassing the registry.
  func directKey<Value: Sendable>(
    _ check: String, as type: Value.Type
  ) throws
    -> any SharedKey<Value>
  {
    try strategy.key(named: name(check), as: type, options: StrategyOptions())
  }

  /// The strategy's key for `check` as the read part uses it: only `load` and `subscribe`.
  func readerKey<Value: Sendable>(
    _ check: String, as type: Value.Type
  ) throws
    -> any SharedReaderKey<Value>
  {
    try strategy.keyForReading(named: name(check), as: type, options: StrategyOptions())
  }

  /// A read-only strategy's keys under `@Shared`: changes stay in this process's memory, and
  /// `saveError` says the key only reads.
  func readOnlyHolders() async throws {
    let holder = Shared(wrappedValue: 0, try key("read-only"))
    holder.withLock { $0 = 5 }
    expect(
      holder.wrappedValue == 5,
      "read only: a change of a held read-only key stays in memory (5), not \(holder.wrappedValue)")
    await eventually(
      "read only: a change of a read-only key sets saveError to TetherError.readOnly, not \(String(describing: holder.saveError))"
    ) {
      guard case .readOnly? = holder.saveError as? TetherError else { return false }
      return true
    }
  }

  func expect(_ condition: Bool, _ comment: Comment) {
    #expect(condition, comment, sourceLocation: sourceLocation)
  }

  func fail(_ comment: Comment) {
    Issue.record(comment, sourceLocation: sourceLocation)
  }

  func eventually(_ comment: Comment, _ condition: () -> Bool) async {
    await expectEventually(
      timeout: deadline, comment, sourceLocation: sourceLocation, condition)
  }
}

/// What the checks found that is reported at the end of a run: the value types skipped, the
/// checks that could not be made, and continuations resumed more than once (a second resume can come any time after the first).
final class Findings: Sendable {
  private let state = UnfairMutex<
    (skipped: [StrategyConformance.SkippedType], unchecked: [String], repeats: [String])
  >(([], [], []))

  var skipped: [StrategyConformance.SkippedType] { state.withLock { $0.skipped } }
  var unchecked: [String] { state.withLock { $0.unchecked } }
  var repeats: [String] { state.withLock { $0.repeats } }

  func skip(_ type: String, because reason: String) {
    state.withLock { $0.skipped.append(.init(type: type, reason: reason)) }
  }

  /// Notes that a check could not be made against the strategy, and why.
  func leaveUnchecked(_ why: String) {
    state.withLock { $0.unchecked.append(why) }
  }

  /// Notes that the continuation `what` was resumed again.
  func repeated(_ what: String) {
    state.withLock { $0.repeats.append(what) }
  }
}

/// The first of several outcomes to arrive: a continuation's resume, its release, or the
/// deadline.
final class FirstOf<Outcome: Sendable>: Sendable {
  private enum State {
    case waiting(CheckedContinuation<Outcome, Never>?)
    case done(Outcome)
  }

  private let state = UnfairMutex<State>(.waiting(nil))

  /// Delivers `outcome` if it is the first.
  func finish(_ outcome: Outcome) {
    let waiting = state.withLock { state -> CheckedContinuation<Outcome, Never>?? in
      guard case .waiting(let continuation) = state else { return nil }
      state = .done(outcome)
      return .some(continuation)
    }
    if case .some(.some(let continuation)) = waiting { continuation.resume(returning: outcome) }
  }

  private func wait(_ continuation: CheckedContinuation<Outcome, Never>) {
    let done = state.withLock { state -> Outcome? in
      switch state {
      case .waiting:
        state = .waiting(continuation)
        return nil
      case .done(let outcome): return outcome
      }
    }
    if let done { continuation.resume(returning: done) }
  }

  /// Starts `operation`, handing it the function that delivers its outcome, and returns the
  /// first outcome delivered, or `late` when none comes within `limit`.
  static func outcome(
    within limit: Duration, else late: Outcome,
    _ operation: (@escaping @Sendable (Outcome) -> Void) -> Void
  ) async -> Outcome {
    let first = FirstOf<Outcome>()
    let timer = Task {
      do {
        try await Task.sleep(for: limit)
      } catch {
        return  // an outcome came first
      }
      first.finish(late)
    }
    defer { timer.cancel() }
    operation { first.finish($0) }
    return await withCheckedContinuation { first.wait($0) }
  }
}
