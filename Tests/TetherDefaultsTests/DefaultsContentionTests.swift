import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTestHelperSupport
import TetherTesting

/// Many processes writing one defaults file that already exists: every change of every key
/// present at the end, and no process's own key ever going back (DESIGN §12). `make test` runs
/// them small; `make soak` at full size.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct DefaultsContentionTests {
  /// Each process counts its own key `k.pN` up, saving each change; the file holds other keys,
  /// which must come through untouched.
  @Test func processesCountingTheirOwnKeysLoseNothing() async throws {
    let processes = Soak.size(ci: 4, soak: 8)
    let count = Soak.size(ci: 300, soak: 1_000)
    for round in 0..<Soak.size(ci: 1, soak: 3) {
      try await withTemporaryDirectory { folder in
        let file = folder.appending(path: "defaults.ini")
        try Data("# seeded\ndcount = 250\n\n[k]\nother = kept\n".utf8).write(to: file)
        let go = folder.appending(path: "go").path
        let runs = try await withThrowingTaskGroup(of: (Int, HelperRun).self) { group in
          for index in 0..<processes {
            group.addTask {
              let run = try await runHelper(
                .defaultsCount(
                  file: file.path, key: "k.p\(index)", count: count, throttle: "1s", go: go),
                timeout: .seconds(540))
              return (index, run)
            }
          }
          await expectEventually(timeout: .seconds(120)) {
            (0..<processes).allSatisfy {
              FileManager.default.fileExists(atPath: "\(go).k.p\($0).ready")
            }
          }
          try Data().write(to: URL(filePath: go))
          var runs: [Int: HelperRun] = [:]
          for try await (index, run) in group { runs[index] = run }
          return runs
        }
        let document = try INIDocument(parsing: Data(contentsOf: file), origin: file.path)
        #expect(document.value(section: "", name: "dcount") == "250", "round \(round)")
        #expect(document.value(section: "k", name: "other") == "kept", "round \(round)")
        for index in 0..<processes {
          let run = try #require(runs[index])
          #expect(run.status == 0, "round \(round), k.p\(index): \(run.errors)")
          let report = run.report
          #expect(
            document.value(section: "k", name: "p\(index)") == "\(count)",
            "round \(round): the file's k.p\(index)")
          #expect(report.seen == count, "round \(round): the value k.p\(index)'s process held")
          #expect(report.wentBack == 0, "round \(round): k.p\(index) went back")
          #expect(report.saveFailures == [:], "round \(round): k.p\(index)'s saves")
        }
      }
    }
  }
}
