extension RangeReplaceableCollection {
  /// The elements of a shared collection, each as a shared value of its own.
  ///
  /// ```swift
  /// @Shared(.fileStorage(todosURL)) var todos: [Todo] = []
  /// for todo in Array($todos) {  // Shared<Todo>
  ///   todo.withLock { $0.isDone = true }
  /// }
  /// ```
  ///
  /// Each element's shared value finds its element by `id` (the collection's ids are expected
  /// to be unique), so it follows the element when the collection is reordered or others are
  /// inserted or removed. Writing through it changes that element in the collection, in one
  /// `withLock` of the collection, so one save of it. Once its element is removed, it keeps the
  /// last value it had and takes writes without putting the element back; it follows the
  /// element again if one with its `id` is put back.
  public init<Elements: MutableCollection & RandomAccessCollection>(_ shared: Shared<Elements>)
  where Elements.Element: Identifiable, Element == Shared<Elements.Element> {
    self.init()
    let parent = shared.box.held
    let elements = parent.reference.wrappedValue
    reserveCapacity(elements.count)
    for index in elements.indices {
      let reference = ElementReference(base: parent.reference, elements: elements, at: index)
      append(Shared(reference: reference, lifetime: parent.lifetime))
    }
  }

  /// The elements of a read-only shared collection, each as a read-only shared value of its
  /// own, found by `id` as the elements of `Array($todos)` for a `Shared` collection are.
  public init<Elements: RandomAccessCollection>(_ shared: SharedReader<Elements>)
  where Elements.Element: Identifiable, Element == SharedReader<Elements.Element> {
    self.init()
    let parent = shared.box.held
    let elements = parent.reference.wrappedValue
    reserveCapacity(elements.count)
    for index in elements.indices {
      let reference = ElementReaderReference(
        base: parent.reference, elements: elements, at: index)
      append(SharedReader(reference: reference, lifetime: parent.lifetime))
    }
  }
}
