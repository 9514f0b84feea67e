public import Observation

/// A value shared by every holder of its key, kept wherever the key stores it.
///
/// ```swift
/// @Shared(.inMemory("count")) var count = 0
/// $count.withLock { $0 += 1 }  // every holder of "count" sees 1, at once
/// ```
///
/// `withLock` is the only way to mutate. Reads are cheap and participate in Observation: an
/// `@Observable` model (or any `withObservationTracking`) that reads a shared value is told of
/// every change, synchronously, on the thread that made it, including changes that arrive from
/// the key's storage (another process editing the file, for instance).
///
/// A `Sendable` final class holds `let count = Shared(.count)` rather than a `@Shared var`:
/// property-wrapper storage is a `var`.
@propertyWrapper
@dynamicMemberLookup
public struct Shared<Value: Sendable>: Sendable {
  @usableFromInline typealias Box = ReferenceBox<Value, any MutableReference<Value>>
  @usableFromInline let box: Box

  /// `stored` is `reference` when it is a stored one (reads are then specialized for `Value`).
  @inlinable
  init(
    reference: any MutableReference<Value>, stored: StoredReference<Value>? = nil,
    lifetime: ReferenceLifetime?
  ) {
    self.box = Box(reference, stored: stored, lifetime: lifetime) { reference, observer in
      reference.observe(observer)
    }
  }

  @inlinable
  init(_ held: HeldReference<Value>) {
    self.init(reference: held.reference, stored: held.reference, lifetime: held.lifetime)
  }

  /// Shares the value of `key`, using `wrappedValue` only if nothing is live or stored yet.
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    // Inlined, so the holder's cell, its node and its reference are made with their types known:
    // their generic metadata is otherwise looked up at run time for every new holder.
    self.init(Self.reference(for: key, initialValue: wrappedValue))
  }

  /// Shares the value of a key that carries its own default.
  ///
  /// ```swift
  /// extension SharedKey where Self == InMemoryKey<Int>.Default {
  ///   static var count: Self { Self[.inMemory("count"), default: 0] }
  /// }
  /// @Shared(.count) var count
  /// ```
  public init<Key: SharedKey<Value>>(_ key: Key.Default) {
    self.init(wrappedValue: key.defaultValue(), key.base)
  }

  /// Shares the value of a key that carries its own default, overriding that default.
  ///
  /// The override is used only if nothing is live or stored yet.
  public init<Key: SharedKey<Value>>(wrappedValue: @autoclosure () -> Value, _ key: Key.Default) {
    self.init(wrappedValue: wrappedValue(), key.base)
  }

  /// Shares an optional value whose default is `nil`: `@Shared(.fileStorage(url)) var user: User?`.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedKey<Value>) where Value == Wrapped? {
    self.init(wrappedValue: nil, key)
  }

  /// Loads `key` and shares its value; throws when the load fails or nothing is stored.
  ///
  /// When the key already has live holders, this joins them and keeps their value, as a new
  /// holder does: a change they made and have not saved yet is newer than what was stored.
  ///
  /// ```swift
  /// let settings = try await Shared(require: .fileStorage(settingsURL))
  /// ```
  public init(require key: some SharedKey<Value>) async throws {
    let scope = TetherScope.current
    let key = scope.adopting(key)
    let value = try await key.loadRequired()
    let held = scope.references.reference(
      id: AnyHashable(key.id), reader: key, writer: key, skipInitialLoad: true
    ) { value }
    self.init(held)
  }

  /// A shared value with no key: copies see each other's changes, nothing is stored.
  public init(value: Value) {
    let reference = StoredReference(value: value)
    self.init(reference: reference, stored: reference, lifetime: nil)
  }

  /// Unwraps a shared optional; `nil` when it is `nil` now.
  ///
  /// Later, while the parent is `nil`, this keeps its last value; it follows the parent again
  /// once the parent has a value.
  public init?(_ base: Shared<Value?>) {
    let parent = base.box.held
    guard let reference = UnwrappedReference(base: parent.reference) else { return nil }
    self.init(reference: reference, lifetime: parent.lifetime)
  }

  /// Property-wrapper plumbing: `@Shared var count: Int` initialised from `$count`.
  public init(projectedValue: Shared<Value>) {
    self = projectedValue
  }

  /// The current value; mutate it with `withLock(_:)`.
  @inlinable
  public var wrappedValue: Value {
    box.withCurrent(stored: { $0.wrappedValue }, other: { $0.wrappedValue })
  }

  /// This shared value; assigning re-keys it, and every copy of it.
  ///
  /// ```swift
  /// $count = Shared(.inMemory("other"))
  /// ```
  public var projectedValue: Shared<Value> {
    get { self }
    nonmutating set { box.rekey(following: newValue.box) }
  }

  /// Mutates the value under the reference's lock and saves it when it changed.
  ///
  /// A change is by `==` when `Value` is `Equatable`, every call otherwise; it notifies every
  /// holder and Observation before this returns, then calls the key's `save(context: .didSet)`.
  /// Reading the value inside `body` gives the value before this mutation.
  ///
  /// ```swift
  /// $facts.withLock { $0.append(fact) }
  /// $total.withLock { $0 = a + b }  // reads of other keys never wait for their withLock
  /// ```
  ///
  /// `withLock` is atomic within this process; across processes the last writer wins.
  ///
  /// - Reading any shared values inside `body` — this one, other keys, in any order, on any
  ///   threads — never waits for another `withLock`, so it cannot deadlock.
  /// - Nesting `withLock` of two keys, in opposite orders on two threads, is a lock-order
  ///   inversion, as with any two locks: the threads can wait for each other for ever.
  /// - Changing this same key inside `body` (through another holder of it), or from an
  ///   Observation `onChange` of it, is an overlapping change, like overlapping accesses to a
  ///   variable: the inner change is lost when this one commits. It is reported every time, as
  ///   an error naming the key in the log, and stops a debug build at an assertion.
  @inlinable
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try box.withCurrent(stored: { try $0.withLock(body) }, other: { try $0.withLock(body) })
  }

  /// Reloads the value from its key; rethrows the key's error (also kept in ``loadError``).
  public func load() async throws {
    try await box.reference.load()
  }

  /// Re-keys this shared value (and every copy) to `key`, then loads it.
  ///
  /// The value stays as it is until the load finishes, and if nothing is stored under `key`.
  public func load(_ key: some SharedKey<Value>) async throws {
    let current = wrappedValue
    let held = Self.reference(for: key, skipInitialLoad: true) { current }
    box.rekey(to: held.reference, stored: held.reference, lifetime: held.lifetime)
    try await held.reference.load()
  }

  /// Saves the value now, bypassing any throttle; rethrows the key's error.
  ///
  /// Like `UserDefaults.synchronize()`, the file plugins write on the calling thread when no
  /// other write of the file is under way (readers of the value are not held up meanwhile), so
  /// the value is on disk when this returns:
  ///
  /// ```swift
  /// $settings.withLock { $0.volume = 7 }
  /// try await $settings.save()
  /// ```
  public func save() async throws {
    try await box.reference.save()
  }

  /// Reads the latest stored value, runs `body` on it and writes the result, with no other
  /// process changing the value in between: the read-modify-write for a value several processes
  /// update.
  ///
  /// ```swift
  /// @Shared(.defaults("launches")) var launches = 0
  /// let launch = try await $launches.transaction { $0 += 1; return $0 }
  /// ```
  ///
  /// `withLock` is atomic within this process, but across processes the last writer wins: two
  /// processes that each `withLock { $0 += 1 }` can lose a count. A transaction holds the
  /// store's cross-process lock (a sibling `.NAME.lock` file for file and defaults keys) while
  /// it writes this process's pending change of the key, reads what is stored now (not the
  /// value held here), runs `body` and writes the result. When it returns, the value is stored
  /// and every holder in this process shows it; holders in other processes see it as they see
  /// any change of the store.
  ///
  /// - If `body` throws, nothing is written and the error is rethrown. A stored value that
  ///   cannot be decoded throws its decoding error, and nothing is written.
  /// - `body` may run more than once when something that does not take the lock (an editor)
  ///   changes the store between the read and the write: only its last run is written.
  /// - This process's other changes of the value (`withLock` on other threads) wait until the
  ///   transaction has written; reads never wait. The calling thread may block while another
  ///   process holds the lock.
  /// - Keys opt in with ``TransactionalKey``: memory, file and defaults keys do, a registered key
  ///   forwards to the key it resolves to, and any other throws
  ///   ``TetherError/notTransactional(key:kind:)``.
  @discardableResult
  public func transaction<R>(_ body: (inout Value) throws -> R) async throws -> R {
    try await box.reference.transaction(body)
  }

  /// Removes the stored value, so every holder shows its default again.
  ///
  /// The file is deleted, the defaults line removed, the in-memory value cleared. When it
  /// returns, every holder in this process shows what stands for the key now — its default, or
  /// for a defaults key a registration value — and holders in other processes see the removal
  /// as they see any change of the store. This process's earlier changes of the key never land
  /// after it.
  ///
  /// ```swift
  /// try await $theme.reset()
  /// ```
  ///
  /// Keys opt in with ``ResettableKey``: memory, file and defaults keys do, a registered key
  /// forwards to the key it resolves to, and any other throws
  /// ``TetherError/notResettable(key:kind:)``, as do a projection (`$settings.theme`, part of a
  /// stored value) and a value with no key.
  public func reset() async throws {
    try await box.reference.reset()
  }

  /// Whether the key is still loading the value.
  public var isLoading: Bool { box.reference.isLoading }

  /// The last load error, until a later load or save succeeds.
  public var loadError: (any Error)? { box.reference.loadError }

  /// The last save error, until a later save succeeds.
  public var saveError: (any Error)? { box.reference.saveError }

  /// The current value, then each distinct change, including changes made outside this process.
  ///
  /// Each iteration starts from the value current at that time, and follows re-keying. The
  /// latest value wins: an iteration that falls behind gets the value current when it next asks,
  /// not every value it missed, so an iterator that is not read holds one value, not a queue.
  ///
  /// ```swift
  /// for await count in $count.changes { render(count) }
  /// ```
  public var changes: some AsyncSequence<Value, Never> & Sendable {
    SharedChanges(listen: box.listen)
  }

  /// A writable projection: `$settings.theme` writes through to `settings`.
  public subscript<Member>(dynamicMember keyPath: WritableKeyPath<Value, Member>)
    -> Shared<Member>
  {
    let parent = box.held
    return Shared<Member>(
      reference: KeyPathReference(base: parent.reference, keyPath: keyPath),
      lifetime: parent.lifetime)
  }

  /// A read-only projection of a property that cannot be written.
  public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>)
    -> SharedReader<Member>
  {
    let parent = box.held
    return SharedReader<Member>(
      reference: ReadOnlyKeyPathReference(base: parent.reference, keyPath: keyPath),
      lifetime: parent.lifetime)
  }

  @inlinable
  static func reference(
    for key: some SharedKey<Value>, skipInitialLoad: Bool = false,
    initialValue: () -> Value
  ) -> HeldReference<Value> {
    let scope = TetherScope.current
    let key = scope.adopting(key)
    return scope.references.reference(id: AnyHashable(key.id), writer: key) {
      StoredReference.started(
        reader: key, writer: key, initialValue: initialValue(), skipInitialLoad: skipInitialLoad)
    }
  }
}

extension Shared: CustomStringConvertible {
  /// `Shared<Int>(.inMemory("count"))`, or `Shared<Int>(value: 0)` for a value with no key.
  public var description: String {
    "Shared<\(Value.self)>(\(box.reference.description))"
  }
}

// The same as for any value, with `Value`'s `==` as the caller knows it: inlined there, the
// comparison is specialized for the value's type.
extension Shared where Value: Equatable {
  /// Mutates the value under the reference's lock and saves it when it changed by `==`; see
  /// the `withLock` of any `Shared`.
  ///
  /// ```swift
  /// $facts.withLock { $0.append(fact) }
  /// ```
  @inlinable
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try box.withCurrent(
      stored: { try $0.withLock(body, isEqual: { $0 == $1 }) },
      other: { try $0.withLock(body) })
  }
}

extension Shared: Equatable where Value: Equatable {
  /// Shared values are equal when their current values are.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue
  }
}

extension Shared: Observable {}
