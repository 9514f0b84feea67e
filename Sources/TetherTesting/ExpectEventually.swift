public import Testing

/// Waits until `condition` holds, checking every millisecond, and records an issue if it still
/// does not when `timeout` has passed.
///
/// The default timeout is long for what usually takes milliseconds: a condition that holds
/// returns at once, and a loaded CI machine running the suite in parallel can take seconds to
/// schedule a task or a watcher's thread.
///
/// Use it for anything that happens asynchronously (a watcher delivering an external edit, a
/// throttled write landing) instead of sleeping for a guessed time:
///
/// ```swift
/// try "7".write(to: url, atomically: true, encoding: .utf8)
/// await expectEventually { count == 7 }
/// ```
public func expectEventually(
  timeout: Duration = .seconds(10),
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

/// Whether `condition` still holds after `period`, checked every millisecond: for what must not
/// happen, given the time to (a write that must not land, a delivery that must not come).
///
/// ```swift
/// #expect(await staysTrue(for: .seconds(1.5)) { !FileManager.default.fileExists(atPath: path) })
/// ```
public func staysTrue(for period: Duration, _ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + period
  while ContinuousClock.now < deadline {
    guard condition() else { return false }
    do { try await Task.sleep(for: .milliseconds(1)) } catch { break }
  }
  return condition()
}
