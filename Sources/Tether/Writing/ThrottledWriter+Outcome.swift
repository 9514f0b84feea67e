/// What became of a write, and what each of its waiters is told.
extension ThrottledWriter {
  /// What became of one write.
  package enum Outcome: Sendable {
    case written
    /// Written but for the parts named (see ``WriteWaiter``), dropped for the errors given
    /// (their stored value changed first).
    case partlyWritten(dropped: [String: any Error])
    /// Not written, and never to be: what it would replace changed first (an external edit
    /// wins). Its callers are told `error`.
    case conflicted(any Error)
    /// Worth retrying: the change stays pending.
    case failed(any Error)
    /// Never writable (an unencodable value): the change is dropped.
    case rejected(any Error)
  }
}

extension ThrottledWriter.Outcome {
  /// What a waiter of `part` (`nil`: the whole change) is told: a part dropped from a write
  /// that went through gets its own error.
  func result(for part: String?) -> Result<Void, any Error> {
    switch self {
    case .written: return .success(())
    case .partlyWritten(let dropped):
      guard let part, let error = dropped[part] else { return .success(()) }
      return .failure(error)
    case .failed(let error), .rejected(let error), .conflicted(let error): return .failure(error)
    }
  }
}
