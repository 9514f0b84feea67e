import Foundation
import Testing

/// Every Swift sample in the README is compiled code: each one appears, line for line, in a
/// source file of this package that the build compiles.
@Suite struct ReadmeTests {
  static let root = URL(filePath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Where the samples live: the overview here, the strategy example and its test, the trait's test.
  static let sources = [
    "Tests/TetherCLITests/ReadmeOverview.swift",
    "Tests/TetherCLITests/ReadmeSettings.swift",
    "Tests/TetherTests/Examples/JournalStrategy.swift",
    "Tests/TetherTests/Examples/JournalStrategyTests.swift",
    "Tests/TetherTests/TetherBootstrapTraitTests.swift",
  ]

  @Test func everySwiftSampleIsInACompiledFile() throws {
    let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
    let samples = readme.components(separatedBy: "```swift\n").dropFirst().map {
      $0.components(separatedBy: "```").first ?? ""
    }
    #expect(samples.count >= 3)
    let files = try Self.sources.map {
      try String(contentsOf: Self.root.appending(path: $0), encoding: .utf8)
    }
    for sample in samples {
      let lines = Self.lines(sample)
      let found = files.contains { Self.contains(Self.lines($0), lines) }
      #expect(found, "README sample not found in \(Self.sources):\n\(sample)")
    }
  }

  /// Non-blank lines without indentation, runs of spaces as one: samples may sit deeper in a
  /// compiled file, and the formatter does not keep the README's aligned comments.
  private static func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }.filter { !$0.isEmpty }
  }

  private static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
    return (0...(haystack.count - needle.count)).contains {
      Array(haystack[$0..<$0 + needle.count]) == needle
    }
  }
}
