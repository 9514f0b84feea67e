import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// Processes of their own sharing PostgreSQL keys: counting together with `transaction`, and
/// holders seeing each other's writes live.
@Suite(postgresAvailable, .timeLimit(.minutes(10)))
struct PostgresProcessTests {
  /// 8 processes × 500 `transaction { $0 += 1 }` of one row, exact (4 × 100 in `make test`):
  /// every transaction acknowledged, each value written by one of them, the row ends at N × M.
  @Test func processesCountingWithTransactionsLoseNothing() async throws {
    let (processes, count) = (Soak.size(ci: 4, soak: 8), Soak.size(ci: 100, soak: 500))
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "tether.ini")
      try Data(TestServer.configText(cluster, table: table).utf8).write(to: config)
      let runs = try await Transactors.run(
        .postgres, file: config, key: "counter", processes: processes, count: count)
      var written: [Int] = []
      for (index, run) in runs.enumerated() {
        #expect(run.status == 0, "p\(index): \(run.errors)")
        #expect(run.report.saveFailures == [:], "p\(index)")
        written += Transactors.acknowledged(in: run.output)
      }
      #expect(written.count == processes * count, "acknowledged transactions")
      #expect(Set(written).count == written.count, "each value written by one transaction")
      let stored = try await cluster.psql("SELECT value FROM \(table) WHERE key = 'counter'")
      #expect(stored == "\(processes * count)")
    }
  }

  /// Two holder processes of one row: each value one writes the other shows, in order, and
  /// neither shows an older value again (its own write coming back, or a flicker).
  @Test func twoProcessesShareARowLiveWithoutFlicker() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    let config = TestServer.configText(cluster, table: table)
    try await HolderProcess.withTwo(config: config, key: "count") { a, b in
      for (writer, reader, values) in [(a, b, 1...20), (b, a, 21...40)] {
        for value in values {
          let saved = await writer.setAndSave(value)
          #expect(saved?.saved == value, "\(writer.transcript)")
          await expectEventually(timeout: .seconds(5), "\(reader.name) sees \(value)") {
            reader.value == value
          }
        }
      }
      // Past the throttle window and an announcement's round trip: nothing more may arrive.
      #expect(await staysTrue(for: .milliseconds(300)) { a.value == 40 && b.value == 40 })
      // A holder's `set N` (its throttle's leading write) may find the row moved by the
      // other's second write of the value before (`set` + `save` writes twice), whose
      // announcement it has not read yet: moved to the content it knows, which is no conflict.
      for holder in [a, b] {
        #expect(neverGoesBack(holder.values), "\(holder.values)")
        #expect(holder.states.allSatisfy { $0.saveError == nil }, "\(holder.transcript)")
      }
      let stored = try await cluster.psql("SELECT value FROM \(table) WHERE key = 'count'")
      #expect(stored == "40")
    }
  }
}
