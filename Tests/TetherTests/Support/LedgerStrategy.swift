import Synchronization
import Tether
import TetherTestHelperSupport
import TetherTesting

/// A test strategy whose values live in named in-process ledgers that a test can edit "from
/// outside", the way another process edits a file.
///
/// ```ini
/// [strategy.ledger]
/// # which ledger; tests use a fresh one each
/// ledger = 3F2A…
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
