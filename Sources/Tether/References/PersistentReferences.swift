/// The live references of one scope, keyed by `(key id, value type)`.
///
/// Keys of different types with one id (a registered key and the key it resolves to, a
/// `.Default` key and its base) find the same reference. Entries are weak: a reference lives
/// while a `Shared` holds it, and the key's store outlives it.
package final class PersistentReferences: Sendable {
  private struct Slot: Hashable {
    let id: AnyHashable
    let valueType: ObjectIdentifier
  }

  private struct Entry {
    weak var reference: AnyObject?
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
  ) -> StoredReference<Value> {
    let slot = Slot(id: id, valueType: ObjectIdentifier(Value.self))
    if let live = lookUp(slot, as: Value.self) {
      if let writer { live.adopt(writer: writer) }
      return live
    }
    let link = KeyLink(reader: reader, writer: writer, initialValue: initialValue())
    let created = StoredReference(link: link, initialValue: link.initialValue)
    created.start(skipInitialLoad: skipInitialLoad)
    let winner = table.withLock { table -> StoredReference<Value> in
      if let live = table[slot]?.reference as? StoredReference<Value> { return live }
      table[slot] = Entry(reference: created)
      return created
    }
    if winner !== created, let writer { winner.adopt(writer: writer) }
    if winner === created { created.onRelease { [weak self] in self?.prune(slot) } }
    return winner
  }

  /// The number of live references, for tests and diagnostics.
  package var count: Int {
    table.withLock { table in table.values.count { $0.reference != nil } }
  }

  private func lookUp<Value>(_ slot: Slot, as: Value.Type) -> StoredReference<Value>? {
    table.withLock { $0[slot]?.reference as? StoredReference<Value> }
  }

  private func prune(_ slot: Slot) {
    table.withLock { table in
      if table[slot]?.reference == nil { table[slot] = nil }
    }
  }
}
