/// The live references of one scope, keyed by `(AnyHashable(key.id), Value.self)`.
///
/// Keys of different types with one id (a registered key and the key it resolves to, a
/// `.Default` key and its base) find the same reference. Entries refer weakly to the reference's
/// lifetime: a reference lives while a `Shared` holds it, and the key's store outlives it.
@usableFromInline
package final class LiveReferences: Sendable {
  /// Which reference: its key's id and its value's type, with their hash computed once.
  private struct Slot {
    let id: AnyHashable
    let valueType: ObjectIdentifier
    let hash: Int

    init(id: AnyHashable, valueType: ObjectIdentifier) {
      self.id = id
      self.valueType = valueType
      var hasher = Hasher()
      hasher.combine(id)
      hasher.combine(valueType)
      self.hash = hasher.finalize()
    }

    /// Ids are compared last, and only for slots whose hashes agree: comparing two
    /// `AnyHashable`s casts dynamically.
    func isSame(as other: Slot) -> Bool {
      hash == other.hash && valueType == other.valueType && id == other.id
    }
  }

  private struct Entry {
    let slot: Slot
    weak var lifetime: ReferenceLifetime?
  }

  /// Entries by their slot's hash. A dictionary keyed by the slots themselves would compare
  /// (cast) the id of every occupied bucket each probe passes, most of a new key's start.
  private let table = LockedState<[Int: [Entry]]>([:])

  package init() {}

  /// The live reference for `id`, or a new one of `reader` whose default is `initialValue()`.
  func reference<Value: Sendable>(
    id: AnyHashable,
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
  func reference<Value: Sendable>(
    id: AnyHashable,
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
      table[slot.hash, default: []].append(Entry(slot: slot, lifetime: lifetime))
      return nil
    }
    guard let winner else { return HeldReference(reference: created, lifetime: lifetime) }
    return adopted(winner, as: Value.self, writer: writer)
  }

  /// The reference that `lifetime` keeps, which now also saves through `writer`.
  ///
  /// A slot's entry holds a `StoredReference<Value>` of the slot's value type (it is made only
  /// above), so the cast back cannot fail.
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

  /// The live reference of `slot`; an entry whose reference has gone and is not pruned yet is
  /// passed over.
  private static func live(_ slot: Slot, in table: [Int: [Entry]]) -> ReferenceLifetime? {
    guard let entries = table[slot.hash] else { return nil }
    for entry in entries where entry.slot.isSame(as: slot) {
      if let lifetime = entry.lifetime { return lifetime }
    }
    return nil
  }

  /// Forgets `slot`'s entry if its reference has gone (a new one may have taken its place).
  private func prune(_ slot: Slot) {
    table.withLock { table in
      guard var entries = table.removeValue(forKey: slot.hash) else { return }
      entries.removeAll { $0.slot.isSame(as: slot) && $0.lifetime == nil }
      if !entries.isEmpty { table[slot.hash] = entries }
    }
  }
}

/// A live reference and the lifetime that its holder keeps.
@usableFromInline
struct HeldReference<Value: Sendable> {
  @usableFromInline let reference: StoredReference<Value>
  @usableFromInline let lifetime: ReferenceLifetime
}
