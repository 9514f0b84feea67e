/// What a key's `save` resumes, exactly once, from any thread.
///
/// The same rules as ``LoadContinuation``: a continuation never resumed or resumed twice is
/// reported, and the caller awaiting it goes on.
public struct SaveContinuation: Sendable {
  private let box: SaveBox

  /// Creates a continuation that hands its result to `callback`.
  ///
  /// Keys that wrap other keys use this to forward a save; `description` names the key in
  /// diagnostics.
  public init(
    _ description: String,
    callback: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    self.box = SaveBox(subject: description) { result in
      if let result { callback(result) }
    }
  }

  package init(
    subject: any Sendable,
    deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void
  ) {
    self.box = SaveBox(subject: subject, deliver: deliver)
  }

  /// Resumes saying the value was saved.
  public func resume() { box.resume(.success(())) }

  /// Resumes with the error that prevented the save; the shared value sets `saveError`.
  public func resume(throwing error: any Error) { box.resume(.failure(error)) }

  /// Resumes with a result.
  public func resume(with result: Result<Void, any Error>) { box.resume(result) }
}

/// The object whose life is the continuation's: it delivers once, or `nil` when dropped.
private final class SaveBox: Sendable {
  private let once: ResumeOnce
  private let deliver: @Sendable (Result<Void, any Error>?) -> Void

  init(subject: any Sendable, deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void) {
    self.once = ResumeOnce(subject: subject, operation: "save")
    self.deliver = deliver
  }

  func resume(_ result: Result<Void, any Error>) {
    if once.claim() { deliver(result) }
  }

  deinit {
    if once.isDroppedUnresumed() { deliver(nil) }
  }
}
