import Foundation
import Testing
import TetherTesting

/// `notes` counts every start with a transaction on its defaults key: exact however many
/// processes start at once.
@Suite struct LaunchTests {
  @Test func eachStartCountsOnce() async throws {
    try await withHome { home in
      for launch in 1...5 {
        let result = try await home.notes()
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Launch \(launch)."), "\(result.output)")
      }
      let counted = try await home.succeeding("get", "launches")
      #expect(counted == "5\n")
    }
  }

  @Test func concurrentStartsLoseNoCount() async throws {
    let (processes, launches) = (4, 5)
    try await withHome { home in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<processes {
          group.addTask {
            for _ in 0..<launches {
              let result = try await home.notes("list")
              #expect(result.status == 0, "\(result.errors)")
            }
          }
        }
        try await group.waitForAll()
      }
      let counted = try await home.succeeding("get", "launches")
      #expect(counted == "\(processes * launches)\n")
    }
  }

  @Test func theSettingsCommandIsNotALaunch() async throws {
    try await withHome { home in
      _ = try await home.notes()
      try await home.succeeding("list")
      try await home.succeeding("get", "launches")
      #expect(try await home.succeeding("get", "launches") == "1\n")
    }
  }
}
