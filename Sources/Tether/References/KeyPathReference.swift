/// A writable projection of a parent reference: `$settings.theme` writes through to `settings`.
///
/// Projections hold the parent's reference as it was when projected, so re-keying the parent
/// later does not move them.
///
/// The key path is taken as it comes and held as `Sendable`, as swift-sharing does: dynamic
/// member lookup hands over plain key paths (a `& Sendable` parameter rejected a key path kept
/// in a variable), and a key path is immutable once made. One that captured a non-`Sendable`
/// subscript argument shares that argument, which is the caller's to make safe.
final class KeyPathReference<Root: Sendable, Member: Sendable>: MutableReference {
  private let base: any MutableReference<Root>
  private let keyPath: any WritableKeyPath<Root, Member> & Sendable

  init(base: any MutableReference<Root>, keyPath: WritableKeyPath<Root, Member>) {
    self.base = base
    self.keyPath = unsafeBitCast(keyPath, to: (any WritableKeyPath<Root, Member> & Sendable).self)
  }

  var wrappedValue: Member { base.wrappedValue[keyPath: keyPath] }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  var saveError: (any Error)? { base.saveError }
  func load() async throws { try await base.load() }
  func save() async throws { try await base.save() }

  func withLock<R>(_ body: (inout Member) throws -> R) rethrows -> R {
    try base.withLock { root in try body(&root[keyPath: keyPath]) }
  }

  func transaction<R>(_ body: (inout Member) throws -> R) async throws -> R {
    try await base.transaction { root in try body(&root[keyPath: keyPath]) }
  }

  /// A projection is part of a stored value: resetting it would remove the rest too.
  func reset() async throws {
    throw TetherError.notResettable(key: description, kind: "projection")
  }

  func observe(_ observer: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [keyPath] root in observer(root[keyPath: keyPath]) }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  var description: String { "\(base.description)[dynamicMember: \(keyPath)]" }
}

/// A read-only projection of a parent reference: `$settings.id` for a `let`, or any projection
/// of a `SharedReader`.
final class ReadOnlyKeyPathReference<Root: Sendable, Member: Sendable>: Reference {
  private let base: any Reference<Root>
  private let keyPath: any KeyPath<Root, Member> & Sendable

  init(base: any Reference<Root>, keyPath: KeyPath<Root, Member>) {
    self.base = base
    self.keyPath = unsafeBitCast(keyPath, to: (any KeyPath<Root, Member> & Sendable).self)
  }

  var wrappedValue: Member { base.wrappedValue[keyPath: keyPath] }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  func load() async throws { try await base.load() }

  func observe(_ observer: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [keyPath] root in observer(root[keyPath: keyPath]) }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  var description: String { "\(base.description)[dynamicMember: \(keyPath)]" }
}
