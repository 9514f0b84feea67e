public import Foundation
import Testing
import TetherTesting

/// Processes counting one key up together with `transaction`, started at once.
public enum Transactors {
  /// Runs `processes` helpers, each doing `count` transactions of `key` in `file` (and, with
  /// `mixed`, `withLock` + `save()` of its own key `"\(mixed)\(index)"` each round), released
  /// together once every one is ready. Returns each helper's run, by index.
  public static func run(
    _ store: TransactionStore, file: URL, key: String, processes: Int, count: Int,
    mixed: String? = nil
  ) async throws -> [HelperRun] {
    let go = file.deletingLastPathComponent().appending(path: "go-\(UUID().uuidString)").path
    return try await withThrowingTaskGroup(of: (Int, HelperRun).self) { group in
      for index in 0..<processes {
        group.addTask {
          let command = HelperCommand.transact(
            store: store, file: file.path, key: key, count: count,
            mixed: mixed.map { "\($0)\(index)" }, tag: "p\(index)", go: go)
          return (index, try await runHelper(command, timeout: .seconds(540)))
        }
      }
      await expectEventually(timeout: .seconds(120), "every helper ready") {
        (0..<processes).allSatisfy { FileManager.default.fileExists(atPath: "\(go).p\($0).ready") }
      }
      try Data().write(to: URL(filePath: go))
      var runs: [Int: HelperRun] = [:]
      for try await (index, run) in group { runs[index] = run }
      return (0..<processes).map { runs[$0]! }
    }
  }

  /// The values a helper's transactions wrote, from its `acked N` lines.
  public static func acknowledged(in output: String) -> [Int] {
    output.split(separator: "\n").compactMap { line in
      line.hasPrefix("acked ") ? Int(line.dropFirst("acked ".count)) : nil
    }
  }
}
