import Synchronization
import Tether
import TetherTestHelperSupport
import TetherTesting

/// A correct strategy keeping values in process-wide ledgers, and the same strategy broken one
/// way at a time, so that the tests can show the conformance suite names each flaw.
///
/// ```ini
/// [strategy.flawed]
/// # which ledger (each run uses a fresh one), and a Flaw or none
/// ledger = 3F2A…
/// flaw = forgetsDidSetSaves
/// ```
struct FlawedStrategy: PersistenceStrategy {
  static let kind = "flawed"
  let ledger: Ledger
  let flaw: Flaw

  init(options: StrategyOptions) throws {
    guard let ledger = options["ledger"] else {
      throw options.invalid("ledger", "is required")
    }
    guard let flaw = Flaw(rawValue: options["flaw"] ?? "none") else {
      throw options.invalid("flaw", "is not one of \(Flaw.allCases.map(\.rawValue))")
    }
    self.ledger = Ledger.named(ledger)
    self.flaw = flaw
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    FlawedKey(base: TestKey(name, storage: ledger.storage(name, of: Value.self)), flaw: flaw)
  }

  /// Stores `value` under `name` in `ledger` as another process would, telling subscribers.
  static func edit(_ ledger: String, _ name: String, _ value: Int) {
    Ledger.named(ledger).storage(name, of: Int.self).externalChange(value)
  }
}

/// How a ``FlawedKey`` breaks the rules of `SharedKey`.
enum Flaw: String, CaseIterable, Sendable, CustomStringConvertible {
  case none
  case neverResumesLoad
  case neverResumesSave
  case resumesLoadTwice
  case resumesSaveTwice
  case forgetsSaves
  case forgetsDidSetSaves
  case ignoresCancellation
  case echoesSaves

  var description: String { rawValue }
}

/// A ``TestKey`` with a ``Flaw``.
struct FlawedKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  let base: TestKey<Value>
  let flaw: Flaw

  var id: TestKeyID { base.id }

  var description: String { ".flawed(\(String(reflecting: base.name)))" }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    switch flaw {
    case .neverResumesLoad:
      return
    case .resumesLoadTwice:
      base.load(context: context, continuation: continuation)
      base.load(context: context, continuation: continuation)
    default:
      base.load(context: context, continuation: continuation)
    }
  }

  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    let subscription = base.subscribe(context: context, subscriber: subscriber)
    guard flaw == .ignoresCancellation else { return subscription }
    Keeper.keep(subscription)
    return SharedSubscription {}
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    switch flaw {
    case .neverResumesSave:
      return
    case .resumesSaveTwice:
      base.save(value, context: context, continuation: continuation)
      continuation.resume()
    case .forgetsSaves:
      continuation.resume()
    case .forgetsDidSetSaves where context == .didSet:
      continuation.resume()
    case .echoesSaves:
      base.save(value, context: context, continuation: continuation)
      base.storage.externalChange(value)
    default:
      base.save(value, context: context, continuation: continuation)
    }
  }
}

/// Keeps subscriptions alive forever, as a strategy that ignores cancellation would.
private enum Keeper {
  private static let kept = Mutex<[SharedSubscription]>([])
  static func keep(_ subscription: SharedSubscription) {
    kept.withLock { $0.append(subscription) }
  }
}
