import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTestHelperSupport
import TetherTesting

/// A holder answering each edit of its row the instant it shows (see `EditAnswers`).
@Suite(postgresAvailable, .timeLimit(.minutes(10))) struct PostgresEditAnswerTests {
  /// A thread spins on the holder's value and answers each edit of the row the instant it
  /// shows: the answer is a change made on the edit, and is written.
  @Test func aChangeMadeTheMomentAnEditShowsIsWritten() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table),
      strategies: [PostgresStrategy.self]
    ) {
      let holder = Shared(wrappedValue: -1, .registered("a"))
      holder.withLock { $0 = 0 }
      try await holder.save()
      // Each round runs psql twice: fewer rounds than the files'.
      try await EditAnswers.expectKept(
        rounds: Soak.size(ci: 50, soak: 1_000),
        edit: { try await TestServer.edit(cluster, table: table, key: "a", json: "\($0)") },
        shown: { holder.wrappedValue }, answer: { answer in holder.withLock { $0 = answer } },
        stored: {
          let row = try await cluster.psql("SELECT value FROM \(table) WHERE key = 'a'")
          return Int(row.trimmingCharacters(in: .whitespacesAndNewlines))
        }, saveError: { holder.saveError })
    }
  }
}
