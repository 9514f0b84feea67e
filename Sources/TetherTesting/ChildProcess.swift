public import Foundation
public import Testing

/// What a child process printed and how it ended.
public struct ChildResult: Sendable {
  /// The exit status (or the signal number, for a process ended by a signal).
  public let status: Int32
  /// Standard output.
  public let output: String
  /// Standard error.
  public let errors: String

  /// The last line of standard output parsed as a JSON object; empty, with an issue recorded,
  /// when it is not one.
  public var report: [String: Any] {
    let line = output.split(separator: "\n").last ?? ""
    let problem: String
    do {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
      if let report = object as? [String: Any] { return report }
      problem = "not an object"
    } catch {
      problem = "\(error)"
    }
    Issue.record(
      "the child's last line is not a JSON object (\(problem)): \(String(reflecting: line))")
    return [:]
  }
}

/// Runs `executable` to completion and collects its output; it is killed (SIGKILL) after
/// `timeout`.
///
/// ```swift
/// let result = try await runChild("/usr/bin/env", ["python3", "-c", "print(1)"])
/// #expect(result.output == "1\n")
/// ```
public func runChild(
  _ executable: String, _ arguments: [String], environment: [String: String] = [:],
  timeout: Duration = .seconds(120)
) async throws -> ChildResult {
  let process = Process()
  process.executableURL = URL(filePath: executable)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  // Both pipes at once, before waiting: a child that fills one while the other is read to its
  // end would never exit.
  async let out = onThreadOfItsOwn { output.fileHandleForReading.readDataToEndOfFile() }
  async let err = onThreadOfItsOwn { errors.fileHandleForReading.readDataToEndOfFile() }
  let status = await waitForExit(process, timeout: timeout)
  let (outData, errData) = await (out, err)
  return ChildResult(
    status: status, output: String(decoding: outData, as: UTF8.self),
    errors: String(decoding: errData, as: UTF8.self))
}

/// Waits for a running `process` to end and returns its status, killing it (SIGKILL) if it has
/// not ended after `timeout`.
///
/// ```swift
/// try process.run()
/// #expect(await waitForExit(process, timeout: .seconds(30)) == 0)
/// ```
public func waitForExit(_ process: Process, timeout: Duration) async -> Int32 {
  // Polled: `waitUntilExit()` spins on a thread without run-loop sources, which on two cores
  // slowed the very children being waited for.
  let deadline = ContinuousClock.now + timeout
  var killed = false
  while process.isRunning {
    // Cancelled, the child must not outlive the wait either. SIGKILL: a child spawned from one
    // of dispatch's threads inherits its signal mask, in which SIGTERM (what `terminate()`
    // sends) is blocked.
    if !killed && (Task.isCancelled || ContinuousClock.now >= deadline) {
      kill(process.processIdentifier, SIGKILL)
      killed = true
    }
    do {
      try await Task.sleep(for: .milliseconds(10))
    } catch {
      // Cancelled: the sleep ends at once, so the killed child is waited for by yielding.
      await Task.yield()
    }
  }
  // Returns at once now that the process has ended, and is what lets `process` go: until it
  // is called, Foundation's `Process` and the run-loop source it made in `run()` hold each
  // other (Foundation drops the source only there, swift-corelibs-foundation#2631), and with
  // them its pipes, arguments and environment, which LeakSanitizer reports at exit.
  process.waitUntilExit()
  return process.terminationStatus
}

/// Runs `work`, which blocks, on a thread of its own rather than one of the few of Swift's
/// shared pool (as many as cores), which parallel tests need.
private func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: work()) }.start()
  }
}

/// Runs a shell script in `folder`, recording an issue if it fails; returns what it printed.
@discardableResult
public func shell(
  _ script: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ChildResult {
  let quoted = "'" + folder.path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  let result = try await runChild("/bin/sh", ["-c", "cd \(quoted) && \(script)"])
  #expect(
    result.status == 0, "\(script) failed: \(result.errors)", sourceLocation: sourceLocation)
  return result
}
