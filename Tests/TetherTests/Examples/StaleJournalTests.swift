import Foundation
import Testing
import Tether
import TetherTesting

/// The conformance suite fails a strategy that delivers a value read before a save of its own
/// after that save: the journal example without its check that a line is its key's newest.
@Suite(.tetherBootstrap()) struct StaleJournalTests {
  @Test func aJournalDeliveringLinesOlderThanItsOwnFailsTheDeliveryCheck() async throws {
    try await withTemporaryDirectory { folder in
      let (found, report) = try await conformanceFindings(of: StaleJournalStrategy.self, in: folder)
      let tooLoaded = report?.unchecked.contains { $0.contains("too loaded") }
      #expect(
        tooLoaded == true
          || found.contains {
            $0.hasPrefix("delivery: after a change")
              && $0.contains("must not take a holder off a change the store took")
          }, "no delivery failure among \(found)")
    }
  }
}

/// ``JournalStrategy`` with keys that deliver every line of another journal as it is read.
struct StaleJournalStrategy: PersistenceStrategy {
  static let kind = "stale-journal"
  let journal: JournalStrategy

  init(options: StrategyOptions) throws {
    journal = try JournalStrategy(options: options)
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    let key = try journal.journalKey(named: name, as: type, options: options, kind: Self.kind)
    return StaleJournalKey(base: key)
  }
}

/// A ``JournalKey`` whose `subscribe` yields each line read, even one older than a save this
/// process made meanwhile.
struct StaleJournalKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  let base: JournalKey<Value>

  var id: [String] { base.id }
  var description: String { ".staleJournal(\(String(reflecting: base.name)))" }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    base.load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    base.journal.subscribe(base.tag) { [base] read in
      subscriber.yield(with: read.flatMap { line in Result { try base.decode(line.json) } })
    }
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    base.save(value, context: context, continuation: continuation)
  }
}
