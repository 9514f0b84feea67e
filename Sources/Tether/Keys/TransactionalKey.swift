/// A key whose store can read, change and write its value with no other process changing it in
/// between: what ``Shared/transaction(_:)`` needs.
///
/// `withLock` is atomic within a process; across processes the last writer wins. A key whose
/// store has a cross-process lock (a lock file, a database row lock) conforms to this protocol,
/// and then several processes can update one value without losing a change:
///
/// ```swift
/// try await $launches.transaction { $0 += 1 }
/// ```
///
/// Tether's memory, file and defaults keys conform, and a registered key forwards to the key it
/// resolves to. An app's own key can conform too; `StrategyConformance` then checks it.
public protocol TransactionalKey<Value>: SharedKey {
  /// Reads the latest stored value, lets `update` change it and writes the result, holding the
  /// store's cross-process lock from the read until the write has landed.
  ///
  /// In order:
  /// 1. Write every change of this key that this process has not written yet (a throttled
  ///    write still pending): the transaction must read it. If that write fails, throw its
  ///    error.
  /// 2. Take the store's cross-process lock.
  /// 3. Read the stored value; with nothing stored, use `context.initialValue` (and throw
  ///    `TetherError.noValue` when there is none). A stored value that cannot be decoded throws
  ///    its decoding error: nothing is written.
  /// 4. Call `update` with it. If `update` throws, write nothing and rethrow.
  /// 5. Write the result, durably if the key's settings say so. If something that does not take
  ///    the lock (an editor) changed the store since step 3, go back to step 3: `update` may run
  ///    again, with the newer value.
  /// 6. Call `stored` with the value written, before anything the store delivers after this
  ///    write can reach the key's subscribers: it updates this process's holders.
  /// 7. Let go of the lock.
  ///
  /// Tether calls this on the caller's thread, with this process's other changes of the value
  /// held back until it returns; it may block that thread while another process holds the lock.
  func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws
}
