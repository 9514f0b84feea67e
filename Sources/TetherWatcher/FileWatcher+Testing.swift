import TetherFiles

/// Hooks for tests and benchmarks.
extension FileWatcher {
  /// Calls `tap` on the watcher thread with the path of each raw event for a watched file,
  /// before any settling: the physical floor for latency benchmarks.
  package func setEventTap(_ tap: (@Sendable (String) -> Void)?) {
    state.withLock { $0.hooks.eventTap = tap }
  }

  /// Calls `hook` on the watcher thread just before it watches a folder as the nearest existing
  /// ancestor of folders not made yet, with those folders: a test makes one there, in the gap
  /// between looking for it and the watch that would have seen it made.
  package func setAncestorWatchHookForTesting(_ hook: (@Sendable (String, Set<String>) -> Void)?) {
    state.withLock { $0.hooks.ancestorWatch = hook }
  }

  /// Calls `hook` on the delivery queue after each delivery of the file at `path` (absolute,
  /// standardized) has reached every subscriber, before the watcher does what is left of it:
  /// a test holds the watcher there to show a write of the subscribers' holders waits for
  /// nothing the watcher does afterwards. `nil` removes it.
  package func setAfterDeliveryHookForTesting(_ path: String, _ hook: (@Sendable () -> Void)?) {
    let key = HashedPath(LexicalPath.normalized(path))
    state.withLock { $0.hooks.afterDelivery[key] = hook }
  }

  /// Stops the watcher thread reading events until ``resumeForTesting()``: the kernel queues
  /// them meanwhile, and overflows past 16,384. The thread stops at an event this call queues
  /// behind every earlier one, so the queue then holds only what comes after.
  package func pauseForTesting() {
    guard state.withLock({ $0.handshake.started && $0.polling.fallback == nil }),
      let control = control.withLock({ $0 })
    else { return }
    state.withLock { $0.hooks.pauseRequested = true }
    do {
      try control.queuePause()
    } catch {
      Self.logger.error("cannot pause the watcher thread: \(error)")
      state.withLock { $0.hooks.pauseRequested = false }
      return
    }
    pausedSignal.wait()
  }

  /// Ends the thread of a watcher made by ``makeForTesting()`` and closes its inotify instance;
  /// its watches deliver nothing more.
  package func stopForTesting() {
    state.withLock { $0.handshake.stopping = true }
    wake()
  }

  /// The watches the kernel holds for this watcher's inotify instance, from its `/proc` entry
  /// (`nil` before the thread has an instance): for tests that check none is left behind.
  package var kernelWatchCount: Int? {
    statistics.descriptor.flatMap(Inotify.liveWatches(descriptor:)).map(\.count)
  }

  /// Whether any subscriber watches the file at `path` (made absolute and standardized): for
  /// tests that check a store's watch went with it.
  package func isWatching(_ path: String) -> Bool {
    let key = HashedPath(LexicalPath.normalized(path))
    return state.withLock { $0.files.contains(key) }
  }

  /// Lets a paused watcher thread go on.
  package func resumeForTesting() {
    let wasPaused = state.withLock { state in
      defer { state.hooks.pauseRequested = false }
      return state.hooks.pauseRequested
    }
    if wasPaused { resumeSignal.signal() }
  }
}
