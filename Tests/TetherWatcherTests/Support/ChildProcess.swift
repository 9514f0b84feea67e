import Foundation
import Testing

/// What a child process printed and how it ended.
struct ChildResult: Sendable {
  let status: Int32
  let output: String
  let errors: String

  /// The JSON object the test helper prints last.
  var report: [String: Any] {
    guard let line = output.split(separator: "\n").last,
      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    else { return [:] }
    return object
  }
}

/// The test helper executable, built beside the test bundle.
var helperPath: String {
  URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appending(path: "tether-test-helper").path
}

/// Runs `executable` to completion (killing it after `timeout`) and collects its output.
func runChild(
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
  // Read before waiting: a child that fills the pipe would otherwise never exit.
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

/// Runs a shell script in `folder`; records an issue if it fails.
func shell(
  _ script: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
  let result = try await runChild("/bin/sh", ["-c", "cd '\(folder.path)' && \(script)"])
  #expect(
    result.status == 0, "\(script) failed: \(result.errors)", sourceLocation: sourceLocation)
}
