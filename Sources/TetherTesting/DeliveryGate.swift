import Foundation
import Synchronization

/// Holds the thread that decodes one chosen value for a while: a delivery of an edit kept under
/// way (its value read from the store, not yet shown by its holders), a window of a few
/// microseconds in a normal run, held open so a test can act inside it.
///
/// ```swift
/// let gate = DeliveryGate(at: 7)   // the next decoding of a `GatedNumber` 7 waits
/// // ... an edit to 7; wait for `isHolding`; change and save; check `hasLetGo`
/// ```
///
/// The held thread is a shared one (the watcher's, an event loop), which every other test's
/// deliveries wait for: it goes on by itself after `limit`, however late the test that armed
/// the gate runs (under AddressSanitizer beside the whole suite, seconds). A test learns from
/// ``hasLetGo`` whether it acted while the delivery was still held.
///
/// The decoding thread is outside any test's task, so gates are found by their value: tests
/// that run at once each take a value of their own.
package final class DeliveryGate: Sendable {
  private struct State {
    var holding = false
    var letGo = false
  }
  private let state = Mutex(State())
  private let released = DispatchSemaphore(value: 0)
  private let limit: Duration
  private let value: Int
  /// Run on a thread of its own as the hold begins (see ``init(at:holdingAtMost:whileHolding:)``).
  private let whileHolding: (@Sendable (DeliveryGate) -> Void)?
  /// The gates not yet passed, by value.
  private static let armed = Mutex<[Int: DeliveryGate]>([:])

  /// A gate at which the next decoding of `value` waits, for ``open()`` or `limit`; as it
  /// begins to, `whileHolding` runs on a new thread, given the gate.
  ///
  /// `whileHolding` acts inside the hold at once, where a task woken by ``isHolding`` may wait
  /// for the cooperative pool past `limit` on a loaded machine — and the held decoding itself may
  /// be on one of the pool's threads.
  package init(
    at value: Int, holdingAtMost limit: Duration = .milliseconds(300),
    whileHolding: (@Sendable (DeliveryGate) -> Void)? = nil
  ) {
    self.limit = limit
    self.value = value
    self.whileHolding = whileHolding
    Self.armed.withLock { $0[value] = self }
  }

  /// Whether a decoding is waiting (or waited) at the gate.
  package var isHolding: Bool { state.withLock { $0.holding } }

  /// Whether the held decoding has gone on (opened, or its time up).
  package var hasLetGo: Bool { state.withLock { $0.letGo } }

  /// Lets the waiting decoding go now.
  package func open() {
    released.signal()
  }

  /// Takes the gate away when no decoding has reached it yet: a later decoding of its value
  /// does not wait.
  package func disarm() {
    Self.armed.withLock { armed in
      if armed[value] === self { armed[value] = nil }
    }
  }

  /// Waits when a gate is armed at `value`, once.
  static func hold(at value: Int) {
    guard let gate = armed.withLock({ $0.removeValue(forKey: value) }) else { return }
    gate.state.withLock { $0.holding = true }
    if let action = gate.whileHolding { Thread.detachNewThread { action(gate) } }
    let (seconds, attoseconds) = gate.limit.components
    let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    _ = gate.released.wait(timeout: .now() + .nanoseconds(nanoseconds))
    gate.state.withLock { $0.letGo = true }
  }
}

/// An integer whose decoding passes its ``DeliveryGate``, if one is armed at it: stored as a plain number (a JSON
/// number in a file, `d = 7` in a defaults file).
package struct GatedNumber: RawRepresentable, Codable, Equatable, Sendable {
  /// The number.
  package let rawValue: Int

  /// The number, after its gate (see ``DeliveryGate/init(at:)``).
  package init(rawValue: Int) {
    DeliveryGate.hold(at: rawValue)
    self.rawValue = rawValue
  }

  /// Decodes the number, after the gate.
  package init(from decoder: any Decoder) throws {
    self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
  }

  /// Encodes the number.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
