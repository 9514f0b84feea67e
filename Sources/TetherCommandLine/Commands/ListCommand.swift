import ArgumentParser
import Foundation
import Tether

/// `list`: every key the tool knows and every pattern, with its value and where it comes from.
struct ListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "Show each key and pattern: type, strategy, where it lives, value, its source.")

  @OptionGroup var options: ConfigOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await options.withSession { session in
      var rows: [[String: Any]] = []
      for name in session.keyNames {
        rows.append(await Self.row(for: try session.key(name)))
      }
      // A pattern's location is shown for a placeholder name.
      for rule in session.registry.mapping.rules where rule.pattern.hasSuffix("*") {
        let placeholder = String(rule.pattern.dropLast()) + "<name>"
        let location: String
        do {
          location = try ToolKey(
            placeholder, in: session.registry, declaration: nil, checkingName: false
          ).location
        } catch {
          location = "\(error)"
        }
        rows.append(["key": rule.pattern, "strategy": rule.strategy, "location": location])
      }
      if output.json {
        for row in rows { Output.json(row) }
      } else {
        Self.printTable(rows)
      }
    }
  }

  private static func row(for key: ToolKey) async -> [String: Any] {
    var row: [String: Any] = [
      "key": key.name, "strategy": key.strategy, "location": key.location,
      "type": key.declaration?.typeName ?? NSNull(),
    ]
    do {
      let reading = try await key.read()
      row["value"] = reading.value?.json ?? NSNull()
      row["text"] = reading.value?.text ?? NSNull()
      row["source"] = reading.source ?? (reading.value == nil ? "-" : "default")
    } catch {
      row["error"] = "\(error)"
    }
    return row
  }

  private static func printTable(_ rows: [[String: Any]]) {
    let columns = ["key", "type", "strategy", "location", "text", "source"]
    let cells = rows.map { row in
      columns.map { column -> String in
        if column == "text", let error = row["error"] as? String { return "unreadable: \(error)" }
        return row[column] as? String ?? "-"
      }
    }
    let header = ["KEY", "TYPE", "STRATEGY", "LOCATION", "VALUE", "FROM"]
    let widths = columns.indices.map { index in
      ([header] + cells).map { min($0[index].count, 40) }.max() ?? 0
    }
    for line in [header] + cells {
      let padded = line.indices.dropLast().map {
        line[$0].padding(toLength: max(widths[$0], line[$0].count) + 2, withPad: " ", startingAt: 0)
      }
      Output.line(padded.joined() + line[line.count - 1])
    }
  }
}
