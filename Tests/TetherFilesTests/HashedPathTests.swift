import Testing
import TetherFiles

@Suite struct HashedPathTests {
  @Test func equalPathsAreOneKeyAndDistinctPathsOfOneLengthAreTwo() {
    let paths = ["/tmp/a/k1.json", "/tmp/a/k2.json", "/tmp/b/k1.json", "/tmp/a/k1.json"]
    var table: [HashedPath: Int] = [:]
    for (index, path) in paths.enumerated() { table[HashedPath(path)] = index }
    #expect(table.count == 3)
    // Made afresh, as each lookup makes its key.
    #expect(table[HashedPath("/tmp/a/k1.json")] == 3)
    #expect(table[HashedPath("/tmp/a/k2.json")] == 1)
    #expect(table[HashedPath("/tmp/a/k3.json")] == nil)
    #expect(HashedPath("/tmp/a/k1.json") != HashedPath("/tmp/a/k2.json"))
    #expect(HashedPath("/tmp/a/k1.json").hashValue == HashedPath("/tmp/a/k1.json").hashValue)
  }
}
