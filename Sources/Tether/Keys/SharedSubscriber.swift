/// What a key's `subscribe` calls, as often as needed and from any thread, when the stored value
/// changes outside this process's shared references.
///
/// Every holder of the key has seen the change (and every Observation `onChange` has fired) by
/// the time a `yield` returns.
public struct SharedSubscriber<Value: Sendable>: Sendable {
  private let callback: @Sendable (Result<Value?, any Error>) -> Void
  private let onLoading: @Sendable (Bool) -> Void
  private let onSaved: @Sendable (Result<Void, any Error>) -> Void

  /// Creates a subscriber; `nil` in a result stands for "the initial value".
  ///
  /// Keys that wrap other keys use this to forward or transform deliveries.
  public init(
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void = { _ in }
  ) {
    self.callback = callback
    self.onLoading = onLoading
    self.onSaved = { _ in }
  }

  @usableFromInline
  package init(
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void,
    onSaved: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    self.callback = callback
    self.onLoading = onLoading
    self.onSaved = onSaved
  }

  /// Delivers a new value; clears `loadError` and `isLoading`.
  public func yield(_ value: Value) { callback(.success(value)) }

  /// Says the stored value is gone: holders return to their default.
  public func yieldReturningInitialValue() { callback(.success(nil)) }

  /// Delivers an error: holders keep their value and set `loadError`.
  public func yield(throwing error: any Error) { callback(.failure(error)) }

  /// Delivers a result; `.success(nil)` means "the initial value".
  public func yield(with result: Result<Value?, any Error>) { callback(result) }

  /// Sets holders' `isLoading`, for keys whose values arrive asynchronously.
  public func yieldLoading(_ isLoading: Bool = true) { onLoading(isLoading) }

  /// Tells how writing a change the holders asked for earlier went (a change the key took
  /// inline, see ``InlineSavingKey``, or one kept after a failure and written by a flush):
  /// holders clear `saveError` on success and set it on failure.
  package func yieldSaveResult(_ result: Result<Void, any Error>) { onSaved(result) }
}
