import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTestHelperSupport
import TetherTesting

/// `transaction` on defaults keys: counting across processes beside other keys' changes, and
/// what a transaction reads and refuses to write.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct DefaultsTransactionTests {
  struct Refused: Error {}

  /// DESIGN §12: 8 processes × 500 increments of one key of an existing file, exact (4 × 200 in
  /// `make test`); with `mixed`, each process also changes and saves a key of its own in the
  /// same file every round, and none of those changes is lost either.
  @Test(arguments: [false, true])
  func processesCountingWithTransactionsLoseNothing(mixed: Bool) async throws {
    let (processes, count) = (Soak.size(ci: 4, soak: 8), Soak.size(ci: 200, soak: 500))
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("# seeded\ncount = 0\n\n[k]\nother = kept\n".utf8).write(to: file)
      let runs = try await Transactors.run(
        .defaults, file: file, key: "count", processes: processes, count: count,
        mixed: mixed ? "own.p" : nil)
      var written: [Int] = []
      for (index, run) in runs.enumerated() {
        #expect(run.status == 0, "p\(index): \(run.errors)")
        #expect(run.report.saveFailures == [:], "p\(index)")
        written += Transactors.acknowledged(in: run.output)
      }
      let document = try INIDocument(parsing: Data(contentsOf: file), origin: file.path)
      #expect(document.value(section: "", name: "count") == "\(processes * count)")
      #expect(document.value(section: "k", name: "other") == "kept")
      #expect(written.count == processes * count, "acknowledged transactions")
      #expect(Set(written).count == written.count, "each value written by one transaction")
      guard mixed else { return }
      for index in 0..<processes {
        #expect(document.value(section: "own", name: "p\(index)") == "\(count)", "own.p\(index)")
        #expect(runs[index].report.seen == count, "own.p\(index) as its process held it")
      }
    }
  }

  /// With no line in the user's file, the transaction starts from the registration file's.
  @Test func aTransactionStartsFromTheRegistrationValue() async throws {
    try await withTemporaryDirectory { folder in
      let registration = folder.appending(path: "registration.ini")
      try Data("launches = 100\n".utf8).write(to: registration)
      try await defaultsBootstrap(folder, registration: registration.path) {
        let launches = Shared(wrappedValue: 0, .registered("launches"))
        let now = try await launches.transaction { value -> Int in
          value += 1
          return value
        }
        #expect(now == 101)
        #expect(launches.wrappedValue == 101)
        #expect(contents(folder.appending(path: "defaults.ini")) == "launches = 101\n")
      }
    }
  }

  /// A line that does not parse: its error naming the line, and the file as it was; a
  /// throwing body: its error, and the file as it was.
  @Test func aBadLineOrAThrowingBodyWritesNothing() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let original = "# mine\nlaunches = many\nother = 1\n"
      try Data(original.utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        let launches = Shared(wrappedValue: 0, .registered("launches"))
        await #expect {
          try await launches.transaction { $0 += 1 }
        } throws: { error in
          guard case .invalidValue(let key, _, let location) = error as? TetherError else {
            return false
          }
          return key == "launches" && location == "\(file.path):2"
        }
        #expect(contents(file) == original)
        let other = Shared(wrappedValue: 0, .registered("other"))
        await #expect(throws: Refused.self) {
          try await other.transaction { value in
            value = 7
            throw Refused()
          }
        }
        #expect(contents(file) == original)
        #expect(other.wrappedValue == 1)
      }
    }
  }

  /// Another key's change waiting in the throttle window is written too, and kept.
  @Test func anotherKeysPendingChangeIsKept() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try await defaultsBootstrap(folder) {
        let theme = Shared(wrappedValue: "light", .registered("ui.theme"))
        let count = Shared(wrappedValue: 0, .registered("count"))
        theme.withLock { $0 = "dark" }  // written at once
        theme.withLock { $0 = "blue" }  // pending for a second
        try await count.transaction { $0 += 1 }
        await TetherSystem.flush()
        #expect(contents(file) == "count = 1\n\n[ui]\ntheme = blue\n")
      }
    }
  }
}
