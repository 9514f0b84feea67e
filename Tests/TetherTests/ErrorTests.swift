import Testing
import Tether
import TetherTesting

@Suite(.tetherBootstrap()) struct ErrorTests {
  @Test func anImplicitLoadFailureSetsLoadErrorWithoutThrowing() async throws {
    try await isolated {
      let storage = TestStorage<Int>(5)
      storage.failLoads(with: Boom(code: 1))
      @Shared(TestKey("n", storage: storage)) var n = 0
      #expect(n == 0)
      #expect($n.loadError as? Boom == Boom(code: 1))
    }
  }

  @Test func loadRethrowsAndTheErrorSticksUntilASuccess() async throws {
    try await isolated {
      let storage = TestStorage<Int>(5)
      @Shared(TestKey("n", storage: storage)) var n = 0
      #expect(n == 5)
      storage.failLoads(with: Boom(code: 2))
      await #expect(throws: Boom(code: 2)) { try await $n.load() }
      #expect($n.loadError as? Boom == Boom(code: 2))

      storage.holdLoads()
      storage.failLoads(with: nil)
      let reload = Task { [shared = $n] in try await shared.load() }
      await expectEventually(timeout: .seconds(30)) { $n.isLoading }
      #expect($n.loadError != nil, "the error sticks while a reload is in flight")
      storage.resumeLoads()
      try await reload.value
      #expect($n.loadError == nil)
      #expect(!$n.isLoading)
    }
  }

  @Test func aFailingSaveSetsSaveErrorAndALaterSuccessClearsIt() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      storage.failSaves(with: Boom(code: 3))
      $n.withLock { $0 = 1 }
      #expect($n.saveError as? Boom == Boom(code: 3))
      #expect(n == 1, "the value is kept")
      $n.withLock { $0 = 2 }
      #expect($n.saveError != nil, "the error sticks while saves keep failing")
      storage.failSaves(with: nil)
      $n.withLock { $0 = 3 }
      #expect($n.saveError == nil)
    }
  }

  @Test func saveRethrows() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      storage.failSaves(with: Boom(code: 4))
      await #expect(throws: Boom(code: 4)) { try await $n.save() }
      #expect($n.saveError as? Boom == Boom(code: 4))
      storage.failSaves(with: nil)
      try await $n.save()
      #expect($n.saveError == nil)
      #expect(storage.saves.last?.context == .userInitiated)
    }
  }

  @Test func aSubscriptionErrorSticksUntilAValueArrives() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      storage.externalError(Boom(code: 5))
      #expect($n.loadError as? Boom == Boom(code: 5))
      storage.externalChange(6)
      #expect($n.loadError == nil)
      #expect(n == 6)
    }
  }

  @Test func aSuccessfulSaveClearsBothErrorsAndTheInitialValueClearsOnlyLoadError() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      storage.failSaves(with: Boom(code: 6))
      $n.withLock { $0 = 1 }
      storage.externalError(Boom(code: 7))
      storage.externalChange(nil)
      #expect($n.loadError == nil)
      #expect($n.saveError != nil)

      storage.externalError(Boom(code: 8))
      storage.failSaves(with: nil)
      $n.withLock { $0 = 2 }
      #expect($n.loadError == nil)
      #expect($n.saveError == nil)
    }
  }
}
