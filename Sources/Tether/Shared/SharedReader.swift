public import Observation

/// A read-only view of a shared value: it follows every change, and cannot make one.
///
/// ```swift
/// @SharedReader(.defaults("theme")) var theme = "light"
/// ```
@propertyWrapper
@dynamicMemberLookup
public struct SharedReader<Value: Sendable>: Sendable {
  @usableFromInline typealias Box = ReferenceBox<Value, any Reference<Value>>
  @usableFromInline let box: Box

  /// `stored` is `reference` when it is a stored one (reads are then specialized for `Value`).
  @inlinable
  init(
    reference: any Reference<Value>, stored: StoredReference<Value>? = nil,
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

  /// Reads the value of `key`, using `wrappedValue` only if nothing is live or stored yet.
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedReaderKey<Value>) {
    // Inlined, so the holder's cell and reference are made with their types known (see
    // `Shared.init(wrappedValue:_:)`).
    self.init(Self.reference(for: key, writer: nil, initialValue: wrappedValue))
  }

  /// Reads the value of a writable key; holders with `@Shared` share the same reference.
  @_disfavoredOverload
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.init(Self.reference(for: key, writer: key, initialValue: wrappedValue))
  }

  /// Reads the value of a key that carries its own default.
  public init<Key: SharedReaderKey<Value>>(_ key: Key.Default) {
    self.init(wrappedValue: key.defaultValue(), key.base)
  }

  /// Reads the value of a key that carries its own default, overriding that default.
  public init<Key: SharedReaderKey<Value>>(
    wrappedValue: @autoclosure () -> Value, _ key: Key.Default
  ) {
    self.init(wrappedValue: wrappedValue(), key.base)
  }

  /// Reads an optional value whose default is `nil`.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedReaderKey<Value>) where Value == Wrapped? {
    self.init(wrappedValue: nil, key)
  }

  /// Loads `key` and reads its value; throws when the load fails or nothing is stored.
  ///
  /// When the key already has live holders, this joins them and keeps their value, as a new
  /// holder does: a change they made and have not saved yet is newer than what was stored.
  public init(require key: some SharedReaderKey<Value>) async throws {
    let scope = TetherScope.current
    let key = scope.adopting(key)
    let value = try await key.loadRequired()
    let held = scope.references.reference(
      id: AnyHashable(key.id), reader: key, writer: nil, skipInitialLoad: true
    ) { value }
    self.init(held)
  }

  /// A constant value with no key.
  public init(value: Value) {
    let reference = StoredReference(value: value)
    self.init(reference: reference, stored: reference, lifetime: nil)
  }

  /// A read-only view of `shared`, following its changes.
  public init(_ shared: Shared<Value>) {
    let held = shared.box.held
    self.init(reference: held.reference, stored: held.stored, lifetime: held.lifetime)
  }

  /// Unwraps a shared optional; `nil` when it is `nil` now.
  public init?(_ base: SharedReader<Value?>) {
    let parent = base.box.held
    guard let reference = UnwrappedReaderReference(base: parent.reference) else { return nil }
    self.init(reference: reference, lifetime: parent.lifetime)
  }

  /// Property-wrapper plumbing.
  public init(projectedValue: SharedReader<Value>) {
    self = projectedValue
  }

  /// The current value.
  @inlinable
  public var wrappedValue: Value {
    box.withCurrent(stored: { $0.wrappedValue }, other: { $0.wrappedValue })
  }

  /// This reader; assigning re-keys it, and every copy of it.
  public var projectedValue: SharedReader<Value> {
    get { self }
    nonmutating set { box.rekey(following: newValue.box) }
  }

  /// Reloads the value from its key; rethrows the key's error (also kept in ``loadError``).
  public func load() async throws {
    try await box.reference.load()
  }

  /// Re-keys this reader (and every copy) to `key`, then loads it.
  public func load(_ key: some SharedReaderKey<Value>) async throws {
    let current = wrappedValue
    let scope = TetherScope.current
    let key = scope.adopting(key)
    let held = scope.references.reference(
      id: AnyHashable(key.id), reader: key, writer: nil, skipInitialLoad: true
    ) { current }
    box.rekey(to: held.reference, stored: held.reference, lifetime: held.lifetime)
    try await held.reference.load()
  }

  /// Whether the key is still loading the value.
  public var isLoading: Bool { box.reference.isLoading }

  /// The last load error, until a later load succeeds.
  public var loadError: (any Error)? { box.reference.loadError }

  /// The current value, then each distinct change; see ``Shared/changes``.
  public var changes: some AsyncSequence<Value, Never> & Sendable {
    SharedChanges(listen: box.listen)
  }

  /// A read-only projection: `$settings.theme`.
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
    for key: some SharedReaderKey<Value>, writer: (any SharedKey<Value>)?,
    initialValue: () -> Value
  ) -> HeldReference<Value> {
    let scope = TetherScope.current
    let key = scope.adopting(key)
    let writer = writer.map { scope.adopting($0) }
    return scope.references.reference(id: AnyHashable(key.id), writer: writer) {
      StoredReference.started(
        reader: key, writer: writer, initialValue: initialValue(), skipInitialLoad: false)
    }
  }
}

extension SharedReader: CustomStringConvertible {
  /// `SharedReader<Int>(.inMemory("count"))`.
  public var description: String {
    "SharedReader<\(Value.self)>(\(box.reference.description))"
  }
}

extension SharedReader: Equatable where Value: Equatable {
  /// Readers are equal when their current values are.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue
  }
}

extension SharedReader: Observable {}
