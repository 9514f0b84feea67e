import Foundation
import Logging
public import Observation
public import Synchronization
public import TetherLocking

/// The reference that owns a value: a plain box (`Shared(value:)`) or one backed by a key.
///
/// Two locks. `lock`, recursive, serializes changes: `withLock` bodies, loads, deliveries and
/// saves. `readLock` guards only what readers see (the value, `loading`, the errors): it is held
/// for a copy or an assignment and never while other code runs. A read therefore never waits on
/// a `withLock` body, so reading any keys inside `withLock`, in any order on any threads, or
/// from an Observation `onChange`, can neither deadlock nor trip exclusivity checking; the body
/// works on a copy that is committed when it returns. What readers see is written holding both
/// locks, so code holding `lock` reads it without `readLock`.
///
/// This file holds the hot path, a read and a change; loading, saving, transactions and
/// observers are in `StoredReference+Loading.swift`, `+Saving.swift`, `+Transaction.swift` and
/// `+Observers.swift`.
@usableFromInline
final class StoredReference<Value: Sendable>: MutableReference, SaveResultTarget,
  @unchecked Sendable
{
  // @unchecked: every `var` below is read and written only while holding `lock`; `value`,
  // `loading`, `lastLoadError` and `lastSaveError` are written holding `readLock` too, and read
  // holding either.
  @usableFromInline let lock = RecursiveLock()
  @usableFromInline let readLock = UnfairMutex(())
  /// Observation's registrar, made by the first access: until something reads this value
  /// nothing can observe it, so changes before then skip Observation. Unmanaged, so an inlined
  /// read reaches it without a retain; made holding `lock`, released in `deinit`.
  @usableFromInline let registrar = Atomic<Unmanaged<Registrar>?>(nil)
  // Observation is told about one non-generic subject: a generic class's key paths and its
  // `Observable` witness table would be looked up at run time on every access. The registrar
  // matches changes by its own identity and the key path, not the subject, so every reference
  // shares it. Held here too, so an inlined read loads them from `self`.
  @usableFromInline let subject = ObservedSubject.shared
  @usableFromInline let valuePath = ObservedSubject.valuePath
  /// The key and default of a keyed reference (`nil` for a plain value).
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
  /// Local changes committed so far: a load that started before one must not apply what it
  /// read over it (see ``finishLoad(returning:since:)``).
  @usableFromInline @exclusivity(unchecked) var localChanges: UInt64 = 0
  /// Whether a change of this value is being made on the thread holding `lock` (a `withLock`
  /// body, or a commit telling Observation): another one made then would be lost.
  @usableFromInline @exclusivity(unchecked) var changing = false
  /// The thread running a transaction of this value, 0 when none runs: set and cleared holding
  /// `lock`, so a `withLock` that holds `lock` reads it exactly; read without it only to wait.
  @usableFromInline let transaction = Atomic<UInt>(0)
  /// Made by the first transaction of this value (see ``transactionTurn``).
  let turnIfMade = AtomicLazyReference<TransactionTurn>()
  var lastLoadError: (any Error)?
  var lastSaveError: (any Error)?
  @usableFromInline var subscription: SharedSubscription?
  /// The `observe` callbacks, each an ``Observer`` of this value's type.
  var observers: [UInt64: AnyObject] = [:]
  var nextObserver: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var hasObservers = false
  /// Where saves go (set at creation or adopted later).
  @usableFromInline @exclusivity(unchecked) var writer: Writer<Value>?
  /// What the key offered as the value subscribed, to take changes inline: its type, how it
  /// takes one, and the types of the keys of Tether's own that handed it the subscriber.
  var inlineOfferKeyType: ObjectIdentifier?
  var inlineOfferSave: InlineSave<Value>?
  var inlineOfferForwarders: [ObjectIdentifier] = []
  // How a change is saved inline, once the offer stands for `writer`: stored in a cell, or
  // handed to a closure.
  /// The cell, unmanaged so that a change stores through it without a retain:
  /// `inlineCellHeld` keeps it, and both change only holding `lock`, as changes are made.
  @usableFromInline @exclusivity(unchecked) var inlineCell: Unmanaged<MemoryCell<Value>>?
  var inlineCellHeld: MemoryCell<Value>?
  /// The closure.
  @usableFromInline @exclusivity(unchecked) var inlineSave: (@Sendable (Value) -> Bool)?

  /// A plain shared value, with no key.
  init(value: Value) {
    self.value = value
    self.keyed = nil
    self.isEqual = Equality.comparer(for: Value.self)
  }

  /// A value stored by `reader`'s key, saved through `writer` (`nil` for a read-only key),
  /// loaded and subscribed to (unless `skipInitialLoad`): what a holder hands the table of live
  /// references to publish.
  @inlinable
  static func started(
    reader: consuming any SharedReaderKey<Value>, writer: consuming (any SharedKey<Value>)?,
    initialValue: consuming Value, skipInitialLoad: Bool
  ) -> StoredReference {
    let made = StoredReference(reader: reader, writer: writer, initialValue: initialValue)
    made.start(skipInitialLoad: skipInitialLoad)
    return made
  }

  /// A value stored by `reader`'s key, saved through `writer` (`nil` for a read-only key);
  /// call ``start(skipInitialLoad:)`` before publishing it.
  // Inlined, so a holder makes it with its value type known, and no generic metadata is looked
  // up at run time for it.
  @inlinable
  init(
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

  // Inlined, so a holder's read is specialized for its value's type: no value witnesses, no
  // dynamic dispatch.
  @inlinable
  var wrappedValue: Value {
    access(valuePath)
    return readLock.withLock { _ in value }
  }

  /// Tells Observation that `keyPath` is read.
  @inlinable @inline(__always)
  func access(_ keyPath: KeyPath<ObservedSubject, Void>) {
    let registrar = registrar.load(ordering: .acquiring) ?? makeRegistrar()
    registrar._withUnsafeGuaranteedRef { $0.registrar.access(subject, keyPath: keyPath) }
  }

  /// Makes the registrar holding `readLock` (never `lock`: a first read inside another key's
  /// `withLock` must not wait for this one's), so a change that skipped Observation was stored
  /// before the read that follows this access (see ``mutate(_:_:)``).
  @usableFromInline
  func makeRegistrar() -> Unmanaged<Registrar> {
    readLock.withLock { _ in
      if let made = registrar.load(ordering: .acquiring) { return made }
      let made = Unmanaged.passRetained(Registrar())
      registrar.store(made, ordering: .releasing)
      return made
    }
  }

  /// Runs `change` (an assignment of what readers see) holding `readLock`, telling Observation
  /// about it if anything has read this value; call holding `lock`. Whether anything has is
  /// decided under `readLock`, which the first read's registrar is made under: a change that
  /// skips Observation is stored before that read.
  @inlinable
  func mutate(_ keyPath: KeyPath<ObservedSubject, Void>, _ change: () -> Void) {
    if registrar.load(ordering: .acquiring) == nil {
      let stored = readLock.withLock { _ -> Bool in
        guard registrar.load(ordering: .relaxed) == nil else { return false }
        change()
        return true
      }
      if stored { return }
    }
    // Made and never released while `self` lives.
    guard let registrar = registrar.load(ordering: .acquiring) else { return }
    registrar._withUnsafeGuaranteedRef {
      $0.registrar.withMutation(of: subject, keyPath: keyPath) {
        readLock.withLock { _ in change() }
      }
    }
  }

  // Inlined, so the copy and the body are specialized for the holder's value type.
  @inlinable
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try withLock(body, isEqual: isEqual)
  }

  /// `withLock`, telling a change by `isEqual`: the `==` of a caller that knows `Value` is
  /// `Equatable` (see `Shared.withLock`), specialized there for the value's type, where the one
  /// found at run time calls `Value`'s `==` through its witness table (for an array, once per
  /// element).
  @inlinable
  func withLock<R>(
    _ body: (inout Value) throws -> R, isEqual: ((Value, Value) -> Bool)?
  ) rethrows -> R {
    while true {
      var admitted = true
      let result = try lock.withLock { () throws -> R? in
        // A transaction of this value running on another thread holds changes back until it
        // has written (see ``beginTransaction()``).
        let transacting = transaction.load(ordering: .relaxed)
        if transacting != 0, transacting != RecursiveLock.currentThread() {
          admitted = false
          return nil
        }
        // Only this thread can be changing the value while it holds `lock`.
        if changing { reportChangeInsideChange() }
        let outer = changing
        changing = true
        defer { changing = outer }
        var copy = value
        let result = try body(&copy)
        mutated(to: copy, isEqual: isEqual)
        return result
      }
      // `R?` wraps `R` even when `R` is itself optional: admitted, this is the body's result.
      if admitted { return result! }
      waitForTransaction()
    }
  }

  /// Commits what `withLock`'s body made of the value and saves it when it changed (by
  /// `isEqual`); inlined with `withLock`, so copying the value is specialized for its type.
  @inlinable
  func mutated(to newValue: Value, isEqual: ((Value, Value) -> Bool)?) {
    guard commit(newValue, isEqual: isEqual) else { return }
    localChanges &+= 1
    // Checked, not bound: binding `writer` (or the cell) would retain it for every change.
    guard writer != nil else { return }
    if let inlineCell { return inlineCell._withUnsafeGuaranteedRef { $0.store(newValue) } }
    if let inlineSave, inlineSave(newValue) { return }
    if let writer { save(newValue, through: writer) }
  }

  /// Stores `newValue` and notifies when it differs; returns whether it did. Call holding
  /// `lock`.
  @inlinable @discardableResult
  func commit(_ newValue: Value) -> Bool {
    commit(newValue, isEqual: isEqual)
  }

  /// ``commit(_:)``, telling a change by `isEqual` (`nil`: every value is a change).
  @inlinable @discardableResult
  func commit(_ newValue: Value, isEqual: ((Value, Value) -> Bool)?) -> Bool {
    if let isEqual, isEqual(value, newValue) { return false }
    // A change made from Observation's `onChange` (told before the value is stored) would be
    // overwritten by this one.
    let outer = changing
    changing = true
    defer { changing = outer }
    mutate(valuePath) { value = newValue }
    // Checked first: iterating the dictionary in unspecialized code looks up its metadata.
    if hasObservers { notifyObservers(newValue) }
    return true
  }

  /// A change made while the same value is being changed on this thread — inside its own
  /// `withLock` (through another holder of the key) or from an `onChange` of it — is lost when
  /// the outer change is committed, as an overlapping access to a plain variable would be. It
  /// is reported every time: logged as an error naming the key, and an assertion in debug
  /// builds.
  @usableFromInline
  func reportChangeInsideChange() {
    let key = keyed.map { String(describing: $0.reader) } ?? "a shared value without a key"
    let message =
      "\(key) was changed while it was being changed on the same thread (inside its own withLock, or from an onChange of it): the inner change is lost when the outer one is committed; make the change in the outer withLock instead"
    Logger.tether.error("\(message)")
    assertionFailure(message)
  }

  @usableFromInline
  var description: String {
    lock.withLock {
      guard let reader = keyed?.reader else { return "value: \(value)" }
      return String(describing: reader)
    }
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
