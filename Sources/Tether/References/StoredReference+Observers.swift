/// The `observe` callbacks that `changes` streams and projections follow.
extension StoredReference {
  @usableFromInline
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
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

  /// Tells Observation that this value changed for whoever read it through a holder that
  /// re-keyed away from it (other holders of the key may be told too, which Observation allows).
  @usableFromInline
  func tellObservationReplaced() {
    lock.withLock { mutate(ObservedSubject.valuePath) {} }
  }

  @usableFromInline
  func notifyObservers(_ newValue: Value) {
    for observer in observers.values {
      unsafeDowncast(observer, to: Observer<Value>.self).notify(newValue)
    }
  }
}

/// One of a reference's observers (see ``StoredReference/observe(_:)``).
final class Observer<Value: Sendable>: Sendable {
  let notify: @Sendable (Value) -> Void
  init(_ notify: @escaping @Sendable (Value) -> Void) { self.notify = notify }
}
