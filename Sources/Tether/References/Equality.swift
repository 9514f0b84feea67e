/// Finds `==` for a generic type at run time, once, so mutations of an `Equatable` value can
/// skip saves and notifications when nothing changed.
@usableFromInline
package enum Equality {
  /// `==` for `T` when `T` is `Equatable` (including conditional conformances), else `nil`.
  @usableFromInline
  package static func comparer<T>(for type: T.Type) -> ((T, T) -> Bool)? {
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
