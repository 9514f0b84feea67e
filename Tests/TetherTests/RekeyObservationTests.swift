import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// Re-keying changes what a holder reads: Observation is told, as for any change.
@Suite(.tetherBootstrap()) struct RekeyObservationTests {
  @Test func assigningAnotherSharedFiresOnChange() async throws {
    try await Self.assigning()
  }

  private static func assigning() async throws {
    try await isolated {
      let a = Shared(wrappedValue: 1, .inMemory("a"))
      let other = Shared(wrappedValue: 2, .inMemory("other"))
      let fired = try await onChanges(reading: { _ = a.wrappedValue }) {
        a.projectedValue = other
      }
      #expect(fired == 1)
      #expect(a.wrappedValue == 2)
    }
  }

  @Test func loadingAnotherKeyFiresOnChange() async throws {
    try await Self.loadingAnotherKey()
  }

  private static func loadingAnotherKey() async throws {
    try await isolated {
      let seven = Shared(wrappedValue: 7, .inMemory("seven"))
      let a = Shared(wrappedValue: 1, .inMemory("a"))
      let fired = try await onChanges(reading: { _ = a.wrappedValue }) {
        try await a.load(.inMemory("seven"))
      }
      #expect(fired == 1)
      #expect(a.wrappedValue == 7)
      withExtendedLifetime(seven) {}
    }
  }

  @Test func aReaderReKeyedFiresOnChange() async throws {
    try await Self.readerReKeyed()
  }

  private static func readerReKeyed() async throws {
    try await isolated {
      let a = SharedReader(wrappedValue: 1, .inMemory("a"))
      let other = Shared(wrappedValue: 2, .inMemory("other"))
      let fired = try await onChanges(reading: { _ = a.wrappedValue }) {
        a.projectedValue = SharedReader(other)
      }
      #expect(fired == 1)
      #expect(a.wrappedValue == 2)
    }
  }

  /// How many times the `onChange` of a tracking of `read` fires during `change`.
  private static func onChanges(
    reading read: () -> Void, during change: () async throws -> Void
  ) async throws -> Int {
    let fired = Mutex(0)
    withObservationTracking(read) {
      fired.withLock { $0 += 1 }
    }
    try await change()
    return fired.withLock { $0 }
  }
}
