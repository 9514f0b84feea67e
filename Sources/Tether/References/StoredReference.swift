import Foundation
import Observation

/// The reference that owns a value: a plain box (`Shared(value:)`) or one backed by a key.
///
/// One recursive lock guards everything, so reading the value (or another holder of the same
/// key) inside `withLock`, or from an Observation `onChange`, neither deadlocks nor trips
/// exclusivity checking: the mutation works on a copy that is committed when the body returns.
package final class StoredReference<Value: Sendable>: MutableReference, Observable,
  @unchecked Sendable
{
  // @unchecked: every `var` below is read and written only while holding `lock`.
  private let lock = NSRecursiveLock()
  private let registrar = ObservationRegistrar()
  private var link: KeyLink<Value>?
  private let isEqual: ((Value, Value) -> Bool)?
  private var value: Value
  private var loading = false
  private var lastLoadError: (any Error)?
  private var lastSaveError: (any Error)?
  private var subscription: SharedSubscription?
  private var observers: [UInt64: @Sendable (Value) -> Void] = [:]
  private var nextObserver: UInt64 = 0
  private var releaseHandler: (() -> Void)?
  // A generic class's key paths are instantiated at run time (a type-name lookup each time):
  // made once here, they keep reads and writes to a few nanoseconds.
  private let paths = ObservedPaths<Value>()

  /// A plain shared value, with no key.
  package init(value: Value) {
    self.value = value
    self.link = nil
    self.isEqual = Equality.comparer(for: Value.self)
  }

  /// A value stored by `link`'s key; call ``start(skipInitialLoad:)`` before publishing it.
  package init(link: KeyLink<Value>, initialValue: Value) {
    self.value = initialValue
    self.link = link
    self.isEqual = Equality.comparer(for: Value.self)
  }

  deinit { releaseHandler?() }

  /// Runs `handler` when the last holder releases this reference.
  package func onRelease(_ handler: @escaping () -> Void) {
    lock.withLock { releaseHandler = handler }
  }

  /// Runs the key's initial load and subscribes to its changes.
  package func start(skipInitialLoad: Bool) {
    guard let link else { return }
    let context = LoadContext.initialValue(link.initialValue)
    if !skipInitialLoad {
      lock.withLock { loading = true }
      link.reader.load(
        context: context,
        continuation: LoadContinuation(subject: link.reader) { [weak self] result in
          self?.finishLoad(result)
        })
    }
    let subscriber = SharedSubscriber<Value>(
      callback: { [weak self] result in self?.finishLoad(result) },
      onLoading: { [weak self] isLoading in self?.setLoading(isLoading) },
      onSaved: { [weak self] in self?.finishSave(.success(())) })
    let subscription = link.reader.subscribe(context: context, subscriber: subscriber)
    lock.withLock { self.subscription = subscription }
  }

  package var wrappedValue: Value {
    registrar.access(self, keyPath: paths.value)
    lock.lock()
    defer { lock.unlock() }
    return value
  }

  package var isLoading: Bool {
    registrar.access(self, keyPath: paths.loading)
    return lock.withLock { loading }
  }

  package var loadError: (any Error)? {
    registrar.access(self, keyPath: paths.loadError)
    return lock.withLock { lastLoadError }
  }

  package var saveError: (any Error)? {
    registrar.access(self, keyPath: paths.saveError)
    return lock.withLock { lastSaveError }
  }

  // Observation identities: the registrar needs a key path per observed property.
  fileprivate var observedValue: Value { value }
  fileprivate var observedLoading: Bool { loading }
  fileprivate var observedLoadError: (any Error)? { lastLoadError }
  fileprivate var observedSaveError: (any Error)? { lastSaveError }

  /// Lets a `Shared` join a reference that a `SharedReader` created with a read-only key of the
  /// same id: saves then go to `writer`.
  package func adopt(writer: any SharedKey<Value>) {
    lock.withLock {
      if link?.writer == nil { link?.writer = writer }
    }
  }

  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    var copy = value
    let result = try body(&copy)
    guard commit(copy) else { return result }
    if let writer = link?.writer {
      writer.save(
        copy, context: .didSet,
        continuation: SaveContinuation(subject: writer) { [weak self] result in
          self?.finishSave(result)
        })
    }
    return result
  }

  package func load() async throws {
    guard let link = lock.withLock({ link }) else { return }
    setLoading(true)
    let result: Result<Value?, any Error>? = await withCheckedContinuation { continuation in
      link.reader.load(
        context: .userInitiated,
        continuation: LoadContinuation(subject: link.reader) { result in
          continuation.resume(returning: result)
        })
    }
    finishLoad(result)
    if case .failure(let error) = result { throw error }
  }

  package func save() async throws {
    let result: Result<Void, any Error>? = await withCheckedContinuation { continuation in
      // Under the lock, so this save reaches the key in order with implicit ones.
      lock.withLock {
        guard let writer = link?.writer else { return continuation.resume(returning: .success(())) }
        writer.save(
          value, context: .userInitiated,
          continuation: SaveContinuation(subject: writer) { result in
            continuation.resume(returning: result)
          })
      }
    }
    finishSave(result)
    if case .failure(let error) = result { throw error }
  }

  package func observe(_ observer: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    let id = lock.withLock {
      let id = nextObserver
      nextObserver += 1
      observers[id] = observer
      observer(value)
      return id
    }
    return SharedSubscription { [weak self] in
      guard let self else { return }
      self.lock.withLock { _ = self.observers.removeValue(forKey: id) }
    }
  }

  /// Applies a value from the key (a load or a subscription); `nil` means the initial value.
  package func finishLoad(_ result: Result<Value?, any Error>?) {
    lock.lock()
    defer { lock.unlock() }
    switch result {
    case .success(let loaded):
      if let link { commit(loaded ?? link.initialValue) }
      setLoadError(nil)
    case .failure(let error):
      setLoadError(error)
    case nil:
      break
    }
    setLoading(false)
  }

  package var description: String {
    lock.withLock {
      guard let link else { return "value: \(value)" }
      return String(describing: link.reader)
    }
  }

  /// Stores `newValue` and notifies when it differs; returns whether it did.
  @discardableResult
  private func commit(_ newValue: Value) -> Bool {
    if let isEqual, isEqual(value, newValue) { return false }
    registrar.withMutation(of: self, keyPath: paths.value) { value = newValue }
    for observer in observers.values { observer(newValue) }
    return true
  }

  private func finishSave(_ result: Result<Void, any Error>?) {
    lock.lock()
    defer { lock.unlock() }
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

  private func setLoading(_ isLoading: Bool) {
    lock.withLock {
      guard loading != isLoading else { return }
      registrar.withMutation(of: self, keyPath: paths.loading) { loading = isLoading }
    }
  }

  private func setLoadError(_ error: (any Error)?) {
    guard lastLoadError != nil || error != nil else { return }
    registrar.withMutation(of: self, keyPath: paths.loadError) { lastLoadError = error }
  }

  private func setSaveError(_ error: (any Error)?) {
    guard lastSaveError != nil || error != nil else { return }
    registrar.withMutation(of: self, keyPath: paths.saveError) { lastSaveError = error }
  }
}

/// What ties a stored reference to its key: the key erased to its capabilities.
package struct KeyLink<Value: Sendable>: Sendable {
  package var reader: any SharedReaderKey<Value>
  package var writer: (any SharedKey<Value>)?
  package let initialValue: Value

  package init(
    reader: any SharedReaderKey<Value>, writer: (any SharedKey<Value>)?, initialValue: Value
  ) {
    self.reader = reader
    self.writer = writer
    self.initialValue = initialValue
  }
}

/// The key paths Observation is told about, made once per reference.
private struct ObservedPaths<Value: Sendable> {
  let value: KeyPath<StoredReference<Value>, Value> = \.observedValue
  let loading: KeyPath<StoredReference<Value>, Bool> = \.observedLoading
  let loadError: KeyPath<StoredReference<Value>, (any Error)?> = \.observedLoadError
  let saveError: KeyPath<StoredReference<Value>, (any Error)?> = \.observedSaveError
}
