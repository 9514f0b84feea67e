import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// A file edited into something that does not decode: its holders show the default and the
/// decoding error, and no reader of the value finds the one without the other.
@Suite(.timeLimit(.minutes(1))) struct CorruptEditTests {
  /// The file key delivered the default, then the error, in two steps: an Observation
  /// `onChange` (on the delivering thread) found the default with no error, and so could a
  /// `changes` reader on another thread (`tether demo` showed "favourites changed outside: 0").
  @Test func whoeverIsToldOfTheDefaultFindsTheLoadErrorWithIt() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "facts.json")
      try Data("[1,2]".utf8).write(to: url)
      try await fileBootstrap(folder) {
        let facts = Shared(wrappedValue: [Int](), .registered("facts"))
        #expect(facts.wrappedValue == [1, 2])
        // Whether the error was set, as each reader found it when told of the default.
        let (observed, streamed) = try await Self.loadErrorsSeen(by: facts, toldOf: []) {
          try Data("[1, broken".utf8).write(to: url, options: .atomic)
        }
        #expect(facts.wrappedValue == [])
        #expect(facts.loadError != nil)
        #expect(observed == [true], "onChange found the default without the error")
        #expect(streamed == [true], "changes gave the default without the error")
      }
    }
  }

  /// The file edited back into what decodes: the value was stored before the error was
  /// cleared, so an Observation `onChange` found the fixed value with the old error, and so
  /// could a `changes` reader on another thread (`tether demo` missed "favourites changed
  /// outside" for the fix, under `make asan`).
  @Test func whoeverIsToldOfTheFixedValueFindsNoLoadError() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "facts.json")
      try Data("[1, broken".utf8).write(to: url)
      try await fileBootstrap(folder) {
        let facts = Shared(wrappedValue: [Int](), .registered("facts"))
        #expect(facts.wrappedValue == [])
        #expect(facts.loadError != nil)
        // Whether the error was still set, as each reader found it when told of the fix.
        let (observed, streamed) = try await Self.loadErrorsSeen(by: facts, toldOf: [3]) {
          try Data("[3]".utf8).write(to: url, options: .atomic)
        }
        #expect(facts.wrappedValue == [3])
        #expect(facts.loadError == nil)
        #expect(observed == [false], "onChange found the fix with the old error")
        #expect(streamed == [false], "changes gave the fix with the old error")
      }
    }
  }

  /// Whether `facts` had a load error as each reader found it when told of `value`, after
  /// `edit`: an Observation `onChange` on the delivering thread, and a `changes` reader on
  /// another.
  static func loadErrorsSeen(
    by facts: Shared<[Int]>, toldOf value: [Int], after edit: () throws -> Void
  ) async throws -> (observed: [Bool], streamed: [Bool]) {
    let observed = Mutex<[Bool]>([])
    let streamed = Mutex<[Bool]>([])
    let listening = Atomic<Bool>(false)
    withObservationTracking {
      _ = facts.wrappedValue
    } onChange: {
      observed.withLock { $0.append(facts.loadError != nil) }
    }
    let reading = Task {
      var changes = facts.changes.makeAsyncIterator()
      // The current value: the iterator listens from here on.
      _ = await changes.next(isolation: nil)
      listening.store(true, ordering: .releasing)
      while let next = await changes.next(isolation: nil) {
        guard next == value else { continue }
        streamed.withLock { $0.append(facts.loadError != nil) }
      }
    }
    defer { reading.cancel() }
    await expectEventually { listening.load(ordering: .acquiring) }
    try edit()
    await expectEventually(timeout: .seconds(30)) {
      !observed.withLock(\.isEmpty) && !streamed.withLock(\.isEmpty)
    }
    return (observed.withLock { $0 }, streamed.withLock { $0 })
  }
}
