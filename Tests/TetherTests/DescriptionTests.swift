import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap()) struct DescriptionTests {
  @Test func descriptionsNameTheKey() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      #expect($count.description == #"Shared<Int>(.inMemory("count"))"#)
      #expect(Shared(value: 0).description == "Shared<Int>(value: 0)")
      @Shared(.count) var viaDefault
      #expect($viaDefault.description == #"Shared<Int>(.inMemory("count"))"#)
      @SharedReader(.inMemory("count")) var reader = 0
      #expect($reader.description == #"SharedReader<Int>(.inMemory("count"))"#)
      #expect(String(describing: InMemoryKey<Int>.Default.count) == #".inMemory("count")"#)
    }
  }
}
