import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTestHelperSupport
import TetherTesting

/// A change of a row's key made while an edit of the row is being delivered was made before
/// its holders saw the edit, which wins: the change is dropped, never written over the edit
/// its holders show once the delivery ends.
@Suite(postgresAvailable, .timeLimit(.minutes(2))) struct PostgresDeliveryConflictTests {
  /// The edit's delivery is held inside the value's decoding (``DeliveryGate``) for 300 ms, in
  /// which the change and its `save()` are made: the save throws the conflict, and the row and
  /// the holder both hold the edit's 37. A run slowed past those 300 ms makes them after the
  /// delivery, and the save writes 2. Either way a save that returns has written its change, and
  /// the holder and the row agree.
  @Test func aSaveDuringTheDeliveryOfAnEditThrowsAndWritesNothing() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table),
      strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("g")) var value = GatedNumber(rawValue: 0)
      $value.withLock { $0 = GatedNumber(rawValue: 1) }
      try await $value.save()
      let gate = DeliveryGate(at: 37)
      try await TestServer.edit(cluster, table: table, key: "g", json: "37")
      await expectEventually(timeout: .seconds(30), "the edit's delivery is under way") {
        gate.isHolding
      }
      $value.withLock { $0 = GatedNumber(rawValue: 2) }
      func stored() async throws -> Int? {
        let row = try await cluster.psql("SELECT value FROM \(table) WHERE key = 'g'")
        return Int(row.trimmingCharacters(in: .whitespacesAndNewlines))
      }
      do {
        try await $value.save()
        #expect(try await stored() == 2, "a save that returned wrote its change")
      } catch let error as TetherError {
        guard case .conflict(key: "g", _) = error else {
          Issue.record("not the conflict: \(error)")
          return
        }
        #expect(value.rawValue == 37, "the holder shows what the row holds when the save throws")
        #expect(try await stored() == 37, "the edit is not written over")
      }
      await TetherSystem.flush()
      #expect(try await stored() == value.rawValue, "the holder and the row agree")
    }
  }
}
