/// What a key's `load` resumes, exactly once, from any thread.
///
/// A continuation that is never resumed is reported (logged at error level, naming the key) and
/// the caller awaiting it goes on; one that is resumed twice is reported and the second result
/// is ignored.
public struct LoadContinuation<Value: Sendable>: Sendable {
  private let box: LoadBox<Value>

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

  package init(
    subject: any Sendable,
    deliver: @escaping @Sendable (Result<Value?, any Error>?) -> Void
  ) {
    self.box = LoadBox(subject: subject, deliver: deliver)
  }

  /// Resumes with a loaded value.
  public func resume(returning value: Value) { box.resume(.success(value)) }

  /// Resumes with an error; the shared value keeps its current value and sets `loadError`.
  public func resume(throwing error: any Error) { box.resume(.failure(error)) }

  /// Resumes saying nothing is stored: the shared value uses its default.
  public func resumeReturningInitialValue() { box.resume(.success(nil)) }

  /// Resumes with a result; `.success(nil)` means "nothing is stored".
  public func resume(with result: Result<Value?, any Error>) { box.resume(result) }
}

/// The object whose life is the continuation's: it delivers once, or `nil` when dropped.
private final class LoadBox<Value: Sendable>: Sendable {
  private let once: ResumeOnce
  private let deliver: @Sendable (Result<Value?, any Error>?) -> Void

  init(subject: any Sendable, deliver: @escaping @Sendable (Result<Value?, any Error>?) -> Void) {
    self.once = ResumeOnce(subject: subject, operation: "load")
    self.deliver = deliver
  }

  func resume(_ result: Result<Value?, any Error>) {
    if once.claim() { deliver(result) }
  }

  deinit {
    if once.isDroppedUnresumed() { deliver(nil) }
  }
}
