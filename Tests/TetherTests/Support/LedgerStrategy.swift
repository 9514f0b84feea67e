import Synchronization
import Tether
import TetherTesting

/// A test strategy whose values live in named in-process ledgers that a test can edit "from
/// outside", the way another process edits a file.
///
/// ```ini
/// [strategy.ledger]
/// ledger = 3F2A…   # which ledger; tests use a fresh one each
/// ```
struct LedgerStrategy: PersistenceStrategy {
  static let kind = "ledger"
  let ledger: Ledger

  init(options: StrategyOptions) throws {
    guard let name = options["ledger"] else { throw options.invalid("ledger", "is required") }
    ledger = Ledger.named(name)
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    TestKey(name, storage: ledger.storage(name, of: Value.self))
  }
}

/// One ledger: a `TestStorage` per name and type.
final class Ledger: Sendable {
  private static let all = Mutex<[String: Ledger]>([:])
  private let storages = Mutex<[String: any Sendable]>([:])

  static func named(_ name: String) -> Ledger {
    all.withLock { all in
      if let ledger = all[name] { return ledger }
      let ledger = Ledger()
      all[name] = ledger
      return ledger
    }
  }

  func storage<Value: Sendable>(_ name: String, of type: Value.Type) -> TestStorage<Value> {
    storages.withLock { storages in
      let slot = "\(name):\(Value.self)"
      if let storage = storages[slot] as? TestStorage<Value> { return storage }
      let storage = TestStorage<Value>()
      storages[slot] = storage
      return storage
    }
  }
}
