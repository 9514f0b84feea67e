import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTestHelperSupport
import TetherTesting

/// What goes wrong with a server, its password or its rows is an error naming the key, and
/// nothing a holder changed is lost.
@Suite(postgresAvailable)
struct PostgresErrorTests {
  @Test func aWrongPasswordIsALoadErrorNamingTheKeyAndTheChangeIsKept() async throws {
    let cluster = try await TestServer.shared()
    try await withTemporaryDirectory { folder in
      let wrong = folder.appending(path: "wrong-password")
      try Data("not-the-password\n".utf8).write(to: wrong)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: wrong.path)
      let config = TetherConfiguration.string(
        """
        [keys]
        * = postgres

        [strategy.postgres]
        url = \(cluster.url)
        password-file = \(wrong.path)
        table = \(TestServer.uniqueTable())
        """)
      try await TetherSystem.withBootstrap(
        configuration: config, strategies: [PostgresStrategy.self]
      ) {
        @Shared(.registered("count")) var count = 0
        await expectEventually(timeout: .seconds(30)) { $count.loadError != nil }
        let message = "\($count.loadError!)"
        #expect(message.contains("key \"count\""), "\(message)")
        #expect(message.contains("password authentication failed"), "\(message)")
        #expect(!message.contains("not-the-password"))
        $count.withLock { $0 = 3 }
        await expectEventually(timeout: .seconds(30)) { $count.saveError != nil }
        #expect(count == 3)
      }
    }
  }

  @Test func anUnreachableServerKeepsChangesAndSaysSo() async throws {
    // A port nothing listens on: connecting is refused at once.
    let config = TetherConfiguration.string(
      """
      [keys]
      * = postgres

      [strategy.postgres]
      url = postgres://tether@127.0.0.1:1/postgres
      """)
    try await TetherSystem.withBootstrap(
      configuration: config, strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("count")) var count = 0
      await expectEventually(timeout: .seconds(30)) { $count.loadError != nil }
      guard case .unreachable(let key, let store, _)? = $count.loadError as? TetherError else {
        Issue.record("expected unreachable, got \(String(describing: $count.loadError))")
        return
      }
      #expect(key == "count" && store.contains("127.0.0.1:1"))
      $count.withLock { $0 = 9 }
      await #expect(throws: TetherError.self) { try await $count.save() }
      #expect(count == 9)
    }
  }

  @Test func aValueTheServerRefusesIsASaveErrorNamingTheKey() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table),
      strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("notes")) var notes = ""
      await expectEventually(timeout: .seconds(30)) { !$notes.isLoading }
      _ = try await cluster.psql(
        "ALTER TABLE \(table) ADD CONSTRAINT small CHECK (octet_length(value::text) < 100)")
      $notes.withLock { $0 = String(repeating: "x", count: 500) }
      await expectEventually(timeout: .seconds(30)) { $notes.saveError != nil }
      let message = "\($notes.saveError!)"
      #expect(message.contains("key \"notes\""), "\(message)")
      #expect(message.contains("small"), "\(message)")
      #expect(notes.count == 500)
      // A value the server takes is written after all.
      $notes.withLock { $0 = "short" }
      try await $notes.save()
      #expect($notes.saveError == nil)
      #expect(
        try await cluster.psql("SELECT value FROM \(table) WHERE key = 'notes'") == "\"short\"")
    }
  }

  @Test func aRowThatIsNotTheKeysTypeIsALoadErrorAndTheDefault() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table),
      strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("count")) var count = 1
      $count.withLock { $0 = 4 }
      try await $count.save()
      try await TestServer.edit(
        cluster, table: table, key: "count", json: "{\"not\": \"a number\"}")
      await expectEventually(timeout: .seconds(30)) { $count.loadError != nil }
      let message = "\($count.loadError!)"
      #expect(message.contains("key \"count\"") && message.contains("Int"), "\(message)")
      #expect(count == 1)
      // Written over by a value of the key's type, it is read again.
      try await TestServer.edit(cluster, table: table, key: "count", json: "12")
      await expectEventually(timeout: .seconds(30)) { count == 12 && $count.loadError == nil }
    }
  }
}
