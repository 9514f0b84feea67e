import Foundation
public import Testing
import TetherTesting

/// Two processes rallying one counter (``HelperCommand/rally(store:file:key:parity:until:go:)``):
/// each answers the other's value with the next one as soon as it shows, so every stroke is a
/// change made in one process that the other must see, and a change lost stops the rally.
///
/// ```swift
/// try await Rally.expectFinished(store: .file, file: file.path, key: "count", until: 1_000,
///                                go: folder.appending(path: "go").path)
/// ```
public enum Rally {
  /// Runs the two helpers until the counter reaches `until`; expects both to end there, with no
  /// save thrown.
  public static func expectFinished(
    store: TransactionStore, file: String, key: String, until: Int, go: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let runs = try await withThrowingTaskGroup(of: (Int, HelperRun).self) { group in
      for parity in 0..<2 {
        group.addTask {
          let command = HelperCommand.rally(
            store: store, file: file, key: key, parity: parity, until: until, go: go)
          return (parity, try await runHelper(command, timeout: .seconds(300)))
        }
      }
      await expectEventually(timeout: .seconds(120), sourceLocation: sourceLocation) {
        (0..<2).allSatisfy { FileManager.default.fileExists(atPath: "\(go).\($0).ready") }
      }
      try Data().write(to: URL(filePath: go))
      var runs: [Int: HelperRun] = [:]
      for try await (parity, run) in group { runs[parity] = run }
      return runs
    }
    for parity in 0..<2 {
      let run = try #require(runs[parity], sourceLocation: sourceLocation)
      let side = parity == 0 ? "the even side" : "the odd side"
      #expect(run.status == 0, "\(side): \(run.errors)", sourceLocation: sourceLocation)
      #expect(run.report.seen == until, "\(side) ended at", sourceLocation: sourceLocation)
      #expect(run.report.saveFailures == [:], "\(side)'s saves", sourceLocation: sourceLocation)
    }
  }
}
