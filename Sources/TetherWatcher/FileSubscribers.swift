/// A watched file's subscribers. Nearly every file has one (its store), kept inline: an array
/// for it would be an allocation and a growth a watched file.
package struct FileSubscribers {
  package typealias Deliver = @Sendable (FileChange) -> Void

  private var first: (id: UInt64, deliver: Deliver)?
  private var others: [(id: UInt64, deliver: Deliver)] = []

  package init(id: UInt64, deliver: @escaping Deliver) {
    first = (id, deliver)
  }

  package var isEmpty: Bool { first == nil && others.isEmpty }

  /// Every subscriber's delivery, in the order they came.
  package var deliveries: [Deliver] {
    (first.map { [$0.deliver] } ?? []) + others.map(\.deliver)
  }

  package mutating func append(id: UInt64, deliver: @escaping Deliver) {
    if first == nil && others.isEmpty {
      first = (id, deliver)
    } else {
      others.append((id, deliver))
    }
  }

  package mutating func remove(id: UInt64) {
    if first?.id == id {
      first = others.isEmpty ? nil : others.removeFirst()
    } else {
      others.removeAll { $0.id == id }
    }
  }
}
