import Foundation
import TetherFiles

/// Polling, where inotify cannot serve.
extension FileWatcher {
  /// Sets how often polled paths are checked (1 s by default).
  package func setPollInterval(_ interval: Duration) {
    state.withLock { $0.polling.interval = interval }
    poller.withLock { timer in
      timer?.schedule(deadline: .now(), repeating: .nanoseconds(Int(interval.nanoseconds)))
    }
  }

  /// Polls every watched file from now on: inotify cannot serve this process.
  func fallBack(_ reason: PollReason) {
    let ready = state.withLock { state -> [DispatchSemaphore] in
      state.polling.fallBack(reason, files: state.files.paths)
      state.counts.inotifyWatches = 0
      return state.handshake.releaseAll()
    }
    releaseMarkers()
    logOnce(reason, path: nil)
    for semaphore in ready { semaphore.signal() }
    startPolling()
  }

  /// Polls the files in `directory`.
  func poll(directory: String, because reason: PollReason) {
    state.withLock { state in
      state.polling.poll(state.folders.files(in: HashedPath(directory)), because: reason)
    }
    logOnce(reason, path: directory)
    startPolling()
  }

  /// Stops polling the files in `directory`: inotify serves it again.
  func unpoll(directory: String) {
    state.withLock { state in
      state.polling.unpoll(state.folders.files(in: HashedPath(directory)))
    }
  }

  func startPolling() {
    let interval = state.withLock { $0.polling.interval }
    poller.withLock { timer in
      guard timer == nil else { return }
      let source = DispatchSource.makeTimerSource(queue: delivery)
      source.schedule(
        deadline: .now() + .nanoseconds(Int(interval.nanoseconds)),
        repeating: .nanoseconds(Int(interval.nanoseconds)))
      source.setEventHandler { [self] in
        // As a burst beginning now: new bytes are delivered once the file has been quiet for
        // the settle delay, by its own clock, as a watched file's are (a poll may fall in the
        // middle of a write).
        let now = DispatchTime.now().uptimeNanoseconds
        for path in state.withLock({ Array($0.polling.paths.keys) }) {
          check(path, firstEvent: now)
        }
      }
      source.resume()
      timer = source
    }
  }

  private func logOnce(_ reason: PollReason, path: String?) {
    guard state.withLock({ $0.polling.shouldLog(reason) }) else { return }
    Self.logger.warning(
      "polling \(path.map { "files in \($0)" } ?? "every watched file") instead of inotify: \(reason)"
    )
  }
}
