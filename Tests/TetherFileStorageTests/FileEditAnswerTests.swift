import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting
import TetherWatcher

/// A holder answering each edit of its file the instant it shows (see `EditAnswers`).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct FileEditAnswerTests {
  /// A thread spins on the holder's value and answers each edit the instant it shows: the
  /// answer is a change made on the edit, and is written. The key writes with no throttle
  /// window, and the watcher is held after each delivery until the answer is written or
  /// refused, so each answer's write runs before the watcher is done with the edit: one that
  /// expected the content the watcher had handed over before it (what the edit replaced) would
  /// be refused as a conflict, every round.
  @Test func aChangeMadeTheMomentAnEditShowsIsWritten() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "value.json")
      try Data("0".utf8).write(to: file)
      try await fileBootstrap(folder, throttle: "0ms") {
        let holder = Shared(wrappedValue: -1, .registered("value"))
        FileWatcher.shared.setAfterDeliveryHookForTesting(file.path) {
          Self.waitForAnAnswer(of: holder, in: file)
        }
        defer { FileWatcher.shared.setAfterDeliveryHookForTesting(file.path, nil) }
        try await EditAnswers.expectKept(
          rounds: Soak.size(ci: 300, soak: 10_000),
          edit: { try Data("\($0)".utf8).write(to: file, options: .atomic) },
          shown: { holder.wrappedValue }, answer: { answer in holder.withLock { $0 = answer } },
          stored: { text(file).flatMap { Int($0) } }, saveError: { holder.saveError })
      }
    }
  }

  /// Waits, for 5 seconds at most, until `holder` has answered an edit (a number ending in 1)
  /// and the answer is in `file`, or a write of it was refused.
  private static func waitForAnAnswer(of holder: Shared<Int>, in file: URL) {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
      if holder.saveError != nil { return }
      let shown = holder.wrappedValue
      if shown % 10 == 1, text(file) == "\(shown)" { return }
      Thread.sleep(forTimeInterval: 0.000_1)
    }
  }
}
