import Logging
import Synchronization

/// The exactly-once rule of a continuation, and its reports naming the key.
///
/// A continuation that is dropped without being resumed delivers `nil`, so the caller awaiting
/// it resumes instead of hanging; one resumed twice keeps the first outcome. Each continuation
/// keeps this in its own box, not generic over the outcome: a generic box's deinit and its
/// reabstracted closure would cost more than a whole in-memory save. The key a report names is
/// asked for only when reporting.
struct ResumeOnce: ~Copyable, Sendable {
  private let resumed = Atomic<Bool>(false)
  private let operation: StaticString

  init(operation: StaticString) {
    self.operation = operation
  }

  /// Whether this is the first resume; a later one is reported, naming `subject`, and must be
  /// ignored.
  func claim(subject: @autoclosure () -> any Sendable) -> Bool {
    let first = resumed.compareExchange(
      expected: false, desired: true, ordering: .acquiringAndReleasing
    ).exchanged
    if !first {
      Logger.tether.error(
        """
        \(operation) continuation of \(String(describing: subject())) was resumed more than once; \
        the later result is ignored
        """)
    }
    return first
  }

  /// Whether the continuation is being dropped unresumed (reported, naming `subject`); call from
  /// its box's deinit.
  func isDroppedUnresumed(subject: @autoclosure () -> any Sendable) -> Bool {
    guard !resumed.load(ordering: .acquiring) else { return false }
    Logger.tether.error(
      """
      \(operation) continuation of \(String(describing: subject())) was never resumed; \
      the awaiting caller goes on without a result
      """)
    return true
  }
}
