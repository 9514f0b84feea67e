import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

/// Processes killed in the middle of counting with transactions (DESIGN §12).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct TransactionKillTests {
  /// 200 SIGKILLs, two processes at a time transacting one file key: after every kill the file
  /// decodes, and in the end it holds at least every acknowledged transaction and at most one
  /// more per process killed (its transaction in flight).
  @Test func twoHundredSIGKILLsOfTransactingProcesses() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "counter.json")
      let go = folder.appending(path: "go")
      try Data().write(to: go)
      var generator = SystemRandomNumberGenerator()
      var (acknowledged, killed, last) = (0, 0, 0)
      for round in 0..<100 {
        var children: [(Process, URL)] = []
        for index in 0..<2 {
          let output = folder.appending(path: "out-\(round)-\(index)")
          try Data().write(to: output)
          let process = try helperProcess(
            .transact(
              store: .file, file: file.path, key: "counter", count: 0, tag: "r\(round)p\(index)",
              go: go.path))
          process.standardOutput = try FileHandle(forWritingTo: output)
          // Killed, a child leaves its watcher's control folder: here, not in the shared /tmp.
          process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": folder.path]) { $1 }
          try process.run()
          children.append((process, output))
        }
        await expectEventually(timeout: .seconds(30), "round \(round): the children count") {
          (try? JSONDecoder().decode(Int.self, from: Data(contentsOf: file))) ?? 0 > last + 1
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...10_000, using: &generator)))
        for (process, _) in children { kill(process.processIdentifier, SIGKILL) }
        for (process, output) in children {
          _ = await waitForExit(process, timeout: .seconds(30))
          let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
          acknowledged += Transactors.acknowledged(in: text).count
          killed += 1
        }
        let data = try Data(contentsOf: file)
        let value = try? JSONDecoder().decode(Int.self, from: data)
        #expect(value != nil, "round \(round): \(String(decoding: data, as: UTF8.self))")
        last = value ?? last
      }
      #expect(killed == 200)
      #expect(
        (acknowledged...(acknowledged + killed)).contains(last),
        "\(last) counted, \(acknowledged) acknowledged, \(killed) killed")
    }
  }
}
