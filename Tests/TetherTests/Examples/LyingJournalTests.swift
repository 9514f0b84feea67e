import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

/// The conformance suite fails a strategy whose `save` drops a change made while an edit is
/// being delivered (the edit wins) yet returns as if it were stored: the holder and the store
/// agree on the edit, so only the save's outcome shows the lie.
@Suite(.tetherBootstrap()) struct LyingJournalTests {
  @Test func aJournalDroppingASaveItReportsStoredFailsTheDeliverySaveCheck() async throws {
    try await withTemporaryDirectory { folder in
      let (found, report) = try await conformanceFindings(of: LyingJournalStrategy.self, in: folder)
      let unchecked = report?.unchecked ?? []
      let tooLoaded = unchecked.contains {
        $0.hasPrefix("delivery save:") && $0.contains("too loaded")
      }
      #expect(
        tooLoaded
          || found.contains {
            $0.hasPrefix("delivery save: save() of a change")
              && $0.contains("returned, yet the store holds")
          }, "no failure of the save's outcome among \(found)")
      // The other checks, the delivery check made with `withLock` among them, pass: the holder
      // and the store agree.
      let others = found.filter { !$0.hasPrefix("delivery save:") }
      #expect(others.isEmpty, "other failures: \(others)")
    }
  }
}

/// ``JournalStrategy`` with keys whose `save` drops a value while a line of another journal is
/// being delivered, and reports it saved.
struct LyingJournalStrategy: PersistenceStrategy {
  static let kind = "lying-journal"
  let journal: JournalStrategy
  /// How many deliveries are under way, across the strategy's keys.
  let delivering = Deliveries()

  init(options: StrategyOptions) throws {
    journal = try JournalStrategy(options: options)
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    let key = try journal.journalKey(named: name, as: type, options: options, kind: Self.kind)
    return LyingJournalKey(base: key, delivering: delivering)
  }

  final class Deliveries: Sendable {
    let count = Atomic(0)
  }
}

/// A ``JournalKey`` whose `save` says a value is stored when it is not, while a delivery is
/// under way.
struct LyingJournalKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  let base: JournalKey<Value>
  let delivering: LyingJournalStrategy.Deliveries

  var id: [String] { base.id }
  var description: String { ".lyingJournal(\(String(reflecting: base.name)))" }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    base.load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    base.journal.subscribe(base.tag) { [base, delivering] read in
      delivering.count.add(1, ordering: .sequentiallyConsistent)
      defer { delivering.count.subtract(1, ordering: .sequentiallyConsistent) }
      let decoded = read.flatMap { line in Result { (line, try base.decode(line.json)) } }
      subscriber.give { subscriber in
        switch decoded {
        case .success(let (line, value)):
          if base.journal.isNewest(line, of: base.tag) { subscriber.yield(value) }
        case .failure(let error):
          subscriber.yield(throwing: error)
        }
      }
    }
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    // The edit being delivered wins: the change is dropped, and the caller told it is stored.
    if delivering.count.load(ordering: .sequentiallyConsistent) > 0 {
      return continuation.resume()
    }
    base.save(value, context: context, continuation: continuation)
  }
}
