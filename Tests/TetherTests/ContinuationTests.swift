import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

@Suite(.tetherBootstrap()) struct ContinuationTests {
  init() { LogCapture.install() }

  @Test func aLoadThatIsNeverResumedIsReportedAndTheCallerGoesOn() async throws {
    try await isolated {
      let storage = TestStorage<Int>(1)
      @Shared(TestKey("never-load", storage: storage)) var n = 0
      storage.dropContinuations()
      try await $n.load()
      #expect(n == 1, "an abandoned load changes nothing")
      #expect(!$n.isLoading)
      let reports = LogCapture.messages(at: .error, containing: ".test(\"never-load\")")
      #expect(reports.contains { $0.contains("never resumed") })
    }
  }

  @Test func anInitialLoadThatIsNeverResumedIsReportedNamingTheKey() async throws {
    try await isolated {
      let storage = TestStorage<Int>(1)
      storage.dropContinuations()
      @Shared(TestKey("never-initial", storage: storage)) var n = 0
      #expect(n == 0, "the default stays")
      #expect(!$n.isLoading)
      let reports = LogCapture.messages(at: .error, containing: ".test(\"never-initial\")")
      #expect(reports.contains { $0.contains("load continuation") && $0.contains("never resumed") })
    }
  }

  @Test func aSaveThatIsNeverResumedIsReportedAndTheCallerGoesOn() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("never-save", storage: storage)) var n = 0
      storage.dropContinuations()
      try await $n.save()
      let reports = LogCapture.messages(at: .error, containing: ".test(\"never-save\")")
      #expect(reports.contains { $0.contains("save continuation") && $0.contains("never resumed") })
    }
  }

  /// A change's save reports to its shared value, which names the key only when asked.
  @Test func aChangesSaveThatIsNeverResumedIsReportedNamingTheKey() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("never-change", storage: storage)) var n = 0
      storage.dropContinuations()
      $n.withLock { $0 = 5 }
      #expect(n == 5)
      #expect($n.saveError == nil, "a dropped save is no failure")
      let reports = LogCapture.messages(at: .error, containing: ".test(\"never-change\")")
      #expect(reports.contains { $0.contains("save continuation") && $0.contains("never resumed") })
    }
  }

  /// A change's save continuation is reused once the key is done with it: each reuse must tell
  /// its own result, as a new continuation would.
  @Test func eachChangesSaveTellsItsOwnResultWhenItsContinuationIsReused() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("reused", storage: storage)) var n = 0
      for round in 1...3 {
        storage.failSaves(with: Boom(code: round))
        $n.withLock { $0 += 1 }
        #expect(($n.saveError as? Boom)?.code == round)
        storage.failSaves(with: nil)
        $n.withLock { $0 += 1 }
        #expect($n.saveError == nil, "round \(round): a later success clears the failure")
      }
      #expect(storage.saves.count == 3, "the three that succeeded")
      #expect(LogCapture.messages(at: .error, containing: ".test(\"reused\")").isEmpty)
    }
  }

  /// The continuation kept for reuse must not keep its shared value alive (a cycle).
  @Test func aSharedValueWhoseSavesWereResumedIsLetGoWithItsHolders() async throws {
    try await isolated {
      weak var released: TestStorage<Int>?
      do {
        let storage = TestStorage<Int>()
        released = storage
        @Shared(TestKey("let-go", storage: storage)) var n = 0
        for _ in 1...3 { $n.withLock { $0 += 1 } }
        #expect(storage.saves.count == 3)
      }
      #expect(released == nil, "the key (and its storage) went with the last holder")
    }
  }

  /// A key that holds its saves' continuations (as a throttled writer does) and resumes them
  /// later: each result still reaches the value, and the value still goes with its holders.
  @Test func heldSavesReportTheirResultsAndLetTheValueGoOnceResumed() async throws {
    try await isolated {
      weak var released: HoldingStore?
      do {
        let store = HoldingStore()
        released = store
        @Shared(HoldingKey(store: store)) var n = 0
        for round in 1...3 {
          $n.withLock { $0 += 1 }
          $n.withLock { $0 += 1 }
          store.resumeAll(with: .failure(Boom(code: round)))
          #expect(($n.saveError as? Boom)?.code == round)
          $n.withLock { $0 += 1 }
          store.resumeAll(with: .success(()))
          #expect($n.saveError == nil, "round \(round)")
        }
        $n.withLock { $0 += 1 }
        #expect(store.heldCount == 1)
        store.resumeAll(with: .success(()))
      }
      #expect(released == nil, "the key (and its store) went with the last holder")
    }
  }

  @Test func aContinuationResumedTwiceIsReportedAndKeepsTheFirstResult() async throws {
    let results = TestStorage<Int>()
    let continuation = LoadContinuation<Int>("twice-key") { result in
      if case .success(let value?) = result { results.externalChange(value) }
    }
    continuation.resume(returning: 1)
    continuation.resume(returning: 2)
    #expect(results.value == 1)
    #expect(
      LogCapture.messages(at: .error, containing: "twice-key")
        .contains { $0.contains("more than once") })
  }

  @Test func aSupersededSaveTellsItsTargetNothingAndIsNotReportedAsDropped() {
    let target = SaveRecorder("superseded-key")
    do {
      let continuation = SaveContinuation(target: target)
      #expect(continuation.target == ObjectIdentifier(target))
      continuation.resumeSuperseded()
    }
    #expect(target.results.isEmpty)
    #expect(LogCapture.messages(at: .error, containing: "superseded-key").isEmpty)
    let told = SaveContinuation(target: target)
    told.resume()
    told.resume()
    #expect(target.results.count == 1)
    #expect(
      LogCapture.messages(at: .error, containing: "superseded-key")
        .contains { $0.contains("more than once") }, "the target names the key")
  }

  @Test func aSaveDroppedBeforeItsTargetIsToldSaysSoNamingTheTargetsKey() {
    let target = SaveRecorder("dropped-target-key")
    do { _ = SaveContinuation(target: target) }
    #expect(target.results.count == 1)
    #expect(target.results.first.map { $0 == nil } == true, "dropped: told nil")
    #expect(
      LogCapture.messages(at: .error, containing: "dropped-target-key")
        .contains { $0.contains("never resumed") })
  }

  @Test func workHandedBackRunsOnlyOnTheCallersThreadAndOnlyBeforeItRuns() {
    let caller = CallerWork()
    let continuation = SaveContinuation(subject: "caller-thread-key", caller: caller) { _ in }
    let ran = Mutex(0)
    #expect(continuation.runOnCaller { ran.withLock { $0 += 1 } })
    let elsewhere = Thread.result { continuation.runOnCaller {} }
    #expect(!elsewhere, "another thread's work must be done by that thread")
    #expect(ran.withLock { $0 } == 0, "handed-back work waits for the caller")
    caller.run()
    #expect(ran.withLock { $0 } == 1)
    #expect(!continuation.runOnCaller {}, "work handed back after the run would never run")
    #expect(!SaveContinuation("no-caller-key") { _ in }.runOnCaller {})
    continuation.resume()
  }

  @Test func aSaveTellingACallerHasNoTargetToMergeWith() {
    let continuation = SaveContinuation("caller-key") { _ in }
    #expect(continuation.target == nil)
    continuation.resume()
  }
}

extension Thread {
  /// The result of `body` run on a new thread of its own, waited for.
  static func result<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
      result.withLock { $0 = body() }
      done.signal()
    }.start()
    done.wait()
    return result.withLock { $0! }
  }
}

/// Records the results a save continuation delivers to its target.
private final class SaveRecorder: SaveResultTarget {
  let saveSubject: any Sendable
  init(_ key: String) { saveSubject = key }
  private let received = Mutex<[Result<Void, any Error>?]>([])
  var results: [Result<Void, any Error>?] { received.withLock { $0 } }
  func saveFinished(_ result: Result<Void, any Error>?) { received.withLock { $0.append(result) } }
}

/// Keeps save continuations until told to resume them.
private final class HoldingStore: Sendable {
  private let held = Mutex<[SaveContinuation]>([])
  var heldCount: Int { held.withLock { $0.count } }
  func hold(_ continuation: SaveContinuation) { held.withLock { $0.append(continuation) } }
  func resumeAll(with result: Result<Void, any Error>) {
    for continuation in held.withLock({ held in
      defer { held = [] }
      return held
    }) {
      continuation.resume(with: result)
    }
  }
}

private struct HoldingKey: SharedKey {
  let store: HoldingStore
  var id: ObjectIdentifier { ObjectIdentifier(store) }
  func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
    continuation.resumeReturningInitialValue()
  }
  func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription
  {
    SharedSubscription {}
  }
  func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
    store.hold(continuation)
  }
}
