import Synchronization

/// The cell that every copy of one `Shared` (or `SharedReader`) holds, so re-keying through
/// `projectedValue` re-keys every copy, and `changes` streams follow the new key.
package final class ReferenceBox<Value: Sendable, Ref: Sendable>: Sendable {
  private struct State {
    var reference: Ref
    var listeners: [UInt64: Listener] = [:]
    var nextListener: UInt64 = 0
  }

  private struct Listener {
    let callback: @Sendable (Value) -> Void
    var subscription: SharedSubscription
  }

  private let state: Mutex<State>
  private let observe: @Sendable (Ref, @escaping @Sendable (Value) -> Void) -> SharedSubscription

  package init(
    _ reference: Ref,
    observe: @escaping @Sendable (Ref, @escaping @Sendable (Value) -> Void) -> SharedSubscription
  ) {
    self.state = Mutex(State(reference: reference))
    self.observe = observe
  }

  package var reference: Ref {
    state.withLock { $0.reference }
  }

  /// Points every copy at `reference`; live `changes` streams move along and yield its value.
  package func rekey(to reference: Ref) {
    state.withLock { state in
      state.reference = reference
      for (id, listener) in state.listeners {
        listener.subscription.cancel()
        state.listeners[id]?.subscription = observe(reference, listener.callback)
      }
    }
  }

  /// Calls `callback` with the current value, then each change, across re-keying.
  package func listen(_ callback: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    let id = state.withLock { state in
      let id = state.nextListener
      state.nextListener += 1
      let subscription = observe(state.reference, callback)
      state.listeners[id] = Listener(callback: callback, subscription: subscription)
      return id
    }
    return SharedSubscription { [self] in
      let removed = state.withLock { $0.listeners.removeValue(forKey: id) }
      removed?.subscription.cancel()
    }
  }
}
