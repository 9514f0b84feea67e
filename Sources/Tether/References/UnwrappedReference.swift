import TetherLocking

/// A non-optional view of an optional parent: `Shared($user)` for a `Shared<User?>`.
///
/// While the parent is `nil` it keeps the last non-nil value and accepts local writes without
/// bringing the parent back; when the parent is non-nil again it follows it.
final class UnwrappedReference<Wrapped: Sendable>: MutableReference {
  private let base: any MutableReference<Wrapped?>
  private let lastValue: UnfairMutex<Wrapped>

  init?(base: any MutableReference<Wrapped?>) {
    guard let value = base.wrappedValue else { return nil }
    self.base = base
    self.lastValue = UnfairMutex(value)
  }

  var wrappedValue: Wrapped { remember(base.wrappedValue) }

  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  var saveError: (any Error)? { base.saveError }
  func load() async throws { try await base.load() }
  func save() async throws { try await base.save() }

  func withLock<R>(_ body: (inout Wrapped) throws -> R) rethrows -> R {
    // `lastValue` is never held while `body` runs: `body` may read this value.
    try base.withLock { optional in
      var value = optional ?? lastValue.withLock { $0 }
      let result = try body(&value)
      lastValue.withLock { [value] in $0 = value }
      if optional != nil { optional = value }
      return result
    }
  }

  /// A transaction of the parent: one that finds `nil` stored has nothing to unwrap, and
  /// throws `TetherError.noValue` without writing.
  func transaction<R>(_ body: (inout Wrapped) throws -> R) async throws -> R {
    try await base.transaction { optional in
      guard var value = optional else { throw TetherError.noValue(key: base.description) }
      let result = try body(&value)
      lastValue.withLock { [value] in $0 = value }
      optional = value
      return result
    }
  }

  /// Resets the parent: the same key, so the same stored value.
  func reset() async throws { try await base.reset() }

  func observe(_ observer: @escaping @Sendable (Wrapped) -> Void) -> SharedSubscription {
    base.observe { [self] optional in observer(self.remember(optional)) }
  }

  /// The parent's value when it has one (remembering it), else the last one it had.
  private func remember(_ optional: Wrapped?) -> Wrapped {
    lastValue.withLock { last in
      if let value = optional { last = value }
      return last
    }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  var description: String { "\(base.description)!" }
}

/// The read-only counterpart of ``UnwrappedReference``, for `SharedReader<Value?>`.
final class UnwrappedReaderReference<Wrapped: Sendable>: Reference {
  private let base: any Reference<Wrapped?>
  private let lastValue: UnfairMutex<Wrapped>

  init?(base: any Reference<Wrapped?>) {
    guard let value = base.wrappedValue else { return nil }
    self.base = base
    self.lastValue = UnfairMutex(value)
  }

  var wrappedValue: Wrapped { remember(base.wrappedValue) }

  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  func load() async throws { try await base.load() }

  func observe(_ observer: @escaping @Sendable (Wrapped) -> Void) -> SharedSubscription {
    base.observe { [self] optional in observer(self.remember(optional)) }
  }

  /// The parent's value when it has one (remembering it), else the last one it had.
  private func remember(_ optional: Wrapped?) -> Wrapped {
    lastValue.withLock { last in
      if let value = optional { last = value }
      return last
    }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  var description: String { "\(base.description)!" }
}
