import Tether
import TetherFiles
import TetherLocking
import TetherWatcher

/// The file stores of one scope, one per path and value type, kept while a key holds them: a
/// store that goes forgets its slot, so a process that opens ever new paths keeps no trace of
/// the closed ones.
final class FileStores: Sendable {
  private struct Slot: Hashable {
    let path: HashedPath
    let type: ObjectIdentifier

    func hash(into hasher: inout Hasher) {
      hasher.combine(path.stringHash)
      hasher.combine(type)
    }

    /// The hashes first: paths in one folder share long prefixes.
    static func == (lhs: Slot, rhs: Slot) -> Bool {
      lhs.path.stringHash == rhs.path.stringHash && lhs.type == rhs.type
        && lhs.path.string == rhs.path.string
    }
  }

  private struct Entry {
    weak var store: FileStore?
  }

  private let stores = UnfairMutex<[Slot: Entry]>([:])
  /// Whose stores these are. The id, not the scope: the scope keeps these stores (as a local,
  /// and through its registry's keys), so keeping it here would keep both for good.
  private let scope: TetherScope.ID

  init(scope: TetherScope.ID) {
    self.scope = scope
  }

  /// The current scope's stores, made at its first file key.
  static var current: FileStores {
    let scope = TetherScope.current
    return scope.local(FileStores.self) { FileStores(scope: scope.id) }
  }

  func store<Value: Sendable>(
    path: HashedPath, in folder: HashedPath, of type: Value.Type, settings: FileStorageSettings
  ) -> FileStore {
    let (store, isLive) = stores.withLock { stores -> (FileStore, Bool) in
      // Found or made in one lookup: the slot is hashed and probed once.
      func take(_ entry: inout Entry) -> (FileStore, Bool) {
        if let live = entry.store { return (live, true) }
        let store = FileStore(
          path: path, in: folder, settings: settings, scope: scope, stores: self,
          valueType: ObjectIdentifier(type))
        entry.store = store
        return (store, false)
      }
      return take(&stores[Slot(path: path, type: ObjectIdentifier(type)), default: Entry()])
    }
    if isLive && store.settings != settings {
      let message =
        "\(path): open with \(store.settings) (its first key's settings); "
        + "a key asking for \(settings) shares them"
      FileStore.logger.warning("\(message)")
    }
    return store
  }

  /// Forgets the slot of a store of `type` at `path` that has gone, unless a new store took it
  /// (a key made while the old store was going): called as the store goes.
  func forget(path: HashedPath, of type: ObjectIdentifier) {
    stores.withLock { stores in
      let slot = Slot(path: path, type: type)
      guard let index = stores.index(forKey: slot), stores.values[index].store == nil else {
        return
      }
      stores.remove(at: index)
    }
  }

  /// The slots kept, live or not yet forgotten: for tests.
  var slots: Int { stores.withLock { $0.count } }

  /// The live stores' states: for tests that hold them weakly, to check they go with them.
  var states: [AnyObject] { stores.withLock { $0.values.compactMap { $0.store?.stateObject } } }
}
