import Benchmark
import Foundation
import Observation
import PostgresNIO
import Synchronization
import Tether

/// The `postgres` strategy against the same work done by hand on plain PostgresNIO connections
/// to the same throwaway server (started by `report.py`): an edit on one host reaching a holder
/// on another, saves, and a new key's start. Left out when no server is named.
func postgresBenchmarks() {
  guard let server = BenchServer.current else { return }
  postgresEditBenchmark(server)
  postgresSaveBenchmarks(server)
  postgresStartBenchmark(server)
}

/// Round trips measured after those that warm the connections and the server up.
private let warmupRounds = 30
private let measuredRounds = 300

/// A row updated on "host A" (a plain connection) until the holder of its key in scope B (a
/// host of its own: its own connection) sees the value through Observation; against the floor
/// of that path by hand: a `pg_notify` on one plain connection, received by another that
/// LISTENs, which then reads the row. A third figure is the same by hand but started by an
/// `UPDATE` of a row, whose trigger announces it as it does for Tether's rows: what the
/// trigger and the table add.
private func postgresEditBenchmark(_ server: BenchServer) {
  let table = BenchServer.table
  Benchmark(
    "postgres.edit",
    configuration: once([counted("tether.us"), counted("raw.us"), counted("raw-update.us")])
  ) { benchmark in
    try await server.withHost {
      let holder = Shared(wrappedValue: 0, .registered("edit"))
      try await loaded(holder)
      holder.withLock { $0 = 0 }
      try await holder.save()  // The row exists from here on.
      try await server.withConnection { hostA in
        try await hostA.execute(
          """
          INSERT INTO \(unescaped: table) (key, value, version) VALUES ('raw_update', '0', 0)
          ON CONFLICT (key) DO NOTHING
          """)
        try await server.withConnection { listener in
          try await listener.listen(on: "bench_raw") { notifications in
            try await listener.listen(on: table) { rowNotifications in
              var notes = notifications.makeAsyncIterator()
              var rowNotes = rowNotifications.makeAsyncIterator()
              for round in 1...(warmupRounds + measuredRounds) {
                let tether = try await edit(holder, to: round, on: hostA)
                let raw = try await notifyRoundTrip(round, from: hostA, to: listener, &notes)
                let rawUpdate = try await updateRoundTrip(
                  round, from: hostA, to: listener, &rowNotes)
                guard round > warmupRounds else { continue }
                benchmark.measurement(counted("tether.us"), microseconds(tether))
                benchmark.measurement(counted("raw.us"), microseconds(raw))
                benchmark.measurement(counted("raw-update.us"), microseconds(rawUpdate))
              }
            }
          }
        }
      }
    }
  }
}

/// Updates the row of `holder`'s key to `value` on `hostA`: the time until the holder's
/// Observation callback fires.
private func edit(
  _ holder: Shared<Int>, to value: Int, on hostA: PostgresConnection
) async throws -> Duration {
  let seen = Moment()
  withObservationTracking {
    _ = holder.wrappedValue
  } onChange: {
    seen.mark()
  }
  let start = ContinuousClock.now
  try await hostA.execute(
    """
    UPDATE \(unescaped: BenchServer.table) SET value = \(String(value))::jsonb WHERE key = 'edit'
    """)
  guard let at = await seen.wait(upTo: .seconds(5)) else {
    throw BenchmarkFailure("the holder did not see edit \(value) within 5 s")
  }
  // The callback fires as the value is about to change: it is current soon after.
  try await eventually(within: .seconds(1), "edit \(value) reaching the holder") {
    holder.wrappedValue == value
  }
  return at - start
}

/// `pg_notify` on `hostA`, until `listener` has the notification and has read the row.
private func notifyRoundTrip(
  _ round: Int, from hostA: PostgresConnection, to listener: PostgresConnection,
  _ notes: inout PostgresNotificationSequence.AsyncIterator
) async throws -> Duration {
  let start = ContinuousClock.now
  // Sent without waiting for its reply, as the edit above is seen without waiting for it.
  async let sent: Void = hostA.execute("SELECT pg_notify('bench_raw', \("edit:\(round)"))")
  guard let note = try await notes.next(), note.payload == "edit:\(round)" else {
    throw BenchmarkFailure("the listener did not receive notification \(round)")
  }
  _ = try await listener.firstRow(readRow("edit"))
  let end = ContinuousClock.now
  try await sent
  return end - start
}

/// An `UPDATE` of a row on `hostA`, until `listener` has its trigger's notification and has read
/// the row.
private func updateRoundTrip(
  _ round: Int, from hostA: PostgresConnection, to listener: PostgresConnection,
  _ notes: inout PostgresNotificationSequence.AsyncIterator
) async throws -> Duration {
  let start = ContinuousClock.now
  async let sent: Void = hostA.execute(
    """
    UPDATE \(unescaped: BenchServer.table) SET value = \(String(round))::jsonb
    WHERE key = 'raw_update'
    """)
  // The channel also carries the announcements of the edits above: those are passed over.
  while true {
    guard let note = try await notes.next() else {
      throw BenchmarkFailure("the listener stopped listening")
    }
    if note.payload.hasPrefix("raw_update:") { break }
  }
  _ = try await listener.firstRow(readRow("raw_update"))
  let end = ContinuousClock.now
  try await sent
  return end - start
}

/// The statement a store reads a row with.
private func readRow(_ key: String) -> PostgresQuery {
  "SELECT value::text, version FROM \(unescaped: BenchServer.table) WHERE key = \(key)"
}

/// Saves of one key, one after another (benchmark 2).
private let savesPerSample = 1_000

/// The values saved so far: every save writes a value the key has not held yet.
private let savedValues = Atomic<Int>(0)

/// `savesPerSample` values of one key, each set with `withLock` and written with `save()`,
/// against the statement a store writes with (an upsert over the version last written,
/// returning the new one), awaited each time on a plain connection, to the same table.
private func postgresSaveBenchmarks(_ server: BenchServer) {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 1,
    maxDuration: .seconds(20), maxIterations: 7)

  Benchmark("postgres.save.tether", configuration: configuration) { benchmark in
    try await server.withHost {
      let holder = Shared(wrappedValue: 0, .registered("save"))
      try await loaded(holder)
      let base = savedValues.add(savesPerSample, ordering: .relaxed).oldValue
      benchmark.startMeasurement()
      for value in base..<(base + savesPerSample) {
        holder.withLock { $0 = value }
        try await holder.save()
      }
      benchmark.stopMeasurement()
    }
  }

  Benchmark("postgres.save.byhand", configuration: configuration) { benchmark in
    // The table, with its triggers, as a store makes it.
    try await server.withHost { try await loaded(Shared(wrappedValue: 0, .registered("save"))) }
    try await server.withConnection { connection in
      var version = try await connection.firstRow(readRow("save_byhand"))?.1 ?? 0
      let base = savedValues.add(savesPerSample, ordering: .relaxed).oldValue
      benchmark.startMeasurement()
      for value in base..<(base + savesPerSample) {
        guard
          let written = try await connection.firstRow(
            """
            INSERT INTO \(unescaped: BenchServer.table) AS stored (key, value, version)
            VALUES ('save_byhand', \(String(value))::jsonb, 0)
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE stored.version = \(version)
            RETURNING ''::text, version
            """)
        else { throw BenchmarkFailure("the row moved under the upsert of \(value)") }
        version = written.1
      }
      benchmark.stopMeasurement()
    }
  }
}

/// Keys started, after as many that warm up (benchmark 3).
private let startedKeys = 200

/// A holder of a key no holder had yet, on a store already connected, until its first load is
/// done (`isLoading` false); against the statement that load runs, by hand: one round trip.
private func postgresStartBenchmark(_ server: BenchServer) {
  Benchmark("postgres.start", configuration: once([counted("tether.us"), counted("byhand.us")])) {
    benchmark in
    // Names no earlier run of this benchmark on the same server used.
    let run = UUID().uuidString.prefix(8).lowercased()
    try await server.withHost {
      try await loaded(Shared(wrappedValue: 0, .registered("start")))  // Connected from here.
      try await server.withConnection { connection in
        var held: [Shared<Int>] = []  // Kept, so that no holder's end is in a later figure.
        for index in 0..<(warmupRounds + startedKeys) {
          let done = Moment()
          let start = ContinuousClock.now
          let holder = Shared(wrappedValue: 0, .registered("start.\(run).\(index)"))
          withObservationTracking {
            _ = holder.isLoading
          } onChange: {
            done.mark()
          }
          if !holder.isLoading { done.mark() }  // Loaded before it was watched.
          guard let at = await done.wait(upTo: .seconds(5)) else {
            throw BenchmarkFailure("key \(index) was still loading after 5 s")
          }
          try await eventually(within: .seconds(1), "the load of key \(index)") {
            !holder.isLoading && holder.loadError == nil
          }
          held.append(holder)

          let byHand = ContinuousClock.now
          _ = try await connection.firstRow(readRow("start.\(run).byhand.\(index)"))
          let byHandEnd = ContinuousClock.now
          guard index >= warmupRounds else { continue }
          benchmark.measurement(counted("tether.us"), microseconds(at - start))
          benchmark.measurement(counted("byhand.us"), microseconds(byHandEnd - byHand))
        }
        blackHole(held)
      }
    }
  }
}
