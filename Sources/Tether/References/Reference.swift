/// The storage behind a `SharedReader`: a value that can be read, observed and reloaded.
///
/// Reading `wrappedValue` registers an Observation access; every change fires Observation's
/// `onChange` synchronously on the changing thread, then calls the `observe` callbacks there.
@usableFromInline
protocol Reference<Value>: AnyObject, Sendable, CustomStringConvertible {
  associatedtype Value: Sendable
  var wrappedValue: Value { get }
  var isLoading: Bool { get }
  var loadError: (any Error)? { get }
  func load() async throws
  /// Calls `observer` with the current value now, then with every change, until the returned
  /// subscription is cancelled or released.
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> SharedSubscription
  /// Tells Observation that what was read through this reference changed: a holder re-keyed
  /// away from it, and its readers now read another one.
  func tellObservationReplaced()
}

/// The storage behind a `Shared`: a reference that can also be mutated and saved.
@usableFromInline
protocol MutableReference<Value>: Reference {
  var saveError: (any Error)? { get }
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R
  func save() async throws
  /// Reads the latest stored value, runs `body` on it and writes the result, under the store's
  /// cross-process lock (see ``Shared/transaction(_:)``).
  func transaction<R>(_ body: (inout Value) throws -> R) async throws -> R
  /// Removes the stored value: every holder shows its default (see ``Shared/reset()``).
  func reset() async throws
}
