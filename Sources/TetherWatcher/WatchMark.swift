/// Where the watcher stood for a directory when a file in it was read: a watch that starts from
/// that read needs no check of its own if nothing has moved since.
package struct WatchMark: Sendable, Equatable {
  package let directoryGeneration: UInt64
  package let handledEvents: UInt64
}
