import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

/// An app's key wrapping a file key of another value type, forwarding its deliveries with
/// `SharedSubscriber.forwarding(_:)`: a holder's change made the moment an edit is shown is
/// kept, as with the file key itself.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct WrappingKeyTests {
  /// A thread spins on the holder's value and answers each edit (a whole degree) the instant it
  /// shows, adding a tenth: the answer is made on the edit, and must be written. Without the
  /// holders' lock around the wrapped key's delivery and its `seen` (a subscriber made with
  /// `init(callback:)` forwarding), an answer landing between the two is taken for a change
  /// made before the edit, and dropped: within a few hundred rounds.
  @Test func aChangeMadeTheMomentAnEditShowsIsWritten() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "tenths.json")
      try Data("0".utf8).write(to: file)
      // No throttle window: each answer's write races the end of the edit's delivery.
      try await fileBootstrap(folder, throttle: "0ms") {
        let holder = Shared(wrappedValue: -1.0, TenthsKey(tenths: try registeredFileKey("tenths")))
        try await EditAnswers.expectKept(
          rounds: Soak.size(ci: 500, soak: 10_000),
          edit: { try Data("\($0)".utf8).write(to: file, options: .atomic) },
          shown: { Int((holder.wrappedValue * 10).rounded()) },
          answer: { tenths in holder.withLock { $0 = Double(tenths) / 10 } },
          stored: { Int(String(decoding: try Data(contentsOf: file), as: UTF8.self)) },
          saveError: { holder.saveError })
      }
    }
  }

  /// Values, removals, errors and values the transform refuses reach the wrapping key's
  /// holders through it.
  @Test func deliveriesReachTheHoldersThroughTheTransform() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "tenths.json")
      try Data("215".utf8).write(to: file)
      @Shared(TenthsKey(tenths: .fileStorage(file))) var degrees = -1.0
      #expect(degrees == 21.5)
      try Data("-40".utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30), "an edit arrives transformed") {
        degrees == -4
      }
      try Data("\"warm\"".utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30), "bytes that do not decode: the default") {
        $degrees.loadError != nil && degrees == -1
      }
      try Data("10000000".utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30), "a value the transform refuses: its error") {
        $degrees.loadError is TenthsKey.OutOfRange
      }
      #expect(degrees == -1, "the holder keeps its value")
      try FileManager.default.removeItem(at: file)
      try Data("7".utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30), "a readable value clears the error") {
        degrees == 0.7 && $degrees.loadError == nil
      }
    }
  }
}

/// A temperature in degrees, kept in a file as whole tenths of a degree.
struct TenthsKey: SharedKey, CustomStringConvertible {
  let tenths: FileStorageKey<Int>

  /// A stored number past what the key reads as a temperature.
  struct OutOfRange: Error {}

  var id: FileStorageKeyID { tenths.id }
  var description: String { ".tenths(\(tenths))" }

  static func degrees(_ tenths: Int) throws -> Double {
    guard abs(tenths) < 1_000_000 else { throw OutOfRange() }
    return Double(tenths) / 10
  }

  func load(context: LoadContext<Double>, continuation: LoadContinuation<Double>) {
    tenths.load(
      context: .userInitiated,
      continuation: LoadContinuation(description) { result in
        continuation.resume(
          with: result.flatMap { tenths in Result { try tenths.map(Self.degrees) } })
      })
  }

  func subscribe(
    context: LoadContext<Double>, subscriber: SharedSubscriber<Double>
  ) -> SharedSubscription {
    tenths.subscribe(context: .userInitiated, subscriber: subscriber.forwarding(Self.degrees))
  }

  func save(_ value: Double, context: SaveContext, continuation: SaveContinuation) {
    tenths.save(Int((value * 10).rounded()), context: context, continuation: continuation)
  }
}
