import TetherFiles

/// What tests and benchmarks hook into the watcher thread, and the markers callers queue behind
/// the events the kernel holds. Pure state: the watcher guards it with its lock.
struct WatcherHooks {
  /// Called on the thread with the path of each raw event for a watched file.
  var eventTap: (@Sendable (String) -> Void)?
  /// Called on the thread before it watches an ancestor for folders not made yet.
  var ancestorWatch: (@Sendable (String, Set<String>) -> Void)?
  /// Called on the delivery queue after a delivery of the file reached every subscriber, by
  /// the file's path.
  var afterDelivery: [HashedPath: @Sendable () -> Void] = [:]
  /// Whether a test asked the thread to pause at its pause event.
  var pauseRequested = false
  /// What runs on the delivery queue once the thread reads each marker, by its number.
  private var markers: [UInt64: @Sendable () -> Void] = [:]
  private var nextMarker: UInt64 = 0

  /// Keeps `work` for the marker it numbers.
  mutating func addMarker(_ work: @escaping @Sendable () -> Void) -> UInt64 {
    defer { nextMarker += 1 }
    markers[nextMarker] = work
    return nextMarker
  }

  /// The work of marker `id`, taken.
  mutating func takeMarker(_ id: UInt64) -> (@Sendable () -> Void)? {
    markers.removeValue(forKey: id)
  }

  /// The work of every marker not read yet, taken.
  mutating func takeAllMarkers() -> [@Sendable () -> Void] {
    defer { markers = [:] }
    return Array(markers.values)
  }
}
