/// What a key's `subscribe` calls, as often as needed and from any thread, when the stored value
/// changes outside this process's shared references.
///
/// Every holder of the key has seen the change (and every Observation `onChange` has fired) by
/// the time a `yield` returns.
public struct SharedSubscriber<Value: Sendable>: Sendable {
  private let callback: @Sendable (Result<Value?, any Error>) -> Void
  private let onLoading: @Sendable (Bool) -> Void
  private let onSaved: @Sendable (Result<Void, any Error>) -> Void
  /// A shared value's "this value (`nil`: the initial value), with this error", applied as one
  /// change; `nil` for a subscriber made with the public initializer, which is told the two in
  /// turn.
  private let onFallback: (@Sendable (Value?, any Error) -> Void)?
  /// A shared value's "the stored value is readable again, unchanged"; `nil` for a subscriber
  /// made with the public initializer.
  private let onRecovered: (@Sendable () -> Void)?
  /// Told of a key that takes changes inline (see ``takeChangesInline(from:_:)``): its type,
  /// how it takes one, and the keys that handed this subscriber on to it.
  private let onInline: InlineOffer?
  /// Runs its body holding the lock a shared value's changes are made under (see
  /// ``give(_:seen:)``); `nil` for a subscriber made with the public initializer.
  private let withHolders: (@Sendable (() -> Void) -> Void)?

  /// What ``takeChangesInline(from:_:)`` tells the shared value.
  package typealias InlineOffer =
    @Sendable (
      _ keyType: ObjectIdentifier, _ save: InlineSave<Value>, _ forwarders: [ObjectIdentifier]
    ) -> Void
  /// The types of Tether's own keys that handed this subscriber on (see
  /// ``forwardingInline(by:)``).
  private var forwarders: [ObjectIdentifier] = []

  /// Creates a subscriber; `nil` in a result stands for "the initial value".
  ///
  /// For a subscriber of your own, not a shared value's: a key that wraps another hands the
  /// wrapped key the subscriber it was given, or one made from it with ``forwarding(_:)``,
  /// which keeps what ``give(_:seen:)`` promises.
  public init(
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void = { _ in }
  ) {
    self.callback = callback
    self.onLoading = onLoading
    self.onSaved = { _ in }
    self.onFallback = nil
    self.onRecovered = nil
    self.onInline = nil
    self.withHolders = nil
  }

  /// A shared value's subscriber: also told how writes it asked for went, of a key that takes
  /// its changes inline, and of a value (or the initial value) with an error as one change.
  package init(
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void,
    onSaved: @escaping @Sendable (Result<Void, any Error>) -> Void,
    onFallback: @escaping @Sendable (Value?, any Error) -> Void,
    onRecovered: @escaping @Sendable () -> Void,
    onInline: @escaping InlineOffer,
    withHolders: @escaping @Sendable (() -> Void) -> Void
  ) {
    self.withHolders = withHolders
    self.onRecovered = onRecovered
    self.callback = callback
    self.onLoading = onLoading
    self.onSaved = onSaved
    self.onFallback = onFallback
    self.onInline = onInline
  }

  /// A subscriber to hand a key that this subscriber's key wraps, of another value type: what
  /// the wrapped key delivers reaches this subscriber through `transform`, and the wrapped key's
  /// ``give(_:seen:)`` still runs under the lock the holders' changes are made under.
  ///
  /// ```swift
  /// // A temperature kept in a file as whole tenths of a degree.
  /// func subscribe(
  ///   context: LoadContext<Celsius>, subscriber: SharedSubscriber<Celsius>
  /// ) -> SharedSubscription {
  ///   tenths.subscribe(
  ///     context: .userInitiated,
  ///     subscriber: subscriber.forwarding { (tenths: Int) in Celsius(tenths: tenths) })
  /// }
  /// ```
  ///
  /// A key that wraps one of its own value type hands on the subscriber it was given. Either
  /// way, do not make one with ``init(callback:onLoading:)`` to forward with: its `give` runs
  /// its two closures without that lock, so a holder's change can come between a delivered
  /// value and its `seen`, and a wrapped key whose store wins over changes made before its
  /// value (Tether's file, defaults and PostgreSQL keys) takes it for one, and drops it.
  ///
  /// A value `transform` throws for is delivered as the error (``yield(throwing:)``): holders
  /// keep their value and set `loadError`. The wrapped key cannot take the holders' changes
  /// inline (they are not its values): they reach it through the wrapping key's `save`.
  public func forwarding<Inner: Sendable>(
    _ transform: @escaping @Sendable (Inner) throws -> Value
  ) -> SharedSubscriber<Inner> {
    let outer = self
    @Sendable func map(_ inner: Inner?) -> Result<Value?, any Error> {
      Result { try inner.map(transform) }
    }
    return SharedSubscriber<Inner>(
      forwardingTo: { result in outer.callback(result.flatMap(map)) },
      onLoading: onLoading,
      onSaved: onSaved,
      onFallback: { inner, error in
        switch map(inner) {
        case .success(let value): outer.yield(fallingBackTo: value, error: error)
        // A stand-in that cannot be transformed either: the default, with the store's error.
        case .failure: outer.yield(fallingBackTo: nil, error: error)
        }
      },
      onRecovered: { outer.onRecovered?() },
      withHolders: withHolders)
  }

  /// A subscriber that forwards to another (see ``forwarding(_:)``).
  private init(
    forwardingTo callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void,
    onSaved: @escaping @Sendable (Result<Void, any Error>) -> Void,
    onFallback: @escaping @Sendable (Value?, any Error) -> Void,
    onRecovered: @escaping @Sendable () -> Void,
    withHolders: (@Sendable (() -> Void) -> Void)?
  ) {
    self.callback = callback
    self.onLoading = onLoading
    self.onSaved = onSaved
    self.onFallback = onFallback
    self.onRecovered = onRecovered
    self.onInline = nil
    self.withHolders = withHolders
  }

  /// Delivers what `yield` tells this subscriber, then runs `seen`, with no change of the
  /// holders' made in between: both run holding the lock the holders' changes are made under,
  /// which is also held while the key's `save` is called for one of them (for a subscriber made
  /// with the public initializer, the two run one after the other).
  ///
  /// A key delivers through it a value read from its store whenever a holder's change could
  /// race the delivery, as any outside edit can: decoded first, the value is on its way to the
  /// holders while they go on changing it and saving. Two ways to meet the rule that the holders
  /// and the store end on one value (DESIGN: a save that returns has stored the holder's value):
  /// - **the newest write wins** (a log, a last-writer-wins store): in `yield`, deliver the value
  ///   only when no save this process asked for is newer in the store than the value, or still
  ///   on its way there. Every `save` the holders call is either wholly before `yield` (and the
  ///   value is dropped as older) or wholly after it (and saves a change made on the value);
  /// - **the store wins** (a change made without seeing the store's value is refused, with
  ///   `TetherError.conflict` for `save()`): refuse from the moment the value is read, and end the
  ///   refusal in `seen`, at the very point the holders have the value, so that a change they
  ///   make on seeing it is never taken for one made before.
  ///
  /// `StrategyConformance` checks the rule. Decode before calling this: the holders' changes
  /// wait while it runs. And since `save` is called holding the same lock, a key's `save` must
  /// never wait for the thread that calls `give` (a serial queue's `sync`, say).
  ///
  /// ```swift
  /// let decoded = Result { try decode(line.json) }   // before the holders' changes wait
  /// subscriber.give { subscriber in
  ///   // A save of this process journaled after the line stands.
  ///   if journal.isNewest(line) { subscriber.yield(with: decoded.map(Optional.some)) }
  /// }
  /// ```
  public func give(_ yield: (Self) -> Void, seen: () -> Void = {}) {
    guard let withHolders else {
      yield(self)
      return seen()
    }
    withHolders {
      yield(self)
      seen()
    }
  }

  /// Delivers what a key decoded from its store: the value, the default for `nil` (nothing
  /// stored), or for a failure the default with the error as `loadError`, as one change (see
  /// ``yieldReturningInitialValue(throwing:)``).
  package func yield(decoded: Result<Value?, any Error>) {
    switch decoded {
    case .success(let value?): yield(value)
    case .success(nil): yieldReturningInitialValue()
    case .failure(let error): yieldReturningInitialValue(throwing: error)
    }
  }

  /// Delivers a new value; clears `loadError` and `isLoading`.
  public func yield(_ value: Value) { callback(.success(value)) }

  /// Says the stored value is gone: holders return to their default.
  public func yieldReturningInitialValue() { callback(.success(nil)) }

  /// Delivers an error: holders keep their value and set `loadError`.
  public func yield(throwing error: any Error) { callback(.failure(error)) }

  /// Says the stored value cannot be read (a file edited into something that does not decode):
  /// holders return to their default and set `loadError` to `error`, as one change.
  ///
  /// Use it rather than ``yieldReturningInitialValue()`` followed by ``yield(throwing:)``: between
  /// those two, a reader of the value (a `changes` iterator, an Observation `onChange`) can find
  /// the default with no error, and take it for what is stored. Here the error is set before the
  /// default is, under one hold of the holders' lock, so whoever is told of the default finds
  /// the error with it. A subscriber made with ``init(callback:onLoading:)`` (a key forwarding
  /// to another) is told `.success(nil)`, then `.failure(error)`.
  public func yieldReturningInitialValue(throwing error: any Error) {
    yield(fallingBackTo: nil, error: error)
  }

  /// Says the stored value cannot be read, and `value` stands in for it (a defaults key's
  /// registered value, in place of a user's line that does not parse): holders take `value` —
  /// their default when `nil` — and set `loadError` to `error`, as one change, as
  /// ``yieldReturningInitialValue(throwing:)`` does for the default. A subscriber made with
  /// ``init(callback:onLoading:)`` is told the value, then the error.
  package func yield(fallingBackTo value: Value?, error: any Error) {
    guard let onFallback else {
      callback(.success(value))
      return callback(.failure(error))
    }
    onFallback(value, error)
  }

  /// Says the stored value is readable again and did not change (a server back after an
  /// outage, with nothing written meanwhile): holders clear `loadError` and keep their value.
  package func yieldLoadErrorCleared() { onRecovered?() }

  /// Delivers a result; `.success(nil)` means "the initial value".
  public func yield(with result: Result<Value?, any Error>) { callback(result) }

  /// Sets holders' `isLoading`, for keys whose values arrive asynchronously.
  public func yieldLoading(_ isLoading: Bool = true) { onLoading(isLoading) }

  /// Tells how writing a change the holders asked for earlier went (a change the key took
  /// inline, see ``takeChangesInline(from:_:)``, or one kept after a failure and written by a
  /// flush):
  /// holders clear `saveError` on success and set it on failure.
  package func yieldSaveResult(_ result: Result<Void, any Error>) { onSaved(result) }

  /// Offers to take the shared value's changes made through `withLock` with `save`, called on
  /// the mutating thread, rather than through `key`'s `save` with a continuation each: for a
  /// key of Tether's own whose save cannot fail (memory), or whose outcome it tells through
  /// ``yieldSaveResult(_:)`` (a throttled file). `save` returns `false` to have that change
  /// saved with a continuation after all. Call from `subscribe`.
  ///
  /// The value takes the offer when the key it saves through is of `key`'s type, or of the
  /// type of a key of Tether's own that handed this subscriber on to `key`
  /// (``forwardingInline(by:)``): an app's key that wraps another and hands on the subscriber it
  /// was given keeps its own `save`.
  package func takeChangesInline(
    from key: some SharedKey<Value>, _ save: @escaping @Sendable (Value) -> Bool
  ) {
    onInline?(ObjectIdentifier(type(of: key)), .calling(save), forwarders)
  }

  /// Offers to take the shared value's changes made through `withLock` by storing each in
  /// `cell`, as ``takeChangesInline(from:_:)`` does with a closure: for a key whose value is
  /// `cell`'s (memory). The store is inlined into the holder's `withLock`, with no call through
  /// a closure. Call from `subscribe`.
  package func storeChangesInline(from key: some SharedKey<Value>, in cell: MemoryCell<Value>) {
    onInline?(ObjectIdentifier(type(of: key)), .storing(cell), forwarders)
  }

  /// This subscriber, handed on by `forwarder`, a key of Tether's own that saves through the
  /// key it hands it to (a registered key, to the key it resolved to).
  package func forwardingInline(by forwarder: some SharedReaderKey) -> SharedSubscriber {
    var forwarding = self
    forwarding.forwarders.append(ObjectIdentifier(type(of: forwarder)))
    return forwarding
  }
}

/// How a key offers to take a shared value's changes inline.
package enum InlineSave<Value: Sendable>: Sendable {
  /// Each change is handed to the closure, which returns `false` to have that change saved with
  /// a continuation after all.
  case calling(@Sendable (Value) -> Bool)
  /// Each change is stored in the cell.
  case storing(MemoryCell<Value>)
}
