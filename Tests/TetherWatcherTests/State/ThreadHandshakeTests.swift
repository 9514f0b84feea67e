import Dispatch
import Testing
import TetherFiles
import TetherWatcher

/// The callers' and the thread's handshake, without a thread: generations served, waiters
/// woken, marks, and watches callers added.
@Suite struct ThreadHandshakeTests {
  let folder = HashedPath("/data/a")

  @Test func waitersAreWokenOnceTheirGenerationIsServed() {
    var handshake = ThreadHandshake()
    let first = handshake.request()
    let second = handshake.request()
    let (early, late) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let waitsEarly = handshake.wait(for: first, early)
    let waitsLate = handshake.wait(for: second, late)
    #expect(waitsEarly && waitsLate)
    let servedFirst = handshake.serve(first)
    #expect(servedFirst.count == 1)
    let waitsAgain = handshake.wait(for: first, DispatchSemaphore(value: 0))
    #expect(!waitsAgain, "served already")
    let servedSecond = handshake.serve(second)
    #expect(servedSecond.count == 1)
    #expect(handshake.releaseAll().isEmpty)
  }

  @Test func aMarkStandsOnlyOnceTheWatchDoesAndMovesWithEveryEvent() {
    var handshake = ThreadHandshake()
    let generation = handshake.request()
    #expect(handshake.mark(of: folder, generation: generation) == nil)
    _ = handshake.serve(generation)
    let before = handshake.mark(of: folder, generation: generation)
    #expect(before != nil)
    #expect(handshake.mark(of: folder, generation: generation) == before)
    handshake.eventHandled()
    #expect(handshake.mark(of: folder, generation: generation) != before)
  }

  @Test func aWatchACallerAddedStandsUntilTheThreadTakesItOver() {
    var handshake = ThreadHandshake()
    let generation = handshake.request()
    let recorded = handshake.recordWatchedHere(folder, as: 7, generation: generation)
    #expect(recorded)
    #expect(handshake.requested == generation + 1, "one more sync sees it is the thread's")
    #expect(handshake.isStanding(folder, generation: generation))
    #expect(handshake.wasWatchedHere(folder, as: 7))
    let strays = handshake.takeOver(
      examined: [folder], threadWatch: { $0 == "/data/a" ? 7 : nil }, isThreadWatch: { $0 == 7 })
    #expect(strays.isEmpty)
    #expect(handshake.watchedHereCount == 0)
  }

  @Test func aWatchACallerAddedForAFolderTheThreadWatchesOtherwiseIsAStray() {
    var handshake = ThreadHandshake()
    let generation = handshake.request()
    let recorded = handshake.recordWatchedHere(folder, as: 7, generation: generation)
    #expect(recorded)
    let strays = handshake.takeOver(
      examined: [folder], threadWatch: { _ in 8 }, isThreadWatch: { $0 == 8 })
    #expect(strays == [7])
  }

  @Test func aWatchAddedAfterTheThreadServedItIsNotRecorded() {
    var handshake = ThreadHandshake()
    let generation = handshake.request()
    _ = handshake.serve(generation)
    let recorded = handshake.recordWatchedHere(folder, as: 7, generation: generation)
    #expect(!recorded)
    #expect(handshake.watchedHereCount == 0)
  }
}
