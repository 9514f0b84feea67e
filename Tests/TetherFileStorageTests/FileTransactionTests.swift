import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

/// `transaction` on file keys: counting across processes, and what a transaction writes and
/// refuses to write.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct FileTransactionTests {
  struct Refused: Error {}

  /// DESIGN §12: 8 processes × 500 increments of one key, exact (4 × 200 in `make test`); and
  /// every value written by exactly one transaction.
  @Test func processesCountingWithTransactionsLoseNothing() async throws {
    let (processes, count) = (Soak.size(ci: 4, soak: 8), Soak.size(ci: 200, soak: 500))
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "counter.json")
      try Data("0".utf8).write(to: file)
      let runs = try await Transactors.run(
        .file, file: file, key: "counter", processes: processes, count: count)
      var written: [Int] = []
      for (index, run) in runs.enumerated() {
        #expect(run.status == 0, "p\(index): \(run.errors)")
        #expect(run.report.saveFailures == [:], "p\(index)")
        written += Transactors.acknowledged(in: run.output)
      }
      #expect(text(file) == "\(processes * count)")
      #expect(written.count == processes * count, "acknowledged transactions")
      #expect(Set(written).count == written.count, "each value written by one transaction")
    }
  }

  /// Transactions and `withLock` changes of one key from many tasks of one process: the
  /// transaction holds the `withLock` changes back, so none is lost on either side. (Each
  /// `withLock` task waits on a thread of the shared pool while a transaction writes: kept
  /// small in `make test`, which runs other tests beside it.)
  @Test func transactionsAndWithLockInOneProcessLoseNothing() async throws {
    let tasks = Soak.size(ci: 40, soak: 100)
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "counter.json")
      let counter = Shared(wrappedValue: 0, .fileStorage(file))
      try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
          group.addTask {
            for _ in 0..<10 {
              if task.isMultiple(of: 2) {
                try await counter.transaction { $0 += 1 }
              } else {
                counter.withLock { $0 += 1 }
              }
            }
          }
        }
        try await group.waitForAll()
      }
      #expect(counter.wrappedValue == tasks * 10)
      await TetherSystem.flush()
      #expect(text(file) == "\(tasks * 10)")
    }
  }

  /// A change still in the throttle window is written before the transaction reads: it counts.
  @Test func aPendingChangeIsWrittenBeforeTheTransactionReads() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      value.withLock { $0 = 1 }  // written at once
      value.withLock { $0 = 2 }  // pending for a second
      let result = try await value.transaction { value -> Int in
        value += 10
        return value
      }
      #expect(result == 12)
      #expect(text(file) == "12")
      #expect(value.wrappedValue == 12)
      await TetherSystem.flush()
      #expect(text(file) == "12", "nothing older written after the transaction")
    }
  }

  /// A throwing body: the error comes back and nothing is written, not even the same bytes.
  @Test func aBodyThatThrowsWritesNothing() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      try Data("5".utf8).write(to: file)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      let before = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber]
      await #expect(throws: Refused.self) {
        try await value.transaction { value in
          value = 99
          throw Refused()
        }
      }
      #expect(text(file) == "5")
      #expect(value.wrappedValue == 5)
      let after = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber]
      #expect(before as? Int == after as? Int, "the file was not replaced")
    }
  }

  /// A file that does not decode: its decoding error, and the file as it was.
  @Test func aCorruptFileThrowsItsDecodingErrorAndStays() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      try Data("{oops".utf8).write(to: file)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      await #expect(throws: DecodingError.self) {
        try await value.transaction { $0 += 1 }
      }
      #expect(text(file) == "{oops")
    }
  }

  /// The lock file is never followed or opened blocking: a FIFO there is an error naming it.
  @Test func aLockFileThatIsAFIFOIsRefusedNamingIt() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      let lock = folder.appending(path: ".v.json.lock")
      #expect(mkfifo(lock.path, 0o600) == 0)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      await #expect {
        try await value.transaction { $0 += 1 }
      } throws: { error in
        guard case .unusableFile(let path, _) = error as? TetherError else { return false }
        return path == lock.path
      }
      #expect(text(file) == nil, "nothing written")
    }
  }

  /// A holder in another process sees what a transaction wrote.
  @Test func anotherProcessSeesTheCommittedValue() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "shared.json")
      let ready = folder.appending(path: "ready")
      try Data("40".utf8).write(to: file)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      let child = Task {
        try await runHelper(.waitFor(file: file.path, value: 41, ready: ready.path))
      }
      await expectEventually(timeout: .seconds(30)) {
        FileManager.default.fileExists(atPath: ready.path)
      }
      try await value.transaction { $0 += 1 }
      let result = try await child.value
      #expect(result.status == 0, "\(result.errors)")
    }
  }
}
