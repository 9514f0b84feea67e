/// A writable projection of a parent reference: `$settings.theme` writes through to `settings`.
///
/// Projections hold the parent's reference as it was when projected, so re-keying the parent
/// later does not move them.
final class KeyPathReference<Root: Sendable, Member: Sendable>: MutableReference {
  private let base: any MutableReference<Root>
  private let keyPath: any WritableKeyPath<Root, Member> & Sendable

  init(base: any MutableReference<Root>, keyPath: any WritableKeyPath<Root, Member> & Sendable) {
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
    base.observe { [keyPath] root in observer(root[keyPath: keyPath]) }
  }

  var description: String { "\(base.description)[dynamicMember: \(keyPath)]" }
}

/// A read-only projection of a parent reference: `$settings.id` for a `let`, or any projection
/// of a `SharedReader`.
final class ReadOnlyKeyPathReference<Root: Sendable, Member: Sendable>: Reference {
  private let base: any Reference<Root>
  private let keyPath: any KeyPath<Root, Member> & Sendable

  init(base: any Reference<Root>, keyPath: any KeyPath<Root, Member> & Sendable) {
    self.base = base
    self.keyPath = keyPath
  }

  var wrappedValue: Member { base.wrappedValue[keyPath: keyPath] }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  func load() async throws { try await base.load() }

  func observe(_ observer: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [keyPath] root in observer(root[keyPath: keyPath]) }
  }

  var description: String { "\(base.description)[dynamicMember: \(keyPath)]" }
}
