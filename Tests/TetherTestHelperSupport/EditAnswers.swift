import Foundation
import Synchronization
public import Testing
import Tether
import TetherTesting

/// A holder that answers each edit of its store the instant it shows it, as an app reacting to
/// a change does: the answer is a change made on the edit, and must be written like any other.
///
/// ```swift
/// try await EditAnswers.expectKept(
///   rounds: 1_000, edit: { try Data("\($0)".utf8).write(to: file, options: .atomic) },
///   shown: { holder.wrappedValue }, answer: { answer in holder.withLock { $0 = answer } },
///   stored: { Int(String(decoding: try Data(contentsOf: file), as: UTF8.self)) },
///   saveError: { holder.saveError })
/// ```
public enum EditAnswers {
  /// Edits the store through `edit` to 10, 20, … in turn, while a thread spins on `shown` and
  /// answers each edit as soon as it shows, through `answer` (the edit + 1); after each, flushes
  /// and expects `stored` and `shown` to be the answer. Stops at the first round that fails.
  public static func expectKept(
    rounds: Int,
    edit: (Int) async throws -> Void,
    shown: @escaping @Sendable () -> Int,
    answer: @escaping @Sendable (Int) -> Void,
    stored: () async throws -> Int?,
    saveError: () -> (any Error)?,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    // One at a time: each spins a thread, and several at once on a small machine slow every
    // other test (and each other) many times over.
    await turns.take()
    do {
      try await Self.rounds(
        rounds, edit: edit, shown: shown, answer: answer, stored: stored,
        saveError: saveError, sourceLocation: sourceLocation)
    } catch {
      await turns.give()
      throw error
    }
    await turns.give()
  }

  private static let turns = Turns()

  private static func rounds(
    _ rounds: Int,
    edit: (Int) async throws -> Void,
    shown: @escaping @Sendable () -> Int,
    answer: @escaping @Sendable (Int) -> Void,
    stored: () async throws -> Int?,
    saveError: () -> (any Error)?,
    sourceLocation: SourceLocation
  ) async throws {
    let answerer = Answerer()
    Thread.detachNewThread { answerer.run(shown: shown, answer: answer) }
    defer { answerer.finish() }
    for round in 1...rounds {
      let edited = round * 10
      answerer.expect(edited)
      try await edit(edited)
      await expectEventually(
        timeout: .seconds(30), "round \(round): the edit (\(edited)) is answered",
        sourceLocation: sourceLocation
      ) { answerer.answered.load(ordering: .acquiring) == edited }
      guard answerer.answered.load(ordering: .acquiring) == edited else { return }
      await TetherSystem.flush()
      let (kept, holding) = (try await stored(), shown())
      guard kept == edited + 1, holding == edited + 1 else {
        Issue.record(
          """
          round \(round): the answer (\(edited + 1)) to an edit (\(edited)), made as the edit \
          showed, was not kept: the store holds \(kept.map(String.init) ?? "nothing"), the \
          holder shows \(holding), saveError: \(saveError().map { "\($0)" } ?? "none")
          """, sourceLocation: sourceLocation)
        return
      }
    }
  }

  /// The thread's side: it waits for each edit to be expected, then spins on the holder's value
  /// until it shows it (the spin is what catches the edit the instant it shows), and answers.
  private final class Answerer: Sendable {
    /// The last edit answered.
    let answered = Atomic(0)
    /// The edit to answer next.
    private let expected = Atomic(0)
    private let stop = Atomic(false)
    private let next = DispatchSemaphore(value: 0)

    func expect(_ edit: Int) {
      expected.store(edit, ordering: .releasing)
      next.signal()
    }

    func finish() {
      stop.store(true, ordering: .releasing)
      next.signal()
    }

    func run(shown: @Sendable () -> Int, answer: @Sendable (Int) -> Void) {
      while true {
        next.wait()
        let edit = expected.load(ordering: .acquiring)
        // Tight at first, to catch the edit the instant it shows (a delivery takes a fraction
        // of a millisecond), then letting other threads run while a slow one comes.
        var spins = 0
        while shown() != edit {
          if stop.load(ordering: .acquiring) { return }
          spins += 1
          if spins > 100_000 { sched_yield() }
        }
        answer(edit + 1)
        answered.store(edit, ordering: .releasing)
      }
    }
  }

  /// Lets one caller through at a time, in the order they came.
  private actor Turns {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
      guard taken else {
        taken = true
        return
      }
      await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
      if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
  }
}
