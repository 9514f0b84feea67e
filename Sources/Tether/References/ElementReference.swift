import TetherLocking

/// Where one element of a parent collection is, found by its `id`, and its value when last
/// found: what `Array($todos)`'s element references share.
///
/// The element is looked up at its last index first, then by a scan: reordering the collection,
/// or inserting and removing other elements, moves it without losing it. Once it is removed,
/// the last value found stands in for it (as an unwrapped optional keeps its last value), and
/// the reference follows it again if an element with its `id` comes back.
final class ElementLocator<Elements: RandomAccessCollection>: Sendable
where Elements.Element: Identifiable & Sendable {
  typealias Element = Elements.Element

  /// The element as last found (its `id` is the one looked for), and its offset from the
  /// collection's start then: an offset rather than an index, which need not be `Sendable`.
  private struct Found: Sendable {
    var last: Element
    var offset: Int
  }

  private let found: UnfairMutex<Found>

  init(_ elements: Elements, at index: Elements.Index) {
    let offset = elements.distance(from: elements.startIndex, to: index)
    found = UnfairMutex(Found(last: elements[index], offset: offset))
  }

  /// The element's `id`, as last found.
  var id: Element.ID { found.withLock { $0.last.id } }

  /// The element in `elements`, remembering where it is; the last value found if it is gone.
  func current(in elements: Elements) -> Element {
    found.withLock { found in
      if let index = Self.index(of: found, in: elements) {
        found = Found(
          last: elements[index], offset: elements.distance(from: elements.startIndex, to: index))
      }
      return found.last
    }
  }

  /// Where the element is in `elements` now (`nil` when it is gone), and its last value.
  func locate(in elements: Elements) -> (index: Elements.Index?, last: Element) {
    let found = found.withLock { $0 }
    return (Self.index(of: found, in: elements), found.last)
  }

  /// Remembers `element`, found (or changed) at `index`; `nil` when it is not in the collection.
  func remember(_ element: Element, at index: Elements.Index?, in elements: Elements) {
    found.withLock { found in
      found.last = element
      if let index { found.offset = elements.distance(from: elements.startIndex, to: index) }
    }
  }

  /// Where the element with `found`'s `id` is: at its last offset, else the first with it.
  private static func index(of found: Found, in elements: Elements) -> Elements.Index? {
    let id = found.last.id
    if found.offset < elements.count {
      let hint = elements.index(elements.startIndex, offsetBy: found.offset)
      if elements[hint].id == id { return hint }
    }
    return elements.firstIndex { $0.id == id }
  }
}

/// One element of a shared collection, by its `id`: an element of `Array($todos)`.
///
/// A write changes that element in the collection, in one `withLock` of the collection (so one
/// save of it). Once the element is removed, the reference keeps its last value and takes
/// writes locally, without putting the element back; see ``ElementLocator``.
final class ElementReference<Elements: MutableCollection & RandomAccessCollection & Sendable>:
  MutableReference
where Elements.Element: Identifiable & Sendable {
  typealias Element = Elements.Element

  private let base: any MutableReference<Elements>
  private let locator: ElementLocator<Elements>

  init(base: any MutableReference<Elements>, elements: Elements, at index: Elements.Index) {
    self.base = base
    self.locator = ElementLocator(elements, at: index)
  }

  var wrappedValue: Element { locator.current(in: base.wrappedValue) }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  var saveError: (any Error)? { base.saveError }
  func load() async throws { try await base.load() }
  func save() async throws { try await base.save() }

  func withLock<R>(_ body: (inout Element) throws -> R) rethrows -> R {
    // The locator's lock is never held while `body` runs: `body` may read this element.
    try base.withLock { elements in
      let (index, last) = locator.locate(in: elements)
      guard let index else {
        var value = last
        let result = try body(&value)
        locator.remember(value, at: nil, in: elements)
        return result
      }
      let result = try body(&elements[index])
      locator.remember(elements[index], at: index, in: elements)
      return result
    }
  }

  /// A transaction of the collection: one that finds the element gone has nothing to change,
  /// and throws `TetherError.noValue` without writing.
  func transaction<R>(_ body: (inout Element) throws -> R) async throws -> R {
    try await base.transaction { elements in
      guard let index = locator.locate(in: elements).index else {
        throw TetherError.noValue(key: description)
      }
      let result = try body(&elements[index])
      locator.remember(elements[index], at: index, in: elements)
      return result
    }
  }

  /// An element is part of a stored collection: resetting it would remove the rest too.
  func reset() async throws {
    throw TetherError.notResettable(key: description, kind: "projection")
  }

  func observe(_ observer: @escaping @Sendable (Element) -> Void) -> SharedSubscription {
    base.observe { [locator] elements in observer(locator.current(in: elements)) }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  var description: String { "\(base.description)[id: \(String(reflecting: locator.id))]" }
}

/// The read-only counterpart of ``ElementReference``: an element of `Array($todos)` when
/// `$todos` is a `SharedReader`.
final class ElementReaderReference<Elements: RandomAccessCollection & Sendable>: Reference
where Elements.Element: Identifiable & Sendable {
  typealias Element = Elements.Element

  private let base: any Reference<Elements>
  private let locator: ElementLocator<Elements>

  init(base: any Reference<Elements>, elements: Elements, at index: Elements.Index) {
    self.base = base
    self.locator = ElementLocator(elements, at: index)
  }

  var wrappedValue: Element { locator.current(in: base.wrappedValue) }
  var isLoading: Bool { base.isLoading }
  var loadError: (any Error)? { base.loadError }
  func load() async throws { try await base.load() }

  func observe(_ observer: @escaping @Sendable (Element) -> Void) -> SharedSubscription {
    base.observe { [locator] elements in observer(locator.current(in: elements)) }
  }

  func tellObservationReplaced() { base.tellObservationReplaced() }

  var description: String { "\(base.description)[id: \(String(reflecting: locator.id))]" }
}
