/// Where a folder's watcher stood when a file in it was read: a watch that starts from that
/// read needs no check of its own if nothing has moved since. The watcher makes and compares
/// marks; here they are plain values, so a file opened as its path resolves (``OpenedFile``)
/// can carry one without knowing the watcher.
package struct WatchMark: Sendable, Equatable {
  package let directoryGeneration: UInt64
  package let handledEvents: UInt64

  package init(directoryGeneration: UInt64, handledEvents: UInt64) {
    self.directoryGeneration = directoryGeneration
    self.handledEvents = handledEvents
  }
}
