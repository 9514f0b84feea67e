import Synchronization

/// A key's id as the table of live references keeps it: equal exactly when the ids are equal as
/// `AnyHashable`s (so a registered key, whose id is its resolved key's erased, finds the
/// reference of that key), with its hash computed once.
///
/// Most ids are kept as they are: making an `AnyHashable` casts dynamically twice (measured: a
/// twentieth of starting a file key), and hashing one goes through its box. Only an id whose
/// type has its own `AnyHashable` form (the numbers, which compare across their types, and
/// `AnyHashable` itself) is erased, so that its hash is that form's. Ids are compared only when
/// their hashes agree, and then as `AnyHashable`s.
@usableFromInline
package struct ReferenceID {
  private let base: any Hashable
  /// `AnyHashable(id).hashValue`.
  let hash: Int

  @inlinable
  package init<ID: Hashable>(_ id: ID) {
    self.init(id, keptAsIs: Self.isKeptAsIs(ID.self))
  }

  @usableFromInline
  init<ID: Hashable>(_ id: ID, keptAsIs: Bool) {
    if keptAsIs {
      base = id
      // A plain type's `AnyHashable` hashes through the type's own `hash(into:)`.
      hash = id.hashValue
    } else {
      let erased = AnyHashable(id)
      base = erased
      hash = erased.hashValue
    }
  }

  /// Whether an `AnyHashable` of `type` would be the value itself, boxed.
  @usableFromInline
  static func isKeptAsIs<ID>(_ type: ID.Type) -> Bool {
    // Keys come in runs of one type (a folder of file keys): the last type found plain is
    // remembered, since the conformance lookup cost a tenth of what not erasing saved.
    let identifier = UInt(bitPattern: ObjectIdentifier(type))
    if lastKeptAsIs.load(ordering: .relaxed) == identifier { return true }
    guard !(type is any _HasCustomAnyHashableRepresentation.Type) else { return false }
    lastKeptAsIs.store(identifier, ordering: .relaxed)
    return true
  }

  /// A type's metadata lives as long as the process, so its address names it for good.
  private static let lastKeptAsIs = Atomic<UInt>(0)

  func isSame(as other: ReferenceID) -> Bool {
    hash == other.hash && Self.erased(base) == Self.erased(other.base)
  }

  private static func erased(_ id: some Hashable) -> AnyHashable { AnyHashable(id) }
}
