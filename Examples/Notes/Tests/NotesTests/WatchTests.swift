import Foundation
import Synchronization
import Testing
import TetherTesting

/// A `notes` process kept running, its output collected as it comes.
final class RunningNotes: Sendable {
  let process = Process()
  private let output = Pipe()
  private let errors = Pipe()
  private let collected = Mutex("")
  private let collectedErrors = Mutex("")

  init(_ arguments: [String], home: Home) throws {
    process.executableURL = URL(filePath: notesPath)
    process.arguments = ["--config", home.config] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(home.environment) { $1 }
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

  var text: String { collected.withLock { $0 } }
  var errorText: String { collectedErrors.withLock { $0 } }

  /// Waits for the process to end, killing it if it has not after `timeout`.
  func finish(timeout: Duration = .seconds(60)) async -> Int32 {
    let status = await waitForExit(process, timeout: timeout)
    output.fileHandleForReading.readabilityHandler = nil
    errors.fileHandleForReading.readabilityHandler = nil
    return status
  }
}

@Suite(.timeLimit(.minutes(2))) struct WatchTests {
  /// The defaults file is watched, so another process's launch shows up; the envdir folder is
  /// not, so its key shows its value once.
  @Test func watchShowsTheValuesThenALaunchOfAnotherProcess() async throws {
    try await withHome { home in
      let watch = try RunningNotes(["settings", "watch", "launches", "motd"], home: home)
      defer { watch.process.interrupt() }
      await expectEventually(timeout: .seconds(30), "the values when the watch starts") {
        watch.text.contains(" launches 0\n") && watch.text.contains(" motd Welcome to notes.\n")
      }
      #expect(try await home.notes().status == 0)
      await expectEventually(timeout: .seconds(30), "the launch of another process") {
        watch.text.contains(" launches 1\n")
      }
      #expect(watch.text.split(separator: "\n").count == 3, "\(watch.text)\n\(watch.errorText)")
      watch.process.interrupt()
      #expect(await watch.finish() == 0, "SIGINT ends watch with 0: \(watch.errorText)")
    }
  }
}
