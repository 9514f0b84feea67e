/// The `[keys]` table: which strategy stores each key name.
///
/// An exact name wins, then the longest matching `prefix*` pattern, then `*`.
package struct KeyMapping: Sendable {
  /// One `[keys]` line.
  package struct Rule: Sendable {
    package let pattern: String
    package let strategy: String
    package let line: Int
  }

  package private(set) var rules: [Rule] = []
  private var exact: [String: Int] = [:]
  /// Indexes of `prefix*` rules, longest prefix first (`*` last, with an empty prefix).
  private var patterns: [(prefix: Substring, rule: Int)] = []

  package init() {}

  /// Adds a `[keys]` line; errors are located at `origin:line`.
  package mutating func add(
    pattern: String, strategy: String, line: Int, origin: String
  ) throws(TetherError) {
    let location = "\(origin):\(line)"
    guard !strategy.isEmpty else {
      throw .invalidConfiguration(
        message: "empty mapping: \"\(pattern)\" needs a strategy, e.g. \(pattern) = memory",
        location: location)
    }
    if let star = pattern.firstIndex(of: "*"), star != pattern.index(before: pattern.endIndex) {
      throw .invalidConfiguration(
        message: "\"*\" may only end a pattern, as in session.* or *, in \"\(pattern)\"",
        location: location)
    }
    // An exact name that no key can have maps nothing: said now rather than never matched.
    if !pattern.hasSuffix("*"), let reason = KeyName.problem(with: pattern) {
      throw .invalidConfiguration(
        message: "\"\(pattern)\" is not a key name: \(reason)", location: location)
    }
    rules.append(Rule(pattern: pattern, strategy: strategy, line: line))
    if pattern.hasSuffix("*") {
      patterns.append((pattern.dropLast(), rules.count - 1))
      patterns.sort { $0.prefix.count > $1.prefix.count }
    } else {
      exact[pattern] = rules.count - 1
    }
  }

  /// The rule that maps `name`, if any.
  package func rule(for name: String) -> Rule? {
    if let index = exact[name] { return rules[index] }
    return patterns.first { name.hasPrefix($0.prefix) }.map { rules[$0.rule] }
  }
}
