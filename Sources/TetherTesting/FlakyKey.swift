import Tether
import TetherLocking

/// The error a ``FlakyKey`` injects.
struct InjectedFailure: Error {}

/// Switches that make a ``FlakyKey`` fail its loads or saves.
final class FailureSwitch: Sendable {
  private let failures = UnfairMutex<(loads: Bool, saves: Bool)>((false, false))

  func set(loads: Bool) { failures.withLock { $0.loads = loads } }
  func set(saves: Bool) { failures.withLock { $0.saves = saves } }
  var loads: Bool { failures.withLock { $0.loads } }
  var saves: Bool { failures.withLock { $0.saves } }
}

/// Wraps a strategy's key and fails on demand, so the conformance suite can check that the
/// strategy's own successes clear the errors the failures left.
struct FlakyKey<Value: Sendable>: SharedKey {
  let base: any SharedKey<Value>
  let failing: FailureSwitch

  var id: AnyHashable { AnyHashable(FlakyID(base: Self.id(of: base))) }

  private struct FlakyID: Hashable {
    let base: AnyHashable
  }

  private static func id(of key: some SharedKey<Value>) -> AnyHashable { AnyHashable(key.id) }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    if failing.loads { return continuation.resume(throwing: InjectedFailure()) }
    base.load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    base.subscribe(context: context, subscriber: subscriber)
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    if failing.saves { return continuation.resume(throwing: InjectedFailure()) }
    base.save(value, context: context, continuation: continuation)
  }
}
