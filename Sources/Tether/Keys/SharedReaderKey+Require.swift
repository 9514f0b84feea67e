extension SharedReaderKey {
  /// Loads the stored value, throwing the key's error, or `noValue` when nothing is stored.
  package func loadRequired() async throws -> Value {
    let result: Result<Value?, any Error>? = await withCheckedContinuation { continuation in
      load(
        context: .userInitiated,
        continuation: LoadContinuation(subject: self) { continuation.resume(returning: $0) })
    }
    guard let value = try result?.get() else {
      throw TetherError.noValue(key: String(describing: self))
    }
    return value
  }
}
