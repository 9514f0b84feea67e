import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

/// What a writer wrote and what its waiters were told.
final class WriterLog: Sendable {
  private let state = Mutex<(written: [Int], told: [String], superseded: [String])>(([], [], []))

  var written: [Int] { state.withLock { $0.written } }
  var told: [String] { state.withLock { $0.told } }
  var superseded: [String] { state.withLock { $0.superseded } }

  /// A writer of `Int` changes that records each write; the throttle is long enough that every
  /// change after the first waits for `flushNow()`.
  func writer(throttle: Duration = .seconds(60)) -> ThrottledWriter<Int> {
    ThrottledWriter(
      module: "tether.test", subject: "test.writer", throttle: throttle, merge: nil,
      perform: { change in
        self.state.withLock { $0.written.append(change) }
        return .written
      },
      recovered: {})
  }

  /// A waiter named `name`, in `group` when one is given.
  func waiter(_ name: String, group: AnyObject? = nil) -> WriteWaiter {
    WriteWaiter(
      group: group.map(ObjectIdentifier.init),
      completion: { _ in self.state.withLock { $0.told.append(name) } },
      superseded: { self.state.withLock { $0.superseded.append(name) } })
  }
}

@Suite struct ThrottledWriterTests {
  final class Target: Sendable {}

  /// Issue 35: the timer of a trailing write kept its writer to the window's end, and with it
  /// what the writer's closures hold (a file store's state, a defaults file's), long after a
  /// `withBootstrap` scope that wrote and flushed had ended. Released with nothing pending, a
  /// writer goes; its timer then does nothing.
  @Test func aWriterReleasedWithNothingPendingGoesBeforeItsWindowEnds() async {
    let log = WriterLog()
    weak var released: ThrottledWriter<Int>?
    do {
      let writer = log.writer()
      writer.submit(0, immediately: false, waiter: log.waiter("leading"))
      // Within the window: a timer for the trailing write, a minute away.
      writer.submit(1, immediately: false, waiter: log.waiter("trailing"))
      writer.flushNow()
      released = writer
    }
    // The leading write's block may still be let go by its queue's thread.
    await expectEventually(timeout: .seconds(30)) { released == nil }
    #expect(log.written == [0, 1])
  }

  @Test func aBurstOfOneGroupKeepsOnlyItsNewestWaiterUntilTheWrite() {
    let log = WriterLog()
    let writer = log.writer()
    let target = Target()
    writer.submit(0, immediately: false, waiter: log.waiter("leading", group: target))
    for index in 1...1000 {
      writer.submit(index, immediately: false, waiter: log.waiter("\(index)", group: target))
    }
    writer.flushNow()
    #expect(log.written == [0, 1000])
    #expect(log.told == ["leading", "1000"])
    #expect(log.superseded.count == 999)
    #expect(log.superseded.first == "1" && log.superseded.last == "999")
  }

  @Test func waitersWithoutAGroupAreEachToldTheirResult() {
    let log = WriterLog()
    let writer = log.writer()
    writer.submit(0, immediately: false, waiter: log.waiter("leading"))
    for index in 1...3 { writer.submit(index, immediately: false, waiter: log.waiter("\(index)")) }
    writer.flushNow()
    #expect(log.told == ["leading", "1", "2", "3"])
    #expect(log.superseded.isEmpty)
  }

  @Test func interleavedGroupsEachKeepTheirNewestWaiter() {
    let log = WriterLog()
    let writer = log.writer()
    let (a, b) = (Target(), Target())
    writer.submit(0, immediately: false, waiter: log.waiter("leading"))
    for round in 1...3 {
      writer.submit(round, immediately: false, waiter: log.waiter("a\(round)", group: a))
      writer.submit(round, immediately: false, waiter: log.waiter("b\(round)", group: b))
      writer.submit(round, immediately: false, waiter: log.waiter("plain\(round)"))
    }
    writer.flushNow()
    #expect(log.superseded == ["a1", "b1", "a2", "b2"])
    #expect(Set(log.told) == ["leading", "a3", "b3", "plain1", "plain2", "plain3"])
  }

  @Test func aWaiterAlreadyToldIsNeverSupersededByTheNextBatch() {
    let log = WriterLog()
    let writer = log.writer()
    let target = Target()
    writer.submit(0, immediately: false, waiter: log.waiter("leading", group: target))
    writer.submit(1, immediately: false, waiter: log.waiter("first", group: target))
    writer.flushNow()
    writer.submit(2, immediately: true, waiter: log.waiter("second", group: target))
    writer.flushNow()
    #expect(log.written == [0, 1, 2])
    #expect(log.told == ["leading", "first", "second"])
    #expect(log.superseded.isEmpty)
  }

  @Test func anImmediateWriteHandedToTheCallerIsWrittenWhenItRunsIt() throws {
    let log = WriterLog()
    let writer = log.writer()
    var handed: (() -> Void)?
    writer.submit(1, immediately: true, waiter: log.waiter("save")) { work in
      handed = work
      return true
    }
    #expect(log.written.isEmpty, "the caller runs the write once it has let go of its locks")
    let run = try #require(handed)
    run()
    // Written and told by the time the caller's call returns: no other thread took part.
    #expect(log.written == [1])
    #expect(log.told == ["save"])
  }

  @Test func aWriteTakenAfterTheCallersWaitsForIt() async {
    let log = WriterLog()
    let writer = log.writer()
    var handed: (() -> Void)?
    writer.submit(1, immediately: true, waiter: log.waiter("caller")) { work in
      handed = work
      return true
    }
    // Taken while the caller's write is pending: queued, and must not overtake it.
    writer.submit(2, immediately: true, waiter: log.waiter("queued"))
    #expect(await staysTrue(for: .milliseconds(200)) { log.written.isEmpty })
    handed?()
    await expectEventually(timeout: .seconds(30), "written: \(log.written)") {
      log.written == [1, 2]
    }
  }

  @Test func changesBetweenImmediateWritesShareOneTimerThatStillWritesTheLast() async {
    let log = WriterLog()
    let writer = log.writer(throttle: .seconds(3))
    writer.submit(0, immediately: false, waiter: log.waiter("leading"))
    writer.flushNow()  // The leading write, finished: the window is open.
    // As `withLock` then `save()` in a loop: each change starts the window's timer, each save
    // takes the change before the timer fires.
    for index in 1...50 {
      writer.submit(index, immediately: false, waiter: log.waiter("change\(index)"))
      writer.submit(-index, immediately: true, waiter: log.waiter("save\(index)")) { work in
        work()
        return true
      }
    }
    writer.submit(51, immediately: false, waiter: log.waiter("last"))
    #expect(writer.timersDispatched == 1)
    // The one timer, dispatched for the first change, writes the last at the window's end.
    await expectEventually(timeout: .seconds(30), "written: \(log.written.suffix(3))") {
      log.written.last == 51
    }
    #expect(log.written == [0] + (1...50).map { -$0 } + [51])
    #expect(log.told.count == 102 && log.told.last == "last")
  }

  @Test func aCallerThatCannotTakeTheWriteHasItQueued() async {
    let log = WriterLog()
    let writer = log.writer()
    writer.submit(1, immediately: true, waiter: log.waiter("save")) { _ in false }
    await expectEventually(timeout: .seconds(30)) { log.written == [1] }
    writer.submit(2, immediately: true, waiter: log.waiter("next")) { _ in false }
    await expectEventually(timeout: .seconds(30), "the writer was left locked") {
      log.written == [1, 2]
    }
  }
}

/// `drain()`, which a transaction runs before it reads: every change taken or pending is
/// written on the draining thread, in order, and none is written again by its queued block.
@Suite struct ThrottledWriterDrainTests {
  @Test func aDrainWritesWhatIsQueuedAndPendingInOrderOnce() async throws {
    let written = Mutex<[Int]>([])
    let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let writer = ThrottledWriter<Int>(
      module: "tether.test", subject: "test.drain", throttle: .seconds(60), merge: nil,
      perform: { change in
        if change == 1 {
          started.signal()
          release.wait()
        }
        written.withLock { $0.append(change) }
        return .written
      },
      recovered: {})
    let log = WriterLog()
    writer.submit(1, immediately: true, waiter: log.waiter("1"))  // written on the queue: held
    started.wait()
    writer.submit(2, immediately: true, waiter: log.waiter("2"))  // queued behind 1
    writer.submit(3, immediately: false, waiter: log.waiter("3"))  // pending, throttled
    let drained = Task.detached {
      try writer.drain()
      return written.withLock { $0 }
    }
    release.signal()
    #expect(try await drained.value == [1, 2, 3], "written when the drain returns, in order")
    #expect(!writer.hasPending)
    writer.flushNow()
    #expect(written.withLock { $0 } == [1, 2, 3], "nothing written twice")
    await expectEventually { Set(log.told) == ["1", "2", "3"] }
  }
}
