/// Who waits for a change to be written: told its result once.
///
/// Waiters of one group would all be told the same thing the same way (one shared value's saves,
/// say), so while their changes are pending, a newer one stands for the older, which is let go
/// through `superseded` instead. A hot loop of mutations then keeps one waiter per group until
/// the write, not one per mutation, each told while the loop contends for the value's lock.
package struct WriteWaiter: Sendable {
  // A struct, not bare closures in the writer's array: an array of closures holds them at its
  // generic element's abstraction, so each append would wrap the closure in a thunk (an
  // allocation per save). Not nested in the generic writer, whose nested types are generic too.
  /// Told once the change it came with is written, dropped or has failed.
  package let completion: @Sendable (Result<Void, any Error>) -> Void
  let group: ObjectIdentifier?
  let superseded: (@Sendable () -> Void)?
  /// The part of a merged change it waits for (a key of a file of many), which a write can
  /// drop while writing the rest; `nil`: the whole change.
  let part: String?

  /// A waiter told its result through `completion`; with a `group`, a newer waiter of that group
  /// can stand for it, which lets this one go through `superseded` and never tells it a result.
  package init(
    group: ObjectIdentifier? = nil, part: String? = nil,
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void,
    superseded: (@Sendable () -> Void)? = nil
  ) {
    self.completion = completion
    self.group = group
    self.superseded = superseded
    self.part = part
  }
}
