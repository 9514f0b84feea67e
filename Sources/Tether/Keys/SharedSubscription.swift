import Synchronization

/// A running subscription; cancelled by ``cancel()`` or when its last copy is released.
public struct SharedSubscription: Sendable {
  private let box: Box

  /// Creates a subscription that runs `cancel` once, when cancelled or released.
  public init(_ cancel: @escaping @Sendable () -> Void) {
    self.box = Box(cancel)
  }

  /// Stops the subscription; later calls do nothing.
  public func cancel() { box.cancel() }

  private final class Box: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let onCancel: @Sendable () -> Void

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    func cancel() {
      guard
        cancelled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
          .exchanged
      else { return }
      onCancel()
    }

    deinit { cancel() }
  }
}
