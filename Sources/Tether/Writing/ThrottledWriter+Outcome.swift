/// What became of a write, what each of its waiters is told, and what the log is.
extension ThrottledWriter {
  /// What became of one write.
  package enum Outcome: Sendable {
    case written
    /// Nothing to write: what the change holds is what the last write wrote, and nothing has
    /// come between (see the owner's `perform`). Its callers are told it is written.
    case writtenAlready
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
    case .written, .writtenAlready: return .success(())
    case .partlyWritten(let dropped):
      guard let part, let error = dropped[part] else { return .success(()) }
      return .failure(error)
    case .failed(let error), .rejected(let error), .conflicted(let error): return .failure(error)
    }
  }
}

extension ThrottledWriter {
  /// Says a failed write in the log too: a throttled change's failure otherwise reaches only
  /// `saveError`, which an app may never read (at shutdown, no one does).
  func warnIfFailed(_ outcome: Outcome) {
    guard case .failed(let error) = outcome else { return }
    writeFailures.warn(
      "\(module) \(subject)",
      "\(subject): a write failed; its change stays pending until the next change or flush: "
        + "\(error)", module: module)
  }
}

/// The failed writes of every writer, said once per writer and burst (a generic class cannot
/// have a static stored property).
private let writeFailures = BurstWarnings(label: "tether.core")
