extension Shared {
  /// A read-only value computed from this one by `body`, each time it is read.
  ///
  /// ```swift
  /// @Shared(.inMemory("count")) var count = 0
  /// let isZero = $count.read { $0 == 0 }  // SharedReader<Bool>
  /// ```
  ///
  /// It follows this value: reading it is an Observation access of this value, a change of this
  /// value reaches its `changes` (distinct values only, when `Member` is `Equatable`), and its
  /// `load()`, `isLoading` and `loadError` are this value's. Like a projection (`$count.member`),
  /// it stays with the reference this value has now: re-keying this value later does not move it.
  public func read<Member>(
    _ body: @escaping @Sendable (Value) -> Member
  ) -> SharedReader<Member> {
    SharedReader(self).read(body)
  }
}

extension SharedReader {
  /// A read-only value computed from this one by `body`, each time it is read; see
  /// ``Shared/read(_:)``.
  public func read<Member>(
    _ body: @escaping @Sendable (Value) -> Member
  ) -> SharedReader<Member> {
    let parent = box.held
    return SharedReader<Member>(
      reference: DerivedReference(base: parent.reference, body: body),
      lifetime: parent.lifetime)
  }
}

extension Shared: Identifiable where Value: Identifiable {
  /// The current value's `id`, so shared elements (`Array($todos)`) can be told apart by it.
  public var id: Value.ID { wrappedValue.id }
}

extension SharedReader: Identifiable where Value: Identifiable {
  /// The current value's `id`.
  public var id: Value.ID { wrappedValue.id }
}
