public import Foundation
import Glibc
public import Testing
package import Tether
import TetherLocking

/// Makes a FIFO (named pipe) at `url`, for tests that a data file which is one never blocks.
///
/// ```swift
/// let pipe = folder.appending(path: "count.json")
/// try makeFIFO(at: pipe)
/// let error = try await expectToEnd("the first load", releasing: { releaseFIFO(pipe) }) {
///   @Shared(.fileStorage(pipe)) var count = 0
///   return $count.loadError
/// }
/// ```
public func makeFIFO(at url: URL) throws {
  guard mkfifo(url.path, 0o600) == 0 else {
    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
  }
}

/// Lets go of whoever is blocked opening the FIFO at `url`: opens its other end without
/// blocking and closes it at once, so a reader waiting in `open` goes on and reads its end.
/// Nothing happens when no one is waiting.
public func releaseFIFO(_ url: URL) {
  for flags in [O_WRONLY, O_RDONLY] {
    let fd = open(url.path, flags | O_NONBLOCK | O_CLOEXEC)
    if fd >= 0 { close(fd) }
  }
}

/// Runs `body` on a thread of its own, in the current bootstrap's scope, and expects it to end
/// within `timeout`, recording an issue if it does not; it is then let go by calling `release`
/// until it ends (a call blocked on a FIFO, say), so that a test that fails does not hang the
/// suite. A thread, not a task: a blocked task would hold one of the few threads every task
/// runs on. Returns what `body` returned.
public func expectToEnd<R: Sendable>(
  within timeout: Duration = .seconds(10), _ what: Comment,
  releasing release: @escaping @Sendable () -> Void,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: @escaping @Sendable () -> R
) async -> R {
  let result = ResultBox<R>()
  let scope = TetherScope.override
  let thread = Thread {
    let value = TetherScope.$override.withValue(scope) { body() }
    result.value.withLock { $0 = value }
  }
  thread.start()
  func ended() -> Bool { result.value.withLock { $0 != nil } }
  await expectEventually(
    timeout: timeout, "\(what) did not end within \(timeout)", sourceLocation: sourceLocation,
    ended)
  // Failed already, if it has not ended: only the clean-up is left, however long it takes.
  await expectEventually(timeout: .seconds(3600)) {
    if !ended() { release() }
    return ended()
  }
  return result.value.withLock { $0! }
}

/// What the thread of ``expectToEnd(within:_:releasing:sourceLocation:_:)`` hands back.
private final class ResultBox<R: Sendable>: Sendable {
  let value = UnfairMutex<R?>(nil)
}

/// Runs `operation` (a flush, say) while letting go, every millisecond, of whoever is blocked
/// opening a FIFO in `folder`: the clean-up of a test whose code under test may block on one,
/// so that a failing test ends instead of hanging.
public func releasingFIFOs(
  in folder: URL, while operation: @escaping @Sendable () async -> Void
) async {
  let done = ResultBox<Bool>()
  // Not detached: the test's bootstrap scope (a task-local) reaches the operation.
  let task = Task {
    await operation()
    done.value.withLock { $0 = true }
  }
  await expectEventually(timeout: .seconds(3600)) {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    } catch {
      return done.value.withLock { $0 != nil }
    }
    for name in names { releaseFIFO(folder.appending(path: name)) }
    return done.value.withLock { $0 != nil }
  }
  await task.value
}

/// Holds the key `make` makes (an `Int` whose store is the FIFO at `pipe`, in `folder`) and
/// expects what a data file that is a FIFO must give: a first load that ends, a load error and
/// then a change's save error naming the FIFO, and the FIFO left in place; a flush ends too.
package func expectAKeyOfAFIFOFailsNamingItAndNeverBlocks(
  _ what: Comment, pipe: URL, in folder: URL,
  sourceLocation: SourceLocation = #_sourceLocation,
  make: @escaping @Sendable () -> Shared<Int>
) async {
  let count = await expectToEnd(
    what, releasing: { releaseFIFO(pipe) }, sourceLocation: sourceLocation, make)
  let loadError = count.loadError.map { "\($0)" }
  #expect(
    loadError?.contains("\(pipe.path): not a regular file") == true, "\(loadError ?? "")",
    sourceLocation: sourceLocation)
  count.withLock { $0 = 1 }
  await expectEventually(timeout: .seconds(30), sourceLocation: sourceLocation) {
    count.saveError.map { "\($0)".contains("\(pipe.path): not a regular file") } ?? false
  }
  var info = stat()
  #expect(
    lstat(pipe.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "it stays",
    sourceLocation: sourceLocation)
  // A write blocked on the FIFO (or on it swapped out beside it) would hang the flush.
  await releasingFIFOs(in: folder) { await TetherSystem.flush() }
}
