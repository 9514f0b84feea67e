/// The live references of one scope, keyed by `(key id, value type)`.
///
/// Keys of different types with one id (a registered key and the key it resolves to, a
/// `.Default` key and its base) find the same reference. Entries refer weakly to the reference's
/// lifetime: a reference lives while a `Shared` holds it, and the key's store outlives it.
package final class PersistentReferences: Sendable {
  private struct Slot: Hashable {
    let id: AnyHashable
    let valueType: ObjectIdentifier
    // Compared first: a dictionary compares every slot on a probe's way, and comparing two
    // `AnyHashable`s casts dynamically (measured: a fifth of starting 10,000 file keys).
    let hash: Int

    init(id: AnyHashable, valueType: ObjectIdentifier) {
      self.id = id
      self.valueType = valueType
      var hasher = Hasher()
      hasher.combine(id)
      hasher.combine(valueType)
      self.hash = hasher.finalize()
    }

    static func == (lhs: Slot, rhs: Slot) -> Bool {
      lhs.hash == rhs.hash && lhs.valueType == rhs.valueType && lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(hash)
    }
  }

  private struct Entry {
    weak var lifetime: ReferenceLifetime?
  }

  private let table = LockedState<[Slot: Entry]>([:])

  package init() {}

  /// The live reference for `reader`'s id, or a new one whose default is `initialValue()`.
  ///
  /// A new reference loads and subscribes outside the table's lock, so a key that creates
  /// shared values while loading cannot deadlock; if another thread published one first, that
  /// one wins and the new one is dropped (cancelling its subscription).
  package func reference<Value: Sendable>(
    id: AnyHashable,
    reader: any SharedReaderKey<Value>,
    writer: (any SharedKey<Value>)?,
    skipInitialLoad: Bool = false,
    initialValue: () -> Value
  ) -> HeldReference<Value> {
    let slot = Slot(id: id, valueType: ObjectIdentifier(Value.self))
    if let live = table.withLock({ $0[slot]?.lifetime }) {
      return adopted(live, as: Value.self, writer: writer)
    }
    let created = StoredReference(reader: reader, writer: writer, initialValue: initialValue())
    created.start(skipInitialLoad: skipInitialLoad)
    let lifetime = ReferenceLifetime(reference: created) { [weak self] in
      created.stop()
      self?.prune(slot)
    }
    let winner = table.withLock { table -> ReferenceLifetime? in
      if let live = table[slot]?.lifetime { return live }
      table[slot] = Entry(lifetime: lifetime)
      return nil
    }
    guard let winner else { return HeldReference(reference: created, lifetime: lifetime) }
    return adopted(winner, as: Value.self, writer: writer)
  }

  /// The reference that `lifetime` keeps, which now also saves through `writer`.
  ///
  /// A slot's entry holds a `StoredReference<Value>` of the slot's value type (it is made only
  /// above), so it is cast back unchecked: a dynamic cast, and the optional generic results
  /// it needed, had their metadata looked up at run time for every key.
  private func adopted<Value>(
    _ lifetime: ReferenceLifetime, as: Value.Type, writer: (any SharedKey<Value>)?
  ) -> HeldReference<Value> {
    let reference = unsafeDowncast(lifetime.reference, to: StoredReference<Value>.self)
    if let writer { reference.adopt(writer: writer) }
    return HeldReference(reference: reference, lifetime: lifetime)
  }

  /// The number of live references, for tests and diagnostics.
  package var count: Int {
    table.withLock { table in table.values.count { $0.lifetime != nil } }
  }

  private func prune(_ slot: Slot) {
    table.withLock { table in
      if table[slot]?.lifetime == nil { table[slot] = nil }
    }
  }
}

/// A live reference and the lifetime that its holder keeps.
package struct HeldReference<Value: Sendable> {
  package let reference: StoredReference<Value>
  package let lifetime: ReferenceLifetime
}
