/// A key that can load a value from somewhere and subscribe to its changes.
///
/// Tether's strategies provide keys (`.inMemory("count")`, `.fileStorage(url)`,
/// `.defaults("theme")`); an app may write its own. Two keys with equal ``id`` share one live
/// reference, whatever their concrete types.
///
/// A key resumes its continuations and calls its subscriber from any thread. It must not hold a
/// lock of its own while calling into them: they may read or mutate the shared value.
///
/// ```swift
/// struct VariableKey: SharedReaderKey {
///   let name: String
///   var id: String { name }
///   func load(context: LoadContext<String>, continuation: LoadContinuation<String>) {
///     if let value = ProcessInfo.processInfo.environment[name] {
///       continuation.resume(returning: value)
///     } else {
///       continuation.resumeReturningInitialValue()
///     }
///   }
///   func subscribe(
///     context: LoadContext<String>, subscriber: SharedSubscriber<String>
///   ) -> SharedSubscription {
///     SharedSubscription {}
///   }
/// }
/// ```
public protocol SharedReaderKey<Value>: Sendable {
  /// The type of the value this key stores.
  associatedtype Value: Sendable
  /// What identifies the stored value: keys with equal ids share one reference.
  associatedtype ID: Hashable = Self

  /// What identifies the stored value: keys with equal ids share one reference.
  var id: ID { get }

  /// Loads the stored value, resuming `continuation` exactly once, on any thread.
  ///
  /// Resume with ``LoadContinuation/resumeReturningInitialValue()`` when nothing is stored.
  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>)

  /// Starts delivering changes made outside this process's shared references to `subscriber`.
  ///
  /// Returns a subscription whose cancellation stops the deliveries.
  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription
}

extension SharedReaderKey where ID == Self {
  /// A key that is its own identity.
  public var id: Self { self }
}

/// Why a key is asked to load its value.
public enum LoadContext<Value> {
  /// The first holder of the key is being created with this default value.
  case initialValue(Value)
  /// The user asked for a fresh load (`load()`, `Shared(require:)`).
  case userInitiated

  /// The default value offered with the load, if any.
  public var initialValue: Value? {
    guard case .initialValue(let value) = self else { return nil }
    return value
  }
}

extension LoadContext: Sendable where Value: Sendable {}
extension LoadContext: Equatable where Value: Equatable {}
extension LoadContext: Hashable where Value: Hashable {}
