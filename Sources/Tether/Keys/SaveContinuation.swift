/// What a key's `save` resumes, exactly once, from any thread.
///
/// The same rules as ``LoadContinuation``: a continuation never resumed or resumed twice is
/// reported, and the caller awaiting it goes on.
public struct SaveContinuation: Sendable {
  private let box: ResumeOnce<Result<Void, any Error>>

  /// Creates a continuation that hands its result to `callback`.
  ///
  /// Keys that wrap other keys use this to forward a save; `description` names the key in
  /// diagnostics.
  public init(
    _ description: String,
    callback: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    self.box = ResumeOnce(subject: description, operation: "save") { result in
      if let result { callback(result) }
    }
  }

  package init(
    subject: any Sendable,
    deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void
  ) {
    self.box = ResumeOnce(subject: subject, operation: "save", deliver: deliver)
  }

  /// Resumes saying the value was saved.
  public func resume() { box.resume(.success(())) }

  /// Resumes with the error that prevented the save; the shared value sets `saveError`.
  public func resume(throwing error: any Error) { box.resume(.failure(error)) }

  /// Resumes with a result.
  public func resume(with result: Result<Void, any Error>) { box.resume(result) }
}
