import Synchronization
public import TetherTesting

/// One ledger: a `TestStorage` per name and type, which a test strategy keeps its values in
/// and a test edits "from outside", the way another process edits a file.
public final class Ledger: Sendable {
  private static let all = Mutex<[String: Ledger]>([:])
  private let storages = Mutex<[String: any Sendable]>([:])

  /// The ledger called `name`, made by its first use.
  public static func named(_ name: String) -> Ledger {
    all.withLock { all in
      if let ledger = all[name] { return ledger }
      let ledger = Ledger()
      all[name] = ledger
      return ledger
    }
  }

  /// The storage of `name` as `Value`, made by its first use.
  public func storage<Value: Sendable>(_ name: String, of type: Value.Type) -> TestStorage<Value> {
    storages.withLock { storages in
      let slot = "\(name):\(Value.self)"
      if let storage = storages[slot] as? TestStorage<Value> { return storage }
      let storage = TestStorage<Value>()
      storages[slot] = storage
      return storage
    }
  }
}
