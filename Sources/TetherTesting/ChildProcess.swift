public import Foundation
public import Testing
import TetherLocking

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
  (process.executableURL, process.arguments) = withDefaultSignals(executable, arguments)
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  // Both pipes at once, before waiting: a child that fills one while the other is read to its
  // end would never exit.
  let out = ReadingToEnd(output.fileHandleForReading)
  let err = ReadingToEnd(errors.fileHandleForReading)
  let status = await waitForExit(process, timeout: timeout)
  let (outData, errData) = (await out.data, await err.data)
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
    // sends) is blocked. Its whole process group (Foundation starts each child in one of its
    // own): a descendant left behind keeps the socket by which Foundation learns that the
    // child ended, and its pipes, so neither this wait nor `runChild`'s reads would end (the
    // crash backtracer of a child stopped at an assertion did, under `make asan`).
    if !killed && (Task.isCancelled || ContinuousClock.now >= deadline) {
      kill(-process.processIdentifier, SIGKILL)
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

/// A pipe read to its end on a thread of its own, started at once: not from a task, which waits
/// for one of the few threads of Swift's shared pool (as many as cores). Under `make asan` the
/// parallel tests kept them busy long enough that a child filling its standard error before
/// the readers started was killed at its 20-second timeout (RunChildTests).
private final class ReadingToEnd: Sendable {
  /// The bytes once read, or the one waiting for them.
  private let state = UnfairMutex<(data: Data?, waiting: CheckedContinuation<Data, Never>?)>(
    (nil, nil))

  init(_ handle: FileHandle) {
    Thread { [self] in
      let data = handle.readDataToEndOfFile()
      let waiting = state.withLock { state in
        state.data = data
        return state.waiting.take()
      }
      waiting?.resume(returning: data)
    }.start()
  }

  /// Everything read, once the pipe's writers have all closed it. Awaited once.
  var data: Data {
    get async {
      await withCheckedContinuation { continuation in
        let data = state.withLock { state in
          if state.data == nil { state.waiting = continuation }
          return state.data
        }
        if let data { continuation.resume(returning: data) }
      }
    }
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

/// `executable` run with `arguments` through `env --default-signal=PIPE`: a child starts with
/// SIGPIPE's default action, as from a shell, though this process ignores it (SwiftNIO ignores
/// it process-wide, and ignored signals are inherited across `exec`). A child writing to a pipe
/// whose reader has gone (`yes | head`) then ends quietly, not with an error message.
package func withDefaultSignals(
  _ executable: String, _ arguments: [String]
) -> (URL, [String]) {
  (URL(filePath: "/usr/bin/env"), ["--default-signal=PIPE", executable] + arguments)
}
