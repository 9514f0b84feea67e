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

    /// Folds `other`, a change of the same key, in (see ``Changes/merge(_:)``): a newer one
    /// gives its value and serial and keeps this one's base. An older one, which arrives late,
    /// is superseded whole: its base, taken before changes already written, may no longer be
    /// what the file holds, and would have every change merged here dropped as a conflict.
    mutating func merge(_ other: PendingChange) {
      guard other.serial > serial else { return }
      value = other.value
      serial = other.serial
    }
  }

  /// A key's new value.
  enum NewValue: Sendable {
    /// Encoded already (`save()`, which reports its own encoding error); `nil`: no line.
    case literal(INIValue?)
    /// The holders' latest value given through `withLock`, while the change is pending.
    /// Encoded on the writer's queue, where a value that has no literal is dropped from the
    /// write with the error naming the key: encoding on the caller would be most of a
    /// `withLock`'s cost.
    case latest(any LatestValue<INIValue>)
    /// That value, as the writer took it.
    case taken(@Sendable () throws -> INIValue)

    /// Takes the holders' latest value, if this is one (see ``LatestChange``).
    mutating func take() {
      if case .latest(let latest) = self { self = .taken(latest.take()) }
    }

    /// The literal to write, or the error naming the key and its file.
    func encoded() throws -> INIValue? {
      switch self {
      case .literal(let literal): return literal
      case .latest(let latest): return try latest.take()()
      case .taken(let encode): return try encode()
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

    /// Takes the holders' latest values these changes read: the writer has taken them.
    mutating func take() {
      change.value.take()
      for index in others.values.indices { others.values[index].value.take() }
    }

    func contains(_ name: String) -> Bool {
      name == self.name || others[name] != nil
    }

    /// Folds `newer` in: a key changed by both takes the value of the change numbered last and
    /// the base of the one pending first.
    ///
    /// By number, not by arrival: two threads can number their changes of one key in one
    /// order and submit them in the other. The holders' serial (``State/given``) is the last
    /// numbered, and a ``LatestChange`` takes newer values only while its serial is that one,
    /// so the waiting change must be the one with that serial.
    mutating func merge(_ newer: Changes) {
      merge(newer.name, newer.change)
      for (name, change) in newer.others { merge(name, change) }
    }

    private mutating func merge(_ name: String, _ newer: PendingChange) {
      if name == self.name {
        change.merge(newer)
      } else if others[name] != nil {
        others[name]!.merge(newer)
      } else {
        others[name] = newer
      }
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
