/// What keeps a keyed reference live: every holder (each `Shared` or `SharedReader` cell, and
/// each projection of one) retains it, and the table of live references refers to it weakly.
///
/// When the last holder lets go, the reference stops following its key and leaves the table.
/// The reference itself is never referred to weakly: a weak reference gives an object a side
/// table, and every retain and release of it then takes the runtime's slow path, on every read.
@usableFromInline
final class ReferenceLifetime {
  // Not `Sendable`: it moves between threads only inside cells that hold it under their lock.
  /// The reference kept live, for the table to hand to new holders.
  let reference: AnyObject
  private let end: () -> Void

  init(reference: AnyObject, end: @escaping () -> Void) {
    self.reference = reference
    self.end = end
  }

  deinit { end() }
}
