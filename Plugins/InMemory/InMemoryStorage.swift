import Synchronization
import Tether

/// The in-memory values of one scope, one cell per name and type.
final class InMemoryStorage: Sendable {
  private struct Slot: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  /// Each a `Cell` of the slot's type.
  private let cells = Mutex<[Slot: any AnyObject & Sendable]>([:])
  /// The ``TetherScope/id`` of the scope these values belong to.
  let scopeID: TetherScope.ID

  init(scopeID: TetherScope.ID) {
    self.scopeID = scopeID
  }

  func cell<Value>(named name: String, of type: Value.Type) -> Cell<Value> {
    cells.withLock { cells in
      let slot = Slot(name: name, type: ObjectIdentifier(type))
      // Stored under `Value`'s identifier, so a `Cell<Value>`.
      if let cell = cells[slot] { return unsafeDowncast(cell, to: Cell<Value>.self) }
      let cell = Cell<Value>(scopeID: scopeID)
      cells[slot] = cell
      return cell
    }
  }

  /// One stored value; keys hold their cell, so saving never searches the table.
  ///
  /// The value is kept in memory of its own rather than in an `Optional<Value>` or an
  /// existential: every `withLock` of an in-memory key stores here, from code that is not
  /// specialized for `Value`, where either would be a metadata lookup or a box on each store.
  final class Cell<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `storage` is read and written only holding `stored`.
    /// Whether a value is stored, kept apart from the value itself: a stored `nil` of an
    /// optional type is a value, and an empty cell must not read as one.
    private let stored = Mutex(false)
    private let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
    /// The scope of the storage the cell is in: a key holds only its cell and its name.
    let scopeID: TetherScope.ID

    init(scopeID: TetherScope.ID) {
      self.scopeID = scopeID
    }

    deinit {
      if stored.withLock({ $0 }) { storage.deinitialize(count: 1) }
      storage.deallocate()
    }

    /// The stored value; `nil` when nothing is stored (a stored `nil` is `.some(nil)`).
    func value() -> Value? {
      stored.withLock { stored in stored ? storage.pointee : nil }
    }

    func store(_ value: Value) {
      stored.withLock { stored in
        if stored {
          storage.pointee = value
        } else {
          storage.initialize(to: value)
          stored = true
        }
      }
    }

    /// Empties the cell: nothing is stored, so the next holder's default is stored in it.
    func clear() {
      stored.withLock { stored in
        if stored { storage.deinitialize(count: 1) }
        stored = false
      }
    }
  }
}
