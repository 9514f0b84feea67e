import Tether

/// The changes waiting in a file's writer: each key's new value, still unencoded when a holder
/// gave it through `withLock`, and what its holders had seen of the key's line when they made it.
extension DefaultsFile {
  /// A change of one key waiting to be written.
  struct PendingChange: Sendable {
    var value: NewValue
    /// Which change this is (see ``State/given``): what the file's record of the key's changes
    /// is keyed by.
    var serial: UInt64
    /// What the holders had seen of the key's line when the first change not yet written was
    /// made: a newer change of the key keeps it.
    let base: Base
  }

  /// A key's new value.
  enum NewValue: Sendable {
    /// Encoded already (`save()`, which reports its own encoding error); `nil`: no line.
    case literal(INIValue?)
    /// A holder's value, encoded on the writer's queue, where a value that has no literal is
    /// dropped from the write with the error naming the key: encoding on the caller would be
    /// most of a `withLock`'s cost.
    case value(any PendingValueBox)

    /// The literal to write, or the error naming the key and its file.
    func encoded() throws -> INIValue? {
      switch self {
      case .literal(let literal): return literal
      case .value(let box): return try box.encoded()
      }
    }
  }

  /// The value of a key's line its holders had seen when they made a change: the change is
  /// written only if the file still holds it.
  enum Base: Sendable {
    /// The line's value as this process last read it (`nil`: no line).
    case literal(INIValue?)
    /// The value of this process's earlier change with this serial, which the writer took
    /// first: its literal, or, when it had none and was dropped, its own base (see
    /// ``State/taken``).
    case change(UInt64)
  }

  /// Pending changes by key name: never none. A burst of changes of one key, the common case,
  /// merges in place into `change`, without allocating or hashing; other keys' changes go to
  /// `others`. Plain fields, not an optional pair: reading a field of an optional tuple copies
  /// the whole tuple first.
  struct Changes: Sendable {
    private var name: String
    private var change: PendingChange
    /// The changes of other keys than `name`.
    private var others: [String: PendingChange] = [:]

    init(_ name: String, _ change: PendingChange) {
      self.name = name
      self.change = change
    }

    /// By key name.
    var byName: [String: PendingChange] {
      var all = others
      all[name] = change
      return all
    }

    func contains(_ name: String) -> Bool {
      name == self.name || others[name] != nil
    }

    /// Folds `newer` in: a key changed by both takes the newer value and keeps the older base.
    mutating func merge(_ newer: Changes) {
      merge(newer.name, newer.change)
      for (name, change) in newer.others { merge(name, change) }
    }

    private mutating func merge(_ name: String, _ newer: PendingChange) {
      if name == self.name {
        change.value = newer.value
        change.serial = newer.serial
      } else if others[name] != nil {
        others[name]!.value = newer.value
        others[name]!.serial = newer.serial
      } else {
        others[name] = newer
      }
    }

    /// Gives the change of `name` the newer `value` in place, when `name` is the first key
    /// changed, with a value `encoder`'s holders gave, and the change's serial is still
    /// `serial`, the one they last gave (see ``State/given``): a newer change of theirs keeps
    /// its base and serial, as ``merge(_:)`` would keep its base. Returns whether it did.
    ///
    /// Not when the serials differ: a delivery, a write, a reset or a transaction of the key
    /// since then cleared the holders' serial, and their next change is numbered anew.
    func replaceValue<Value>(
      of name: String, serial: UInt64?, with value: Value, encoder: LiteralEncoder<Value>
    ) -> Bool {
      guard serial == change.serial, name == self.name, case .value(let box) = change.value,
        box.encoder === encoder
      else { return false }
      // The box is this encoder's, so it holds a `Value` (holders of one name with another
      // type have an encoder of their own).
      unsafeDowncast(box, to: PendingValue<Value>.self).value = value
      return true
    }

    /// These changes without those of `names` (`nil`: none left), and the names dropped.
    func removing(_ names: [String]) -> (kept: Changes?, dropped: [String]) {
      var kept = byName
      let dropped = names.filter { kept.removeValue(forKey: $0) != nil }
      guard let (name, change) = kept.first else { return (nil, dropped) }
      var changes = Changes(name, change)
      changes.others = kept
      changes.others[name] = nil
      return (changes, dropped)
    }
  }
}

/// A holder's value waiting to be written, which the writer encodes once it has taken the
/// change. Not generic: the writer's change type stays one type for every key.
protocol PendingValueBox: AnyObject, Sendable {
  /// The encoder of the holders that gave the value.
  var encoder: AnyObject { get }
  /// The value's literal, or the error naming the key and its file.
  func encoded() throws -> INIValue
}

/// A box made for the first change of a burst, whose newer changes replace its value while its
/// change waits for the trailing write (see ``DefaultsFile/Changes/replaceValue(of:serial:with:encoder:)``).
// @unchecked: `value` changes only while the change holding the box is pending, under the file
// writer's lock; the writer reads it once it has taken the change, and then nothing changes it.
final class PendingValue<Value: Sendable>: PendingValueBox, @unchecked Sendable {
  var value: Value
  private let literalEncoder: LiteralEncoder<Value>

  init(_ value: Value, encoder: LiteralEncoder<Value>) {
    self.value = value
    self.literalEncoder = encoder
  }

  var encoder: AnyObject { literalEncoder }

  func encoded() throws -> INIValue { try literalEncoder.encode(value) }
}

/// A key's encoding, made once per subscription: each burst of changes of its holders boxes
/// their value once.
final class LiteralEncoder<Value: Sendable>: Sendable {
  let encode: @Sendable (Value) throws -> INIValue

  /// `encode` throws the error that names the key and its file.
  init(_ encode: @escaping @Sendable (Value) throws -> INIValue) {
    self.encode = encode
  }

  /// A change's value that this encoder encodes when it is written.
  func value(_ value: Value) -> DefaultsFile.NewValue {
    .value(PendingValue(value, encoder: self))
  }
}
