import Foundation
import Testing
import Tether
import TetherTesting

@Suite(.tetherBootstrap()) struct JournalConformanceTests {
  @Test func conformance() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "audit.journal")
      try await StrategyConformance.run(
        JournalStrategy.self, options: "file = \(file.path)",
        // Another journal of the file is another process: its lines reach the suite's holders
        // through `subscribe`.
        externalEdit: { name, value in
          try Journal(file: file).append(Journal.tag(name), json: Data("\(value)".utf8))
        },
        // The journal finds other processes' lines with a task polling on the cooperative
        // pool, which a test suite run in parallel can keep busy for longer than the default
        // deadline. Only a failure waits this out.
        deadline: .seconds(30))
    }
  }
}
