public import Foundation
import Testing
import TetherTesting

/// The test helper executable, `tether-test-helper`, built beside the test bundle that runs.
public var helperPath: String {
  URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appending(path: "tether-test-helper").path
}

/// What the helper printed and how it ended.
public struct HelperRun: Sendable {
  /// The exit status (or the signal number, for a helper ended by a signal).
  public let status: Int32
  /// Standard output, whose last line is the report.
  public let output: String
  /// Standard error.
  public let errors: String

  /// The last line of standard output as a report; empty, with an issue recorded, when it is
  /// not one (as for a helper that failed before reporting).
  public var report: HelperReport {
    let line = output.split(separator: "\n").last ?? ""
    do {
      return try HelperReport(line: line)
    } catch {
      Issue.record("the helper's last line is not a report (\(error)): \(String(reflecting: line))")
      return HelperReport()
    }
  }
}

/// Runs the helper with `command` to completion and collects its output; it is killed
/// (SIGKILL) after `timeout`. `environment` is added to this process's.
///
/// With a `launcher`, that command runs instead, with the helper's path and its arguments after
/// its own: `["/usr/bin/setpriv", "--reuid=65534"]` runs the helper as another user.
///
/// ```swift
/// let run = try await runHelper(.overflow(folder: root.path))
/// #expect(run.status == 0, "\(run.errors)")
/// #expect(run.report.delivered == 1, "\(run.output)")
/// ```
public func runHelper(
  _ command: HelperCommand, launcher: [String] = [], environment: [String: String] = [:],
  timeout: Duration = .seconds(120)
) async throws -> HelperRun {
  let helper = [helperPath] + (try command.arguments())
  let result =
    if let executable = launcher.first {
      try await runChild(
        executable, launcher.dropFirst() + helper, environment: environment, timeout: timeout)
    } else {
      try await runChild(
        helper[0], Array(helper.dropFirst()), environment: environment, timeout: timeout)
    }
  return HelperRun(status: result.status, output: result.output, errors: result.errors)
}

/// A process that runs the helper with `command` once started, for a test that signals it or
/// waits for it itself; its environment and output are the caller's to set.
///
/// ```swift
/// let process = try helperProcess(.saveLoop(file: file.path))
/// try process.run()
/// kill(process.processIdentifier, SIGKILL)
/// ```
public func helperProcess(_ command: HelperCommand) throws -> Process {
  let process = Process()
  process.executableURL = URL(filePath: helperPath)
  process.arguments = try command.arguments()
  return process
}
