import Testing
import Tether
import TetherInMemory
import TetherTesting

/// A load applies what it read only when no local change was made since it started: the change
/// is newer than what the store held. `require` joins live holders without resetting them.
@Suite(.tetherBootstrap()) struct LoadRaceTests {
  @Test func anInitialLoadDoesNotUndoAChangeMadeWhileItRan() async throws {
    try await Self.initialLoadRacingAChange()
  }

  private static func initialLoadRacingAChange() async throws {
    try await isolated {
      let storage = TestStorage<Int>(9)
      storage.holdLoads()
      let n = Shared(wrappedValue: 0, TestKey("n", storage: storage))
      #expect(n.isLoading)
      // The store keeps 9, as it does while a throttled write of the change waits.
      storage.failSaves(with: Boom())
      n.withLock { $0 = 5 }
      storage.resumeLoads()
      #expect(!n.isLoading)
      #expect(n.wrappedValue == 5, "the load read 9, from before the change to 5")
    }
  }

  @Test func aLoadDoesNotUndoAChangeMadeWhileItRan() async throws {
    try await Self.loadRacingAChange()
  }

  private static func loadRacingAChange() async throws {
    try await isolated {
      let storage = TestStorage<Int>(9)
      let n = Shared(wrappedValue: 0, TestKey("n", storage: storage))
      #expect(n.wrappedValue == 9)
      storage.holdLoads()
      let load = Task { try await n.load() }
      await expectEventually(timeout: .seconds(30)) { n.isLoading }
      storage.failSaves(with: Boom())
      n.withLock { $0 = 20 }
      storage.resumeLoads()
      try await load.value
      #expect(n.wrappedValue == 20, "the load read 9, from before the change to 20")
      #expect(!n.isLoading)
      // A load that no change overtook applies what it read.
      try await n.load()
      #expect(n.wrappedValue == 9)
    }
  }

  /// Tasks increment while others load, and each also loads between its increments: every
  /// increment stays. Before loads checked for changes made meanwhile, rounds lost some in
  /// about half the runs.
  @Test(arguments: 0..<10) func loadsRacingIncrementsLoseNone(round: Int) async throws {
    try await Self.loadsRacingIncrements()
  }

  private static func loadsRacingIncrements() async throws {
    try await isolated {
      let count = Shared(wrappedValue: 0, .inMemory("count"))
      let (tasks, increments) = (4, 2_500)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
          group.addTask {
            for _ in 0..<increments {
              count.withLock { $0 += 1 }
              try await count.load()
            }
          }
          group.addTask {
            for _ in 0..<increments { try await count.load() }
          }
        }
        try await group.waitForAll()
      }
      #expect(count.wrappedValue == tasks * increments)
    }
  }

  /// A save that failed leaves the live value ahead of the store: `require` keeps it.
  @Test func requireKeepsTheValueOfLiveHolders() async throws {
    try await Self.requireWithLiveHolders()
  }

  private static func requireWithLiveHolders() async throws {
    try await isolated {
      let storage = TestStorage<Int>(1)
      let live = Shared(wrappedValue: 0, TestKey("n", storage: storage))
      storage.failSaves(with: Boom())
      live.withLock { $0 = 2 }
      #expect(storage.value == 1)
      let required = try await Shared(require: TestKey("n", storage: storage))
      #expect(required.wrappedValue == 2)
      #expect(live.wrappedValue == 2, "require reset the live holder to what was stored")
      let reader = try await SharedReader(require: TestKey("n", storage: storage))
      #expect(reader.wrappedValue == 2)
      #expect(live.wrappedValue == 2)
    }
  }
}
