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
    case value(any Sendable, any ErasedLiteralEncoder)

    /// The literal to write, or the error naming the key and its file.
    func encoded() throws -> INIValue? {
      switch self {
      case .literal(let literal): return literal
      case .value(let value, let encoder): return try encoder.encode(erased: value)
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

  /// Pending changes by key name. A burst of changes of one key, the common case, merges into
  /// `one` without allocating or hashing; a second key moves them into a dictionary.
  struct Changes: Sendable {
    private var one: (name: String, change: PendingChange)?
    private var many: [String: PendingChange] = [:]

    init(_ name: String, _ change: PendingChange) {
      one = (name, change)
    }

    /// By key name.
    var byName: [String: PendingChange] {
      guard let one else { return many }
      return [one.name: one.change]
    }

    func contains(_ name: String) -> Bool {
      one?.name == name || many[name] != nil
    }

    /// Folds `newer` in: a key changed by both takes the newer value and keeps the older base.
    mutating func merge(_ newer: Changes) {
      // A burst of one key's changes: in place, copying only the new value (not through
      // `byName`, which would make a dictionary of it).
      if let name = newer.one?.name, one?.name == name {
        one!.change.value = newer.one!.change.value
        one!.change.serial = newer.one!.change.serial
        return
      }
      if let (name, change) = newer.one { merge(name, change) }
      for (name, change) in newer.many { merge(name, change) }
    }

    private mutating func merge(_ name: String, _ change: PendingChange) {
      if one?.name == name {
        one!.change.value = change.value
        one!.change.serial = change.serial
      } else if many[name] != nil {
        many[name]!.value = change.value
        many[name]!.serial = change.serial
      } else if let first = one {
        one = nil
        many = [first.name: first.change, name: change]
      } else if many.isEmpty {
        one = (name, change)
      } else {
        many[name] = change
      }
    }

    /// These changes without those of `names` (`nil`: none left), and the names dropped.
    func removing(_ names: [String]) -> (kept: Changes?, dropped: [String]) {
      var kept = byName
      let dropped = names.filter { kept.removeValue(forKey: $0) != nil }
      return (kept.isEmpty ? nil : Changes(byName: kept), dropped)
    }

    private init(byName: [String: PendingChange]) {
      if byName.count == 1, let (name, change) = byName.first {
        one = (name, change)
      } else {
        many = byName
      }
    }
  }
}

/// What encodes a pending change's erased value. Not generic: the writer's change type stays
/// one type for every key, and a value of up to three words fits in the existential, where a
/// capturing closure would take an allocation per change.
protocol ErasedLiteralEncoder: AnyObject, Sendable {
  func encode(erased value: any Sendable) throws -> INIValue
}

/// A key's encoding, made once per subscription so that each change hands it on with one retain.
final class LiteralEncoder<Value: Sendable>: ErasedLiteralEncoder {
  private let encode: @Sendable (Value) throws -> INIValue

  /// `encode` throws the error that names the key and its file.
  init(_ encode: @escaping @Sendable (Value) throws -> INIValue) {
    self.encode = encode
  }

  func encode(erased value: any Sendable) throws -> INIValue {
    // A change of a key of `Value`s pairs this encoder with a `Value` only, so the cast holds.
    try encode(value as! Value)
  }

  /// A change's value that this encoder encodes when it is written.
  func value(_ value: Value) -> DefaultsFile.NewValue {
    .value(value, self)
  }
}
