import Dispatch
public import Foundation
import TetherLocking

/// Something that may hold writes not yet on disk: a throttled file, a defaults file.
///
/// Strategies register theirs so `TetherSystem.flush()`, the exit-time flush and
/// `flushOnTermination` reach every pending write in the process.
package protocol PendingWrites: AnyObject, Sendable {
  /// Writes everything pending now, on the calling thread, and returns when it is on disk
  /// (or has failed, which the owner reports through `saveError`).
  func flushNow()
}

/// Every live ``PendingWrites`` of the process.
package enum PendingWritesRegistry {
  private struct Entry {
    weak var writes: (any PendingWrites)?
    let scope: TetherScope.ID
  }

  private static let entries = LockedState<[ObjectIdentifier: Entry]>([:])
  private static let exitFlush: Void = { atexit { PendingWritesRegistry.flushAll() } }()

  /// Includes `writes`, which belongs to the scope `scope`, in flushes until it is released.
  ///
  /// The scope is named by its id, not held: an owner may outlive its scope (a holder kept past
  /// a `withBootstrap`), and its writes are then still flushed at exit.
  package static func register(_ writes: any PendingWrites, scope: TetherScope.ID) {
    _ = exitFlush
    entries.withLock {
      $0[ObjectIdentifier(writes)] = Entry(writes: writes, scope: scope)
    }
  }

  /// Removes `writes` (called from its `deinit`).
  package static func unregister(_ id: ObjectIdentifier) {
    _ = entries.withLock { $0.removeValue(forKey: id) }
  }

  /// Flushes every registered owner (or only those of `scope`), on the calling thread.
  package static func flushAll(in scope: TetherScope? = nil) {
    let only = scope?.id
    let live = entries.withLock { entries in
      entries.values.filter { only == nil || $0.scope == only }.compactMap(\.writes)
    }
    for writes in live { writes.flushNow() }
  }

  /// How many owners of the scope `scope` are registered: none once its stores have gone and
  /// their last writes are done. For tests that check a finished scope leaves nothing here.
  package static func registered(in scope: TetherScope.ID) -> Int {
    entries.withLock { entries in entries.values.count { $0.scope == scope } }
  }
}

extension PendingWritesRegistry {
  /// Keeps the writes of an object going away registered until `flush` has run once, soon, on
  /// a background queue: a change no holder is left to wait for is still written, and a flush
  /// or the process's exit meanwhile writes it too.
  package static func flushSoon(scope: TetherScope.ID, _ flush: @escaping @Sendable () -> Void) {
    let writes = LastWrites(flush: flush)
    register(writes, scope: scope)
    DispatchQueue.global().async {
      writes.flushNow()
      unregister(ObjectIdentifier(writes))
    }
  }
}

private final class LastWrites: PendingWrites {
  let flush: @Sendable () -> Void

  init(flush: @escaping @Sendable () -> Void) { self.flush = flush }

  func flushNow() { flush() }
}

extension TetherSystem {
  /// Writes every pending throttled save now, and returns when they are on disk.
  ///
  /// It flushes the writes of the current scope only: inside
  /// ``withBootstrap(configuration:strategies:keys:isolation:operation:)`` that bootstrap's, elsewhere
  /// the process bootstrap's, so parallel tests do not flush each other's.
  ///
  /// ```swift
  /// $favoriteFacts.withLock { $0.append(fact) }
  /// await TetherSystem.flush()   // before handing the file to another program
  /// ```
  ///
  /// A normal `exit()` flushes too (through `atexit`); a signal does only with
  /// ``flushOnTermination(signals:)``.
  public static func flush() async {
    await flush(TetherScope.current)
  }

  /// Flushes `scope`'s pending writes off the caller's thread (the writes block).
  static func flush(_ scope: TetherScope) async {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        PendingWritesRegistry.flushAll(in: scope)
        continuation.resume()
      }
    }
  }

  /// On any of `signals`, flushes every pending write and then exits with status
  /// `128 + signal` (143 for SIGTERM), the status a shell reports for that signal.
  ///
  /// ```swift
  /// TetherSystem.flushOnTermination()   // SIGTERM from systemd, SIGINT from Ctrl-C
  /// ```
  ///
  /// For a program with no shutdown path of its own. Do not combine it with a swift-service-lifecycle
  /// `ServiceGroup` (or any other handler of these signals): it exits on the signal, cutting the
  /// group's graceful shutdown short, so the other services' cleanup never runs. Run
  /// `TetherService` (`TetherServiceLifecycle`) in the group instead, or call
  /// ``shutdown()`` at the end of your own shutdown path.
  public static func flushOnTermination(signals: [Int32] = [SIGTERM, SIGINT]) {
    TerminationFlush.install(signals)
  }
}

/// The signal sources of ``TetherSystem/flushOnTermination(signals:)``, kept for the process.
private enum TerminationFlush {
  private static let sources = UnfairMutex<[Int32: any DispatchSourceSignal]>([:])
  private static let queue = DispatchQueue(label: "tether.termination")

  static func install(_ signals: [Int32]) {
    sources.withLock { sources in
      for number in signals where sources[number] == nil {
        // Ignored first, so the default action does not end the process before the flush.
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
          PendingWritesRegistry.flushAll()
          // Dispatch keeps the signal blocked, so re-raising it would leave it pending; exit
          // with the status a shell reports for that signal instead.
          exit(128 + number)
        }
        source.resume()
        sources[number] = source
      }
    }
  }
}
