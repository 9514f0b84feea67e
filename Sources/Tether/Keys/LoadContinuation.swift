/// What a key's `load` resumes, exactly once, from any thread.
///
/// A continuation that is never resumed is reported (logged at error level, naming the key) and
/// the caller awaiting it goes on; one that is resumed twice is reported and the second result
/// is ignored.
public struct LoadContinuation<Value: Sendable>: Sendable {
  @usableFromInline let box: LoadBox<Value>

  /// Creates a continuation that hands its result to `callback`.
  ///
  /// Keys that wrap other keys use this to forward or transform a load; `nil` stands for
  /// "the initial value". `description` names the key in diagnostics.
  public init(
    _ description: String,
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void
  ) {
    self.box = LoadBox(subject: description) { result in
      if let result { callback(result) }
    }
  }

  /// A continuation whose result is `nil` when it is dropped unresumed.
  package init(
    subject: any Sendable,
    deliver: @escaping @Sendable (Result<Value?, any Error>?) -> Void
  ) {
    self.box = LoadBox(subject: subject, deliver: deliver)
  }

  /// A continuation whose result is `nil` when it is dropped unresumed, and which calls
  /// `repeated` each time it is resumed again (the later result still ignored): the conformance
  /// suite's probe, which fails a key that resumes twice.
  package init(
    subject: any Sendable,
    deliver: @escaping @Sendable (Result<Value?, any Error>?) -> Void,
    repeated: @escaping @Sendable () -> Void
  ) {
    self.box = LoadBox(subject: subject, deliver: deliver, repeated: repeated)
  }

  /// A continuation that hands its result to `reference` (a key's initial load), whose key
  /// reports name; `since` is the reference's count of local changes when the load started.
  @inlinable
  init(reference: StoredReference<Value>, since: UInt64) {
    self.box = LoadBox(reference: reference, since: since)
  }

  /// Resumes with a loaded value.
  public func resume(returning value: Value) { box.resume(returning: value) }

  /// Resumes with an error; the shared value keeps its current value and sets `loadError`.
  public func resume(throwing error: any Error) { box.resume(throwing: error) }

  /// Resumes saying nothing is stored: the shared value uses its default.
  public func resumeReturningInitialValue() { box.resumeReturningInitialValue() }

  /// Resumes saying the stored value cannot be read (a line of a file that does not parse), and
  /// `value` stands in for it: the shared value takes `value` — its default when `nil` — and
  /// sets `loadError` to `error`, as one change. A continuation made with a callback (a key
  /// forwarding a load, an explicit `load()`) is told `error` alone, as by
  /// ``resume(throwing:)``.
  package func resume(fallingBackTo value: Value?, error: any Error) {
    box.resume(fallingBackTo: value, error: error)
  }

  /// Resumes with a result; `.success(nil)` means "nothing is stored".
  public func resume(with result: Result<Value?, any Error>) {
    switch result {
    case .success(let value?): box.resume(returning: value)
    case .success(nil): box.resumeReturningInitialValue()
    case .failure(let error): box.resume(throwing: error)
    }
  }
}

/// The object whose life is the continuation's: it delivers once, or says it was dropped.
///
/// A reference is told each outcome by its own method rather than through a
/// `Result<Value?, any Error>?`: in unspecialized code every such value has its three types'
/// metadata looked up at run time.
@usableFromInline
final class LoadBox<Value: Sendable>: Sendable {
  /// A closure to tell and what its reports name, as an object: the box then holds two
  /// optional references, whose layout needs no metadata, where an enum with the closure's
  /// generic type looked up three (an `Optional` twice) at every resume and deinit.
  final class Closure: Sendable {
    let subject: any Sendable
    let deliver: @Sendable (Result<Value?, any Error>?) -> Void
    let repeated: (@Sendable () -> Void)?

    init(
      subject: any Sendable, deliver: @escaping @Sendable (Result<Value?, any Error>?) -> Void,
      repeated: (@Sendable () -> Void)?
    ) {
      self.subject = subject
      self.deliver = deliver
      self.repeated = repeated
    }
  }

  private let once = ResumeOnce(operation: "load")
  /// A reference's reports name its key, asked for only when reporting (a key boxed as
  /// `any Sendable` per load was an allocation per file key).
  private let reference: StoredReference<Value>?
  /// The reference's count of local changes when the load started: a value read before a later
  /// change is not applied over it.
  private let since: UInt64
  private let closure: Closure?

  @usableFromInline
  init(reference: StoredReference<Value>, since: UInt64) {
    self.reference = reference
    self.since = since
    self.closure = nil
  }

  init(
    subject: any Sendable, deliver: @escaping @Sendable (Result<Value?, any Error>?) -> Void,
    repeated: (@Sendable () -> Void)? = nil
  ) {
    self.reference = nil
    self.since = 0
    self.closure = Closure(subject: subject, deliver: deliver, repeated: repeated)
  }

  private var subject: any Sendable {
    reference?.keySubject ?? closure?.subject ?? "a load"
  }

  func resume(returning value: Value) {
    guard once.claim(subject: subject) else { return repeatedResume() }
    if let reference { return reference.finishLoad(returning: value, since: since) }
    deliver(returning: value)
  }

  func resumeReturningInitialValue() {
    guard once.claim(subject: subject) else { return repeatedResume() }
    if let reference { return reference.finishLoadReturningInitialValue(since: since) }
    deliverInitialValue()
  }

  func resume(throwing error: any Error) {
    guard once.claim(subject: subject) else { return repeatedResume() }
    if let reference { return reference.finishLoad(throwing: error) }
    deliver(throwing: error)
  }

  func resume(fallingBackTo value: Value?, error: any Error) {
    guard once.claim(subject: subject) else { return repeatedResume() }
    if let reference {
      return reference.finishLoad(fallingBackTo: value, error: error, since: since)
    }
    // A callback has no way to take both: the error, which must not be lost, is what it gets.
    deliver(throwing: error)
  }

  deinit {
    guard once.isDroppedUnresumed(subject: subject) else { return }
    if let reference { return reference.finishLoadDropped() }
    deliverDropped()
  }

  // The closure's paths are functions of their own, not inlined: a function looks up the
  // metadata of the result types it builds on entry, which a box telling a reference (every
  // key's initial load) would pay for nothing.
  @inline(never)
  private func deliver(returning value: Value) { closure?.deliver(.success(value)) }

  @inline(never)
  private func deliverInitialValue() { closure?.deliver(.success(nil)) }

  @inline(never)
  private func deliver(throwing error: any Error) { closure?.deliver(.failure(error)) }

  @inline(never)
  private func deliverDropped() { closure?.deliver(nil) }

  @inline(never)
  private func repeatedResume() { closure?.repeated?() }
}
