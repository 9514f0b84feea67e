import TetherLocking

/// Finds `==` for a generic type at run time, once per type, so mutations of an `Equatable`
/// value can skip saves and notifications when nothing changed.
@usableFromInline
enum Equality {
  /// `==` for `T` when `T` is `Equatable` (including conditional conformances), else `nil`.
  ///
  /// Looked up in a table by type, so the cast that finds the conformance, and the closure made
  /// from it, are paid once per type rather than once per reference.
  @usableFromInline
  static func comparer<T>(for type: T.Type) -> ((T, T) -> Bool)? {
    let id = ObjectIdentifier(type)
    if let known = found.withLock({ $0[id] }) {
      // Stored under `T`'s identifier, so a `Comparer<T>`.
      return unsafeDowncast(known, to: Comparer<T>.self).compare
    }
    let made = Comparer<T>(compare: find(type))
    found.withLock { $0[id] = made }
    return made.compare
  }

  /// The comparers found, by type: as many as the value types of the process's keys.
  private static let found = UnfairMutex<[ObjectIdentifier: any AnyObject & Sendable]>([:])

  // Unchecked: immutable, kept under `found`'s lock, and its closure captures only a type.
  private final class Comparer<T>: @unchecked Sendable {
    let compare: ((T, T) -> Bool)?

    init(compare: ((T, T) -> Bool)?) {
      self.compare = compare
    }
  }

  private static func find<T>(_ type: T.Type) -> ((T, T) -> Bool)? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return comparer(opening: equatable, as: type)
  }

  private static func comparer<E: Equatable, T>(
    opening: E.Type, as: T.Type
  ) -> (T, T) -> Bool {
    // T and E are the same type here (E was found from T.self), so the bit casts are identity.
    { lhs, rhs in unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self) }
  }
}
