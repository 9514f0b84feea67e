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

  /// The last line of standard output parsed as a JSON object (empty when it is not one).
  public var report: [String: Any] {
    guard let line = output.split(separator: "\n").last else { return [:] }
    do {
      return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    } catch {
      return [:]
    }
  }
}

/// Runs `executable` to completion and collects its output; it is killed after `timeout`.
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
  let watchdog = Task {
    try await Task.sleep(for: timeout)
    process.terminate()
  }
  // Read before waiting: a child that fills a pipe would otherwise never exit.
  let (out, err) = await Task.detached {
    (
      output.fileHandleForReading.readDataToEndOfFile(),
      errors.fileHandleForReading.readDataToEndOfFile()
    )
  }.value
  await Task.detached { process.waitUntilExit() }.value
  watchdog.cancel()
  return ChildResult(
    status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
    errors: String(decoding: err, as: UTF8.self))
}

/// Runs a shell script in `folder`, recording an issue if it fails.
public func shell(
  _ script: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
  let result = try await runChild("/bin/sh", ["-c", "cd '\(folder.path)' && \(script)"])
  #expect(
    result.status == 0, "\(script) failed: \(result.errors)", sourceLocation: sourceLocation)
}
