import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

@Suite(.tetherBootstrap()) struct JournalStrategyTests {
  @Test func registeredFromAConfigFileAsAnAppWould() async throws {
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "tether.conf")
      try """
      [keys]
      audit.* = journal
      [strategy.journal]
      file = audit.journal
      """.write(to: config, atomically: true, encoding: .utf8)
      try await TetherSystem.withBootstrap(
        configuration: .file(config.path), strategies: [JournalStrategy.self]
      ) {
        @Shared(.registered("audit.facts")) var facts: [Fact] = []
        $facts.withLock { $0.append(Fact(text: "one")) }
        $facts.withLock { $0.append(Fact(text: "two")) }
        let journal = try String(
          contentsOf: folder.appending(path: "audit.journal"), encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 2, "every save is kept")

        struct NotCodable: Sendable {}
        @Shared(.registered("audit.other")) var other = NotCodable()
        #expect(
          $other.loadError as? TetherError
            == .unsupportedType("NotCodable", key: "audit.other", kind: "journal"))
      }
      try await TetherSystem.withBootstrap(
        configuration: .file(config.path), strategies: [JournalStrategy.self]
      ) {
        @Shared(.registered("audit.facts")) var facts: [Fact] = []
        #expect(facts.map(\.text) == ["one", "two"])
      }
    }
  }

  /// The journal delivers other processes' lines, never its own: today's suite does not yet
  /// catch an echo.
  @Test func subscribersGetOtherJournalsLinesOnly() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "audit.journal")
      let journal = try Journal(file: file)
      let tag = try Journal.tag("n")
      let seen = Mutex<[String]>([])
      let subscription = journal.subscribe(tag) { result in
        if case .success(let line) = result {
          seen.withLock { $0.append(String(decoding: line.json, as: UTF8.self)) }
        }
      }
      // Another key's line, appended after this journal's own, is delivered by a poll that has
      // read the own line too.
      let other = Mutex(false)
      let otherSubscription = journal.subscribe(try Journal.tag("m")) { _ in
        other.withLock { $0 = true }
      }
      defer { otherSubscription.cancel() }
      try journal.append(tag, json: Data("1".utf8))
      try Journal(file: file).append(Journal.tag("m"), json: Data("0".utf8))
      // Generous: the poll runs on the cooperative pool, which the parallel suite keeps busy
      // (seen starved for over 30 s on two cores, with the PostgreSQL tests' servers starting).
      await expectEventually(timeout: .seconds(90)) { other.withLock { $0 } }
      #expect(seen.withLock { $0 }.isEmpty, "own line delivered")
      try Journal(file: file).append(tag, json: Data("2".utf8))
      await expectEventually(timeout: .seconds(90)) { seen.withLock { $0 } == ["2"] }
      subscription.cancel()
      #expect(seen.withLock { $0 } == ["2"], "own line 1 delivered, or other's missed")
    }
  }
}
