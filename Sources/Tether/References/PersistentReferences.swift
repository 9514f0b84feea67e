/// The live references of one scope, keyed by `(key id, value type)`.
///
/// Keys of different types with one id (a registered key and the key it resolves to, a
/// `.Default` key and its base) find the same reference. Entries refer weakly to the reference's
/// lifetime: a reference lives while a `Shared` holds it, and the key's store outlives it.
@usableFromInline
package final class PersistentReferences: Sendable {
  /// Which reference: its key's id and its value's type.
  private struct Slot {
    let id: ReferenceID
    let valueType: ObjectIdentifier
    let hash: SlotHash

    init(id: ReferenceID, valueType: ObjectIdentifier) {
      self.id = id
      self.valueType = valueType
      // The id's hash is a seeded SipHash already; the type's address tells apart the slots of
      // one id with different value types.
      self.hash = SlotHash(value: id.hash ^ Int(bitPattern: UInt(bitPattern: valueType)))
    }
  }

  /// A slot's hash as a table key: it is a `Hasher`'s already, so the table mixes in its seed
  /// rather than hashing it again at each lookup, insert and growth.
  private struct SlotHash: Hashable {
    let value: Int

    func _rawHashValue(seed: Int) -> Int { value ^ seed }
  }

  private struct Entry {
    let id: ReferenceID
    let valueType: ObjectIdentifier
    weak var lifetime: ReferenceLifetime?
  }

  /// Entries by their slot's hash; slots whose hashes collide share the array. Not keyed by the
  /// slot itself: a dictionary copies every key its probe passes to compare it, and copying an
  /// id goes through its box's witnesses (measured: seven copies, two percent of starting a
  /// file key); comparing two casts dynamically, so ids are compared last.
  private let table = LockedState<[SlotHash: [Entry]]>([:])

  package init() {}

  /// The live reference for `reader`'s id, or a new one whose default is `initialValue()`.
  package func reference<Value: Sendable>(
    id: ReferenceID,
    reader: any SharedReaderKey<Value>,
    writer: (any SharedKey<Value>)?,
    skipInitialLoad: Bool = false,
    initialValue: () -> Value
  ) -> HeldReference<Value> {
    reference(id: id, writer: writer) {
      StoredReference.started(
        reader: reader, writer: writer, initialValue: initialValue(),
        skipInitialLoad: skipInitialLoad)
    }
  }

  /// The live reference for `id`, or the one `make` makes and starts (see
  /// ``StoredReference/started(reader:writer:initialValue:skipInitialLoad:)``).
  ///
  /// A new reference loads and subscribes outside the table's lock, so a key that creates
  /// shared values while loading cannot deadlock; if another thread published one first, that
  /// one wins and the new one is dropped (cancelling its subscription). Made by the caller: a
  /// holder inlines `make`, so the reference is made with its value type known.
  @usableFromInline
  package func reference<Value: Sendable>(
    id: ReferenceID,
    writer: (any SharedKey<Value>)?,
    make: () -> StoredReference<Value>
  ) -> HeldReference<Value> {
    let slot = Slot(id: id, valueType: ObjectIdentifier(Value.self))
    if let live = table.withLock({ Self.live(slot, in: $0) }) {
      return adopted(live, as: Value.self, writer: writer)
    }
    let created = make()
    let lifetime = ReferenceLifetime(reference: created) { [weak self] in
      created.stop()
      self?.prune(slot)
    }
    let winner = table.withLock { table -> ReferenceLifetime? in
      if let live = Self.live(slot, in: table) { return live }
      let entry = Entry(id: slot.id, valueType: slot.valueType, lifetime: lifetime)
      table[slot.hash, default: []].append(entry)
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
    table.withLock { table in table.values.reduce(0) { $0 + $1.count { $0.lifetime != nil } } }
  }

  private static func live(_ slot: Slot, in table: [SlotHash: [Entry]]) -> ReferenceLifetime? {
    guard let entries = table[slot.hash] else { return nil }
    for index in entries.indices
    where entries[index].valueType == slot.valueType && entries[index].id.isSame(as: slot.id) {
      return entries[index].lifetime
    }
    return nil
  }

  /// Forgets `slot`'s entry if its reference has gone (a new one may have taken its place).
  private func prune(_ slot: Slot) {
    table.withLock { table in
      guard var entries = table.removeValue(forKey: slot.hash) else { return }
      entries.removeAll {
        $0.valueType == slot.valueType && $0.id.isSame(as: slot.id) && $0.lifetime == nil
      }
      if !entries.isEmpty { table[slot.hash] = entries }
    }
  }
}

/// A live reference and the lifetime that its holder keeps.
@usableFromInline
package struct HeldReference<Value: Sendable> {
  @usableFromInline package let reference: StoredReference<Value>
  @usableFromInline package let lifetime: ReferenceLifetime
}
