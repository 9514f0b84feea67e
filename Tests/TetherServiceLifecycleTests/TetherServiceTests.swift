import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// `TetherService` in a real `ServiceGroup`, in a process of its own ended by SIGTERM.
@Suite struct TetherServiceTests {
  /// The group's graceful shutdown runs to its end: the other service's cleanup ran, the value
  /// left pending in its throttle window and the one that cleanup changed are both written
  /// (the service, listed first, ends last), and the process exits 0.
  @Test func sigtermShutsTheGroupDownGracefullyAndWritesWhatWasPending() async throws {
    try await withTemporaryDirectory { folder in
      let command = HelperCommand.serviceGroup(folder: folder.path)
      let child = try RunningChild(helperPath, try command.arguments())
      await expectEventually(timeout: .seconds(60)) { child.text.contains("ready") }
      kill(child.process.processIdentifier, SIGTERM)
      let status = await child.finish()
      #expect(status == 0, "\(child.errorText)")
      #expect(contents(folder, "marker") == "done", "the other service's cleanup did not run")
      #expect(contents(folder, "count.json") == "2", "the pending value was not written")
      #expect(contents(folder, "farewell.json") == "2", "the cleanup's change was not written")
    }
  }

  private func contents(_ folder: URL, _ name: String) -> String? {
    try? String(contentsOf: folder.appending(path: name), encoding: .utf8)
  }
}
