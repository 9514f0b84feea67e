import Foundation
import Synchronization

/// Holds the thread that decodes one chosen value until the test lets it go: a delivery of an
/// edit kept under way (its value read from the store, not yet shown by its holders), a window
/// of a few microseconds in a normal run, held open so a test can act inside it.
///
/// ```swift
/// let gate = DeliveryGate(at: 7)   // the next decoding of a `GatedNumber` 7 waits
/// // ... an edit to 7; wait for `isHolding`; `open(after:)`; change and save
/// ```
///
/// The decoding thread is the watcher's, outside any test's task, so gates are found by their
/// value: tests that run at once each take a value of their own.
public final class DeliveryGate: Sendable {
  private struct State {
    var holding = false
    var opened = false
  }
  private let state = Mutex(State())
  private let released = DispatchSemaphore(value: 0)
  /// The gates not yet passed, by value.
  private static let armed = Mutex<[Int: DeliveryGate]>([:])

  /// A gate at which the next decoding of `value` waits for ``open()`` (at most 30 s).
  public init(at value: Int) {
    Self.armed.withLock { $0[value] = self }
  }

  /// Whether a decoding is waiting (or waited) at the gate.
  public var isHolding: Bool { state.withLock { $0.holding } }

  /// Whether ``open()`` was called.
  public var wasOpened: Bool { state.withLock { $0.opened } }

  /// Lets the waiting decoding go.
  public func open() {
    state.withLock { $0.opened = true }
    released.signal()
  }

  /// Lets the waiting decoding go `delay` from now, from a thread of Dispatch's: not a task,
  /// which could wait behind the tests' tasks blocked on the held delivery (a save run on its
  /// caller's thread waits for the delivery to end) while they wait for this gate.
  public func open(after delay: Duration) {
    let nanoseconds =
      Int(delay.components.seconds) * 1_000_000_000
      + Int(delay.components.attoseconds / 1_000_000_000)
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
      self.open()
    }
  }

  /// Waits when a gate is armed at `value`, once.
  static func hold(at value: Int) {
    guard let gate = armed.withLock({ $0.removeValue(forKey: value) }) else { return }
    gate.state.withLock { $0.holding = true }
    _ = gate.released.wait(timeout: .now() + 30)
  }
}

/// An integer whose decoding passes its ``DeliveryGate``, if one is armed at it: stored as a plain number (a JSON
/// number in a file, `d = 7` in a defaults file).
public struct GatedNumber: RawRepresentable, Codable, Equatable, Sendable {
  /// The number.
  public let rawValue: Int

  /// The number, after its gate (see ``DeliveryGate/init(at:)``).
  public init(rawValue: Int) {
    DeliveryGate.hold(at: rawValue)
    self.rawValue = rawValue
  }

  /// Decodes the number, after the gate.
  public init(from decoder: any Decoder) throws {
    self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
  }

  /// Encodes the number.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
