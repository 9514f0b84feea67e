import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// Two processes answering each other's changes of one row at once: nothing either writes is
/// lost (DESIGN §12).
@Suite(postgresAvailable, .timeLimit(.minutes(10))) struct PostgresRallyTests {
  @Test func twoProcessesAnsweringEachOthersWritesLoseNone() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "tether.ini")
      try Data(TestServer.configText(cluster, table: table).utf8).write(to: config)
      let until = Soak.size(ci: 400, soak: 4_000)
      try await Rally.expectFinished(
        store: .postgres, file: config.path, key: "count", until: until,
        go: folder.appending(path: "go").path)
      let stored = try await cluster.psql("SELECT value FROM \(table) WHERE key = 'count'")
      #expect(stored == "\(until)")
    }
  }
}
