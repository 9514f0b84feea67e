import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// A change of a key made while the same key is being changed on the same thread is lost when
/// the outer change commits, as with overlapping accesses to a variable: it is reported every
/// time, naming the key — an assertion in a debug build, a logged error in a release one. Run
/// in a child process, which the assertion stops.
@Suite(.timeLimit(.minutes(2))) struct ChangeInsideChangeTests {
  @Test(arguments: [false, true])
  func aChangeInsideAChangeOfTheSameKeyIsReportedNamingIt(fromOnChange: Bool) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "n.json")
      let run = try await runHelper(
        .changeInsideChange(file: file.path, fromOnChange: fromOnChange))
      let message =
        "\(file.absoluteString)) was changed while it was being changed on the same thread"
      #expect(run.errors.contains(message), "\(run.errors)")
      #if DEBUG
      #expect(run.status != 0, "a debug build stops at the assertion")
      #else
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.report.seen == 1, "the inner change is lost, as reported")
      #endif
    }
  }
}
