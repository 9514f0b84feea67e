import ArgumentParser
import Foundation
import Tether

/// `tether list`: each mapped key or pattern, its strategy, and where its value lives.
struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "Show each mapped key or pattern and where its value lives.")

  @OptionGroup var options: ConfigOptions

  func run() throws {
    let registry = try options.registry()
    let rows = try registry.mapping.rules.map { rule -> [String] in
      // A pattern's location is shown for a placeholder name.
      let mapped =
        rule.pattern.hasSuffix("*")
        ? try MappedKey(pattern: rule.pattern.dropLast() + "<name>", in: registry)
        : try MappedKey(rule.pattern, in: registry)
      return [rule.pattern, rule.strategy, try mapped.location()]
    }
    let widths = (0..<2).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      print(
        row[0].padding(toLength: widths[0] + 2, withPad: " ", startingAt: 0)
          + row[1].padding(toLength: widths[1] + 2, withPad: " ", startingAt: 0) + row[2])
    }
  }
}
