import Synchronization
import Tether

/// What the file's writer reads a holder's `withLock` change through: the holders' latest value,
/// encoded when the change is written. Not generic: the writer's change type stays one type for
/// every key.
protocol LatestValue: AnyObject, Sendable {
  /// Closes the value to newer ones (they go to a change of their own) and encodes it; throws
  /// the error that names the key and its file.
  func closeAndEncode() throws -> INIValue
}

/// The latest value one subscription's holders gave through `withLock`, for their change that
/// waits in the file's writer. While that change waits, a newer value takes the place of the
/// last here, under this object's own lock, without numbering a change or taking the writer's
/// lock; the writer closes it when it writes the change.
///
/// A newer value takes the last one's place only while the change is open and still the one
/// the holders last made (its serial is theirs, see ``DefaultsFile/State/given``). A delivery,
/// a write, a reset, a transaction, or a change of the key by anyone else (`save()`, a holder
/// of another type) gives the key a new serial or none, and the next value is numbered and
/// submitted as a change of its own.
// @unchecked: `value` is only read and written holding `held`.
final class InlineChange<Value: Sendable>: LatestValue, @unchecked Sendable {
  // The value in memory of its own, and its state in a type that is not generic: in code not
  // specialized for `Value`, an `Optional<Value>` or a state type generic over it would have
  // its type looked up at run time on every change, which cost more than all the rest.
  private let held = Mutex(InlineChangeState())
  private let value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
  private let name: String
  private let given: DefaultsFile.State.GivenSerial
  private let encode: @Sendable (Value) throws -> INIValue

  /// `encode` throws the error that names the key and its file.
  init(
    name: String, given: DefaultsFile.State.GivenSerial,
    encode: @escaping @Sendable (Value) throws -> INIValue
  ) {
    self.name = name
    self.given = given
    self.encode = encode
  }

  deinit {
    if held.withLock({ $0.hasValue }) { value.deinitialize(count: 1) }
    value.deallocate()
  }

  /// Takes `newValue` in the place of the waiting change's, if that change is still open and
  /// still the holders' latest; returns whether it did.
  func update(_ newValue: Value) -> Bool {
    held.withLock { held in
      guard held.isOpen, held.serial == given.serial else { return false }
      value.pointee = newValue
      return true
    }
  }

  /// The new value of the change numbered `serial`, read from here when it is written.
  ///
  /// A change that read this object before and is not written yet was dropped or merged over
  /// (its key has a new serial since), or it conflicts with an edit the holders were told of;
  /// the value it would now write is the holders' newer one.
  func open(_ newValue: Value, serial: UInt64) -> DefaultsFile.NewValue {
    held.withLock { held in
      if held.hasValue {
        value.pointee = newValue
      } else {
        value.initialize(to: newValue)
      }
      held = InlineChangeState(hasValue: true, serial: serial, isOpen: true)
    }
    return .latest(self)
  }

  func closeAndEncode() throws -> INIValue {
    let latest = held.withLock { held -> Value? in
      held.isOpen = false
      return held.hasValue ? value.pointee : nil
    }
    // Only `open(_:serial:)` hands this object to a change, after giving it a value.
    guard let latest else {
      throw TetherError.notSaved(key: name, reason: "no value was given to write")
    }
    return try encode(latest)
  }
}

/// Where an ``InlineChange`` stands.
private struct InlineChangeState {
  /// Whether its value has been given, i.e. it has been opened once.
  var hasValue = false
  /// The serial of the change waiting with its value.
  var serial: UInt64 = .max
  /// Whether the writer has yet to read the value: a newer value until then is written with it.
  var isOpen = false
}
