import Logging
import Synchronization
import TetherLocking

/// Everything that belongs to one bootstrap: the live references and each plugin's state (the
/// in-memory values, for instance).
///
/// The process has one; `TetherSystem.withBootstrap` gives a task its own, so parallel tests
/// never share values.
@usableFromInline
package final class TetherScope: Sendable {
  /// The scope of the process, used when no task-local scope is set.
  @usableFromInline package static let process = TetherScope()

  @usableFromInline @TaskLocal package static var override: TetherScope?

  /// The scope that new shared values and keys join.
  @usableFromInline package static var current: TetherScope { override ?? process }

  /// The live references of this scope.
  @usableFromInline package let references = LiveReferences()

  /// Names this scope for as long as the process runs, unlike its address, which a later scope
  /// may be given once this one has gone.
  @usableFromInline package let id = ID()

  /// A scope's name: what a plugin's store keeps to say whose flush writes it, so that the store
  /// need not keep the scope (a scope holds its stores through its registry's keys and its
  /// locals, and a store holding it back would keep them all for the life of the process).
  @usableFromInline
  package struct ID: Hashable, Sendable, CustomStringConvertible {
    private static let next = Atomic<UInt64>(0)
    private let value: UInt64

    fileprivate init() {
      value = Self.next.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// `scope 12`, for logs and test failures.
    @usableFromInline package var description: String { "scope \(value)" }
  }

  private let locals = UnfairMutex<[ObjectIdentifier: any AnyObject & Sendable]>([:])
  private let installed: LockedState<StrategyRegistry?>
  private let reportedUnbootstrapped = UnfairMutex<Set<String>>([])

  /// A scope with `registry` (`nil`: not bootstrapped yet).
  package init(registry: StrategyRegistry? = nil) {
    installed = LockedState(registry)
  }

  /// The config this scope was bootstrapped with.
  package var registry: StrategyRegistry? { installed.withLock { $0 } }

  /// Bootstraps this scope; throws `alreadyBootstrapped` if it was.
  package func install(_ registry: StrategyRegistry) throws(TetherError) {
    let wasEmpty = installed.withLock { installed in
      guard installed == nil else { return false }
      installed = registry
      return true
    }
    guard wasEmpty else { throw .alreadyBootstrapped }
  }

  /// Bootstraps this scope with the registry `make` makes, made with this scope as the current
  /// one: declared keys are resolved as the registry loads, and a key belongs to the scope it
  /// is made in (its in-memory value, its store), whichever scope calls.
  package func bootstrap(_ make: () throws -> StrategyRegistry) throws {
    try Self.$override.withValue(self) { try install(make()) }
  }

  /// The key that stores the registered name `name` as `Value` in this scope.
  package func resolve<Value: Sendable>(
    _ name: String, as type: Value.Type
  ) -> Result<any SharedKey<Value>, TetherError> {
    if let registry { return registry.key(named: name, as: type) }
    let firstTime = reportedUnbootstrapped.withLock { $0.insert(name).inserted }
    if firstTime {
      Logger.tether.error("\(TetherError.notBootstrapped(key: name))")
    }
    return .failure(.notBootstrapped(key: name))
  }

  /// The kind of the strategy that stores the registered name `name` in this scope (`nil`
  /// before bootstrap, or when no mapping names it).
  package func strategyKind(of name: String) -> String? {
    registry?.strategyKind(of: name)
  }

  /// A plugin's per-scope state of type `T`, made by `make` on first use.
  ///
  /// Kept as long as the scope is: `T` must not keep the scope (its ``id`` says whose it is),
  /// or neither ever goes.
  package func local<T: AnyObject & Sendable>(_ type: T.Type, make: () -> T) -> T {
    locals.withLock { locals in
      // Each entry is stored under its own type, so it is a `T`: no dynamic cast (one was a
      // fiftieth of starting a file key).
      if let existing = locals[ObjectIdentifier(type)] {
        return unsafeDowncast(existing, to: T.self)
      }
      let made = make()
      locals[ObjectIdentifier(type)] = made
      return made
    }
  }

  /// `key` as this scope's: a key of Tether's own made in another scope is made again here, so
  /// a name has one value per scope, whichever scope its key value came from.
  @inlinable
  package func adopting<Key>(_ key: Key) -> Key {
    // Known at compile time for a holder's concrete key type.
    guard let bound = key as? any ScopeBoundKey, bound.scopeID != id else { return key }
    return rebound(bound, as: Key.self) ?? key
  }

  @usableFromInline
  func rebound<Key>(_ bound: any ScopeBoundKey, as: Key.Type) -> Key? {
    bound.rebound(to: self) as? Key
  }

  /// Runs `operation` with a fresh scope as the current one.
  package static func withIsolatedScope<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ operation: () async throws -> R
  ) async rethrows -> R {
    try await $override.withValue(TetherScope(), operation: operation)
  }
}

/// A key that belongs to the scope it was made in (its value lives there, or its name resolves
/// through that scope's config): made again in the scope of the holder that uses it.
@usableFromInline
package protocol ScopeBoundKey {
  /// The ``TetherScope/id`` of the scope the key was made in.
  var scopeID: TetherScope.ID { get }
  /// The same key, made in `scope`.
  func rebound(to scope: TetherScope) -> Self
}
