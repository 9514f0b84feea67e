import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTestHelperSupport
import TetherTesting

/// A holder answering each edit of its defaults key the instant it shows (see `EditAnswers`).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct DefaultsEditAnswerTests {
  /// A thread spins on the holder's value and answers each edit of the file the instant it
  /// shows: the answer is a change made on the edit, and is written.
  @Test func aChangeMadeTheMomentAnEditShowsIsWritten() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("d = 0\n".utf8).write(to: file)
      let holder = Shared(wrappedValue: -1, .defaults("d", store: DefaultsStore(file: file)))
      try await EditAnswers.expectKept(
        rounds: Soak.size(ci: 500, soak: 10_000),
        edit: { try edit(file, "d", "\($0)") },
        shown: { holder.wrappedValue }, answer: { answer in holder.withLock { $0 = answer } },
        stored: { Int(contents(file).dropFirst("d = ".count).dropLast()) },
        saveError: { holder.saveError })
    }
  }
}
