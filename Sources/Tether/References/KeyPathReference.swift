/// A writable projection of a parent reference: `$settings.theme`.
///
/// It holds the parent's reference as it was when projected, so re-keying the parent later does
/// not move the projection.
final class KeyPathReference<Root: Sendable, Member: Sendable>: MutableReference {
  private let base: any MutableReference<Root>
  // Key paths are immutable; Swift 6.3 does not infer `Sendable` for those passed through
  // dynamic member lookup.
  nonisolated(unsafe) private let keyPath: WritableKeyPath<Root, Member>

  init(base: any MutableReference<Root>, keyPath: WritableKeyPath<Root, Member>) {
    self.base = base
    self.keyPath = keyPath
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

  func observe(_ observer: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [self] root in observer(root[keyPath: self.keyPath]) }
  }

  var description: String { "\(base.description)[dynamicMember: \(keyPath)]" }
}

/// A read-only projection of a parent reference: `$settings.count` through a `let`, or any
/// projection of a `SharedReader`.
final class ReadOnlyKeyPathReference<Root: Sendable, Member: Sendable>: Reference {
  private let base: any Reference<Root>
  // Key paths are immutable; see `KeyPathReference`.
  nonisolated(unsafe) private let keyPath: KeyPath<Root, Member>

  init(base: any Reference<Root>, keyPath: KeyPath<Root, Member>) {
    self.base = base
    self.keyPath = keyPath
  }

  var wrappedValue: Member { base.wrappedValue[keyPath: keyPath] }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  func load() async throws { try await base.load() }

  func observe(_ observer: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [self] root in observer(root[keyPath: self.keyPath]) }
  }

  var description: String { "\(base.description)[dynamicMember: \(keyPath)]" }
}
