import Synchronization
import Testing
import Tether

/// What a key did with a continuation the suite handed it.
enum Resumption<Success: Sendable>: Sendable {
  /// Resumed (the first time) with this result.
  case resumed(Result<Success, any Error>)
  /// Released without being resumed.
  case released
  /// Neither, within the deadline.
  case pending
}

/// Calls to the strategy's keys with continuations the suite makes: each must be resumed
/// exactly once, within the deadline. These name the broken rule directly, where a holder would
/// only show a symptom later (a default where a saved value should be).
extension Checks {
  /// Loads `key` with a continuation of the suite's, and what the key did with it; a failure to
  /// resume, or a second resume, is recorded naming the key.
  func probeLoad<Value: Sendable>(
    _ key: any SharedReaderKey<Value>, _ check: String,
    context: LoadContext<Value> = .userInitiated
  ) async -> Resumption<Value?> {
    let subject = "load continuation of \(String(describing: key)) (\(Value.self))"
    let outcome = await FirstOf<Resumption<Value?>>.outcome(within: deadline, else: .pending) {
      finish in
      key.load(
        context: context,
        continuation: LoadContinuation(
          subject: key,
          deliver: { result in finish(result.map(Resumption.resumed) ?? .released) },
          repeated: { [findings] in findings.repeated("\(check): \(subject) was resumed twice") }))
    }
    expectResumed(outcome, "\(check): \(subject)")
    return outcome
  }

  /// Saves `value` through `key` with a continuation of the suite's; `true` when the key
  /// resumed it saying the value was saved. Anything else is recorded naming the key.
  @discardableResult
  func probeSave<Value: Sendable>(
    _ key: any SharedKey<Value>, _ value: Value, context: SaveContext, _ check: String
  ) async -> Bool {
    let subject =
      "save continuation of \(String(describing: key)) (\(Value.self), context \(spelled(context)))"
    let outcome = await FirstOf<Resumption<Void>>.outcome(within: deadline, else: .pending) {
      finish in
      key.save(
        value, context: context,
        continuation: SaveContinuation(
          subject: key,
          deliver: { result in finish(result.map(Resumption.resumed) ?? .released) },
          repeated: { [findings] in findings.repeated("\(check): \(subject) was resumed twice") }))
    }
    expectResumed(outcome, "\(check): \(subject)")
    if case .resumed(.failure(let error)) = outcome {
      fail("\(check): \(subject) resumed throwing \(error): the save failed")
    }
    if case .resumed(.success) = outcome { return true }
    return false
  }

  /// `.didSet`, as in code (a `Comment`'s interpolation and a `String`'s render it unalike).
  func spelled(_ context: SaveContext) -> String {
    switch context {
    case .didSet: ".didSet"
    case .userInitiated: ".userInitiated"
    }
  }

  private func expectResumed<Success>(_ outcome: Resumption<Success>, _ subject: String) {
    switch outcome {
    case .resumed: break
    case .released:
      fail("\(subject) was never resumed: the key released it unresumed")
    case .pending:
      fail("\(subject) was never resumed within \(deadline)")
    }
  }

  /// Loads with nothing stored, with either context: resumed once, saying nothing is stored.
  func loads() async throws {
    for context in [.userInitiated, .initialValue(5)] as [LoadContext<Int>] {
      let key = try readerKey(
        "loads-\(context.initialValue == nil ? "user" : "initial")", as: Int.self)
      let outcome = await probeLoad(key, "loads", context: context)
      switch outcome {
      case .resumed(.success(nil)), .resumed(.success(5)), .released, .pending: break
      case .resumed(let result):
        fail(
          "loads: a load (context \(context)) with nothing stored must say so (or give the initial value), not resume with \(result)"
        )
      }
    }
  }

  /// Given `externalEdit`, a load gives what was stored from outside.
  func loadsOfEdits() async throws {
    guard let externalEdit else { return }
    let key = try readerKey("loads-edited", as: Int.self)
    try await externalEdit(name("loads-edited"), 11)
    switch await probeLoad(key, "loads") {
    case .resumed(.success(11)), .released, .pending: break
    case .resumed(let result):
      fail("loads: a load after an outside edit (11) must give it, not \(describe(result))")
    }
  }

  /// Saves with either context resume their continuations once, successfully.
  func saveContinuations() async throws {
    let key = try directKey("continuations")
    await probeSave(key, 7, context: .userInitiated, "continuations")
    await probeSave(key, 8, context: .didSet, "continuations")
    _ = await probeLoad(key, "continuations")
  }

  /// Reports every continuation resumed more than once during the run, after a moment for the
  /// last ones' second resumes to arrive: a strategy resumes twice on one path, typically
  /// right after the first.
  func reportRepeatedResumes() async {
    await isolated("continuations") {
      // Not a wait for an event: a window in which a second resume would be noticed.
      try await Task.sleep(for: min(deadline / 10, .milliseconds(100)))
      for repeated in Set(findings.repeats).sorted() { fail("\(repeated)") }
    }
  }
}
