import Tether
import TetherLocking

/// The in-memory values of one scope, one cell per name and type.
final class InMemoryStorage: Sendable {
  private struct Slot: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  /// Each a `MemoryCell` of the slot's type.
  private let cells = UnfairMutex<[Slot: any AnyObject & Sendable]>([:])

  /// The cell of `name`'s value of type `Value`; keys hold their cell, so saving never searches
  /// the table.
  func cell<Value>(named name: String, of type: Value.Type) -> MemoryCell<Value> {
    cells.withLock { cells in
      let slot = Slot(name: name, type: ObjectIdentifier(type))
      // Stored under `Value`'s identifier, so a `MemoryCell<Value>`.
      if let cell = cells[slot] { return unsafeDowncast(cell, to: MemoryCell<Value>.self) }
      let cell = MemoryCell<Value>()
      cells[slot] = cell
      return cell
    }
  }
}
