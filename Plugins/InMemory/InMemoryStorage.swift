import Synchronization
import Tether

/// The in-memory values of one scope, one cell per name and type.
final class InMemoryStorage: Sendable {
  private struct Slot: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  private let cells = Mutex<[Slot: Cell]>([:])

  func cell<Value>(named name: String, of type: Value.Type) -> Cell {
    cells.withLock { cells in
      let slot = Slot(name: name, type: ObjectIdentifier(type))
      if let cell = cells[slot] { return cell }
      let cell = Cell()
      cells[slot] = cell
      return cell
    }
  }

  /// One stored value; keys hold their cell, so saving never searches the table.
  final class Cell: Sendable {
    private let stored = Mutex<(any Sendable)?>(nil)

    func value<Value>(as type: Value.Type) -> Value? {
      stored.withLock { $0 as? Value }
    }

    func store(_ value: some Sendable) {
      stored.withLock { $0 = value }
    }
  }
}
