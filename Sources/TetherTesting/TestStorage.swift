public import Tether
import TetherLocking

/// A store for ``TestKey`` that a test drives: it fails loads or saves on demand, holds loads
/// until released, drops continuations, and delivers "external" changes to subscribers.
///
/// ```swift
/// let storage = TestStorage<Int>(7)
/// @Shared(TestKey("count", storage: storage)) var count = 0   // 7
/// storage.failSaves(with: DiskFull())
/// $count.withLock { $0 += 1 }                               // $count.saveError is DiskFull
/// storage.externalChange(42)                                // count is 42 when this returns
/// ```
public final class TestStorage<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var loadFailure: (any Error)?
    var saveFailure: (any Error)?
    var holdsLoads = false
    var dropsContinuations = false
    var pendingLoads: [LoadContinuation<Value>] = []
    var subscribers: [UInt64: SharedSubscriber<Value>] = [:]
    var nextSubscriber: UInt64 = 0
    var saves: [(Value, SaveContext)] = []
    var loads = 0
  }

  private let state: UnfairMutex<State>

  /// A store holding `value` (`nil`: nothing stored).
  public init(_ value: Value? = nil) {
    state = UnfairMutex(State(value: value))
  }

  /// What is stored now.
  public var value: Value? { state.withLock { $0.value } }

  /// Every save so far, with its context, in order.
  public var saves: [(value: Value, context: SaveContext)] {
    state.withLock { $0.saves.map { (value: $0.0, context: $0.1) } }
  }

  /// How many loads were asked for.
  public var loads: Int { state.withLock { $0.loads } }

  /// How many subscriptions are live (not cancelled or released).
  public var activeSubscriptions: Int { state.withLock { $0.subscribers.count } }

  /// Makes later loads fail with `error` (`nil`: succeed again).
  public func failLoads(with error: (any Error)?) {
    state.withLock { $0.loadFailure = error }
  }

  /// Makes later saves fail with `error` (`nil`: succeed again).
  public func failSaves(with error: (any Error)?) {
    state.withLock { $0.saveFailure = error }
  }

  /// Holds later loads until ``resumeLoads()``, as a slow store would.
  public func holdLoads() {
    state.withLock { $0.holdsLoads = true }
  }

  /// Resumes every held load with the stored value, and stops holding.
  public func resumeLoads() {
    let (pending, value) = state.withLock { state in
      state.holdsLoads = false
      defer { state.pendingLoads = [] }
      return (state.pendingLoads, state.value)
    }
    for continuation in pending { Self.resume(continuation, with: value) }
  }

  /// Makes later loads and saves drop their continuations without resuming them.
  public func dropContinuations(_ drops: Bool = true) {
    state.withLock { $0.dropsContinuations = drops }
  }

  /// Stores `value` as another process would, and delivers it to every subscriber
  /// (`nil`: the value is gone, holders return to their default).
  public func externalChange(_ value: Value?) {
    let subscribers = state.withLock { state in
      state.value = value
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers {
      if let value { subscriber.yield(value) } else { subscriber.yieldReturningInitialValue() }
    }
  }

  /// Delivers `error` to every subscriber, as a store that can no longer be read would.
  public func externalError(_ error: any Error) {
    for subscriber in state.withLock({ Array($0.subscribers.values) }) {
      subscriber.yield(throwing: error)
    }
  }

  /// Tells every subscriber whether a load is in progress.
  public func yieldLoading(_ isLoading: Bool) {
    for subscriber in state.withLock({ Array($0.subscribers.values) }) {
      subscriber.yieldLoading(isLoading)
    }
  }

  func load(continuation: LoadContinuation<Value>) {
    let action = state.withLock { state -> LoadAction in
      state.loads += 1
      if state.dropsContinuations { return .drop }
      if let failure = state.loadFailure { return .fail(failure) }
      if state.holdsLoads {
        state.pendingLoads.append(continuation)
        return .hold
      }
      return .resume(state.value)
    }
    switch action {
    case .resume(let value): Self.resume(continuation, with: value)
    case .fail(let error): continuation.resume(throwing: error)
    case .hold, .drop: break
    }
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    let outcome = state.withLock { state -> Result<Void, any Error>? in
      if state.dropsContinuations { return nil }
      if let failure = state.saveFailure { return .failure(failure) }
      state.value = value
      state.saves.append((value, context))
      return .success(())
    }
    if let outcome { continuation.resume(with: outcome) }
  }

  func subscribe(_ subscriber: SharedSubscriber<Value>) -> SharedSubscription {
    let id = state.withLock { state in
      defer { state.nextSubscriber += 1 }
      state.subscribers[state.nextSubscriber] = subscriber
      return state.nextSubscriber
    }
    return SharedSubscription { [weak self] in
      self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }
  }

  private enum LoadAction {
    case resume(Value?)
    case fail(any Error)
    case hold
    case drop
  }

  private static func resume(_ continuation: LoadContinuation<Value>, with value: Value?) {
    if let value {
      continuation.resume(returning: value)
    } else {
      continuation.resumeReturningInitialValue()
    }
  }
}
