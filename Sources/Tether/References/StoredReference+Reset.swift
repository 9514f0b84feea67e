/// Resets: the stored value removed, every holder back to its default.
extension StoredReference {
  /// Removes the stored value through the key's ``ResettableKey``, holding this process's other
  /// changes of the value back until every holder shows what stands for the key now.
  @usableFromInline
  func reset() async throws {
    guard let keyed else {
      throw TetherError.notResettable(key: description, kind: "value")
    }
    let writerKey = lock.withLock { writer?.key }
    guard let key = writerKey as? any ResettableKey<Value> else {
      let key: any SharedReaderKey<Value> = writerKey ?? keyed.reader
      throw TetherError.notResettable(key: String(describing: key), kind: Self.kind(of: key))
    }
    // Ordered with transactions: one of them or a reset at a time, off the cooperative pool.
    let turn = transactionTurn
    await turn.take()
    defer { turn.pass() }
    try await TransactionThread.run {
      beginTransaction()
      defer { endTransaction() }
      try key.reset { remaining in
        lock.withLock {
          commit(remaining ?? keyed.initialValue)
          // A load that started before this is older than the removal.
          localChanges &+= 1
        }
        // Nothing is stored now: earlier save and load failures no longer apply.
        saveFinished(.success(()))
        setLoadError(nil)
      }
    }
  }
}
