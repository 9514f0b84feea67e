import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A `Date` is written so that it reads back as the very same `Date`, bit for bit, or refused
/// when saved: never written as something that reads back as another date, or not at all.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsDateTests {
  /// Seconds from 2001-01-01T00:00:00Z to 0000-01-01T00:00:00Z and to 10000-01-01T00:00:00Z:
  /// the first instant RFC 3339's four-digit years can write, and the first they cannot.
  static let firstWritable = -63_145_526_400.0
  static let firstUnwritable = 252_423_993_600.0

  /// Dates an app meets, and the edges: fractions far below a microsecond, before 1970 and
  /// before 2001 (where the whole seconds round down, away from zero), the last instant of the
  /// year 9999 and the first of the year 0.
  static let table: [Date] = [
    Date(), Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSince1970: 0),
    Date(timeIntervalSinceReferenceDate: 1e-7), Date(timeIntervalSinceReferenceDate: -1e-7),
    Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude),
    Date(timeIntervalSinceReferenceDate: -.leastNonzeroMagnitude),
    Date(timeIntervalSinceReferenceDate: 0.1), Date(timeIntervalSinceReferenceDate: -0.1),
    Date(timeIntervalSinceReferenceDate: 1e-7 + 1), Date(timeIntervalSinceReferenceDate: -1.5),
    Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: -1_234_567.891_011_121_3),
    Date(timeIntervalSince1970: -86_400 * 365 * 30 + 0.123_456_789),
    Date(timeIntervalSince1970: 1000.123456), Date(timeIntervalSince1970: 1_763_717_400.75),
    Date(timeIntervalSinceReferenceDate: firstUnwritable.nextDown),
    Date(timeIntervalSinceReferenceDate: firstWritable),
    Date(timeIntervalSinceReferenceDate: firstWritable.nextUp), .distantPast, .distantFuture,
  ]

  /// Each date of the table, saved by a holder and read by a holder of a fresh scope.
  @Test func everyDateOfTheTableReadsBackBitForBit() async throws {
    try await withTemporaryDirectory { folder in
      let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
      for (index, date) in Self.table.enumerated() {
        @Shared(.defaults("d\(index)", store: store)) var stored = Date.distantPast
        $stored.withLock { $0 = date }
        try await $stored.save()
      }
      try await expectReadBack(Self.table, from: store)
    }
  }

  /// Random dates over all the years a file can hold, and near 2001-01-01, where a `Double`
  /// holds the most fractional digits; from a fixed seed, so that a failure reproduces.
  @Test func randomDatesReadBackBitForBit() async throws {
    var random = SeededGenerator(seed: 0x5EED_DA7E)
    var dates: [Date] = []
    for index in 0..<3_000 {
      let range =
        [Self.firstWritable..<Self.firstUnwritable, -86_400.0..<86_400, -1.0..<1][index % 3]
      dates.append(Date(timeIntervalSinceReferenceDate: .random(in: range, using: &random)))
    }
    try await withTemporaryDirectory { folder in
      let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
      // Held together, as an app's holders are: their changes are written as one.
      var holders: [Shared<Date>] = []
      for (index, date) in dates.enumerated() {
        let holder = Shared(wrappedValue: Date.distantPast, .defaults("d\(index)", store: store))
        holder.withLock { $0 = date }
        holders.append(holder)
      }
      try await holders[0].save()
      for (index, holder) in holders.enumerated() where holder.saveError != nil {
        Issue.record("d\(index): \(String(describing: holder.saveError))")
      }
      try await expectReadBack(dates, from: store)
    }
  }

  /// A date whose year RFC 3339 cannot write (33658, -1199) is a save error naming the key, the
  /// file and why; nothing is written.
  @Test(arguments: [1e12, -1e11])
  func aDateOutsideTheYears0To9999IsRefusedWhenSaved(secondsSince1970: Double) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let original = "# mine\nwhen = 2026-11-21T09:30:00Z\n"
      try Data(original.utf8).write(to: file)
      let store = DefaultsStore(file: file)
      @Shared(.defaults("when", store: store)) var when = Date.distantPast
      $when.withLock { $0 = Date(timeIntervalSince1970: secondsSince1970) }
      let error = await #expect(throws: TetherError.self) { try await $when.save() }
      for description in [error?.description, ($when.saveError as? TetherError)?.description] {
        let text = description ?? "no error"
        #expect(text.hasPrefix("\(file.path): key \"when\": "), "\(text)")
        #expect(text.contains("outside 0000-9999"), "\(text)")
      }
      await TetherSystem.flush()
      #expect(contents(file) == original)
    }
  }

  /// Dates a person writes: an offset, and more fractional digits than a `Double` holds, read
  /// as the `Double` nearest to the decimal they write.
  @Test func aHandWrittenDateReadsAsTheNearestDouble() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let lines = [
        "a = 2026-11-21T09:30:00.123456789012+02:00",
        "b = 2001-01-01T00:00:00.250000000000000000000000000001-00:30",
        "c = 2000-12-31T23:59:59.9999999999999999999999Z",
      ]
      try Data(lines.joined(separator: "\n").utf8).write(to: file)
      let store = DefaultsStore(file: file)
      let expected = ["816939000.123456789012", "1800.250000000000000000000000000001", "-1e-22"]
      for (name, text) in zip(["a", "b", "c"], expected) {
        @Shared(.defaults(name, store: store)) var date = Date.distantPast
        #expect($date.loadError == nil, "\(name)")
        #expect(date.timeIntervalSinceReferenceDate == Double(text), "\(name)")
      }
    }
  }

  /// Reads `dates`, by their index, in a scope of their own, so that nothing this process knows
  /// of the file stands in for what it holds.
  private func expectReadBack(
    _ dates: [Date], from store: DefaultsStore, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await TetherSystem.withBootstrap(configuration: .string(""), strategies: []) {
      // Held together: the file is read once, not once for each key.
      var holders: [Shared<Date>] = []
      defer { holders.removeAll() }
      for (index, date) in dates.enumerated() {
        let read = Shared(wrappedValue: Date.distantPast, .defaults("d\(index)", store: store))
        holders.append(read)
        let (written, found) = (
          date.timeIntervalSinceReferenceDate, read.wrappedValue.timeIntervalSinceReferenceDate
        )
        guard written.bitPattern == found.bitPattern, read.loadError == nil else {
          Issue.record(
            "d\(index): \(written) read back as \(found), \(String(describing: read.loadError))",
            sourceLocation: sourceLocation)
          return
        }
      }
    }
  }
}

/// SplitMix64: a small seeded generator, so that a failure names values that reproduce it.
private struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
