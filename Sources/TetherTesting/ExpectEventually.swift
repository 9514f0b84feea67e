public import Testing

/// Waits until `condition` holds, checking every millisecond, and records an issue if it still
/// does not when `timeout` has passed.
///
/// Use it for anything that happens asynchronously (a watcher delivering an external edit, a
/// throttled write landing) instead of sleeping for a guessed time:
///
/// ```swift
/// try "7".write(to: url, atomically: true, encoding: .utf8)
/// await expectEventually { count == 7 }
/// ```
public func expectEventually(
  timeout: Duration = .seconds(2),
  _ comment: Comment? = nil,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () throws -> Bool
) async rethrows {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while try !condition() {
    guard clock.now < deadline else {
      Issue.record(
        comment ?? "condition did not hold within \(timeout)", sourceLocation: sourceLocation)
      return
    }
    do {
      try await Task.sleep(for: .milliseconds(1))
    } catch {
      Issue.record("cancelled while waiting: \(comment ?? "")", sourceLocation: sourceLocation)
      return
    }
  }
}
