import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTestHelperSupport
import TetherTesting

/// Two scopes of one process, each with its own connection, as two hosts would be: what one
/// writes the other sees, and what a person writes with `psql` both see.
@Suite(postgresAvailable)
struct PostgresSharingTests {
  /// Runs `body` with two scopes bootstrapped on one table, each holding `count` (default 0).
  private static func twoHolders(
    table: String, throttle: String = "50ms",
    _ body: @escaping @Sendable (PostgresCluster, Shared<Int>, Shared<Int>) async throws -> Void
  ) async throws {
    let cluster = try await TestServer.shared()
    let config = TestServer.config(cluster, table: table, throttle: throttle)
    try await TetherSystem.withBootstrap(
      configuration: config, strategies: [PostgresStrategy.self]
    ) {
      let first = Shared(wrappedValue: 0, .registered("count"))
      try await TetherSystem.withBootstrap(
        configuration: config, strategies: [PostgresStrategy.self]
      ) {
        let second = Shared(wrappedValue: 0, .registered("count"))
        try await body(cluster, first, second)
      }
    }
  }

  @Test func aWriteInOneScopeReachesTheOtherAndIsNotEchoedBack() async throws {
    try await Self.twoHolders(table: TestServer.uniqueTable()) { _, first, second in
      await expectEventually(timeout: .seconds(30)) { first.loadError == nil && !first.isLoading }
      first.withLock { $0 = 41 }
      try await first.save()
      await expectEventually(timeout: .seconds(30)) { second.wrappedValue == 41 }
      second.withLock { $0 += 1 }
      await expectEventually(timeout: .seconds(30)) { first.wrappedValue == 42 }
      #expect(first.saveError == nil && second.saveError == nil)
    }
  }

  @Test func aRowEditedWithPsqlReachesEveryHolder() async throws {
    let table = TestServer.uniqueTable()
    try await Self.twoHolders(table: table) { cluster, first, second in
      await expectEventually(timeout: .seconds(30)) { !first.isLoading && !second.isLoading }
      try await TestServer.edit(cluster, table: table, key: "count", json: "7")
      await expectEventually(timeout: .seconds(30)) {
        first.wrappedValue == 7 && second.wrappedValue == 7
      }
      _ = try await cluster.psql("DELETE FROM \(table) WHERE key = 'count'")
      await expectEventually(timeout: .seconds(30)) {
        first.wrappedValue == 0 && second.wrappedValue == 0
      }
    }
  }

  @Test func transactionsOfTwoScopesCountExactly() async throws {
    try await Self.twoHolders(table: TestServer.uniqueTable()) { _, first, second in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for holder in [first, second] {
          group.addTask {
            for _ in 0..<100 { try await holder.transaction { $0 += 1 } }
          }
        }
        try await group.waitForAll()
      }
      await expectEventually(timeout: .seconds(30)) {
        first.wrappedValue == 200 && second.wrappedValue == 200
      }
    }
  }

  @Test func aResetInOneScopeShowsTheDefaultInTheOther() async throws {
    let table = TestServer.uniqueTable()
    try await Self.twoHolders(table: table) { cluster, first, second in
      first.withLock { $0 = 5 }
      try await first.save()
      await expectEventually(timeout: .seconds(30)) { second.wrappedValue == 5 }
      try await second.reset()
      #expect(second.wrappedValue == 0)
      await expectEventually(timeout: .seconds(30)) { first.wrappedValue == 0 }
    }
  }

  @Test func manyWithLockChangesInOneWindowAreWrittenAsTheLastValue() async throws {
    let table = TestServer.uniqueTable()
    try await Self.twoHolders(table: table, throttle: "200ms") { cluster, first, second in
      await expectEventually(timeout: .seconds(30)) { !first.isLoading }
      for value in 1...1_000 { first.withLock { $0 = value } }
      await expectEventually(timeout: .seconds(30)) { second.wrappedValue == 1_000 }
      let stored = try await cluster.psql("SELECT value FROM \(table) WHERE key = 'count'")
      #expect(stored == "1000")
    }
  }
}

/// A store's connection lasts as long as a key of its scope is held, and no longer.
@Suite(postgresAvailable)
struct PostgresConnectionLifetimeTests {
  @Test func theConnectionClosesOnceTheScopeAndItsHoldersHaveGone() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    let connections = TestServer.connectionsQuery(table: table)
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table),
      strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("count")) var count = 0
      $count.withLock { $0 = 1 }
      try await $count.save()
      #expect(try await cluster.psql(connections) == "1")
    }
    let closed = try await TestServer.eventually(timeout: .seconds(30)) {
      try await cluster.psql(connections) == "0"
    }
    #expect(closed, "the store's connection is still open after its scope ended")
  }

  @Test func theEndOfTheScopeWritesAChangeStillInItsThrottleWindow() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table, throttle: "60s"),
      strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("count")) var count = 0
      await expectEventually(timeout: .seconds(30)) { !$count.isLoading }
      $count.withLock { $0 = 1 }  // written at once: the window's leading write
      $count.withLock { $0 = 2 }  // due at the window's end, a minute away
    }
    #expect(try await cluster.psql("SELECT value FROM \(table) WHERE key = 'count'") == "2")
  }
}
