import Logging
import Synchronization

/// Delivers a continuation's outcome exactly once, and reports misuse naming the key.
///
/// A continuation that is dropped without being resumed delivers `nil`, so the caller awaiting
/// it resumes instead of hanging; one resumed twice keeps the first outcome.
final class ResumeOnce<Outcome: Sendable>: Sendable {
  private let resumed = Atomic<Bool>(false)
  // Described only when reporting, so the hot path never renders a key.
  private let subject: any Sendable
  private let operation: StaticString
  private let deliver: @Sendable (Outcome?) -> Void

  init(
    subject: any Sendable, operation: StaticString,
    deliver: @escaping @Sendable (Outcome?) -> Void
  ) {
    self.subject = subject
    self.operation = operation
    self.deliver = deliver
  }

  func resume(_ outcome: Outcome) {
    guard
      resumed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else {
      Logger.tether.error(
        """
        \(operation) continuation of \(String(describing: subject)) was resumed more than once; \
        the later result is ignored
        """)
      return
    }
    deliver(outcome)
  }

  deinit {
    if !resumed.load(ordering: .acquiring) {
      Logger.tether.error(
        """
        \(operation) continuation of \(String(describing: subject)) was never resumed; \
        the awaiting caller goes on without a result
        """)
      deliver(nil)
    }
  }
}
