import Foundation
import Testing

/// Every Swift sample in the README, the command-line tool article and the strategy guide is
/// compiled code: each one appears, line for line, in a source file of this package that the
/// build compiles.
@Suite struct ReadmeTests {
  static let root = URL(filePath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Where the samples live: the overview here, the strategy example, its registration and
  /// its tests, the trait's test.
  static let sources = [
    "Tests/TetherCLITests/ReadmeOverview.swift",
    "Tests/TetherCLITests/ReadmeSettings.swift",
    "Tests/TetherTests/Examples/Journal.swift",
    "Tests/TetherTests/Examples/JournalApp.swift",
    "Tests/TetherTests/Examples/JournalConformanceTests.swift",
    "Tests/TetherTests/Examples/JournalStrategy.swift",
    "Tests/TetherTests/Examples/JournalStrategyTests.swift",
    "Tests/TetherTests/TetherBootstrapTraitTests.swift",
  ]

  /// The strategy guide, which shows the journal example's files whole.
  static let guide = "Sources/Tether/Documentation.docc/WritingAStrategy.md"

  @Test func everySwiftSampleIsInACompiledFile() throws {
    try Self.expectCompiled("README.md", atLeast: 1)
    try Self.expectCompiled("Sources/Tether/Documentation.docc/TheCommandLineTool.md", atLeast: 1)
  }

  @Test func everySwiftSampleOfTheStrategyGuideIsInACompiledFile() throws {
    try Self.expectCompiled(Self.guide, atLeast: 4)
    // Whole files, not fragments: what a reader copies compiles as it is.
    let guide = try String(contentsOf: Self.root.appending(path: Self.guide), encoding: .utf8)
    for example in ["JournalStrategy", "Journal", "JournalApp", "JournalConformanceTests"] {
      let file = try String(
        contentsOf: Self.root.appending(path: "Tests/TetherTests/Examples/\(example).swift"),
        encoding: .utf8)
      #expect(guide.contains("```swift\n\(file)```"), "\(example).swift is not shown whole")
    }
    // The config dialect reads text after a value as part of it: comments take whole lines.
    let trailing = guide.split(separator: "\n").filter {
      guard let equals = $0.firstIndex(of: "=") else { return false }
      return $0.hasPrefix("///") && $0[equals...].contains(" #")
    }
    #expect(trailing.isEmpty, "trailing comments: \(trailing)")
  }

  /// Expects every ```swift block of `document` in one of ``sources``, and `count` at least.
  private static func expectCompiled(_ document: String, atLeast count: Int) throws {
    let text = try String(contentsOf: root.appending(path: document), encoding: .utf8)
    let samples = text.components(separatedBy: "```swift\n").dropFirst().map {
      $0.components(separatedBy: "```").first ?? ""
    }
    #expect(samples.count >= count, "\(document) has \(samples.count) Swift samples")
    let files = try sources.map {
      try String(contentsOf: root.appending(path: $0), encoding: .utf8)
    }
    for sample in samples {
      let lines = lines(sample)
      let found = files.contains { contains(Self.lines($0), lines) }
      #expect(found, "\(document) sample not found in \(sources):\n\(sample)")
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
