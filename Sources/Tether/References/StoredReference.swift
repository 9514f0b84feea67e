import Foundation
public import Observation
public import Synchronization

/// The reference that owns a value: a plain box (`Shared(value:)`) or one backed by a key.
///
/// One recursive lock guards everything, so reading the value (or another holder of the same
/// key) inside `withLock`, or from an Observation `onChange`, neither deadlocks nor trips
/// exclusivity checking: the mutation works on a copy that is committed when the body returns.
@usableFromInline
package final class StoredReference<Value: Sendable>: MutableReference, SaveResultTarget,
  @unchecked Sendable
{
  // @unchecked: every `var` below is read and written only while holding `lock`.
  @usableFromInline let lock = RecursiveLock()
  /// Observation's registrar, made by the first access: until something reads this value
  /// nothing can observe it, so changes before then skip Observation (a registrar is two
  /// allocations, and `withMutation` cost more than the rest of a change). Unmanaged, so an
  /// inlined read reaches it without a retain; made holding `lock`, released in `deinit`.
  @usableFromInline let registrar = Atomic<Unmanaged<Registrar>?>(nil)
  // Observation is told about one non-generic subject: a generic class's key paths and its
  // `Observable` witness table are looked up at run time on every access (measured: most of a
  // read). The registrar matches changes by its own identity and the key path, not the subject,
  // so every reference shares it. Held here too, so an inlined read loads them from `self`
  // rather than through the globals' once-guards.
  @usableFromInline let subject = ObservedSubject.shared
  @usableFromInline let valuePath = ObservedSubject.valuePath
  /// The key and default of a keyed reference (`nil` for a plain value). An object rather than
  /// an optional generic struct: unspecialized code looked up the struct's metadata at every
  /// use (five a key), where an object's fields are reached through the object itself.
  @usableFromInline let keyed: Keyed?

  @usableFromInline
  final class Keyed: Sendable {
    @usableFromInline let reader: any SharedReaderKey<Value>
    /// What "no stored value" stands for: the holder's default.
    @usableFromInline let initialValue: Value

    @usableFromInline
    init(reader: any SharedReaderKey<Value>, initialValue: Value) {
      self.reader = reader
      self.initialValue = initialValue
    }
  }
  @usableFromInline let isEqual: ((Value, Value) -> Bool)?
  // Unchecked: guarded by `lock`, and `withLock` mutates a copy, so the runtime's exclusivity
  // bookkeeping (a thread-local set per access) only costs time here.
  @usableFromInline @exclusivity(unchecked) var value: Value
  @usableFromInline var loading = false
  private var lastLoadError: (any Error)?
  private var lastSaveError: (any Error)?
  @usableFromInline var subscription: SharedSubscription?
  // Values of a non-generic type: an empty dictionary of a generic closure type had its tuple
  // and function metadata looked up for every new reference (a fortieth of opening a file key).
  private var observers: [UInt64: AnyObject] = [:]
  private var nextObserver: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var hasObservers = false
  // Where saves go (set at creation or adopted later). Boxed: a change reaches the key through
  // one retain, where copying it out of an optional existential copied the whole key.
  @usableFromInline @exclusivity(unchecked) var writer: Writer<Value>?

  /// A plain shared value, with no key.
  package init(value: Value) {
    self.value = value
    self.keyed = nil
    self.isEqual = Equality.comparer(for: Value.self)
  }

  /// A value stored by `reader`'s key, saved through `writer` (`nil` for a read-only key),
  /// loaded and subscribed to (unless `skipInitialLoad`): what a holder hands the table of live
  /// references to publish.
  @inlinable
  package static func started(
    reader: consuming any SharedReaderKey<Value>, writer: consuming (any SharedKey<Value>)?,
    initialValue: consuming Value, skipInitialLoad: Bool
  ) -> StoredReference {
    let made = StoredReference(reader: reader, writer: writer, initialValue: initialValue)
    made.start(skipInitialLoad: skipInitialLoad)
    return made
  }

  /// A value stored by `reader`'s key, saved through `writer` (`nil` for a read-only key);
  /// call ``start(skipInitialLoad:)`` before publishing it.
  // Inlined, so a holder makes it with its value type known: the reference's, the key box's
  // and the writer's generic metadata were otherwise looked up at run time for each.
  @inlinable
  package init(
    reader: any SharedReaderKey<Value>, writer: (any SharedKey<Value>)?, initialValue: Value
  ) {
    self.value = initialValue
    self.keyed = Keyed(reader: reader, initialValue: initialValue)
    if let writer { self.writer = Writer(writer) }
    self.isEqual = Equality.comparer(for: Value.self)
  }

  deinit {
    registrar.load(ordering: .acquiring)?.release()
  }

  /// Stops following the key, once the last holder has let go (see ``ReferenceLifetime``).
  ///
  /// The key's callbacks hold this reference strongly; cancelling its subscription lets them go.
  package func stop() {
    let subscription = lock.withLock {
      defer { self.subscription = nil }
      return self.subscription
    }
    subscription?.cancel()
  }

  /// Runs the key's initial load and subscribes to its changes.
  // Inlined with the holder's `make` (see `LiveReferences`), so the load's context and
  // continuation are made with the value type known.
  @inlinable
  package func start(skipInitialLoad: Bool) {
    guard let keyed else { return }
    let reader = keyed.reader
    let context = LoadContext.initialValue(keyed.initialValue)
    if !skipInitialLoad {
      lock.withLock { loading = true }
      reader.load(
        context: context,
        continuation: LoadContinuation(reference: self))
    }
    let subscriber = SharedSubscriber<Value>(
      callback: { result in self.finishLoad(result) },
      onLoading: { isLoading in self.setLoading(isLoading) },
      onSaved: { result in self.saveFinished(result) })
    let subscription = reader.subscribe(context: context, subscriber: subscriber)
    lock.withLock { self.subscription = subscription }
  }

  // Inlined, so a holder's read is specialized for its value's type: no value witnesses, no
  // dynamic dispatch (measured with callgrind: most of a read, before).
  @inlinable
  package var wrappedValue: Value {
    access(valuePath)
    return lock.withLockNonReentrant { value }
  }

  @usableFromInline
  package var isLoading: Bool {
    access(ObservedSubject.loadingPath)
    return lock.withLock { loading }
  }

  @usableFromInline
  package var loadError: (any Error)? {
    access(ObservedSubject.loadErrorPath)
    return lock.withLock { lastLoadError }
  }

  @usableFromInline
  package var saveError: (any Error)? {
    access(ObservedSubject.saveErrorPath)
    return lock.withLock { lastSaveError }
  }

  /// Tells Observation that `keyPath` is read.
  @inlinable @inline(__always)
  func access(_ keyPath: KeyPath<ObservedSubject, Void>) {
    let registrar = registrar.load(ordering: .acquiring) ?? makeRegistrar()
    registrar._withUnsafeGuaranteedRef { $0.registrar.access(subject, keyPath: keyPath) }
  }

  /// Makes the registrar holding `lock`, so a change made before it skipped Observation only
  /// if it was committed before the read that follows this access.
  @usableFromInline
  func makeRegistrar() -> Unmanaged<Registrar> {
    lock.withLock {
      if let made = registrar.load(ordering: .acquiring) { return made }
      let made = Unmanaged.passRetained(Registrar())
      registrar.store(made, ordering: .releasing)
      return made
    }
  }

  /// Runs `change`, telling Observation about it if anything has read this value; call holding
  /// `lock`.
  @inlinable
  func mutate(_ keyPath: KeyPath<ObservedSubject, Void>, _ change: () -> Void) {
    guard let registrar = registrar.load(ordering: .relaxed) else { return change() }
    registrar._withUnsafeGuaranteedRef {
      $0.registrar.withMutation(of: subject, keyPath: keyPath, change)
    }
  }

  /// Lets a `Shared` join a reference that a `SharedReader` created with a read-only key of the
  /// same id: saves then go to `writer`.
  package func adopt(writer: any SharedKey<Value>) {
    lock.withLock {
      guard keyed != nil, self.writer == nil else { return }
      self.writer = Writer(writer)
    }
  }

  // Inlined, so the copy and the body are specialized for the holder's value type.
  @inlinable
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    return try lock.withLock {
      var copy = value
      let result = try body(&copy)
      mutated(to: copy)
      return result
    }
  }

  /// Commits what `withLock`'s body made of the value and saves it when it changed.
  ///
  /// Inlined with `withLock`, so committing is specialized for the value's type: unspecialized,
  /// copying and comparing the value went through its witnesses (measured: a third of an
  /// in-memory increment).
  @inlinable
  func mutated(to newValue: Value) {
    guard commit(newValue), let writer else { return }
    save(newValue, through: writer)
  }

  /// Hands a change to the key: inline when it takes changes so, else with a continuation.
  @usableFromInline
  func save(_ newValue: Value, through writer: Writer<Value>) {
    if let inline = writer.inline, inline.saveInline(newValue) { return }
    writer.key.save(newValue, context: .didSet, continuation: SaveContinuation(target: self))
  }

  @usableFromInline
  package func load() async throws {
    guard let reader = keyed?.reader else { return }
    setLoading(true)
    let result: Result<Value?, any Error>? = await withCheckedContinuation { continuation in
      reader.load(
        context: .userInitiated,
        continuation: LoadContinuation(subject: reader) { result in
          continuation.resume(returning: result)
        })
    }
    finishLoad(result)
    if case .failure(let error) = result { throw error }
  }

  @usableFromInline
  package func save() async throws {
    let result: Result<Void, any Error>? = await withCheckedContinuation { continuation in
      let caller = CallerWork()
      // Under the lock, so this save reaches the key in order with implicit ones.
      lock.withLock {
        guard let writer = writer?.key else {
          return continuation.resume(returning: .success(()))
        }
        writer.save(
          value, context: .userInitiated,
          continuation: SaveContinuation(subject: writer, caller: caller) { result in
            continuation.resume(returning: result)
          })
      }
      caller.run()
    }
    saveFinished(result)
    if case .failure(let error) = result { throw error }
  }

  @usableFromInline
  package func observe(_ observer: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    let id = lock.withLock {
      let id = nextObserver
      nextObserver += 1
      observers[id] = Observer(observer)
      hasObservers = true
      observer(value)
      return id
    }
    return SharedSubscription {
      self.lock.withLock {
        self.observers.removeValue(forKey: id)
        self.hasObservers = !self.observers.isEmpty
      }
    }
  }

  /// Applies a value from the key (a load or a subscription); `nil` means the initial value.
  @usableFromInline
  package func finishLoad(_ result: Result<Value?, any Error>?) {
    switch result {
    case .success(let value?): finishLoad(returning: value)
    case .success(nil): finishLoadReturningInitialValue()
    case .failure(let error): finishLoad(throwing: error)
    case nil: finishLoadDropped()
    }
  }

  /// Applies a loaded value. (The outcomes have a method each: see `LoadBox`.)
  package func finishLoad(returning value: Value) {
    lock.withLock {
      if keyed != nil { commit(value) }
      setLoadError(nil)
      setLoading(false)
    }
  }

  /// Goes back to the default: the key has nothing stored.
  package func finishLoadReturningInitialValue() {
    lock.withLock {
      if let keyed { commit(keyed.initialValue) }
      setLoadError(nil)
      setLoading(false)
    }
  }

  /// Keeps the value and sets `loadError`.
  package func finishLoad(throwing error: any Error) {
    lock.withLock {
      setLoadError(error)
      setLoading(false)
    }
  }

  /// A load whose continuation was dropped: only loading ends.
  package func finishLoadDropped() {
    setLoading(false)
  }

  @usableFromInline
  package var description: String {
    lock.withLock {
      guard let reader = keyed?.reader else { return "value: \(value)" }
      return String(describing: reader)
    }
  }

  /// Stores `newValue` and notifies when it differs; returns whether it did.
  @inlinable @discardableResult
  func commit(_ newValue: Value) -> Bool {
    if let isEqual, isEqual(value, newValue) { return false }
    mutate(valuePath) { value = newValue }
    // Checked first: iterating the dictionary in unspecialized code looks up its metadata.
    if hasObservers { notifyObservers(newValue) }
    return true
  }

  @usableFromInline
  func notifyObservers(_ newValue: Value) {
    for observer in observers.values {
      unsafeDowncast(observer, to: Observer<Value>.self).notify(newValue)
    }
  }

  /// The key a report about one of this value's loads names.
  package var keySubject: any Sendable {
    keyed.map { $0.reader as any Sendable } ?? "a shared value without a key"
  }

  /// The key a report about one of this value's saves names.
  package var saveSubject: any Sendable {
    lock.withLock { writer.map { $0.key as any Sendable } ?? "a shared value without a key" }
  }

  /// Takes a save's result: success clears the errors, failure sets `saveError`.
  @usableFromInline
  package func saveFinished(_ result: Result<Void, any Error>?) {
    lock.withLock {
      switch result {
      case .success:
        // What is stored is now this value, so an earlier load failure no longer applies.
        setSaveError(nil)
        setLoadError(nil)
      case .failure(let error):
        setSaveError(error)
      case nil:
        break
      }
    }
  }

  @usableFromInline
  func setLoading(_ isLoading: Bool) {
    lock.withLock {
      guard loading != isLoading else { return }
      mutate(ObservedSubject.loadingPath) { loading = isLoading }
    }
  }

  private func setLoadError(_ error: (any Error)?) {
    guard lastLoadError != nil || error != nil else { return }
    mutate(ObservedSubject.loadErrorPath) { lastLoadError = error }
  }

  private func setSaveError(_ error: (any Error)?) {
    guard lastSaveError != nil || error != nil else { return }
    mutate(ObservedSubject.saveErrorPath) { lastSaveError = error }
  }
}

/// What Observation is told a stored reference's accesses and changes are about: only the
/// identities of these properties matter.
@usableFromInline
final class ObservedSubject: Observable, Sendable {
  static let shared = ObservedSubject()

  var value: Void { () }
  var loading: Void { () }
  var loadError: Void { () }
  var saveError: Void { () }

  // Made once: a key-path literal is looked up in the runtime each time it is evaluated.
  static let valuePath = \ObservedSubject.value
  static let loadingPath = \ObservedSubject.loading
  static let loadErrorPath = \ObservedSubject.loadError
  static let saveErrorPath = \ObservedSubject.saveError
}

/// A reference's Observation registrar, in an object so that it can be made at the first read.
@usableFromInline
final class Registrar: Sendable {
  @usableFromInline let registrar = ObservationRegistrar()
}

/// One of a reference's observers (see ``StoredReference/observe(_:)``).
private final class Observer<Value: Sendable>: Sendable {
  let notify: @Sendable (Value) -> Void
  init(_ notify: @escaping @Sendable (Value) -> Void) { self.notify = notify }
}

/// A reference's writing key, held in an object so that saving reaches it without a copy, and
/// whether it saves inline, found out once.
@usableFromInline
final class Writer<Value: Sendable>: Sendable {
  @usableFromInline let key: any SharedKey<Value>
  let inline: (any InlineSavingKey<Value>)?

  @usableFromInline init(_ key: any SharedKey<Value>) {
    self.key = key
    self.inline = key as? any InlineSavingKey<Value>
  }
}
