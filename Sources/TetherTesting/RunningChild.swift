public import Foundation
import TetherLocking

/// A child process kept running while a test talks to it: its output collected as it comes,
/// its standard input open for ``send(_:)`` until it ends.
///
/// ```swift
/// let demo = try RunningChild(tetherPath, ["demo"])
/// await expectEventually(timeout: .seconds(30)) { demo.text.contains("count: 0") }
/// demo.send("quit")
/// #expect(await demo.finish() == 0)
/// ```
public final class RunningChild: Sendable {
  /// The process, for its identifier or to signal it.
  public let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let errors = Pipe()
  private let collected = UnfairMutex("")
  private let collectedErrors = UnfairMutex("")

  /// Starts `executable` with `arguments`, this process's environment and `environment` over it.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:]
  ) throws {
    (process.executableURL, process.arguments) = withDefaultSignals(executable, arguments)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    output.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.collected.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
    errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.collectedErrors.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
    try process.run()
  }

  /// Standard output so far.
  public var text: String { collected.withLock { $0 } }
  /// Standard error so far.
  public var errorText: String { collectedErrors.withLock { $0 } }

  /// Writes `line` and a newline to the child's standard input.
  public func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

  /// Waits for the process to end, killing it if it has not after `timeout`; its exit status.
  public func finish(timeout: Duration = .seconds(60)) async -> Int32 {
    let status = await waitForExit(process, timeout: timeout)
    output.fileHandleForReading.readabilityHandler = nil
    errors.fileHandleForReading.readabilityHandler = nil
    return status
  }
}
