import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap(), .timeLimit(.minutes(1))) struct DerivedReadTests {
  @Test func aDerivedValueIsComputedFromTheCurrentValue() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      @SharedReader(projectedValue: $count.read { $0 == 0 }) var isZero
      let doubled = SharedReader($count).read { $0 * 2 }.read { "\($0)" }
      #expect(isZero)
      #expect(doubled.wrappedValue == "0")
      $count.withLock { $0 = 21 }
      #expect(!isZero)
      #expect(doubled.wrappedValue == "42")
    }
  }

  @Test func itStaysWithTheReferenceItWasDerivedFrom() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 1
      let isZero = $count.read { $0 == 0 }
      $count = Shared(wrappedValue: 0, .inMemory("other"))
      #expect(count == 0)
      #expect(!isZero.wrappedValue, "re-keying the parent does not move a derived value")
    }
  }

  @Test func aTrackerOfTheDerivedValueIsToldWhenTheBaseChanges() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      let isZero = $count.read { $0 == 0 }
      let told = Mutex(false)
      withObservationTracking {
        _ = isZero.wrappedValue
      } onChange: {
        told.withLock { $0 = true }
      }
      $count.withLock { $0 = 1 }
      #expect(told.withLock { $0 }, "onChange fired before withLock returned")
    }
  }

  @Test func changesYieldTheDerivedValueThenEachChange() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      @Shared(TestKey("n", storage: storage)) var n = 0
      var iterator = $n.read { $0 * 10 }.changes.makeAsyncIterator()
      #expect(await iterator.take() == 0)
      $n.withLock { $0 = 1 }
      #expect(await iterator.take() == 10)
      storage.externalChange(4)
      #expect(await iterator.take() == 40)
    }
  }

  @Test func loadingAndItsErrorAreTheBase() async throws {
    try await isolated {
      let storage = TestStorage<Int>(5)
      storage.failLoads(with: Boom(code: 1))
      @Shared(TestKey("n", storage: storage)) var n = 0
      let label = $n.read { "n = \($0)" }
      #expect(label.loadError as? Boom == Boom(code: 1))

      storage.holdLoads()
      storage.failLoads(with: nil)
      let reload = Task { try await label.load() }
      await expectEventually(timeout: .seconds(30)) { label.isLoading }
      storage.resumeLoads()
      try await reload.value
      #expect(!label.isLoading)
      #expect(label.loadError == nil)
      #expect(label.wrappedValue == "n = 5", "load() reloaded the base")
    }
  }

  @Test func itsDescriptionNamesTheBaseAndTheTypes() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      #expect(
        $count.read { $0 == 0 }.description
          == #"SharedReader<Bool>(.inMemory("count").read { (Int) -> Bool })"#)
    }
  }
}
