import Foundation

/// Transactions: a read-modify-write of the stored value under the store's cross-process lock.
extension StoredReference {
  /// Runs `body` on the latest stored value through the key's ``TransactionalKey``, holding
  /// this process's other changes of the value back until the result is written and every
  /// holder shows it. A value with no key has no store: `body` runs as `withLock`'s would.
  @usableFromInline
  func transaction<R>(_ body: (inout Value) throws -> R) async throws -> R {
    guard let keyed else { return try withLock(body) }
    let writerKey = lock.withLock { writer?.key }
    guard let key = writerKey as? any TransactionalKey<Value> else {
      let key: any SharedReaderKey<Value> = writerKey ?? keyed.reader
      throw TetherError.notTransactional(
        key: String(describing: key), kind: Self.kind(of: key))
    }
    // One transaction of the value at a time in this process, waiting without a thread; the
    // rest runs on a thread of its own, since it may wait for another process's lock.
    let turn = transactionTurn
    await turn.take()
    defer { turn.pass() }
    return try await TransactionThread.run {
      try runTransaction(key, initialValue: keyed.initialValue, body)
    }
  }

  /// The transaction itself, on the calling thread, which waits while another process holds
  /// the store's lock.
  private func runTransaction<R>(
    _ key: any TransactionalKey<Value>, initialValue: Value, _ body: (inout Value) throws -> R
  ) throws -> R {
    beginTransaction()
    defer { endTransaction() }
    var result: R?
    var ran = false
    try key.transaction(
      context: .initialValue(initialValue),
      update: { value in
        result = try lock.withLock {
          // A change of this value made from `body` (through another holder) would be lost.
          let outer = changing
          changing = true
          defer { changing = outer }
          return try body(&value)
        }
        ran = true
      },
      stored: { value in
        lock.withLock {
          commit(value)
          // A load that started before this is older than the value written.
          localChanges &+= 1
        }
        // What is stored is this value now: earlier save and load failures no longer apply.
        saveFinished(.success(()))
      })
    guard ran else {
      throw TetherError.notSaved(
        key: String(describing: key), reason: "its transaction returned without running the change")
    }
    // `R?` wraps `R` even when `R` is itself optional: having run, this is the body's result.
    return result!
  }

  /// Holds this process's changes of the value back for a transaction running on this
  /// thread. Marked holding `lock`, so a `withLock` under way when it began finishes first (its
  /// change is then pending, and the transaction writes it before reading), and one that starts
  /// later waits. Only one transaction of the value runs at a time (see ``transactionTurn``).
  func beginTransaction() {
    let me = RecursiveLock.currentThread()
    lock.withLock { transaction.store(me, ordering: .sequentiallyConsistent) }
  }

  /// Lets changes of the value through again, and wakes whoever waits for them.
  func endTransaction() {
    lock.withLock { transaction.store(0, ordering: .sequentiallyConsistent) }
    TransactionGate.wake()
  }

  /// The turn transactions of this value take, one at a time: made by the first.
  var transactionTurn: TransactionTurn {
    if let made = turnIfMade.load() { return made }
    return turnIfMade.storeIfNil(TransactionTurn())
  }

  /// Waits until no transaction of this value runs (or one runs on this thread).
  @usableFromInline
  func waitForTransaction() {
    let me = RecursiveLock.currentThread()
    TransactionGate.wait {
      let owner = transaction.load(ordering: .sequentiallyConsistent)
      return owner == 0 || owner == me
    }
  }

  /// The strategy kind a key that cannot run transactions is named by in the error: its type,
  /// without generic arguments (`JournalKey`), since a key does not know its strategy's kind.
  static func kind(of key: any SharedReaderKey<Value>) -> String {
    let type = String(describing: Swift.type(of: key))
    return String(type.prefix { $0 != "<" })
  }
}

/// Where changes held back by transactions wait: one condition for the process, broadcast as
/// each transaction ends; each waiter checks its own value. Waiters check an atomic and take no
/// other lock while holding the condition's.
enum TransactionGate {
  private static let condition = NSCondition()

  static func wait(until done: () -> Bool) {
    condition.lock()
    defer { condition.unlock() }
    while !done() { condition.wait() }
  }

  static func wake() {
    condition.lock()
    condition.broadcast()
    condition.unlock()
  }
}
