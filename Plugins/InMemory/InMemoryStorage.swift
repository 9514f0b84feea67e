import Synchronization
import Tether

/// The in-memory values of one scope, one cell per name and type.
final class InMemoryStorage: Sendable {
  private struct Slot: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  private let cells = Mutex<[Slot: Cell]>([:])
  /// The ``TetherScope/id`` of the scope these values belong to.
  let scopeID: TetherScope.ID

  init(scopeID: TetherScope.ID) {
    self.scopeID = scopeID
  }

  func cell<Value>(named name: String, of type: Value.Type) -> Cell {
    cells.withLock { cells in
      let slot = Slot(name: name, type: ObjectIdentifier(type))
      if let cell = cells[slot] { return cell }
      let cell = Cell(scopeID: scopeID)
      cells[slot] = cell
      return cell
    }
  }

  /// One stored value; keys hold their cell, so saving never searches the table.
  final class Cell: Sendable {
    /// Whether a value is stored, kept apart from the value itself: a stored `nil` of an
    /// optional type is a value, and an empty cell must not read as one.
    private enum Content {
      case empty
      case stored(any Sendable)
    }

    private let content = Mutex<Content>(.empty)
    /// The scope of the storage the cell is in: a key holds only its cell and its name.
    let scopeID: TetherScope.ID

    init(scopeID: TetherScope.ID) {
      self.scopeID = scopeID
    }

    /// The stored value; `nil` when nothing is stored (a stored `nil` is `.some(nil)`).
    func value<Value>(as type: Value.Type) -> Value? {
      content.withLock { content in
        guard case .stored(let value) = content else { return nil }
        return value as? Value
      }
    }

    func store(_ value: some Sendable) {
      content.withLock { $0 = .stored(value) }
    }

    /// Empties the cell: nothing is stored, so the next holder's default is stored in it.
    func clear() {
      content.withLock { $0 = .empty }
    }
  }
}
