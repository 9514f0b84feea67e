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
        })
    }
  }
}
