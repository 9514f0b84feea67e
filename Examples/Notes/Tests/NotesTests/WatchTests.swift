import Foundation
import Testing
import TetherTesting

/// A `notes` process kept running, in `home`.
func runningNotes(_ arguments: [String], home: Home) throws -> RunningChild {
  try RunningChild(notesPath, ["--config", home.config] + arguments, environment: home.environment)
}

@Suite(.timeLimit(.minutes(2))) struct WatchTests {
  /// The defaults file is watched, so another process's launch shows up; the envdir folder is
  /// not, so its key shows its value once.
  @Test func watchShowsTheValuesThenALaunchOfAnotherProcess() async throws {
    try await withHome { home in
      let watch = try runningNotes(["settings", "watch", "launches", "motd"], home: home)
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
