import Synchronization
import TetherLocking

/// What a writer reads a holder's `withLock` change through: the holders' latest value, taken
/// when the writer takes the change. Not generic over the value: a writer's change type stays
/// one type for every key.
package protocol LatestValue<Encoded>: AnyObject, Sendable {
  /// What the value is written as.
  associatedtype Encoded

  /// Closes the value to newer ones (they go to a change of their own) and returns what
  /// encodes it as it is now, throwing the error that names the key and its file.
  func take() -> @Sendable () throws -> Encoded
}

/// The serial of the change a key's holders last made, while that change's value may still
/// take a newer one (see ``LatestChange``); `nil` once it may not. Set by the strategy under
/// its own lock, read without one.
package final class ChangeSerial: Sendable {
  /// `UInt64.max`: none (serials count up from 0).
  private let stored = Atomic<UInt64>(.max)

  package init() {}

  package var serial: UInt64? {
    get {
      let serial = stored.load(ordering: .acquiring)
      return serial == .max ? nil : serial
    }
    set { stored.store(newValue ?? .max, ordering: .releasing) }
  }
}

/// The latest value one subscription's holders gave through `withLock`, for their change that
/// waits in a ``ThrottledWriter``. While that change waits, a newer value takes the place of
/// the last here, under this object's own lock, without submitting a change or taking the
/// writer's lock; the writer closes it when it takes the change to write it (see
/// `ThrottledWriter`'s `taken`).
///
/// A newer value takes the last one's place only while the change is open and its serial is
/// still `serial`'s. The strategy gives that a new serial, or none, whenever its waiting change
/// may no longer be this one: a change of the key by anyone else (`save()`, a holder of another
/// type), an edit its holders are told of, a reset, a transaction. The next value is then
/// submitted as a change of its own.
// @unchecked: `value` is only read and written holding `held`.
package final class LatestChange<Value: Sendable, Encoded>: LatestValue, @unchecked Sendable {
  // The value in memory of its own, and its state in a type that is not generic: in code not
  // specialized for `Value`, an `Optional<Value>` or a state type generic over it would have
  // its type looked up at run time on every change, which cost more than all the rest.
  private let held = UnfairMutex(LatestChangeState())
  private let value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
  private let key: String
  private let serial: ChangeSerial
  private let encode: @Sendable (Value) throws -> Encoded

  /// The latest value of `key` (as errors name it), whose waiting change `serial` tracks;
  /// `encode` throws the error that names the key and its file.
  package init(
    key: String, serial: ChangeSerial, encode: @escaping @Sendable (Value) throws -> Encoded
  ) {
    self.key = key
    self.serial = serial
    self.encode = encode
  }

  deinit {
    if held.withLock({ $0.hasValue }) { value.deinitialize(count: 1) }
    value.deallocate()
  }

  /// Takes `newValue` in the place of the waiting change's, if that change is still open and
  /// still the holders' latest; returns whether it did.
  package func update(_ newValue: Value) -> Bool {
    held.withLock { held in
      guard held.isOpen, held.serial == serial.serial else { return false }
      value.pointee = newValue
      return true
    }
  }

  /// Opens this object with `newValue` for the change numbered `serial`, which takes it from
  /// here when the writer takes the change. Call it holding the lock `update(_:)` is called
  /// under. A change that took a value from here before has its own.
  package func open(_ newValue: Value, serial: UInt64) -> any LatestValue<Encoded> {
    held.withLock { held in
      if held.hasValue {
        value.pointee = newValue
      } else {
        value.initialize(to: newValue)
      }
      held = LatestChangeState(hasValue: true, serial: serial, isOpen: true)
    }
    return self
  }

  package func take() -> @Sendable () throws -> Encoded {
    let latest = held.withLock { held -> Value? in
      held.isOpen = false
      return held.hasValue ? value.pointee : nil
    }
    let (key, encode) = (key, encode)
    return {
      // Only `open(_:serial:)` hands this object to a change, after giving it a value.
      guard let latest else {
        throw TetherError.notSaved(key: key, reason: "no value was given to write")
      }
      return try encode(latest)
    }
  }
}

/// Where a ``LatestChange`` stands.
private struct LatestChangeState {
  /// Whether its value has been given, i.e. it has been opened once.
  var hasValue = false
  /// The serial of the change waiting with its value.
  var serial: UInt64 = .max
  /// Whether the writer has yet to take the change: a newer value until then is written with it.
  var isOpen = false
}
