import Testing
import Tether
import TetherTesting

@Suite(.tetherBootstrap()) struct LoadingTests {
  @Test func isLoadingHoldsUntilAnAsynchronousInitialLoadResumes() async throws {
    try await isolated {
      let storage = TestStorage<Int>(9)
      storage.holdLoads()
      @Shared(TestKey("n", storage: storage)) var n = 0
      #expect($n.isLoading)
      #expect(n == 0)
      storage.resumeLoads()
      #expect(!$n.isLoading)
      #expect(n == 9)
    }
  }

  @Test func aSynchronousLoadIsNeverSeenLoading() async throws {
    try await isolated {
      let storage = TestStorage<Int>(9)
      @Shared(TestKey("n", storage: storage)) var n = 0
      #expect(!$n.isLoading)
      #expect(n == 9)
    }
  }

  @Test func yieldLoadingDrivesIsLoadingAndAValueClearsIt() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      storage.yieldLoading(true)
      #expect($n.isLoading)
      storage.yieldLoading(false)
      #expect(!$n.isLoading)
      storage.yieldLoading(true)
      storage.externalChange(3)
      #expect(!$n.isLoading)
    }
  }

  @Test func loadingANewKeyKeepsTheOldValueUntilItArrives() async throws {
    try await isolated {
      let storage = TestStorage<Int>(50)
      @Shared(.inMemoryTestValue) var n = 1
      storage.holdLoads()
      let switched = Task { [shared = $n] in
        try await shared.load(TestKey("other", storage: storage))
      }
      await expectEventually(timeout: .seconds(30)) { $n.isLoading }
      #expect(n == 1)
      storage.resumeLoads()
      try await switched.value
      #expect(n == 50)
      #expect(!$n.isLoading)
    }
  }
}

extension SharedKey where Self == TestKey<Int> {
  fileprivate static var inMemoryTestValue: Self { TestKey("first", storage: TestStorage<Int>()) }
}
