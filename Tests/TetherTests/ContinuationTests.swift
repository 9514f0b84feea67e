import Testing
import Tether
import TetherTesting

@Suite struct ContinuationTests {
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
}
